import DBus
import EventTime
import Logging
import ResponderCore
import ResponderInterfaces
import SystemCalls

/// What an application said of its window's focus (`SetActive`).
public enum WindowFocus: String, Sendable {
  /// It never said: the plain rule (the latest `BecomeFirstResponder` gets every event).
  case undeclared
  /// Its window is the active one: it is the one shakes go to.
  case active
  /// Its window is not active (it said so, or another application claimed to be active since):
  /// it gets no motion event.
  case inactive
}

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
  /// The process behind its connection (`GetConnectionCredentials`), when the bus told.
  public let pid: UInt32?
  /// Whether it was unregistered or left the bus.
  public private(set) var isRemoved = false
  /// What it said of its window's focus (`SetActive`), as the latest claims left it.
  public internal(set) var focus = WindowFocus.undeclared
  /// Its focus lines in the log: a bounded number however often its focus flaps.
  var focusLines = LogRateLimit()

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
    id: UInt32, busName: String, path: String, eventTypes: Set<EventType>, name: String, pid: UInt32?,
    registry: AppResponderRegistry
  ) {
    self.id = id
    self.busName = busName
    self.path = path
    self.eventTypes = eventTypes
    self.name = name
    self.pid = pid
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
    // Its window is not the active one: no motion event (remote control does not follow focus).
    if event.type == .motion, focus == .inactive {
      forward(event, forwarding)
      return
    }
    // Its connection missed a deadline: passed over (for every registration of that connection)
    // until it answers again, rather than making every event wait for it.
    guard !registry.isHung(busName) else {
      registry.probe(busName)
      forward(event, forwarding)
      return
    }
    // The event spent its time with the applications before this one: passed over.
    let left = registry.timeLeft(for: event)
    guard left > 0 else {
      registry.eventDeadlineSpent(event, passingOver: self)
      forward(event, forwarding)
      return
    }
    lastEvent = event
    let decision = deferDecision(on: event)
    pendingDecision = decision
    let deadline = registry.deadline
    // Cut short by what is left of the event's time: not this application's fault then.
    let timeout = min(deadline, left)
    // The event waits `timeout` for the answer (the timer); the call itself waits longer, so that
    // a late answer still says the application answers events again.
    // Both weak (the scheduler keeps the timer, the bus the call): the call keeps its reply
    // handler until it finishes, and the handler must not keep the call, nor the timer whose
    // action holds the call, or the three would keep one another alive once all else let go.
    weak var deadlineTimer: ScheduledTimer?
    var expired = false
    var answered = false
    weak var thisCall: DBusPendingCall?
    let call = connection.call(
      destination: busName, path: path, interface: ResponderBusAPI.responderInterface, method: method,
      arguments: [.string(event.subtype.name), .double(event.timestamp)],
      timeout: max(timeout, AppResponderRegistry.lateAnswerWindow)
    ) { [weak self] result in
      guard let self else { return decision.resolve(handled: false) }
      guard !expired else {
        // Past the deadline: the event went on; an answer now means it answers events again.
        if case .success(let values) = result, values.count == 1, case .bool = values[0] {
          self.registry.answeredEvent(self.busName)
        } else if case .failure(let error) = result, error.name == DBusError.Name.noReply {
          self.registry.lateAnswerWindowPassed(thisCall, of: self.busName)
        }
        return
      }
      answered = true
      deadlineTimer?.cancel()
      deadlineTimer = nil
      self.pendingCall = nil
      self.pendingDecision = nil
      switch result {
      case .success(let values):
        guard values.count == 1, case .bool(let handled) = values[0] else {
          self.noteFailure("\(method) returned '\(values.signature)' instead of 'b'")
          return decision.resolve(handled: false)
        }
        self.failuresInARow = 0
        self.registry.answeredEvent(self.busName)
        decision.resolve(handled: handled)
      case .failure(let error):
        self.noteFailure("\(method) failed: \(error.name.loggable): \(error.message.loggable)")
        decision.resolve(handled: false)
      }
    }
    guard !answered else { return }
    thisCall = call
    pendingCall = call
    deadlineTimer = registry.scheduler.schedule(after: timeout) { [weak self] in
      expired = true
      deadlineTimer = nil
      guard let self else { return decision.resolve(handled: false) }
      if self.pendingCall === call {
        self.pendingCall = nil
        self.pendingDecision = nil
      }
      self.registry.keepLateCall(call, of: self.busName)
      if timeout < deadline {
        self.registry.logger.debug(
          "responders: \(self.name): no answer to \(method) within what was left of the event's time")
        return decision.resolve(handled: false)
      }
      self.noteFailure("no answer to \(method) within \(formatMilliseconds(deadline))")
      self.registry.markHung(self.busName, by: self)
      decision.resolve(handled: false)
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

  /// Drops the call in progress without deciding (responderd stops): the event waiting for it
  /// goes no further, and the call's reply handler and the decision, which hold this responder
  /// and the event, are let go.
  func dropPendingCall() {
    pendingCall?.cancel()
    pendingCall = nil
    pendingDecision?.abandon()
    pendingDecision = nil
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
  /// How long one event may spend with the applications in all (`[responders] event-deadline`).
  let eventDeadline: Double
  let logger: Logger
  let scheduler: Scheduler
  /// Whether a process is stopped (SIGSTOP, a debugger): `/proc/PID/stat` (`isProcessStopped`).
  let processIsStopped: (UInt32) -> Bool = isProcessStopped
  /// The event going through the applications now (one at a time: the application's queue waits
  /// for each decision), when it reached the first of them, and whether its time ran out.
  private weak var timedEvent: Event?
  private var timedEventStart: Seconds = 0
  private var timedEventSpent = false
  /// Events in a row whose time ran out (only the first of a series is logged above debug level).
  private var spentInARow = 0
  weak var connection: (any MessageBus)?
  private var lastID: UInt32 = 0
  private var changeObservers: [() -> Void] = []
  /// How many responders each connection registered.
  private var registrations: [String: Int] = [:]
  /// The connections that missed a deadline and have not answered since.
  private var hung = Set<String>()
  /// The `Peer.Ping` on its way to each hung connection, asking whether it answers again.
  private var probes: [String: DBusPendingCall] = [:]
  /// Deadlines each connection missed in a row (an answered event starts it again).
  private var missesInARow: [String: Int] = [:]
  /// Connections that answer `Peer.Ping` but missed `missesBeforePingIsNotEnough` events in a
  /// row: passed over until they answer an event again (a late answer), however they answer pings.
  private var answerPingNotEvents = Set<String>()
  /// The event calls past their deadline still waiting for a late answer, by connection.
  private var lateCalls: [String: [DBusPendingCall]] = [:]
  /// Missed deadlines in a row after which a `Peer.Ping` answer no longer brings a connection
  /// back: its library answers, its handler does not.
  static let missesBeforePingIsNotEnough = 3
  /// How long a call to an application waits for a late answer after its deadline (the bus's
  /// usual reply timeout).
  static let lateAnswerWindow: Seconds = 25
  /// How many registered applications take motion events now: those whose window is inactive
  /// (`SetActive(false)`) do not count until it is active again.
  var motionApplications: Int {
    apps.count { $0.eventTypes.contains(.motion) && $0.focus != .inactive }
  }

  init(
    application: Application, chain: HandlerChain, deadline: Double, eventDeadline: Double,
    scheduler: Scheduler, logger: Logger
  ) {
    self.application = application
    self.chain = chain
    self.deadline = deadline
    self.eventDeadline = eventDeadline
    self.scheduler = scheduler
    self.logger = logger
  }

  // MARK: The time of one event

  /// What is left of the time `event` may spend with the applications; its clock starts at the
  /// first application it reaches.
  func timeLeft(for event: Event) -> Seconds {
    let now = scheduler.now
    if timedEvent !== event {
      if !timedEventSpent { spentInARow = 0 }
      timedEvent = event
      timedEventStart = now
      timedEventSpent = false
    }
    return eventDeadline - (now - timedEventStart)
  }

  /// `event` spent its time and passes `app` over (logged once per event, the first of a series
  /// of such events above debug level).
  func eventDeadlineSpent(_ event: Event, passingOver app: AppResponder) {
    guard !timedEventSpent else { return }
    timedEventSpent = true
    spentInARow += 1
    let left = order.drop { $0 !== app }.count
    let message: Logger.Message =
      "responders: \(event.subtype.name) spent the \(formatMilliseconds(eventDeadline)) an event may spend with applications ([responders] event-deadline): \(left == 1 ? "the last one is" : "the \(left) left are") passed over"
    if spentInARow == 1 { logger.notice(message) } else { logger.debug(message) }
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

  /// How many responders `busName` registered.
  func registrationCount(of busName: String) -> Int { registrations[busName] ?? 0 }

  /// Whether `busName` registered a responder at `path`.
  func isRegistered(_ busName: String, at path: String) -> Bool {
    guard registrationCount(of: busName) > 0 else { return false }
    return apps.contains { $0.busName == busName && $0.path == path }
  }

  // MARK: Hung connections

  /// Whether `busName` missed a deadline and has not answered since.
  func isHung(_ busName: String) -> Bool { hung.contains(busName) }

  /// Why the registrations of `busName` are passed over now (nil when they are not): for the
  /// `Chain` property.
  func passedOverReason(_ busName: String) -> String? {
    guard hung.contains(busName) else { return nil }
    if answerPingNotEvents.contains(busName) {
      return
        "missed \(missesInARow[busName] ?? 0) events in a row and answers Ping, not events: passed over until it answers an event again"
    }
    return "missed a deadline: passed over until it answers again"
  }

  /// `busName` answered an event (in time or late): it takes events again.
  func answeredEvent(_ busName: String) {
    missesInARow[busName] = nil
    answerPingNotEvents.remove(busName)
    for call in lateCalls.removeValue(forKey: busName) ?? [] { call.cancel() }
    guard hung.remove(busName) != nil else { return }
    probes.removeValue(forKey: busName)?.cancel()
    logger.notice("responders: \(busName.loggable) answers events again: its registrations take events again")
    changed()
  }

  /// A call past its deadline got no late answer either. When it was the last one of a
  /// connection passed over for answering Ping and not events, the next event tries it once
  /// more (one deadline per `lateAnswerWindow` at most, not one per event): it may run again.
  func lateAnswerWindowPassed(_ call: DBusPendingCall?, of busName: String) {
    lateCalls[busName]?.removeAll { $0 === call || $0.isFinished }
    guard answerPingNotEvents.contains(busName), lateCalls[busName]?.isEmpty ?? true else { return }
    lateCalls[busName] = nil
    answerPingNotEvents.remove(busName)
    hung.remove(busName)
    logger.debug("responders: \(busName.loggable): the next event tries it again")
    changed()
  }

  /// Keeps a call past its deadline waiting for a late answer (a few at most per connection:
  /// a connection that missed one is passed over until it answers again).
  func keepLateCall(_ call: DBusPendingCall, of busName: String) {
    guard !call.isFinished else { return }
    lateCalls[busName, default: []].removeAll { $0.isFinished }
    lateCalls[busName, default: []].append(call)
  }

  /// `busName` missed a deadline (answering `app`): its registrations are passed over until it
  /// answers a `Peer.Ping`, sent now (a stopped process answers it once it runs again) and, if it
  /// missed that one too, again the next time an event passes it over.
  func markHung(_ busName: String, by app: AppResponder) {
    missesInARow[busName, default: 0] += 1
    guard hung.insert(busName).inserted else { return }
    defer { changed() }
    // A stopped process answers on none of its connections: one fault, not one per connection
    // (50 connections of one stopped process held each event 50 deadlines).
    if let pid = app.pid, processIsStopped(pid) {
      let others = Set(apps.filter { $0.pid == pid }.map(\.busName)).subtracting(hung)
      hung.formUnion(others)
      let count = apps.count { $0.pid == pid }
      logger.notice(
        "responders: \(busName.loggable) missed a deadline (\(app.name)) and its process \(pid) is stopped: its \(others.count + 1) \(others.isEmpty ? "connection" : "connections") with \(count == 1 ? "one registration are" : "\(count) registrations are") passed over until each answers again"
      )
    } else {
      let count = registrationCount(of: busName)
      logger.notice(
        "responders: \(busName.loggable) missed a deadline (\(app.name)): \(count == 1 ? "its registration is" : "its \(count) registrations are") passed over until it answers again"
      )
    }
    probe(busName)
  }

  /// Asks a hung connection whether it answers again (one ask at a time, with the bus's usual
  /// 25 s deadline; no timer of its own).
  func probe(_ busName: String) {
    guard hung.contains(busName), !answerPingNotEvents.contains(busName), probes[busName] == nil,
      let connection
    else { return }
    probes[busName] = connection.call(
      destination: busName, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping", timeout: 25
    ) { [weak self] result in
      guard let self, self.hung.contains(busName) else { return }
      self.probes[busName] = nil
      // Still hung: asked again at the next event that passes it over.
      if case .failure(let error) = result, error.name == DBusError.Name.noReply { return }
      let misses = self.missesInARow[busName] ?? 0
      if misses >= Self.missesBeforePingIsNotEnough {
        // Its library answers, its handler does not: a ping says nothing of the next event.
        self.answerPingNotEvents.insert(busName)
        self.logger.notice(
          "responders: \(busName.loggable) answers Ping but missed \(misses) events in a row: its registrations are passed over until it answers an event again"
        )
        self.changed()
        return
      }
      // Any answer (a reply, or an error from the application itself) means it runs again.
      self.hung.remove(busName)
      self.logger.notice("responders: \(busName.loggable) answers again: its registrations take events again")
      self.changed()
    }
  }

  func add(
    busName: String, path: String, eventTypes: Set<EventType>, processName: String?, pid: UInt32? = nil
  ) -> AppResponder {
    lastID &+= 1
    if lastID == 0 { lastID = 1 }
    let app = AppResponder(
      id: lastID, busName: busName, path: path, eventTypes: eventTypes,
      name: "\(processName ?? "app")#\(lastID)", pid: pid, registry: self)
    apps.append(app)
    registrations[busName, default: 0] += 1
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

  /// Records what `app` says of its window's focus. The latest claim wins: when it says active,
  /// every other application that said so before is inactive from now on. Returns those.
  func setActive(_ app: AppResponder, _ active: Bool) -> [AppResponder] {
    var superseded: [AppResponder] = []
    if active {
      for other in apps where other !== app && other.focus == .active {
        other.focus = .inactive
        superseded.append(other)
      }
    }
    app.focus = active ? .active : .inactive
    changed()
    return superseded
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
    if let count = registrations[app.busName], count > 1 {
      registrations[app.busName] = count - 1
    } else {
      registrations[app.busName] = nil
      hung.remove(app.busName)
      probes.removeValue(forKey: app.busName)?.cancel()
      missesInARow[app.busName] = nil
      answerPingNotEvents.remove(app.busName)
      for call in lateCalls.removeValue(forKey: app.busName) ?? [] { call.cancel() }
    }
    app.markRemoved(successor: successor)
    logger.info("responders: \(app.name) (\(app.busName.loggable) \(app.path.loggable)) removed: \(reason)")
    if wasFirst {
      _ = app.resignFirstResponder()
      restorePreviousFirstResponder()
    }
    changed()
    app.abandonPendingCall()
  }

  /// Drops the calls in progress, to applications and to hung connections (responderd stops).
  func dropCallsInProgress() {
    for app in apps { app.dropPendingCall() }
    for probe in probes.values { probe.cancel() }
    probes.removeAll()
    for call in lateCalls.values.joined() { call.cancel() }
    lateCalls.removeAll()
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
    // The head of `order`, without building it: the first responder, else the latest registered.
    let first = (application.firstResponder as? AppResponder).flatMap { $0.isRemoved ? nil : $0 }
    application.keyWindow = first ?? apps.last ?? chain.head
    for observer in changeObservers { observer() }
  }
}

/// Whether process `pid` is stopped (state T or t in `/proc/PID/stat`: SIGSTOP, a debugger).
func isProcessStopped(_ pid: UInt32) -> Bool {
  guard pid > 0, let text = try? readTextFile("/proc/\(pid)/stat"),
    let end = text.lastIndex(of: ")")
  else { return false }
  // "PID (COMM) STATE …": COMM may hold spaces and parentheses, the last ")" ends it.
  let state = text[text.index(after: end)...].drop { $0 == " " }.first
  return state == "T" || state == "t"
}

/// "100 ms", "1.5 s".
func formatMilliseconds(_ seconds: Double) -> String {
  seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : "\(formatSeconds(seconds, decimals: 1)) s"
}
