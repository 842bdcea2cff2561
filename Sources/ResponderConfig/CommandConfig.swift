import InputCodes
import RemoteControl
import ResponderCore

/// `[command]`: programs to run for events, without a shell: `nextTrack = ["mpc", "next"]`.
/// Keys are remote-control subtype names (`togglePlayPause`; also `toggle-play-pause`), the shake's
/// phases `motionBegan`, `motionEnded`, `motionCancelled` (UIKit's responder methods; also
/// `shakeBegan`…), and the names of keys that an owned device carries besides its media and volume
/// keys (`KEY_VOICECOMMAND = ["gnome-voice"]`): run when such a key is pressed.
public struct CommandSettings: Equatable {
  /// The argv to run for each event key.
  public var commands: [String: [String]] = [:]

  /// The keys a `[command]` table may hold, as they are spelled everywhere else.
  public static let keys: [String] =
    EventSubtype.remoteControlSubtypes.map(\.name)
    + MotionPhase.allCases.map { "motion\($0.rawValue.capitalizedFirst)" }

  /// The key of an event: its subtype name, or `motion<Phase>` for motion.
  public static func key(for event: Event, phase: MotionPhase?) -> String {
    event.type == .motion ? "motion\((phase ?? .began).rawValue.capitalizedFirst)" : event.subtype.name
  }

  /// The key another accepted spelling stands for: `shakeBegan` for `motionBegan`, `next-track` or
  /// `remoteControlNextTrack` for `nextTrack`; nil when it is no event's.
  static func canonicalKey(_ key: String) -> String? {
    if keys.contains(key) { return key }
    for phase in MotionPhase.allCases
    where key.lowercased().filter({ $0 != "-" && $0 != "_" }) == "shake\(phase.rawValue)" {
      return "motion\(phase.rawValue.capitalizedFirst)"
    }
    if let subtype = EventSubtype(name: key), subtype.eventType == .remoteControl { return subtype.name }
    return nil
  }

  public init(commands: [String: [String]] = [:]) { self.commands = commands }

  /// Whether `key` names a key an owned device may carry ("KEY_VOICECOMMAND", "KEY_MICMUTE"):
  /// a KEY_ name of the key table, or KEY_<code>, that is not a typing key.
  static func isOwnedKeyName(_ key: String) -> Bool {
    guard key.hasPrefix("KEY_"), let code = InputCode.keyCode(named: key) ?? UInt16(key.dropFirst(4)) else {
      return false
    }
    // Volume keys go to the sound server, media keys make events: a command would never run.
    let taken: Set<UInt16> = [
      InputCode.KEY_MUTE, InputCode.KEY_VOLUMEDOWN, InputCode.KEY_VOLUMEUP, InputCode.KEY_MEDIA,
    ]
    return code < 0x300 && !InputCode.isTypingKey(code) && InputCode.keyName(code) == key
      && !taken.contains(code) && KeyMap.standard.roles[code] == nil
  }

  init(_ section: ConfigSection) throws {
    for (key, _, _) in section.entries() {
      guard let event = Self.canonicalKey(key) ?? (Self.isOwnedKeyName(key) ? key : nil) else {
        let hint = suggestion(for: key, among: Self.keys).map { " (did you mean '\($0)'?)" } ?? ""
        throw section.error(
          key,
          "unknown event '\(shown(key))' in [command]\(hint); one of: \(Self.keys.joined(separator: ", ")), "
            + "or a KEY_ name of an owned device's key")
      }
      guard commands[event] == nil else {
        throw section.error(key, "'\(shown(key))' in [command] is '\(event)' again: give each event once")
      }
      let argv = try section.strings(key, default: [])
      guard let program = argv.first, !program.isEmpty else {
        throw section.error(key, "'\(section.qualified(key))' must name a program: [\"program\", \"arg\", …]")
      }
      commands[event] = argv
    }
    try section.finish()
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
