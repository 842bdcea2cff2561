import EventLoop
import Logging
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
        throw section.error(key, "unknown event '\(key)' in [command]\(hint)")
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

/// The built-in `command` handler: runs the configured program for an event, without a shell and
/// without waiting for it, with RESPONDERD_EVENT_TYPE, _SUBTYPE, _TIMESTAMP (and _PHASE for
/// motion) in its environment. It handles the events it has a command for; a program that cannot
/// be started is logged once and the event moves on. It takes the event types it has commands
/// for (motion only with a `shake…` command, so that it asks for the accelerometer only then).
public final class CommandHandler: Handler {
  public let name = "command"
  public let eventTypes: Set<EventType>
  private let settings: CommandSettings
  private let children: ChildProcesses
  private let logger: Logger
  private var reportedMissing = Set<String>()

  public init(settings: CommandSettings, children: ChildProcesses, logger: Logger) {
    self.settings = settings
    self.children = children
    self.logger = logger
    var types = Set<EventType>()
    for key in settings.commands.keys {
      types.insert(key.hasPrefix("shake") ? .motion : .remoteControl)
    }
    eventTypes = types
  }

  public func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
    let key = CommandSettings.key(for: event, phase: phase)
    guard let argv = settings.commands[key] else { return decide(false) }
    var environment = [
      "RESPONDERD_EVENT_TYPE": event.type.name,
      "RESPONDERD_EVENT_SUBTYPE": event.subtype.name,
      "RESPONDERD_EVENT_TIMESTAMP": formatSeconds(event.timestamp, decimals: 6),
    ]
    if let phase { environment["RESPONDERD_EVENT_PHASE"] = phase.rawValue }
    do {
      try children.spawn(argv, extraEnvironment: environment) { [logger] status in
        if status != 0 { logger.notice("command for \(key) (\(argv[0])) exited with status \(status)") }
      }
      decide(true)
    } catch {
      if reportedMissing.insert(argv[0]).inserted {
        logger.warning("command for \(key): cannot start '\(argv[0])': \(error)")
      }
      decide(false)
    }
  }
}
