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
/// they are re-registered, then `onConnected` runs again.
public final class DBusConnection {
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
  /// Runs each time the connection is registered on the bus (first connection and reconnections),
  /// after subscriptions and names were re-registered.
  public var onConnected: (() -> Void)?
  /// Runs when the connection to the bus is lost (the bus died or closed us), with the reason.
  public var onDisconnected: ((DBusError) -> Void)?
  /// Runs when the bus tells us we lost a name (another connection replaced us).
  public var onNameLost: ((String) -> Void)?
  /// Runs when the bus tells us we own a name (also after waiting in the queue).
  public var onNameAcquired: ((String) -> Void)?

  var link: DBusLink?
  private var inbox: [InboxItem] = []
  private var dispatchScheduled = false
  private var processingInbox = false
  var pendingCalls: [ObjectIdentifier: DBusPendingCall] = [:]
  var subscriptions: [DBusSubscription] = []
  var ownedNames: [OwnedName] = []
  var objects: [String: DBusExportedObject] = [:]
  var reconnector: DBusReconnector?
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
  /// whenever it goes away): `onConnected` runs each time the connection is registered.
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

  /// Closes the connection for good (no reconnection). Outstanding calls fail with `Disconnected`;
  /// subscriptions, exported objects and callbacks are dropped (which breaks reference cycles
  /// through handlers that capture the connection).
  public func close() {
    guard state != .closed else { return }
    reconnector?.stop()
    reconnector = nil
    tearDownLink()
    state = .closed
    failPendingCalls(DBusError.disconnected("connection closed"))
    // Drop everything that may hold the owner (and so this connection) in a cycle.
    let active = subscriptions
    subscriptions.removeAll()
    for subscription in active { subscription.cancel() }
    objects.removeAll()
    ownedNames.removeAll()
    onConnected = nil
    onDisconnected = nil
    onNameLost = nil
    onNameAcquired = nil
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
    let link = try DBusLink(address: address, loop: loop, scheduler: scheduler)
    generation += 1
    self.link = link
    state = .connecting
    link.onActivity = { [weak self] in self?.scheduleDispatch() }
    link.onMessage = { [weak self] message in self?.inbox.append(.message(message)) }
    scheduleDispatch()
    let hello = try! DBusMessage.methodCall(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "Hello")
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
        self.onConnected?()
      case .failure(let error):
        self.lostBus(DBusError(error.name, "registering on the bus failed: \(error.message)"))
      }
    }
  }

  private func tearDownLink() {
    guard let link else { return }
    self.link = nil
    uniqueName = nil
    link.close()
    // Messages of the dead link that were not processed yet are dropped.
    inbox.removeAll { item in
      if case .message = item { return true }
      return false
    }
  }

  /// The bus went away (Disconnected from libdbus, or Hello failed).
  func lostBus(_ error: DBusError) {
    guard state == .connected || state == .connecting else { return }
    tearDownLink()
    state = .disconnected
    failPendingCalls(error)
    for subscription in subscriptions { subscription.resolvedSender = nil }
    onDisconnected?(error)
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
  }

  private func processInbox() {
    guard !processingInbox else { return }
    processingInbox = true
    defer { processingInbox = false }
    while !inbox.isEmpty {
      let item = inbox.removeFirst()
      switch item {
      case .message(let message): handle(message)
      case .reply(let call, let reply): call.completed(reply)
      }
    }
  }

  private func handle(_ message: DBusMessage) {
    switch message.kind {
    case .signal:
      if message.isSignal(interface: "org.freedesktop.DBus.Local", member: "Disconnected"),
        message.path == "/org/freedesktop/DBus/Local"
      {
        lostBus(DBusError.disconnected("the bus closed the connection"))
        return
      }
      if message.sender == "org.freedesktop.DBus", message.interface == "org.freedesktop.DBus",
        let name = message.arguments.first?.string, message.destination == uniqueName
      {
        if message.member == "NameLost" {
          onNameLost?(name)
        } else if message.member == "NameAcquired" {
          onNameAcquired?(name)
        }
      }
      deliverSignal(message)
    case .methodCall:
      handleMethodCall(message)
    case .methodReturn, .error:
      break  // a reply nobody waits for any more (cancelled or past its deadline)
    }
  }

  fileprivate func enqueueReply(_ call: DBusPendingCall, _ reply: OpaquePointer?) {
    inbox.append(.reply(call, reply))
    scheduleDispatch()
  }

  // MARK: Sending

  /// Sends `message` as is (a signal, a reply, or a method call whose reply you do not want).
  public func send(_ message: DBusMessage) throws(DBusError) {
    guard let link else { throw DBusError.disconnected() }
    try link.send(message)
  }

  /// Emits a signal from `path`.
  public func emitSignal(path: String, interface: String, name: String, arguments: [DBusValue] = [])
    throws(DBusError)
  {
    try send(DBusMessage.signal(path: path, interface: interface, name: name, arguments: arguments))
  }

  /// Calls a method without waiting for (or getting) a reply.
  public func callWithoutReply(
    destination: String, path: String, interface: String?, method: String, arguments: [DBusValue] = []
  ) throws(DBusError) {
    let message = try DBusMessage.methodCall(
      destination: destination, path: path, interface: interface, method: method, arguments: arguments)
    message.noReplyExpected = true
    try send(message)
  }

  /// Sends a method call; `reply` runs once on the loop with the reply (an error reply becomes
  /// `.failure`), or with `NoReply` when `timeout` seconds pass first, or `Disconnected`.
  /// Never runs `reply` before returning.
  @discardableResult
  public func call(
    _ message: DBusMessage, timeout: Seconds = 25,
    reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) -> DBusPendingCall {
    let call = DBusPendingCall(connection: self, message: message, timeout: timeout, reply: reply)
    guard let link, !link.isClosed else {
      call.failSoon(DBusError.disconnected())
      return call
    }
    var pending: OpaquePointer?
    let sent = dbus_connection_send_with_reply(link.raw, message.raw, &pending, CDBUS_TIMEOUT_INFINITE)
    guard sent != 0, let pending else {
      call.failSoon(sent == 0 ? DBusError.noMemory : DBusError.disconnected())
      return call
    }
    pendingCalls[ObjectIdentifier(call)] = call
    call.start(pending: pending)
    return call
  }

  /// Calls `interface.method` on `path` of `destination`; `reply` gets the reply's arguments.
  @discardableResult
  public func call(
    destination: String, path: String, interface: String?, method: String, arguments: [DBusValue] = [],
    timeout: Seconds = 25, reply: @escaping (Result<[DBusValue], DBusError>) -> Void
  ) -> DBusPendingCall {
    let message: DBusMessage
    do {
      message = try DBusMessage.methodCall(
        destination: destination, path: path, interface: interface, method: method, arguments: arguments)
    } catch {
      let call = DBusPendingCall(connection: self, message: nil, timeout: timeout) {
        reply($0.map(\.arguments))
      }
      call.failSoon(error)
      return call
    }
    return call(message, timeout: timeout) { reply($0.map(\.arguments)) }
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
}

