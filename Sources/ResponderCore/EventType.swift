/// The kind of an event, as UIEvent.EventType.
public enum EventType: Int, Sendable, CaseIterable, CustomStringConvertible {
  case touches = 0
  case motion = 1
  case remoteControl = 2
  case presses = 3

  /// The name used in configs, logs, JSON and on the bus.
  public var name: String {
    switch self {
    case .touches: "touches"
    case .motion: "motion"
    case .remoteControl: "remoteControl"
    case .presses: "presses"
    }
  }
  public var description: String { name }

  /// Parses a name ("remoteControl", also "remote-control").
  public init?(name: String) {
    let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
    guard let match = Self.allCases.first(where: { $0.name.lowercased() == folded }) else { return nil }
    self = match
  }
}

/// The subtype of an event, with UIEvent.EventSubtype's raw values.
public enum EventSubtype: Int, Sendable, CaseIterable, CustomStringConvertible {
  case none = 0
  case motionShake = 1
  case remoteControlPlay = 100
  case remoteControlPause = 101
  case remoteControlStop = 102
  case remoteControlTogglePlayPause = 103
  case remoteControlNextTrack = 104
  case remoteControlPreviousTrack = 105
  case remoteControlBeginSeekingBackward = 106
  case remoteControlEndSeekingBackward = 107
  case remoteControlBeginSeekingForward = 108
  case remoteControlEndSeekingForward = 109

  /// The event type this subtype belongs to (nil for `.none`).
  public var eventType: EventType? {
    switch self {
    case .none: nil
    case .motionShake: .motion
    default: .remoteControl
    }
  }

  /// The short name used in configs, logs, JSON and on the bus: "togglePlayPause", "motionShake", "none".
  public var name: String {
    switch self {
    case .none: "none"
    case .motionShake: "motionShake"
    case .remoteControlPlay: "play"
    case .remoteControlPause: "pause"
    case .remoteControlStop: "stop"
    case .remoteControlTogglePlayPause: "togglePlayPause"
    case .remoteControlNextTrack: "nextTrack"
    case .remoteControlPreviousTrack: "previousTrack"
    case .remoteControlBeginSeekingBackward: "beginSeekingBackward"
    case .remoteControlEndSeekingBackward: "endSeekingBackward"
    case .remoteControlBeginSeekingForward: "beginSeekingForward"
    case .remoteControlEndSeekingForward: "endSeekingForward"
    }
  }
  public var description: String { name }

  /// Parses a short name ("nextTrack"), the UIKit name ("remoteControlNextTrack") or a kebab-case
  /// one ("next-track"), case-insensitively.
  public init?(name: String) {
    var folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
    if folded.hasPrefix("uieventsubtype") { folded.removeFirst("uieventsubtype".count) }
    if let match = Self.allCases.first(where: { $0.name.lowercased() == folded }) {
      self = match
    } else if folded.hasPrefix("remotecontrol"),
      let match = Self.allCases.first(where: {
        $0.eventType == .remoteControl && "remotecontrol" + $0.name.lowercased() == folded
      })
    {
      self = match
    } else {
      return nil
    }
  }

  /// Every remote-control subtype.
  public static var remoteControlSubtypes: [EventSubtype] {
    allCases.filter { $0.eventType == .remoteControl }
  }
}
