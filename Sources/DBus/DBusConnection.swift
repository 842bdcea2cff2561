internal import CDBus
import EventLoop
import EventTime

#if canImport(Glibc)
  import Glibc
#endif

/// A connection to a message bus, driven by an `EventLoop` (never blocks the loop).
///
/// ```swift
/// let bus = try DBusConnection.session(loop: loop, reconnect: .whenBusReappears)
/// bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
///          interface: "org.freedesktop.DBus", method: "ListNames", timeout: 1) { result in … }
/// ```
///
/// Everything is delivered on the loop thread, outside libdbus's dispatch, so handlers may call,
/// reply, close or reconnect freely. Exported objects, signal subscriptions and names requested
/// with `requestName` belong to this object and survive a reconnection: after the bus comes back
/// they are re-registered, then the observers hear `.connected` again.
public final class DBusConnection: MessageBus {
  /// Where a connection stands.
  public enum State: Sendable, Equatable {
    /// Socket open, Hello not answered yet (calls made now are queued behind it).
    case connecting
    /// Registered on the bus: `uniqueName` is set.
    case connected
    /// The bus went away or could not be reached; reconnection may be under way.
    case disconnected
    /// Closed by `close()`.
    case closed
  }

  /// What to do when the bus goes away.
  public enum ReconnectPolicy: Sendable, Equatable {
    /// Stay disconnected (call `reconnect()` yourself).
    case never
    /// Wait for the bus to come back and reconnect: inotify on the socket's directory for
    /// `unix:path=` addresses (no wake-ups while the bus is away), else a back-off timer
    /// (0.1 s doubling to 30 s) through the scheduler.
    case whenBusReappears
  }

  public let loop: EventLoop
  public let scheduler: Scheduler
  /// The bus address this connection (re)connects to.
  public let address: String
  public var reconnectPolicy: ReconnectPolicy
  public private(set) var state: State = .disconnected
  /// The unique name (`:1.42`) given by the bus on this connection, nil until connected.
  public private(set) var uniqueName: String?
  private var observers: [(MessageBusEvent) -> Void] = []

  var link: DBusLink?
  /// Messages and replies to process, in order. Changed out of place only (`changeInbox`): no
  /// access to it releases anything within it, so none needs a run-time exclusivity check.
  private var inbox: [InboxItem] = []
  private var dispatchScheduled = false
  private var processingInbox = false
  /// Messages handled since the heap was last looked at, and the look scheduled after a burst.
  private var handledSinceHeapCheck = 0
  private var heapCheck: ScheduledTimer?
  /// After this many messages, the heap is looked at `heapCheckDelay` later: what a burst left
  /// free is given back. No timer runs while the bus is quiet.
  static let messagesBeforeHeapCheck = 2000
  static let heapCheckDelay: Seconds = 2
  /// How long the bus is left unread after a turn whose every message could wait
  /// (`DBusMessage.couldWait`: signals their handlers dropped unread) while no reply is awaited;
  /// nil: read at once, always. Calling a method reads again at once; anything else that comes
  /// meanwhile (a method call, another signal) is read when the delay ends. No timer runs once
  /// such signals stop.
  public var batchingDelay: Seconds? = 0.05
  /// Whether every message handled in the current turn could wait (nil: none handled yet).
  private var turnCouldWait: Bool?
  private var resumeReading: ScheduledTimer?
  /// Reads made at once (`DBusLink.readNow`) since the socket was last left to the loop or paused:
  /// a batch larger than one read is read on, but a flood does not keep the loop from the rest.
  private var readsOn = 0
  static let mostReadsOn = 16
  var pendingCalls: [ObjectIdentifier: DBusPendingCall] = [:]
  let subscriptions = DBusSubscriptionTable()
  var ownedNames: [OwnedName] = []
  let objects = DBusObjectTable()
  var reconnector: DBusReconnector?
  public var callerCheck: DBusCallerCheck? {
    get { objects.callerCheck }
    set { objects.callerCheck = newValue }
  }

  private var failedReconnections = 0
  /// Counts links, so that late replies to an old link are dropped.
  private(set) var generation = 0

  enum InboxItem {
    case message(DBusMessage)
    case reply(DBusPendingCall, OpaquePointer?)
  }

