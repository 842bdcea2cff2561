import EventTime
import ResponderCore

/// Recognizes a call on the proxy player that is a press responderd already dispatched from a
/// device: the desktop (gsd-media-keys, KDE's mediacontrol, a playerctl binding) saw the same key
/// and called `org.mpris.MediaPlayer2.responderd`, which would make the press act twice (DESIGN.md
/// section 3a, one press, one action).
///
/// A call echoes a device event when it asks for the same action (PlayPause, Play and Pause are
/// all the play/pause key: the desktop maps KEY_PLAYPAUSE and KEY_PLAYCD to the same keysym), the
/// device event was dispatched at most `window` before the call, and no earlier call echoed that
/// event already. Any other call (a desktop widget, playerctl, KDE Connect) is genuine.
public struct ProxyEchoFilter: Sendable {
  /// The standard window: 0.1 s. Measured against Debian's gsd-media-keys 43 (the GNOME test's
  /// harness: a stand-in shell emits AcceleratorActivated, gsd calls PlayPause): 0.35 ms median,
  /// 4.5 ms at most over 60 presses on a machine loaded to 20 on 2 cores; with the compositor in
  /// front, gsd calls 4–5 ms after the key. 0.1 s is 20 times that, and shorter than any
  /// deliberate second press of a key (the fastest tapping is about 150 ms apart).
  public static let standardWindow: Seconds = 0.1

  /// A device event the filter remembers.
  public struct DevicePress: Equatable, Sendable {
    public var subtype: EventSubtype
    /// Where it came from ("evdev:/dev/input/event3").
    public var source: String
    /// The event's own timestamp.
    public var timestamp: Seconds
    /// When it was dispatched (the scheduler's clock).
    public var dispatchedAt: Seconds
  }

  public var window: Seconds
  private var recent: [DevicePress] = []

  public init(window: Seconds = Self.standardWindow) {
    self.window = window
  }

  /// Notes a remote-control event dispatched from a device at `now`.
  public mutating func deviceDispatched(
    _ subtype: EventSubtype, source: String, timestamp: Seconds, at now: Seconds
  ) {
    forgetOld(now)
    recent.append(DevicePress(subtype: subtype, source: source, timestamp: timestamp, dispatchedAt: now))
  }

  /// The device event a proxy call for `subtype` arriving at `now` repeats, nil when the call is
  /// genuine. The event matched is used up: a second call is genuine again.
  public mutating func echo(of subtype: EventSubtype, at now: Seconds) -> DevicePress? {
    forgetOld(now)
    let action = Self.action(of: subtype)
    guard let index = recent.firstIndex(where: { Self.action(of: $0.subtype) == action }) else { return nil }
    return recent.remove(at: index)
  }

  private mutating func forgetOld(_ now: Seconds) {
    recent.removeAll { now - $0.dispatchedAt > window }
  }

  /// The key behind an action: play, pause and togglePlayPause are one key to the desktop.
  static func action(of subtype: EventSubtype) -> EventSubtype {
    switch subtype {
    case .remoteControlPlay, .remoteControlPause: .remoteControlTogglePlayPause
    default: subtype
    }
  }
}
