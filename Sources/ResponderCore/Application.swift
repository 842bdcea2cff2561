import EventTime

/// A window: the root of a view hierarchy, which delivers the touches of an event to its views.
/// TouchDispatch's Window conforms.
public protocol EventWindow: AnyObject {
  /// Delivers an event's touches to views and gesture recognizers.
  func sendEvent(_ event: Event)
}

/// The application object, as UIApplication: last in every responder chain, it queues events
/// and routes each to its first responder, and records what happened to each.
///
/// Single-threaded, like UIKit's main thread: call it from the thread that runs the event loop.
open class Application: Responder {
  /// The scheduler every timer of the application uses (the event loop's, or virtual time in tests).
  public let scheduler: any Scheduler

  // The application does not own the responders it starts events at (as in UIKit, their owners
  // do: a view hierarchy, a handler chain, a registry): a responder's chain leads back to the
  // application, so owning them would make a reference cycle that outlives everything else.

  /// The responder motion, remote-control and (without a focused responder) press events start at.
  /// Not owned: a first responder that goes away is no longer first responder.
  public private(set) var firstResponder: Responder? {
    get { firstResponderStorage }
    set { firstResponderStorage = newValue }
  }
  private weak var firstResponderStorage: Responder?

  /// The responder with focus: where press events start (the first responder when nil). Not owned.
  public var focusedResponder: Responder? {
    get { focusedResponderStorage }
    set { focusedResponderStorage = newValue }
  }
  private weak var focusedResponderStorage: Responder?

  /// Where motion, remote-control and press events start when there is no first responder
  /// (UIKit: the key window). Events with neither are dropped. Not owned.
  public var keyWindow: Responder? {
    get { keyWindowStorage }
    set { keyWindowStorage = newValue }
  }
  private weak var keyWindowStorage: Responder?

  /// The application delegate. It is the application's next responder when it is a responder that
  /// is not already part of the chain (not a view, view controller, window or the application).
  public var delegate: AnyObject? {
    get { delegateStorage }
    set {
      delegateStorage = newValue
      mayHaveDelegate = newValue != nil
    }
  }
  private weak var delegateStorage: AnyObject?
  /// Whether a delegate was set: `next`, at the end of every touch's responder chain, reads the
  /// weak reference only then (the flag's accesses are never checked at run time, the reference's
  /// are).
  private var mayHaveDelegate = false

  /// Whether remote-control events are delivered (`beginReceivingRemoteControlEvents()`).
  public private(set) var isReceivingRemoteControlEvents: Bool {
    get { isReceivingRemoteControlEventsStorage }
    set { isReceivingRemoteControlEventsStorage = newValue }
  }
  private var isReceivingRemoteControlEventsStorage: Bool = false

  /// The responder the motion under way began at (not owned), and that motion's subtype and
  /// source: the responder gets motionCancelled if it leaves its window before the motion ends.
  private weak var motionResponder: Responder?
  private var motionUnderway: (subtype: EventSubtype, source: String)?
  /// Set when the motion under way was cancelled because its responder left its window: the end
  /// of that motion goes to nobody.
  private var motionInterrupted = false
  /// The responder the presses under way began at (not owned), and those presses: it gets
  /// pressesCancelled if it leaves its window before they end.
  private weak var pressResponder: Responder?
  private var pressesUnderway: [Press] = []
  /// Presses cancelled because their responder left its window: their later phases go to nobody.
  private var interruptedPresses: [Press] = []

  private struct QueuedEvent {
    var event: Event
    var phase: MotionPhase
  }
  private var queue: [QueuedEvent] = []
  private var inFlight: Event?
  /// The queued event being handed to `sendEvent`, with its motion phase and what to do when
  /// its delivery is over; `sendEvent` takes it when it routes that event.
  private var handingOver: (event: Event, phase: MotionPhase, completion: (DispatchRecord) -> Void)?
  private var draining = false
  private var observers: [(DispatchRecord) -> Void] = []
  private var firstResponderObservers: [(Responder?) -> Void] = []