  /// Connects to `address` (a D-Bus address such as `unix:path=/run/user/1000/bus`). Throws
  /// when the bus cannot be reached; registration (Hello) completes as the loop runs.
  public init(
    address: String, loop: EventLoop, scheduler: Scheduler? = nil, reconnect: ReconnectPolicy = .never
  ) throws(DBusError) {
    self.address = address
    self.loop = loop
    self.scheduler = scheduler ?? loop.scheduler
    self.reconnectPolicy = reconnect
    try open()
  }

  /// Connects to `address` when the bus is there, else waits for it to appear (and reconnects
  /// whenever it goes away): the observers hear `.connected` each time it is registered.
  /// For a service that must start without a bus and pick it up later.
  public init(waitingFor address: String, loop: EventLoop, scheduler: Scheduler? = nil) {
    self.address = address
    self.loop = loop
    self.scheduler = scheduler ?? loop.scheduler
    self.reconnectPolicy = .whenBusReappears
    if (try? open()) == nil { waitForBus(after: 0) }
  }

  /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
  public static func session(
    loop: EventLoop, scheduler: Scheduler? = nil, reconnect: ReconnectPolicy = .never
  ) throws(DBusError) -> DBusConnection {
    try DBusConnection(
      address: sessionBusAddress(), loop: loop, scheduler: scheduler, reconnect: reconnect)
  }

  /// The session bus address from the environment.
  public static func sessionBusAddress() throws(DBusError) -> String {
    if let value = getenv("DBUS_SESSION_BUS_ADDRESS"), value.pointee != 0 {
      return String(cString: value)
    }
    if let runtime = getenv("XDG_RUNTIME_DIR"), runtime.pointee != 0 {
      return "unix:path=" + DBusAddress.escape(String(cString: runtime) + "/bus")
    }
    throw DBusError(
      DBusError.Name.noServer, "no session bus: DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are unset")
  }

  deinit {
    reconnector?.stop()
    for call in pendingCalls.values { call.abandon() }
    link?.close()
  }

  /// Whether the connection is registered on the bus.
  public var isConnected: Bool { state == .connected }

  /// Calls `observer` with every later event of the connection (connected, disconnected, names).
  public func addObserver(_ observer: @escaping (MessageBusEvent) -> Void) {
    observers.append(observer)
  }

  private func notify(_ event: MessageBusEvent) {
    for observer in observers { observer(event) }
  }

  /// Closes the connection for good (no reconnection). Outstanding calls fail with `Disconnected`;
  /// subscriptions, exported objects and callbacks are dropped (which breaks reference cycles
  /// through handlers that capture the connection).
  public func close() {
    guard state != .closed else { return }
    reconnector?.stop()
    reconnector = nil
    tearDownLink()
    state = .closed
    heapCheck?.cancel()
    heapCheck = nil
    failPendingCalls(DBusError.disconnected("connection closed"))
    // Drop everything that may hold the owner (and so this connection) in a cycle.
    subscriptions.cancelAll()
    objects.removeAll()
    ownedNames.removeAll()
    observers.removeAll()
  }

  /// Reconnects now when disconnected (throws when the bus cannot be reached).
  public func reconnect() throws(DBusError) {
    guard state == .disconnected else { return }
    try open()
  }

  /// Blocks until queued outgoing messages are written. Only for tools about to exit.
  public func flush() { link?.flush() }

  // MARK: Link management

  private func open() throws(DBusError) {
    // Made before the link: a refused message leaves the connection as it was.
    let hello = try DBusMessage.methodCall(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "Hello")
    let link = try DBusLink(address: address, loop: loop, scheduler: scheduler)
    generation += 1
    self.link = link
    state = .connecting
    link.onActivity = { [weak self] in self?.scheduleDispatch() }
    link.onMessage = { [weak self] message in self?.changeInbox { $0.append(.message(message)) } }
    scheduleDispatch()
    let openedGeneration = generation
    call(hello, timeout: 25) { [weak self] result in
      guard let self, self.generation == openedGeneration, self.state == .connecting else { return }
      switch result {
      case .success(let reply):
        guard let name = reply.arguments.first?.string, let link = self.link else { return }
        _ = dbus_bus_set_unique_name(link.raw, name)
        self.uniqueName = name
        self.state = .connected
        self.reconnector?.stop()
        self.reconnector = nil
        self.failedReconnections = 0
        self.restoreBusState()
        self.notify(.connected)
      case .failure(let error):
        self.lostBus(DBusError(error.name, "registering on the bus failed: \(error.message)"))
      }
    }
  }

