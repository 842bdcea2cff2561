/// The name of an action message (target-action). There is no Objective-C runtime on Linux, so
/// actions are names a responder registers, not selectors.
public struct Action: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  public let name: String
  public init(_ name: String) { self.name = name }
  public init(stringLiteral value: String) { self.name = value }
  public var description: String { name }
}

/// An object that can respond to and handle events, as UIResponder.
///
/// Every default implementation of an event method forwards the event to `next`: a responder
/// handles an event by overriding the method and not calling super.
open class Responder {
  private var actionHandlers: [Action: (_ sender: Any?, _ event: Event?) -> Void] = [:]

  public init() {}

  /// The next responder in the chain; nil at its end.
  open var next: Responder? { nil }

  /// Whether this responder accepts to become first responder (false by default, as UIKit).
  open var canBecomeFirstResponder: Bool { false }

  /// Whether this responder accepts to give up first-responder status (true by default).
  open var canResignFirstResponder: Bool { true }

  /// A name for dispatch records and logs.
  open var responderName: String { String(describing: type(of: self)) }

  /// Whether this responder belongs to a view hierarchy (views, view controllers, windows).
  /// The application's delegate is only its next responder when it does not.
  open var isPartOfViewHierarchy: Bool { false }

  /// The application at the end of this responder's chain, if any.
  open var application: Application? {
    var current: Responder? = self
    var steps = 0
    while let responder = current, steps < 10_000 {
      if let app = responder as? Application { return app }
      current = responder.next
      steps += 1
    }
    return nil
  }

  /// Whether this responder is its application's first responder.
  public var isFirstResponder: Bool { application?.firstResponder === self }

  /// Asks to become first responder. Refused when this responder cannot become first responder,
  /// when it has no application, or when the current first responder refuses to resign.
  @discardableResult
  open func becomeFirstResponder() -> Bool {
    guard let app = application else { return false }
    if app.firstResponder === self { return true }
    guard canBecomeFirstResponder else { return false }
    if let current = app.firstResponder {
      guard current.resignFirstResponder() else { return false }
    }
    app.setFirstResponder(self)
    return true
  }

  /// Gives up first-responder status. Refused when `canResignFirstResponder` is false.
  @discardableResult
  open func resignFirstResponder() -> Bool {
    guard canResignFirstResponder else { return false }
    if let app = application, app.firstResponder === self { app.setFirstResponder(nil) }
    return true
  }

  // MARK: Touches

