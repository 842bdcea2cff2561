import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore

/// The built-in `command` handler: runs the configured program for an event, without a shell and
/// without waiting for it, with RESPONDERD_EVENT_TYPE, _SUBTYPE, _TIMESTAMP (and _PHASE for
/// motion) in its environment. It handles the events it has a command for; a program that cannot
/// be started is logged once and the event moves on. It takes the event types it has commands
/// for (motion only with a `motion…` command, so that it asks for the accelerometer only then).
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
      types.insert(key.hasPrefix("motion") ? .motion : .remoteControl)
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
