import ResponderCore

/// A responder of the daemon's chain that decides on remote-control and motion events in one
/// place: each arrives at `offer(_:phase:forwarding:)` with its motion phase (nil for remote
/// control), which takes it (`deferDecision(on:)`) or passes it on with `forward(event, forwarding)`.
public class OfferingResponder: Responder {
  public override func remoteControlReceived(with event: Event?) {
    offer(event, phase: nil) { $0.remoteControlReceived(with: event) }
  }
  public override func motionBegan(_ motion: EventSubtype, with event: Event?) {
    offer(event, phase: .began) { $0.motionBegan(motion, with: event) }
  }
  public override func motionEnded(_ motion: EventSubtype, with event: Event?) {
    offer(event, phase: .ended) { $0.motionEnded(motion, with: event) }
  }
  public override func motionCancelled(_ motion: EventSubtype, with event: Event?) {
    offer(event, phase: .cancelled) { $0.motionCancelled(motion, with: event) }
  }

  /// Decides on `event`; `forwarding` passes it to the next responder with the same method. By
  /// default every event is passed on.
  func offer(_ event: Event?, phase: MotionPhase?, forwarding: (Responder) -> Void) {
    forward(event, forwarding)
  }
}
