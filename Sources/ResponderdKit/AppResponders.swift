import DBus
import EventTime
import Logging
import ResponderClient
import ResponderCore

/// An application registered over D-Bus, as a responder of the daemon's chain. It defers its
/// decision on each event it takes and asks the application (`org.responderd.Responder1`) with
/// the `[responders] deadline`: no answer in time, an error or a wrong reply count as not handled,
/// and the event moves on.
public final class AppResponder: OfferingResponder {
  /// The id `RegisterResponder` returned.
  public let id: UInt32
  /// The unique bus name of the connection that registered it (the only one that may act on it).
  public let busName: String
  /// Its object implementing `org.responderd.Responder1`.
  public let path: String
  /// The event types it takes; others pass it by.
  public let eventTypes: Set<EventType>
  /// `process#id` (the process name from /proc, "app" when unknown): in records and `responderctl`.
  public let name: String
  /// Whether it was unregistered or left the bus.
  public private(set) var isRemoved = false

  /// The answers of its `CanBecomeFirstResponder`/`CanResignFirstResponder` properties, as last read.
  var canBecome = false
  var canResign = true

  private unowned let registry: AppResponderRegistry
  private var successorWhenRemoved: Responder?
  private var pendingCall: DBusPendingCall?
  private var pendingDecision: PendingDecision?
  private weak var lastEvent: Event?
  /// Failed calls in a row (only the first of a series is logged above debug level).
  private var failuresInARow = 0

  init(
    id: UInt32, busName: String, path: String, eventTypes: Set<EventType>, name: String,
    registry: AppResponderRegistry
  ) {
    self.id = id
    self.busName = busName
    self.path = path
    self.eventTypes = eventTypes
    self.name = name
    self.registry = registry
  }

  public override var responderName: String { name }
  public override var next: Responder? {
    isRemoved ? successorWhenRemoved : registry.successor(of: self)
  }
  public override var canBecomeFirstResponder: Bool { !isRemoved && canBecome }
  public override var canResignFirstResponder: Bool { isRemoved || canResign }

  override func offer(_ event: Event?, phase: MotionPhase?, forwarding: (Responder) -> Void) {
    guard let event, !isRemoved, eventTypes.contains(event.type), lastEvent !== event,
      let connection = registry.connection,
      let method = ResponderBusAPI.method(for: event.type, phase: phase)
    else {
      forward(event, forwarding)
      return
    }
    lastEvent = event
    let decision = deferDecision(on: event)
    pendingDecision = decision
    let deadline = registry.deadline
    pendingCall = connection.call(
      destination: busName, path: path, interface: ResponderBusAPI.responderInterface, method: method,
      arguments: [.string(event.subtype.name), .double(event.timestamp)], timeout: deadline
    ) { [weak self] result in
      guard let self else { return decision.resolve(handled: false) }
      self.pendingCall = nil
      self.pendingDecision = nil
      switch result {
      case .success(let values):
        guard values.count == 1, case .bool(let handled) = values[0] else {
          self.noteFailure("\(method) returned '\(values.signature)' instead of 'b'")
          return decision.resolve(handled: false)
        }
        self.failuresInARow = 0
        decision.resolve(handled: handled)
      case .failure(let error):
        let reason =
          error.name == DBusError.Name.noReply
          ? "no answer to \(method) within \(formatMilliseconds(deadline))" : "\(method) failed: \(error)"
        self.noteFailure(reason)
        decision.resolve(handled: false)
      }
    }
  }

  private func noteFailure(_ reason: String) {
    failuresInARow += 1
    let message: Logger.Message = "responders: \(name): \(reason); the event moves on"
    if failuresInARow == 1 { registry.logger.notice(message) } else { registry.logger.debug(message) }
  }

  /// Takes it out of the chain: from now on it passes every event to `successor`, what came
  /// after it in the chain.
  func markRemoved(successor: Responder) {
    guard !isRemoved else { return }
    successorWhenRemoved = successor
    isRemoved = true
  }

  /// Drops the call in progress, if any: the event waiting for its answer moves on at once.
  func abandonPendingCall() {
    pendingCall?.cancel()
    pendingCall = nil
    if let decision = pendingDecision {
      pendingDecision = nil
      decision.resolve(handled: false)
    }
  }
}