  private func tearDownLink() {
    resumeReading?.cancel()
    resumeReading = nil
    turnCouldWait = nil
    readsOn = 0
    guard let link else { return }
    self.link = nil
    uniqueName = nil
    link.close()
    // Messages of the dead link that were not processed yet are dropped.
    changeInbox { inbox in
      inbox.removeAll { item in
        if case .message = item { return true }
        return false
      }
    }
  }

  /// The bus went away (Disconnected from libdbus, or Hello failed).
  func lostBus(_ error: DBusError) {
    guard state == .connected || state == .connecting else { return }
    // A loss is reported once: attempts to reconnect that fail afterwards are not new losses.
    let isNewLoss = state == .connected || failedReconnections == 0
    tearDownLink()
    state = .disconnected
    failPendingCalls(error)
    subscriptions.forgetResolvedSenders()
    if isNewLoss { notify(.disconnected(error)) }
    if reconnectPolicy == .whenBusReappears, state == .disconnected {
      // Right away the first time; backing off when reconnections keep failing at once (a bus
      // that accepts and then drops us must not make us spin).
      var delay: Seconds = 0
      if failedReconnections > 0 { delay = min(0.1 * Seconds(1 << min(failedReconnections - 1, 9)), 30) }
      failedReconnections += 1
      waitForBus(after: delay)
    }
  }

  /// Starts waiting for the bus to (re)appear, then reconnects.
  private func waitForBus(after delay: Seconds) {
    reconnector?.stop()
    let reconnector = DBusReconnector(address: address, loop: loop, scheduler: scheduler) {
      [weak self] in
      guard let self, self.state == .disconnected else { return true }
      return (try? self.open()) != nil
    }
    self.reconnector = reconnector
    reconnector.start(after: delay)
  }

  private func failPendingCalls(_ error: DBusError) {
    let calls = pendingCalls.values
    pendingCalls.removeAll()
    for call in calls { call.finish(.failure(error)) }
  }

  // MARK: Dispatch (deferred to the loop, never from inside libdbus)

  /// While connecting: moves the handshake with the bus on now (a poll, no wait), so that Hello
  /// and the names asked for go out before the loop runs; nothing is dispatched.
  public func advanceHandshake() {
    guard state == .connecting, let link else { return }
    link.readAndWriteNow()
  }

  func scheduleDispatch() {
    guard !dispatchScheduled else { return }
    dispatchScheduled = true
    loop.runSoon { [weak self] in self?.dispatch() }
  }

  private func dispatch() {
    dispatchScheduled = false
    var rounds = 0
    while let link, link.hasDataToDispatch {
      _ = link.dispatchOne()
      processInbox()
      rounds += 1
      if rounds == 64 {
        // Let other sources of the loop run; come back on the next turn.
        scheduleDispatch()
        return
      }
    }
    processInbox()
    pauseReadingIfAllCouldWait()
  }

  /// After a turn whose every message could wait, with no reply awaited and nothing left in the
  /// socket: the bus is read again `batchingDelay` later (or at the next call), so that a stream
  /// of signals nobody needs now wakes the process a few times a second, not once per signal.
  /// A batch is read whole (libdbus reads about 4 KB at a time): else the process would read less
  /// than a chatty stream sends, and the bus would queue the rest, method calls behind it.
  ///
  /// The socket stays out of the loop from one batch to the next: the end of a pause reads it at
  /// once (`DBusLink.readNow`), and a batch that can wait again pauses again, so that a stream of
  /// such signals costs no `epoll_ctl` and no wake-up of the socket's own, only the loop's wait
  /// ending at the pause's deadline. A turn that cannot wait (or finds nothing) puts it back.
  private func pauseReadingIfAllCouldWait() {
    defer { turnCouldWait = nil }
    guard let link, !link.isClosed, resumeReading == nil else { return }
    guard turnCouldWait == true, pendingCalls.isEmpty, let delay = batchingDelay else {
      readsOn = 0
      link.resumeReading()
      return
    }
    if link.hasUnreadBytes {
      // More of the batch: read on at once (as the loop would report it), a bounded number of times.
      if readsOn < Self.mostReadsOn {
        readsOn += 1
        link.readNow()
      } else {
        readsOn = 0
        link.resumeReading()
      }
      return
    }
    readsOn = 0
    link.pauseReading()
    resumeReading = scheduler.schedule(after: delay) { [weak self] in
      guard let self else { return }
      self.resumeReading = nil
      self.link?.readNow()
    }
  }

