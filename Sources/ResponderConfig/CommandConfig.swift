import ResponderCore

/// `[command]`: programs to run for events, without a shell: `nextTrack = ["mpc", "next"]`.
/// Keys are remote-control subtype names and `shakeBegan`, `shakeEnded`, `shakeCancelled`.
public struct CommandSettings: Equatable {
  /// The argv to run for each event key.
  public var commands: [String: [String]] = [:]

  /// The keys a `[command]` table may hold.
  public static let keys: [String] =
    EventSubtype.remoteControlSubtypes.map(\.name)
    + MotionPhase.allCases.map { "shake\($0.rawValue.capitalizedFirst)" }

  /// The key of an event: its subtype name, or `shake<Phase>` for motion.
  public static func key(for event: Event, phase: MotionPhase?) -> String {
    event.type == .motion ? "shake\((phase ?? .began).rawValue.capitalizedFirst)" : event.subtype.name
  }

  public init(commands: [String: [String]] = [:]) { self.commands = commands }

  init(_ section: ConfigSection) throws {
    for (key, _, _) in section.entries() {
      guard Self.keys.contains(key) else {
        let hint = suggestion(for: key, among: Self.keys).map { " (did you mean '\($0)'?)" } ?? ""
        throw section.error(key, "unknown event '\(shown(key))' in [command]\(hint)")
      }
      let argv = try section.strings(key, default: [])
      guard let program = argv.first, !program.isEmpty else {
        throw section.error(key, "'\(section.qualified(key))' must name a program: [\"program\", \"arg\", …]")
      }
      commands[key] = argv
    }
    try section.finish()
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