  public init(scheduler: any Scheduler) {
    self.scheduler = scheduler
  }

  open override var responderName: String { "application" }

  open override var next: Responder? {
    guard mayHaveDelegate, let responder = delegate as? Responder, responder !== self,
      !responder.isPartOfViewHierarchy
    else { return nil }
    return responder
  }

  open override var application: Application? { self }

  /// Starts delivering remote-control events to the first responder.
  public func beginReceivingRemoteControlEvents() { isReceivingRemoteControlEvents = true }

  /// Stops delivering remote-control events: they are dropped and recorded as such.
  public func endReceivingRemoteControlEvents() { isReceivingRemoteControlEvents = false }

  /// Calls `observer` with the record of every dispatched event.
  public func addDispatchObserver(_ observer: @escaping (DispatchRecord) -> Void) {
    observers.append(observer)
  }

  /// Calls `observer` whenever the first responder changes.
  public func addFirstResponderObserver(_ observer: @escaping (Responder?) -> Void) {
    firstResponderObservers.append(observer)
  }

  func setFirstResponder(_ responder: Responder?) {
    guard firstResponder !== responder else { return }
    firstResponder = responder
    for observer in firstResponderObservers { observer(responder) }
  }

  /// Events waiting in the queue (not counting one whose delivery a responder deferred).
  public var pendingEventCount: Int { queue.count }

  /// Queues an event. Events are delivered one at a time, in order: the next one waits while a
  /// responder has deferred its decision on the current one. A motion event is delivered with
  /// `motionBegan` unless another phase is given.
  public func post(_ event: Event, phase: MotionPhase = .began) {
    queue.append(QueuedEvent(event: event, phase: phase))
    drain()
  }

  private func drain() {
    guard !draining else { return }
    draining = true
    defer { draining = false }
    while inFlight == nil, !queue.isEmpty {
      let item = queue.removeFirst()
      inFlight = item.event
      let completion: (DispatchRecord) -> Void = { [weak self] _ in
        guard let self, self.inFlight === item.event else { return }
        self.inFlight = nil
        if !self.draining { self.drain() }
      }
      // Through `sendEvent`, so that an application overriding it sees every event (seed 003).
      handingOver = (item.event, item.phase, completion)
      sendEvent(item.event)
      if let kept = handingOver, kept.event === item.event {
        // The override did not pass the event on: its delivery is over.
        handingOver = nil
        let trace = item.event.trace
        trace.receivedBy = []
        trace.passedOn = []
        trace.motionPhase = item.event.type == .motion ? item.phase : nil
        trace.dropReason = "kept by sendEvent"
        let record = Self.record(for: item.event)
        publish(record)
        completion(record)
      }
    }
  }

  /// Routes an event, as UIApplication.sendEvent: touches go to the windows of their touches,
  /// presses to the focused responder, motion and remote-control events to the first responder.
  /// Every event goes through here, those `post` queues included: a subclass overriding it sees
  /// them all, and routes one by calling super (seed 003: subclassing the application and
  /// overriding sendEvent: is how an app sees every incoming event).
  open func sendEvent(_ event: Event) {
    if let handed = handingOver, handed.event === event {
      handingOver = nil
      dispatch(event, phase: handed.phase, completion: handed.completion)
    } else {
      dispatch(event, phase: .began, completion: nil)
    }
  }

  /// Sends a motion, remote-control or press event up the chain from `responder`, as a window does
  /// with such an event sent to it (seed 003: UIWindow.sendEvent dispatches the events that are not
  /// touches to the most appropriate target). Recorded as every dispatch is; remote-control events
  /// only while the application receives them. A touch event is routed by `sendEvent(_:)`.
  public func sendEvent(_ event: Event, startingAt responder: Responder, phase: MotionPhase = .began) {
    guard event.type != .touches else { return sendEvent(event) }
    dispatch(event, phase: phase, completion: nil, start: responder)
  }

