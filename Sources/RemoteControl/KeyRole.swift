import InputCodes
import ResponderCore

/// A direction of seeking: forward (fast-forward, next held) or backward (rewind, previous held).
public enum SeekDirection: Hashable, Sendable {
  case forward
  case backward

  /// The event that starts seeking in this direction.
  public var begin: EventSubtype {
    self == .forward ? .remoteControlBeginSeekingForward : .remoteControlBeginSeekingBackward
  }

  /// The event that ends seeking in this direction.
  public var end: EventSubtype {
    self == .forward ? .remoteControlEndSeekingForward : .remoteControlEndSeekingBackward
  }

  /// The track-change event of a skip key in this direction (next or previous track).
  public var skip: EventSubtype {
    self == .forward ? .remoteControlNextTrack : .remoteControlPreviousTrack
  }
}

/// What a mapped key does (DESIGN.md section 3).
public enum KeyRole: Hashable, Sendable {
  /// Emits the event when the key goes down (play/pause, play, pause, stop).
  case onPress(EventSubtype)
  /// Next or previous track at release when released before `hold-threshold`; held that long,
  /// seeks instead (begin at press + hold-threshold, end at release). No click grammar.
  case skip(SeekDirection)
  /// Begins seeking when the key goes down, ends it when the key goes up (fast-forward, rewind).
  case seek(SeekDirection)
  /// The one-button headset key: the click grammar (click, double, triple, and held variants).
  case headsetButton

  /// The config name of the role ("togglePlayPause", "next", "fastForward", "headset", …).
  public var name: String {
    switch self {
    case .onPress(let subtype): subtype.name
    case .skip(.forward): "nextTrack"
    case .skip(.backward): "previousTrack"
    case .seek(.forward): "seekForward"
    case .seek(.backward): "seekBackward"
    case .headsetButton: "headset"
    }
  }

  /// Every role a config can name.
  public static let all: [KeyRole] = [
    .onPress(.remoteControlTogglePlayPause), .onPress(.remoteControlPlay), .onPress(.remoteControlPause),
    .onPress(.remoteControlStop), .skip(.forward), .skip(.backward), .seek(.forward), .seek(.backward),
    .headsetButton,
  ]

  /// A role from its config name, case-insensitively ("nextTrack", "next-track", "headset").
  public init?(name: String) {
    let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
    guard let role = Self.all.first(where: { $0.name.lowercased() == folded }) else { return nil }
    self = role
  }
}

/// Which key code does what. The standard map is DESIGN.md section 3's table; headset keys are
/// added on top of it per device (see `KeySettings.profile(for:)`).
public struct KeyMap: Hashable, Sendable {
  public var roles: [UInt16: KeyRole]

  public init(roles: [UInt16: KeyRole]) { self.roles = roles }

  /// KEY_PLAYPAUSE → togglePlayPause, KEY_PLAYCD → play, KEY_PAUSECD → pause, KEY_STOPCD → stop,
  /// KEY_NEXTSONG / KEY_PREVIOUSSONG → skip or seek, KEY_FASTFORWARD / KEY_REWIND → seek.
  public static let standard = KeyMap(roles: [
    InputCode.KEY_PLAYPAUSE: .onPress(.remoteControlTogglePlayPause),
    InputCode.KEY_PLAYCD: .onPress(.remoteControlPlay),
    InputCode.KEY_PAUSECD: .onPress(.remoteControlPause),
    InputCode.KEY_STOPCD: .onPress(.remoteControlStop),
    InputCode.KEY_NEXTSONG: .skip(.forward),
    InputCode.KEY_PREVIOUSSONG: .skip(.backward),
    InputCode.KEY_FASTFORWARD: .seek(.forward),
    InputCode.KEY_REWIND: .seek(.backward),
  ])
}