/// The applications registered over D-Bus, their order in the chain and the first-responder stack.
///
/// The chain of an event: the first responder, then the other registered applications, most
/// recently registered first, then the built-in handlers in config order, then the application
/// (which drops it). Applications that do not take an event's type pass it on at once.
/// When the first responder resigns, unregisters or leaves the bus, the one before it (still
/// registered and still willing) becomes first responder again, as with a stack.
final class AppResponderRegistry {
  private(set) var apps: [AppResponder] = []
  /// First responders, the current one last.
  private var stack: [AppResponder] = []
  private let application: Application
  private let chain: HandlerChain
  let deadline: Double
  let logger: Logger
  weak var connection: (any MessageBus)?
  private var lastID: UInt32 = 0
  private var changeObservers: [() -> Void] = []

  init(application: Application, chain: HandlerChain, deadline: Double, logger: Logger) {
    self.application = application
    self.chain = chain
    self.deadline = deadline
    self.logger = logger
  }

  /// Calls `observer` after every change of the registrations or the order.
  func addChangeObserver(_ observer: @escaping () -> Void) { changeObservers.append(observer) }

  /// The registered applications in chain order: the first responder, then the others, most
  /// recently registered first.
  var order: [AppResponder] {
    var result = apps.reversed().filter { $0 !== application.firstResponder }
    if let first = application.firstResponder as? AppResponder, !first.isRemoved {
      result.insert(first, at: 0)
    }
    return result
  }

  /// The first responder, when it is a registered application.
  var firstResponder: AppResponder? { application.firstResponder as? AppResponder }

  func app(_ id: UInt32) -> AppResponder? { apps.first { $0.id == id } }

  /// The responder after `app` in the chain.
  func successor(of app: AppResponder) -> Responder {
    let current = order
    if let index = current.firstIndex(where: { $0 === app }), index + 1 < current.count {
      return current[index + 1]
    }
    return chain.head
  }

  func add(busName: String, path: String, eventTypes: Set<EventType>, processName: String?) -> AppResponder {
    lastID &+= 1
    if lastID == 0 { lastID = 1 }
    let app = AppResponder(
      id: lastID, busName: busName, path: path, eventTypes: eventTypes,
      name: "\(processName ?? "app")#\(lastID)", registry: self)
    apps.append(app)
    changed()
    return app
  }

  /// Makes `app` first responder (after its `canBecome` and the current one's `canResign` were
  /// read); returns whether it is first responder now.
  func makeFirstResponder(_ app: AppResponder) -> Bool {
    guard !app.isRemoved else { return false }
    guard app.becomeFirstResponder() else { return false }
    stack.removeAll { $0 === app }
    stack.append(app)
    changed()
    return true
  }

  /// Gives up first-responder status for `app` (after its `canResign` was read): the previous
  /// first responder comes back. Returns false when it refuses to resign.
  func resignFirstResponder(_ app: AppResponder) -> Bool {
    guard application.firstResponder === app else {
      stack.removeAll { $0 === app }
      return app.canResignFirstResponder
    }
    guard app.resignFirstResponder() else { return false }
    stack.removeAll { $0 === app }
    restorePreviousFirstResponder()
    changed()
    return true
  }

  /// Removes `app` (unregistered, or its connection left the bus).
  func remove(_ app: AppResponder, reason: String) {
    guard apps.contains(where: { $0 === app }) else { return }
    let successor = self.successor(of: app)
    let wasFirst = application.firstResponder === app
    apps.removeAll { $0 === app }
    stack.removeAll { $0 === app }
    app.markRemoved(successor: successor)
    logger.info("responders: \(app.name) (\(app.busName) \(app.path)) removed: \(reason)")
    if wasFirst {
      _ = app.resignFirstResponder()
      restorePreviousFirstResponder()
    }
    changed()
    app.abandonPendingCall()
  }

  /// Removes every application registered by `busName`.
  func removeAll(of busName: String, reason: String) {
    for app in apps where app.busName == busName { remove(app, reason: reason) }
  }

  /// Removes every application (the daemon's bus connection was replaced).
  func removeEverything(reason: String) {
    for app in apps { remove(app, reason: reason) }
  }

  private func restorePreviousFirstResponder() {
    while let previous = stack.last {
      if application.firstResponder == nil, previous.becomeFirstResponder() {
        logger.info("responders: \(previous.name) is first responder again")
        return
      }
      stack.removeLast()
    }
  }

  private func changed() {
    application.keyWindow = order.first ?? chain.head
    for observer in changeObservers { observer() }
  }
}

/// "100 ms", "1.5 s".
func formatMilliseconds(_ seconds: Double) -> String {
  seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : "\(formatSeconds(seconds, decimals: 1)) s"
}
