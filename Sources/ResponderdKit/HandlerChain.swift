import ResponderCore

/// A responder that puts a `Handler` in the responder chain.
public final class HandlerResponder: OfferingResponder {
  /// The handler it asks.
  public let handler: Handler
  /// The responder after this one in the chain (not owned: the chain owns its handlers and the
  /// service its application, and an event under way holds the responders it went through).
  public weak var nextInChain: Responder?

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
  /// The handlers as responders, in chain order.
  public private(set) var responders: [HandlerResponder] = []
  private let application: Application
  private var observers: [() -> Void] = []

  public init(application: Application) { self.application = application }

  /// Sets the handlers, in order; the last one's next responder is the application.
  public func setHandlers(_ handlers: [Handler]) {
    responders = handlers.map(HandlerResponder.init)
    for (index, responder) in responders.enumerated() {
      responder.nextInChain = index + 1 < responders.count ? responders[index + 1] : application
    }
    application.keyWindow = responders.first ?? application
    for observer in observers { observer() }
  }

  /// Calls `observer` each time the handlers are set.
  public func addObserver(_ observer: @escaping () -> Void) {
    observers.append(observer)
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
