import EventTime
import ResponderCore

/// Recognizes one press that reaches responderd twice: from its device, and as a call on the
/// proxy player made by the desktop (gsd-media-keys, KDE's mediacontrol, a playerctl binding) that
/// saw the same key. Without it the press would act twice (one press, one action:
/// docs/design.md#one-press-one-action).
///
/// The two are the same press when they ask for the same action (PlayPause, Play and Pause are all
/// the play/pause key: the desktop maps KEY_PLAYPAUSE and KEY_PLAYCD to the same keysym) and the
/// second comes at most `window` after the first; each is matched once. Whichever comes first is
/// dispatched and the second is the duplicate: usually the device's event is first, but a busy
/// responderd may read its device after the desktop's call arrived. Next and previous skip at the
/// key's release while the desktop calls at its press: a device event is matched with a call made
/// within `window` of its key's press. A call with no press behind it (a desktop widget,
/// playerctl, KDE Connect) is dispatched as any.
public struct ProxyEchoFilter: Sendable {
  /// The standard window: 0.1 s. Measured against Debian's gsd-media-keys 43 (the GNOME test's
  /// harness, a stand-in shell emitting AcceleratorActivated): gsd calls 0.35 ms (median) and 4.5
  /// ms (worst of 60) after the shell's signal on a machine loaded to 20 on 2 cores, and the GNOME
  /// test sees the call 1–6 ms after responderd dispatched the key (in either order); with the
  /// compositor in front, gsd calls 4–5 ms after the key (the GNOME test on the real GNOME Shell 43:
  /// 3–8 ms after responderd's own dispatch). 0.1 s is 20 times that, and shorter
  /// than any deliberate second press of a key (the fastest tapping is about 150 ms apart).
  public static let standardWindow: Seconds = 0.1

  /// A press (or call) the filter remembers.
  public struct Press: Equatable, Sendable {
    public var subtype: EventSubtype
    /// Where it came from ("evdev:/dev/input/event3", or "mpris-proxy").
    public var source: String
    /// When it was dispatched (the scheduler's clock).
    public var dispatchedAt: Seconds
  }

  public var window: Seconds
  private var deviceEvents: [Press] = []
  private var proxyCalls: [Press] = []

  public init(window: Seconds = Self.standardWindow) {
    self.window = window
  }

  /// A call on the proxy player for `subtype` at `now`: the device event it repeats (then do not
  /// dispatch it), or nil when it is a call of its own (it is noted, and dispatched).
  public mutating func proxyCalled(_ subtype: EventSubtype, at now: Seconds) -> Press? {
    forgetOld(now)
    if let index = Self.match(subtype, in: deviceEvents) { return deviceEvents.remove(at: index) }
    proxyCalls.append(Press(subtype: subtype, source: "mpris-proxy", dispatchedAt: now))
    return nil
  }

  /// A remote-control event from a device at `now`, whose key went down `sincePress` before: the
  /// proxy call it repeats (then do not dispatch it), or nil when it is a press of its own (it is
  /// noted, and dispatched).
  public mutating func devicePosted(
    _ subtype: EventSubtype, source: String, at now: Seconds, sincePress: Seconds = 0
  ) -> Press? {
    forgetOld(now)
    let pressedAt = now - max(0, sincePress)
    let action = Self.action(of: subtype)
    if let index = proxyCalls.firstIndex(where: {
      Self.action(of: $0.subtype) == action && abs($0.dispatchedAt - pressedAt) <= window
    }) {
      return proxyCalls.remove(at: index)
    }
    deviceEvents.append(Press(subtype: subtype, source: source, dispatchedAt: now))
    return nil
  }

  private static func match(_ subtype: EventSubtype, in presses: [Press]) -> Int? {
    let action = action(of: subtype)
    return presses.firstIndex { Self.action(of: $0.subtype) == action }
  }

  /// How long a proxy call is kept for a skip made at its key's release: longer than any press
  /// short of a hold (`hold-threshold`, 0.5 s by default).
  public static let longestSkipPress: Seconds = 5

  private mutating func forgetOld(_ now: Seconds) {
    deviceEvents.removeAll { now - $0.dispatchedAt > window }
    proxyCalls.removeAll { now - $0.dispatchedAt > window + Self.longestSkipPress }
  }

  /// The key behind an action: play, pause and togglePlayPause are one key to the desktop.
  static func action(of subtype: EventSubtype) -> EventSubtype {
    switch subtype {
    case .remoteControlPlay, .remoteControlPause: .remoteControlTogglePlayPause
    default: subtype
    }
  }
}