  /// Ends a pause of `pauseReadingIfAllCouldWait` now.
  private func readAgain() {
    resumeReading?.cancel()
    resumeReading = nil
    readsOn = 0
    link?.resumeReading()
  }

  /// Whether the socket is out of the loop for reading (paused, or read at once between pauses).
  package var isReadingPaused: Bool { link?.readingPaused ?? false }

  private func processInbox() {
    guard !processingInbox else { return }
    processingInbox = true
    defer { processingInbox = false }
    while !inbox.isEmpty {
      var next: InboxItem?
      changeInbox { next = $0.removeFirst() }
      guard let item = next else { break }
      switch item {
      case .message(let message): handle(message)
      case .reply(let call, let reply):
        turnCouldWait = false
        call.completed(reply.map { DBusMessage(owning: $0) })
      }
    }
  }

  /// Changes `inbox` out of place: taken out with a swap, changed, swapped back.
  private func changeInbox(_ change: (inout [InboxItem]) -> Void) {
    var items: [InboxItem] = []
    swap(&items, &inbox)
    change(&items)
    swap(&items, &inbox)
  }

  private func noteHandled() {
    handledSinceHeapCheck += 1
    guard handledSinceHeapCheck >= Self.messagesBeforeHeapCheck, heapCheck == nil else { return }
    armHeapCheck()
  }

  /// Looks at the heap `heapCheckDelay` from now, and once more after that when messages came
  /// meanwhile (so that the end of a burst is looked at too).
  private func armHeapCheck() {
    handledSinceHeapCheck = 0
    heapCheck = scheduler.schedule(after: Self.heapCheckDelay) { [weak self] in
      guard let self else { return }
      self.heapCheck = nil
      _ = cdbus_release_free_heap(1 << 20)
      if self.handledSinceHeapCheck > 0 { self.armHeapCheck() }
    }
  }

  private func handle(_ message: DBusMessage) {
    noteHandled()
    let kind = message.kind
    // A signal's handlers say whether it could wait; anything else could not.
    if kind != .signal { turnCouldWait = false }
    switch kind {
    case .signal:
      if message.isSignal(literalInterface: "org.freedesktop.DBus.Local", member: "Disconnected"),
        message.path == "/org/freedesktop/DBus/Local"
      {
        lostBus(DBusError.disconnected("the bus closed the connection"))
        return
      }
      if message.hasSender(literal: "org.freedesktop.DBus"),
        message.hasInterface(literal: "org.freedesktop.DBus"),
        let name = message.arguments.first?.string, message.destination == uniqueName
      {
        if message.member == "NameLost" {
          notify(.nameLost(name))
        } else if message.member == "NameAcquired" {
          notify(.nameAcquired(name))
        }
      }
      subscriptions.deliver(message)
      if !message.couldWait {
        turnCouldWait = false
      } else if turnCouldWait == nil {
        turnCouldWait = true
      }
      return
    case .methodCall:
      // Replies go out on the link the call came on: after a reconnection nobody waits for them.
      let callGeneration = generation
      objects.handleMethodCall(message) { [weak self] reply throws(DBusError) in
        guard let self, self.generation == callGeneration else { return }
        try self.send(reply)
      }
    case .methodReturn, .error:
      break  // a reply nobody waits for any more (cancelled or past its deadline)
    }
  }

  func enqueueReply(_ call: DBusPendingCall, _ reply: OpaquePointer?) {
    changeInbox { $0.append(.reply(call, reply)) }
    scheduleDispatch()
  }

  // MARK: Sending

  /// Sends `message` as is (a signal, a reply, or a method call whose reply you do not want).
  public func send(_ message: DBusMessage) throws(DBusError) {
    guard let link else { throw DBusError.disconnected() }
    try link.send(message)
  }