  /// Tells the application that responders left their window (`left` says which): the first
  /// responder among them stops being first responder, and the motion under way that began at one
  /// of them is cancelled there (motionCancelled), the end of that motion then going to nobody.
  /// Seed 003: removing the view that handles a motion event from its window interrupts the motion,
  /// and a view outside the active view hierarchy is not made first responder.
  public func respondersLeftWindow(where left: (Responder) -> Bool) {
    if let first = firstResponder, left(first) { setFirstResponder(nil) }
    if let focused = focusedResponder, left(focused) { focusedResponder = nil }
    if let responder = motionResponder, let motion = motionUnderway, left(responder) {
      motionResponder = nil
      motionUnderway = nil
      let event = Event.motion(motion.subtype, timestamp: scheduler.now, source: motion.source)
      dispatch(event, phase: .cancelled, completion: nil, start: responder)
      motionInterrupted = true
    }
    // The same for presses (seed 003, pressesCancelled): in phase cancelled while it hears of it.
    if let responder = pressResponder, !pressesUnderway.isEmpty, left(responder) {
      let presses = pressesUnderway
      pressResponder = nil
      pressesUnderway = []
      for press in presses { press.phase = .cancelled }
      dispatch(
        Event(type: .presses, timestamp: scheduler.now, presses: Set(presses)), phase: .began,
        completion: nil, start: responder)
      interruptedPresses.append(contentsOf: presses)
    }
  }

  private func dispatch(
    _ event: Event, phase: MotionPhase, completion: ((DispatchRecord) -> Void)?,
    start explicitStart: Responder? = nil
  ) {
    let trace = event.trace
    trace.receivedBy = []
    trace.passedOn = []
    trace.suspendedAt = nil
    trace.dropReason = nil
    trace.finished = false
    trace.motionPhase = event.type == .motion ? phase : nil
    // The record (names of every responder reached) of a touch event is only kept when someone
    // reads it.
    let recorded = event.type != .touches || completion != nil || !observers.isEmpty
    trace.isRecording = recorded
    trace.completion =
      recorded
      ? { [weak self] record in
        guard !trace.finished else { return }
        trace.finished = true
        // This closure and the deliverer hold the event and its trace, which hold them: let both
        // go, or every event stays in memory for ever.
        trace.completion = nil
        trace.deliver = nil
        self?.publish(record)
        completion?(record)
      } : nil

    if event.type == .touches {
      var seen: [ObjectIdentifier] = []
      for touch in event.allTouches {
        guard let candidate = touch.window, !seen.contains(ObjectIdentifier(candidate)),
          let window = candidate as? EventWindow
        else { continue }
        seen.append(ObjectIdentifier(candidate))
        if let responder = window as? Responder { trace.receivedBy.append(responder) }
        window.sendEvent(event)
      }
      if seen.isEmpty { trace.dropReason = "no window" }
      if recorded {
        trace.completion?(Self.record(for: event))
      } else {
        trace.finished = true
      }
      return
    }

    if event.type == .remoteControl && !isReceivingRemoteControlEvents {
      trace.dropReason = "not receiving remote-control events"
      trace.completion?(Self.record(for: event))
      return
    }

    if event.type == .motion {
      if phase == .began {
        motionInterrupted = false
      } else if motionInterrupted {
        motionInterrupted = false
        trace.dropReason = "motion cancelled: its responder left the window"
        trace.completion?(Self.record(for: event))
        return
      } else {
        motionResponder = nil
        motionUnderway = nil
      }
    }

    if event.type == .presses {
      let presses = event.allPresses
      if !interruptedPresses.isEmpty
        && presses.contains(where: { press in interruptedPresses.contains { $0 === press } })
      {
        if presses.allSatisfy({ $0.phase == .ended || $0.phase == .cancelled }) {
          interruptedPresses.removeAll { presses.contains($0) }
        }
        trace.dropReason = "presses cancelled: their responder left the window"
        trace.completion?(Self.record(for: event))
        return
      }
      if presses.allSatisfy({ $0.phase == .ended || $0.phase == .cancelled }) {
        pressesUnderway.removeAll { presses.contains($0) }
        if pressesUnderway.isEmpty { pressResponder = nil }
      }
    }

    let start: Responder?
    if let explicitStart {
      start = explicitStart
    } else if event.type == .presses {
      start = focusedResponder ?? firstResponder ?? keyWindow
    } else {
      start = firstResponder ?? keyWindow
    }
    guard let start else {
      trace.dropReason = "no first responder"
      trace.completion?(Self.record(for: event))
      return
    }
    if event.type == .motion && phase == .began {
      motionResponder = start
      motionUnderway = (event.subtype, event.source)
    } else if event.type == .presses, event.allPresses.contains(where: { $0.phase == .began }) {
      pressResponder = start
      for press in event.allPresses where press.phase == .began && !pressesUnderway.contains(press) {
        pressesUnderway.append(press)
      }
    }
    let deliver = Self.deliverer(for: event, phase: phase)
    trace.deliver = deliver
    trace.receivedBy.append(start)
    deliver(start)
    if trace.suspendedAt == nil { trace.completion?(Self.record(for: event)) }
  }

