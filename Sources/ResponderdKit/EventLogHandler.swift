import EventTime
import Logging
import ResponderConfig
import ResponderCore

/// The built-in `log` handler: logs every event that reaches it; marks it handled when configured.
/// It asks for no events of its own (`wantedEventTypes` is empty): it does not keep a sensor open.
public final class EventLogHandler: Handler {
  public let name = "log"
  public let eventTypes: Set<EventType> = [.remoteControl, .motion, .presses]
  public let wantedEventTypes: Set<EventType> = []
  private let settings: LogHandlerSettings
  private let logger: Logger

  public init(settings: LogHandlerSettings, logger: Logger) {
    self.settings = settings
    self.logger = logger
  }

  public func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
    let what = phase.map { "\(event.type)/\(event.subtype)/\($0)" } ?? "\(event.type)/\(event.subtype)"
    logger.info(
      "event \(what) at \(formatSeconds(event.timestamp))\(event.source.isEmpty ? "" : " from \(event.source)")"
    )
    decide(settings.handles)
  }
}