/// A method call waiting for its reply. `cancel()` drops it (the reply handler never runs).
public final class DBusPendingCall {
  private weak var connection: DBusConnection?
  private var pending: OpaquePointer?
  private var timer: ScheduledTimer?
  private var reply: ((Result<DBusMessage, DBusError>) -> Void)?
  private let timeout: Seconds
  /// The call, for error texts (described only when one is needed: not before the call is sent).
  private var message: DBusMessage?
  /// Whether the reply handler ran or the call was cancelled.
  public var isFinished: Bool { reply == nil }

  init(
    connection: DBusConnection, message: DBusMessage?, timeout: Seconds,
    reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) {
    self.connection = connection
    self.timeout = timeout
    self.reply = reply
    self.message = message
  }

  /// "interface.member on path of destination", for error texts.
  private var what: String {
    guard let message else { return "call" }
    let member = [message.interface, message.member].compactMap { $0 }.joined(separator: ".")
    return "\(member) on \(message.path ?? "?") of \(message.destination ?? "?")"
  }

  fileprivate func start(pending: OpaquePointer) {
    self.pending = pending
    let box = Unmanaged.passRetained(self).toOpaque()
    if dbus_pending_call_set_notify(pending, dbusPendingNotify, box, dbusPendingFree) == 0 {
      Unmanaged<DBusPendingCall>.fromOpaque(box).release()
      finish(.failure(DBusError.noMemory))
      return
    }
    if dbus_pending_call_get_completed(pending) != 0 {
      connection?.enqueueReply(self, dbus_pending_call_steal_reply(pending))
    }
    guard let connection else { return }
    timer = connection.scheduler.schedule(after: timeout) { [weak self] in self?.expire() }
  }