  open func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
    forward(event) { $0.touchesBegan(touches, with: event) }
  }
  open func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
    forward(event) { $0.touchesMoved(touches, with: event) }
  }
  open func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
    forward(event) { $0.touchesEnded(touches, with: event) }
  }
  open func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
    forward(event) { $0.touchesCancelled(touches, with: event) }
  }

  // MARK: Presses

  open func pressesBegan(_ presses: Set<Press>, with event: Event?) {
    forward(event) { $0.pressesBegan(presses, with: event) }
  }
  open func pressesChanged(_ presses: Set<Press>, with event: Event?) {
    forward(event) { $0.pressesChanged(presses, with: event) }
  }
  open func pressesEnded(_ presses: Set<Press>, with event: Event?) {
    forward(event) { $0.pressesEnded(presses, with: event) }
  }
  open func pressesCancelled(_ presses: Set<Press>, with event: Event?) {
    forward(event) { $0.pressesCancelled(presses, with: event) }
  }

  // MARK: Motion and remote control

  open func motionBegan(_ motion: EventSubtype, with event: Event?) {
    forward(event) { $0.motionBegan(motion, with: event) }
  }
  open func motionEnded(_ motion: EventSubtype, with event: Event?) {
    forward(event) { $0.motionEnded(motion, with: event) }
  }
  open func motionCancelled(_ motion: EventSubtype, with event: Event?) {
    forward(event) { $0.motionCancelled(motion, with: event) }
  }
  open func remoteControlReceived(with event: Event?) {
    forward(event) { $0.remoteControlReceived(with: event) }
  }

  /// Calls this responder's method for `event`: motionBegan, motionEnded or motionCancelled as
  /// `phase` says, remoteControlReceived, or the presses method of the presses' phase. Touch events,
  /// which a window delivers touch by touch to their views, are left alone.
  public final func receive(_ event: Event, phase: MotionPhase = .began) {
    Application.deliverer(for: event, phase: phase)(self)
  }

  /// Passes an event on to `next` with `call`, noting that this responder did not handle it.
  /// The default event methods use it; an override that handles an event partly may call it too.
  public final func forward(_ event: Event?, _ call: (Responder) -> Void) {
    guard let trace = event?.trace, trace.isRecording else {
      if let nextResponder = next { call(nextResponder) }
      return
    }
    trace.passedOn.insert(ObjectIdentifier(self))
    guard let nextResponder = next else { return }
    trace.receivedBy.append(nextResponder)
    call(nextResponder)
  }

  /// Defers the decision on `event`, delivered to this responder right now, until the returned
  /// decision is resolved (for responders that must ask someone else, such as an application over
  /// D-Bus). The application delivers no further queued event until then.
  public final func deferDecision(on event: Event) -> PendingDecision {
    event.trace.suspendedAt = self
    return PendingDecision(event: event, responder: self)
  }

  // MARK: Target-action

  /// Registers a handler for an action message; `canPerformAction` then answers true for it.
  public final func registerAction(
    _ action: Action, _ handler: @escaping (_ sender: Any?, _ event: Event?) -> Void
  ) {
    actionHandlers[action] = handler
  }

  /// Whether this responder performs `action` (by default: whether it registered a handler).
  open func canPerformAction(_ action: Action, withSender sender: Any?) -> Bool {
    actionHandlers[action] != nil
  }

  /// The responder that performs `action`: self when it can, else the next responder's answer.
  open func target(forAction action: Action, withSender sender: Any?) -> Responder? {
    if canPerformAction(action, withSender: sender) { return self }
    return next?.target(forAction: action, withSender: sender)
  }

  /// Performs an action message; returns false when this responder has no handler for it.
  @discardableResult
  open func perform(_ action: Action, sender: Any?, event: Event?) -> Bool {
    guard let handler = actionHandlers[action] else { return false }
    handler(sender, event)
    return true
  }
}

/// A decision a responder deferred with `deferDecision(on:)`. Resolve it exactly once.
public final class PendingDecision {
  /// The event and the responder deciding, until the decision is made (then let go: a responder
  /// that keeps its decisions must not keep itself and its events with them).
  private var event: Event?
  private var responder: Responder?

  init(event: Event, responder: Responder) {
    self.event = event
    self.responder = responder
  }

  /// Whether `resolve` was called.
  public var isResolved: Bool { event == nil }

  /// Gives the decision up without one (the service stops): the event goes no further, no record
  /// is published, and what its delivery held (closures that hold the event) is let go. The
  /// application delivers nothing after it.
  public func abandon() {
    guard let event else { return }
    self.event = nil
    responder = nil
    let trace = event.trace
    guard !trace.finished else { return }
    trace.finished = true
    trace.suspendedAt = nil
    trace.completion = nil
    trace.deliver = nil
  }

  /// Ends the deferral: handled stops the event here, not handled passes it to the next responder.
  public func resolve(handled: Bool) {
    guard let event, let responder else { return }
    self.event = nil
    self.responder = nil
    let trace = event.trace
    guard trace.suspendedAt === responder, !trace.finished else { return }
    trace.suspendedAt = nil
    if !handled {
      trace.passedOn.insert(ObjectIdentifier(responder))
      if let nextResponder = responder.next, let deliver = trace.deliver {
        trace.receivedBy.append(nextResponder)
        deliver(nextResponder)
      }
    }
    if trace.suspendedAt == nil { trace.completion?(Application.record(for: event)) }
  }
}
