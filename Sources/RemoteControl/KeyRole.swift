import ResponderCore

/// What a mapped key does (docs/design.md#keys-and-the-click-grammar).
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
