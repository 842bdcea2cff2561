/// A plugin handler in the chain after the first responder: the built-ins (`mpris`, `command`,
/// `log`), handlers of a downstream package, and applications registered over D-Bus.
public protocol Handler: AnyObject {
  /// The name shown in `responderctl chain` and in dispatch records.
  var name: String { get }
  /// The event types it takes; others pass it by.
  var eventTypes: Set<EventType> { get }
  /// The event types it asks the service to produce: a sensor runs only while some handler or
  /// application asks for its events (the accelerometer is opened only while motion is wanted).
  /// By default its `eventTypes`; the `log` handler asks for none (it logs what others asked for).
  var wantedEventTypes: Set<EventType> { get }
  /// Decides on an event: call `decide(true)` when handled, `decide(false)` to pass it on.
  /// `decide` may be called later (after a bus call), exactly once; events wait in order meanwhile.
  /// `phase` is the motion phase for motion events, nil otherwise.
  func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void)
}

extension Handler {
  public var wantedEventTypes: Set<EventType> { eventTypes }
}