  /// Called from libdbus (inside dispatch): queue, handle later.
  fileprivate func notified(_ pending: OpaquePointer) {
    connection?.enqueueReply(self, dbus_pending_call_steal_reply(pending))
  }

  func completed(_ raw: OpaquePointer?) {
    guard let raw else {
      finish(.failure(DBusError(DBusError.Name.noReply, "no reply to \(what)")))
      return
    }
    let message = DBusMessage(owning: raw)
    if message.kind == .error, let error = message.error {
      finish(.failure(error))
    } else {
      finish(.success(message))
    }
  }

  private func expire() {
    guard reply != nil else { return }
    let ms = Int((timeout * 1000).rounded())
    finish(.failure(DBusError(DBusError.Name.noReply, "no reply to \(what) within \(ms) ms")))
  }

  func failSoon(_ error: DBusError) {
    connection?.loop.runSoon { [self] in finish(.failure(error)) }
  }

  /// Delivers `result` once and releases everything.
  func finish(_ result: Result<DBusMessage, DBusError>) {
    guard let handler = reply else { return }
    release()
    handler(result)
  }

  /// Drops the call: the reply handler will not run.
  public func cancel() { release() }

  /// Releases without a callback (the connection is going away).
  func abandon() { release() }

  private func release() {
    reply = nil
    message = nil
    timer?.cancel()
    timer = nil
    connection?.pendingCalls[ObjectIdentifier(self)] = nil
    if let pending {
      self.pending = nil
      dbus_pending_call_cancel(pending)
      dbus_pending_call_unref(pending)
    }
  }
}

private func dbusPendingNotify(_ pending: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
  guard let pending, let data else { return }
  Unmanaged<DBusPendingCall>.fromOpaque(data).takeUnretainedValue().notified(pending)
}

private func dbusPendingFree(_ data: UnsafeMutableRawPointer?) {
  guard let data else { return }
  Unmanaged<DBusPendingCall>.fromOpaque(data).release()
}

/// D-Bus address helpers.
public enum DBusAddress {
  /// Escapes a value for use in an address (`unix:path=` + escape(path)).
  public static func escape(_ value: String) -> String {
    var result = ""
    for byte in value.utf8 {
      let character = Character(Unicode.Scalar(byte))
      if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || "-_/.\\*".utf8.contains(byte)
      {
        result.append(character)
      } else {
        let hex = Array("0123456789abcdef")
        result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
      }
    }
    return result
  }

  /// The socket path of the first `unix:path=` entry of `address`, if any.
  public static func unixPath(of address: String) -> String? {
    for entry in address.split(separator: ";") {
      guard entry.hasPrefix("unix:") else { continue }
      for pair in entry.dropFirst(5).split(separator: ",") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2, parts[0] == "path" { return unescape(String(parts[1])) }
      }
    }
    return nil
  }

  static func unescape(_ value: String) -> String {
    var bytes: [UInt8] = []
    var iterator = Array(value.utf8).makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