  /// The responder method an event is delivered with.
  static func deliverer(for event: Event, phase: MotionPhase) -> (Responder) -> Void {
    switch event.type {
    case .touches:
      return { _ in }
    case .motion:
      switch phase {
      case .began: return { $0.motionBegan(event.subtype, with: event) }
      case .ended: return { $0.motionEnded(event.subtype, with: event) }
      case .cancelled: return { $0.motionCancelled(event.subtype, with: event) }
      }
    case .remoteControl:
      return { $0.remoteControlReceived(with: event) }
    case .presses:
      return { responder in
        let presses = event.allPresses
        switch presses.first?.phase ?? .began {
        case .began: responder.pressesBegan(presses, with: event)
        case .changed, .stationary: responder.pressesChanged(presses, with: event)
        case .ended: responder.pressesEnded(presses, with: event)
        case .cancelled: responder.pressesCancelled(presses, with: event)
        }
      }
    }
  }

  static func record(for event: Event) -> DispatchRecord {
    let trace = event.trace
    var handler: String?
    if let last = trace.receivedBy.last, !trace.passedOn.contains(ObjectIdentifier(last)) {
      handler = last.responderName
    }
    return DispatchRecord(
      type: event.type, subtype: event.subtype, motionPhase: trace.motionPhase,
      timestamp: event.timestamp, source: event.source,
      receivedBy: trace.receivedBy.map(\.responderName), handledBy: handler,
      dropReason: handler == nil ? (trace.dropReason ?? DispatchRecord.unhandled) : nil)
  }

  private func publish(_ record: DispatchRecord) {
    for observer in observers { observer(record) }
  }

  // MARK: Target-action

  /// Sends an action message, as UIApplication.sendAction: to `target` when given, else to the
  /// first responder that can perform it, walking the chain from the first responder (or from
  /// the sender when there is none). Returns whether some responder performed it.
  @discardableResult
  public func sendAction(_ action: Action, to target: Responder?, from sender: AnyObject?, for event: Event?)
    -> Bool
  {
    if let target { return target.perform(action, sender: sender, event: event) }
    let start = firstResponder ?? (sender as? Responder) ?? keyWindow ?? self
    guard let found = start.target(forAction: action, withSender: sender) else { return false }
    return found.perform(action, sender: sender, event: event)
  }
}

/// The phase of a motion event: UIResponder's motionBegan, motionEnded and motionCancelled.
public enum MotionPhase: String, Sendable, CaseIterable {
  case began, ended, cancelled
}
