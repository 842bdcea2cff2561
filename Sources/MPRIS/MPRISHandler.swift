import Logging
import ResponderCore

/// The built-in `mpris` handler: remote-control events become MPRIS calls on the selected player
/// (see `PlayerController`). It handles an event when the player answered the call within the
/// deadline; with no usable player, a missing capability or a failed call, the event moves on.
public final class MPRISHandler: Handler {
  public let name = "mpris"
  public let eventTypes: Set<EventType> = [.remoteControl]
  public let controller: PlayerController
  private let logger: Logger

  public init(controller: PlayerController, logger: Logger) {
    self.controller = controller
    self.logger = logger
  }

  public func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
    controller.perform(event.subtype) { [logger] outcome in
      logger.debug("mpris: \(event.subtype): \(outcome)")
      decide(outcome.isHandled)
    }
  }
}
