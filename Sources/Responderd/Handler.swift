import ResponderCore

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

/// A responder that puts a `Handler` in the responder chain.
public final class HandlerResponder: OfferingResponder {
  public let handler: Handler
  /// The responder after this one in the chain.
  public var nextInChain: Responder?

  public init(_ handler: Handler) { self.handler = handler }

  public override var next: Responder? { nextInChain }
  public override var responderName: String { handler.name }

  override func offer(_ event: Event?, phase: MotionPhase?, forwarding: (Responder) -> Void) {
    guard let event, handler.eventTypes.contains(event.type) else {
      forward(event, forwarding)
      return
    }
    let decision = deferDecision(on: event)
    handler.handle(event, phase: phase) { handled in decision.resolve(handled: handled) }
  }
}

/// The built-in handlers, in the order the config's `chain` gives, linked as responders; the
/// application starts motion and remote-control events here when there is no first responder.
public final class HandlerChain {
  public private(set) var responders: [HandlerResponder] = []
  private let application: Application

  public init(application: Application) { self.application = application }

  /// Sets the handlers, in order; the last one's next responder is the application.
  public func setHandlers(_ handlers: [Handler]) {
    responders = handlers.map(HandlerResponder.init)
    for (index, responder) in responders.enumerated() {
      responder.nextInChain = index + 1 < responders.count ? responders[index + 1] : application
    }
    application.keyWindow = responders.first ?? application
  }

  /// The first built-in handler (where responders registered in front of the chain lead to).
  public var head: Responder { responders.first ?? application }

  /// Whether some handler takes events of `type`.
  public func takes(_ type: EventType) -> Bool {
    responders.contains { $0.handler.eventTypes.contains(type) }
  }

  /// Whether some handler asks for events of `type` (its `wantedEventTypes`).
  public func wants(_ type: EventType) -> Bool {
    responders.contains { $0.handler.wantedEventTypes.contains(type) }
  }
}