  /// Sends a method call; `reply` runs once on the loop with the reply (an error reply becomes
  /// `.failure`), or with `NoReply` when `timeout` seconds pass first, or `Disconnected`.
  /// Never runs `reply` before returning.
  @discardableResult
  public func call(
    _ message: DBusMessage, timeout: Seconds = 25,
    reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) -> DBusPendingCall {
    let call = DBusPendingCall(message: message, timeout: timeout, reply: reply)
    // Its reply is wanted at once.
    if resumeReading != nil { readAgain() }
    guard let link, !link.isClosed else {
      failSoon(call, DBusError.disconnected())
      return call
    }
    let pending: LibdbusPendingReply
    do {
      pending = try LibdbusPendingReply.send(message, on: link, connection: self, call: call)
    } catch {
      failSoon(call, error)
      return call
    }
    let key = ObjectIdentifier(call)
    pendingCalls[key] = call
    call.setReleaseHandler { [weak self] in
      self?.pendingCalls[key] = nil
      pending.cancel()
    }
    pending.start()
    call.startDeadline(on: scheduler)
    return call
  }

  private func failSoon(_ call: DBusPendingCall, _ error: DBusError) {
    loop.runSoon { call.finish(.failure(error)) }
  }

  /// Calls a method and runs the loop until the reply comes (or `timeout`). For command-line
  /// tools and tests only: a service never waits like this.
  public func callAndWait(
    destination: String, path: String, interface: String?, method: String, arguments: [DBusValue] = [],
    timeout: Seconds = 25
  ) throws(DBusError) -> [DBusValue] {
    var result: Result<[DBusValue], DBusError>?
    call(
      destination: destination, path: path, interface: interface, method: method, arguments: arguments,
      timeout: timeout
    ) { result = $0 }
    loop.run(until: { result != nil }, timeout: timeout + 1)
    guard let result else {
      throw DBusError(DBusError.Name.noReply, "no reply from \(destination) to \(method) within \(timeout) s")
    }
    return try result.get()
  }

  /// Runs the loop until the connection is registered on the bus (for tools and tests).
  public func waitUntilConnected(timeout: Seconds) throws(DBusError) {
    loop.run(until: { [unowned self] in self.state != .connecting }, timeout: timeout)
    switch state {
    case .connected: return
    case .connecting:
      throw DBusError(DBusError.Name.timeout, "not registered on the bus at \(address) after \(timeout) s")
    case .disconnected, .closed:
      throw DBusError.disconnected("could not register on the bus at \(address)")
    }
  }

  // MARK: Subscriptions and exported objects

  /// Subscribes `handler` to messages matching `rule` (AddMatch on the bus; re-added after a
  /// reconnection). Handlers run in subscription order, on the loop.
  @discardableResult
  public func subscribe(_ rule: DBusMatchRule, handler: @escaping (DBusMessage) -> Void) -> DBusSubscription {
    let subscription = subscriptions.add(rule, on: self, handler: handler) { [weak self] subscription in
      self?.removeMatch(subscription.rule)
    }
    if state == .connected { addMatch(rule) }
    return subscription
  }

  /// Exports an object at `path` implementing `interfaces`; Introspectable, Properties and Peer
  /// are provided. Throws for an invalid description or a path already exported.
  @discardableResult
  public func export(path: String, interfaces: [DBusInterface]) throws(DBusError) -> DBusExportedObject {
    try objects.export(path: path, interfaces: interfaces, on: self)
  }

  /// The object exported at `path`, if any.
  public func exportedObject(at path: String) -> DBusExportedObject? { objects.object(at: path) }

  private func removeMatch(_ rule: DBusMatchRule) {
    guard isConnected else { return }
    try? callWithoutReply(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "RemoveMatch", arguments: [.string(rule.description)])
  }

  private func addMatch(_ rule: DBusMatchRule) {
    // Errors (a malformed rule, too many rules) are not fatal: the subscription just stays silent.
    call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "AddMatch", arguments: [.string(rule.description)], timeout: 25
    ) { _ in }
  }

  /// Re-registers what the bus forgot: match rules, owner queries, names.
  func restoreBusState() {
    for subscription in subscriptions.subscriptions where subscription.isActive {
      addMatch(subscription.rule)
    }
    for subscription in subscriptions.subscriptions where subscription.isActive {
      subscription.initialQuery?()
    }
    for index in ownedNames.indices {
      let owned = ownedNames[index]
      if owned.requestedOn == generation { continue }  // already asked for, behind Hello
      ownedNames[index].requestedOn = nil
      ownedNames[index].reply = nil
      requestName(owned.name, flags: owned.flags, keep: false, reply: owned.reply)
    }
  }
}
