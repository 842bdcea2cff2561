import DBus
import EventTime

#if canImport(Glibc)
  import Glibc
#endif

/// A message bus in memory, for unit tests: the connections made with `connect()` call, reply,
/// emit and subscribe as on a bus daemon, and the bus driver (`org.freedesktop.DBus`) answers
/// what the clients ask it (names and their owners, credentials), with no daemon and no socket.
///
/// Every message is delivered through the scheduler, `latency` seconds after it was sent (0: at
/// the next `advance` of a `VirtualScheduler`), in the order sent, so that a test drives the bus,
/// the deadlines and the clients on virtual time:
///
/// ```swift
/// let time = VirtualScheduler()
/// let bus = InMemoryBus(scheduler: time)
/// let daemon = bus.connect(), app = bus.connect()
/// app.call(destination: daemon.uniqueName!, …) { reply = $0 }
/// time.advance(by: 0)  // delivered and answered
/// ```
///
/// As on dbus-daemon: a connection that leaves releases its names (`NameOwnerChanged`), and a
/// call it did not answer fails at once with `NoReply`. Names are not queued: `RequestName`
/// answers `exists` when the name is taken and cannot be replaced.
public final class InMemoryBus {
  /// The bus driver's name.
  public static let driverName = "org.freedesktop.DBus"

  public let scheduler: Scheduler
  /// How long each message takes to arrive.
  public var latency: Seconds = 0
  private var connections: [String: InMemoryBusConnection] = [:]
  /// Well-known names and their owners (unique names).
  private var owners: [String: Owner] = [:]
  /// Calls whose reply is awaited: (caller, serial) → callee.
  private var awaitedReplies: [AwaitedReply: String] = [:]
  private var lastSerial: UInt32 = 0
  private var lastConnection = 0

  private struct Owner {
    var uniqueName: String
    var allowsReplacement: Bool
  }

  private struct AwaitedReply: Hashable {
    var caller: String
    var serial: UInt32
  }

  public init(scheduler: Scheduler) { self.scheduler = scheduler }

  /// A new connection, registered at once (it has its unique name), running as `uid`/`pid`
  /// (what `GetConnectionCredentials` answers about it).
  public func connect(uid: UInt32 = getuid(), pid: UInt32 = UInt32(getpid())) -> InMemoryBusConnection {
    lastConnection += 1
    let name = ":1.\(lastConnection)"
    let connection = InMemoryBusConnection(bus: self, uniqueName: name, uid: uid, pid: pid)
    connections[name] = connection
    announceOwner(of: name, old: nil, new: name)
    signal("NameAcquired", [.string(name)], to: name)
    return connection
  }

  /// Every name on the bus: the driver's, the unique names and the well-known names.
  public var names: [String] { [Self.driverName] + connections.keys.sorted() + owners.keys.sorted() }

  /// The unique name owning `name` (itself for a unique name still on the bus).
  public func owner(of name: String) -> String? {
    if name.hasPrefix(":") { return connections[name] != nil ? name : nil }
    if name == Self.driverName { return Self.driverName }
    return owners[name]?.uniqueName
  }

  // MARK: Routing

  /// Stamps `message` with its sender and a new serial and sends it on its way; returns the serial.
  @discardableResult
  func post(_ message: DBusMessage, from sender: InMemoryBusConnection) -> UInt32 {
    let serial = nextSerial()
    message.stamp(sender: sender.uniqueName ?? "", serial: serial)
    let from = sender.uniqueName ?? ""
    switch message.kind {
    case .signal:
      if let destination = message.destination {
        deliver(message, to: owner(of: destination))
      } else {
        for name in connections.keys.sorted() { deliver(message, to: name) }
      }
    case .methodCall:
      let destination = message.destination ?? ""
      if destination == Self.driverName {
        scheduler.schedule(after: latency) { [weak self] in self?.driverCall(message) }
        return serial
      }
      guard let callee = owner(of: destination) else {
        reply(
          to: message,
          error: DBusError(
            DBusError.Name.serviceUnknown, "The name \(destination) was not provided by any .service files"))
        return serial
      }
      if !message.noReplyExpected { awaitedReplies[AwaitedReply(caller: from, serial: serial)] = callee }
      deliver(message, to: callee)
    case .methodReturn, .error:
      // Only the reply a caller waits for, from the connection it called, gets through.
      let key = AwaitedReply(caller: message.destination ?? "", serial: message.replySerial)
      guard awaitedReplies[key] == from else { return serial }
      awaitedReplies[key] = nil
      deliver(message, to: key.caller)
    }
    return serial
  }

  private func nextSerial() -> UInt32 {
    lastSerial &+= 1
    if lastSerial == 0 { lastSerial = 1 }
    return lastSerial
  }

  private func deliver(_ message: DBusMessage, to name: String?) {
    guard let name, let connection = connections[name] else { return }
    scheduler.schedule(after: latency) { [weak connection] in connection?.receive(message) }
  }

  /// Answers `call` from the driver (also with errors about names nobody owns).
  private func reply(to call: DBusMessage, _ values: [DBusValue] = [], error: DBusError? = nil) {
    guard !call.noReplyExpected, let caller = call.sender else { return }
    let answer: DBusMessage
    if let error {
      answer = call.makeError(error)
    } else {
      guard let made = try? call.makeReply(values) else { return }
      answer = made
    }
    answer.stamp(sender: Self.driverName, serial: nextSerial())
    deliver(answer, to: caller)
  }

  /// Emits a signal of the driver, to everyone or to one connection.
  private func signal(_ name: String, _ arguments: [DBusValue], to destination: String? = nil) {
    guard
      let message = try? DBusMessage.signal(
        path: "/org/freedesktop/DBus", interface: Self.driverName, name: name, arguments: arguments)
    else { return }
    message.stamp(sender: Self.driverName, serial: nextSerial(), destination: destination)
    if let destination {
      deliver(message, to: destination)
    } else {
      for connection in connections.keys.sorted() { deliver(message, to: connection) }
    }
  }

  private func announceOwner(of name: String, old: String?, new: String?) {
    signal("NameOwnerChanged", [.string(name), .string(old ?? ""), .string(new ?? "")])
  }

  // MARK: Leaving

  /// Takes `connection` off the bus: its names are released, calls it did not answer fail.
  func remove(_ connection: InMemoryBusConnection) {
    guard let unique = connection.uniqueName, connections[unique] === connection else { return }
    connections[unique] = nil
    for (name, owner) in owners.sorted(by: { $0.key < $1.key }) where owner.uniqueName == unique {
      owners[name] = nil
      announceOwner(of: name, old: unique, new: nil)
    }
    announceOwner(of: unique, old: unique, new: nil)
    for (awaited, callee) in awaitedReplies where callee == unique || awaited.caller == unique {
      awaitedReplies[awaited] = nil
      guard callee == unique, let caller = connections[awaited.caller] else { continue }
      scheduler.schedule(after: latency) { [weak caller] in
        caller?.replyLost(
          serial: awaited.serial,
          DBusError(
            DBusError.Name.noReply, "Message recipient disconnected from message bus without replying"))
      }
    }
  }

  // MARK: The bus driver

  private func driverCall(_ call: DBusMessage) {
    let arguments = call.arguments
    let sender = call.sender ?? ""
    func name(at index: Int) -> String? { index < arguments.count ? arguments[index].string : nil }
    func connection(_ name: String?) -> InMemoryBusConnection? {
      name.flatMap { owner(of: $0) }.flatMap { connections[$0] }
    }
    func noOwner(_ name: String?) {
      reply(
        to: call,
        error: DBusError(
          DBusError.Name.nameHasNoOwner, "Could not get owner of name '\(name ?? "")': no such name"))
    }
    switch (call.interface ?? Self.driverName, call.member ?? "", call.signature) {
    case (Self.driverName, "Hello", ""):
      reply(to: call, [.string(sender)])
    case (Self.driverName, "ListNames", ""):
      reply(to: call, [names.dbusValue])
    case (Self.driverName, "GetNameOwner", "s"):
      guard let owner = name(at: 0).flatMap(owner(of:)) else { return noOwner(name(at: 0)) }
      reply(to: call, [.string(owner)])
    case (Self.driverName, "NameHasOwner", "s"):
      reply(to: call, [.bool(name(at: 0).flatMap(owner(of:)) != nil)])
    case (Self.driverName, "RequestName", "su"):
      let flags = DBusNameFlags(rawValue: arguments[1].uint32 ?? 0)
      reply(to: call, [.uint32(requestName(name(at: 0) ?? "", for: sender, flags: flags).rawValue)])
    case (Self.driverName, "ReleaseName", "s"):
      reply(to: call, [.uint32(releaseName(name(at: 0) ?? "", for: sender))])
    case (Self.driverName, "GetConnectionUnixUser", "s"):
      guard let target = connection(name(at: 0)) else { return noOwner(name(at: 0)) }
      reply(to: call, [.uint32(target.uid)])
    case (Self.driverName, "GetConnectionUnixProcessID", "s"):
      guard let target = connection(name(at: 0)) else { return noOwner(name(at: 0)) }
      reply(to: call, [.uint32(target.pid)])
    case (Self.driverName, "GetConnectionCredentials", "s"):
      guard let target = connection(name(at: 0)) else { return noOwner(name(at: 0)) }
      reply(to: call, [.vardict(["UnixUserID": .uint32(target.uid), "ProcessID": .uint32(target.pid)])])
    case (Self.driverName, "AddMatch", "s"), (Self.driverName, "RemoveMatch", "s"):
      // Signals reach every connection; each subscription filters with its own rule.
      reply(to: call)
    case ("org.freedesktop.DBus.Peer", "Ping", ""):
      reply(to: call)
    default:
      reply(
        to: call,
        error: DBusError(
          DBusError.Name.unknownMethod,
          "the in-memory bus driver has no method \(call.member ?? "") with signature '\(call.signature)'"))
    }
  }

  private func requestName(_ name: String, for sender: String, flags: DBusNameFlags) -> DBusRequestNameResult
  {
    let allows = flags.contains(.allowReplacement)
    guard let current = owners[name] else {
      owners[name] = Owner(uniqueName: sender, allowsReplacement: allows)
      announceOwner(of: name, old: nil, new: sender)
      signal("NameAcquired", [.string(name)], to: sender)
      return .primaryOwner
    }
    if current.uniqueName == sender {
      owners[name]?.allowsReplacement = allows
      return .alreadyOwner
    }
    guard current.allowsReplacement, flags.contains(.replaceExisting) else { return .exists }
    owners[name] = Owner(uniqueName: sender, allowsReplacement: allows)
    signal("NameLost", [.string(name)], to: current.uniqueName)
    announceOwner(of: name, old: current.uniqueName, new: sender)
    signal("NameAcquired", [.string(name)], to: sender)
    return .primaryOwner
  }

  /// 1: released, 2: nobody owns it, 3: someone else owns it (as `ReleaseName` answers).
  private func releaseName(_ name: String, for sender: String) -> UInt32 {
    guard let current = owners[name] else { return 2 }
    guard current.uniqueName == sender else { return 3 }
    owners[name] = nil
    signal("NameLost", [.string(name)], to: sender)
    announceOwner(of: name, old: sender, new: nil)
    return 1
  }
}

/// One connection to an `InMemoryBus`, as its clients see it (a `MessageBus`).
public final class InMemoryBusConnection: MessageBus {
  private weak var bus: InMemoryBus?
  public let scheduler: Scheduler
  public private(set) var uniqueName: String?
  /// What the bus answers about this connection's process.
  public let uid: UInt32
  public let pid: UInt32
  public private(set) var isConnected = true
  /// While true, the connection's process is stopped (as with SIGSTOP): messages to it wait,
  /// unhandled, until it is false again.
  public var isStopped = false {
    didSet { if !isStopped { resume() } }
  }
  private let objects = DBusObjectTable()
  public var callerCheck: DBusCallerCheck? {
    get { objects.callerCheck }
    set { objects.callerCheck = newValue }
  }
  private let subscriptions = DBusSubscriptionTable()
  private var pendingCalls: [UInt32: DBusPendingCall] = [:]
  private var observers: [(MessageBusEvent) -> Void] = []
  private var held: [DBusMessage] = []

  init(bus: InMemoryBus, uniqueName: String, uid: UInt32, pid: UInt32) {
    self.bus = bus
    self.scheduler = bus.scheduler
    self.uniqueName = uniqueName
    self.uid = uid
    self.pid = pid
  }

  /// Leaves the bus (as a process that exits): names are released, calls made to it that are
  /// unanswered fail with `NoReply`, its own calls fail with `Disconnected`.
  public func leave() {
    guard isConnected else { return }
    isConnected = false
    bus?.remove(self)
    let calls = pendingCalls.values
    pendingCalls.removeAll()
    for call in calls { call.finish(.failure(DBusError.disconnected("left the in-memory bus"))) }
    held.removeAll()
    for observer in observers { observer(.disconnected(DBusError.disconnected("left the in-memory bus"))) }
  }

  // MARK: MessageBus

  public func send(_ message: DBusMessage) throws(DBusError) {
    guard isConnected, let bus else { throw DBusError.disconnected() }
    bus.post(message, from: self)
  }

  @discardableResult
  public func call(
    _ message: DBusMessage, timeout: Seconds, reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) -> DBusPendingCall {
    let call = DBusPendingCall(message: message, timeout: timeout, reply: reply)
    guard isConnected, let bus else {
      scheduler.schedule(after: 0) { call.finish(.failure(DBusError.disconnected())) }
      return call
    }
    let serial = bus.post(message, from: self)
    pendingCalls[serial] = call
    call.setReleaseHandler { [weak self] in self?.pendingCalls[serial] = nil }
    call.startDeadline(on: scheduler)
    return call
  }

  @discardableResult
  public func subscribe(_ rule: DBusMatchRule, handler: @escaping (DBusMessage) -> Void) -> DBusSubscription {
    subscriptions.add(rule, on: self, handler: handler) { _ in }
  }

  @discardableResult
  public func export(path: String, interfaces: [DBusInterface]) throws(DBusError) -> DBusExportedObject {
    try objects.export(path: path, interfaces: interfaces, on: self)
  }

  public func exportedObject(at path: String) -> DBusExportedObject? { objects.object(at: path) }

  public func requestName(
    _ name: String, flags: DBusNameFlags, reply: ((Result<DBusRequestNameResult, DBusError>) -> Void)?
  ) {
    call(
      destination: InMemoryBus.driverName, path: "/org/freedesktop/DBus", interface: InMemoryBus.driverName,
      method: "RequestName", arguments: [.string(name), .uint32(flags.rawValue)]
    ) { result in
      reply?(
        result.flatMap { values in
          values.first?.uint32.flatMap(DBusRequestNameResult.init(rawValue:)).map { .success($0) }
            ?? .failure(DBusError.failed("RequestName returned '\(values.signature)'"))
        })
    }
  }

  public func releaseName(_ name: String, reply: ((Result<UInt32, DBusError>) -> Void)?) {
    call(
      destination: InMemoryBus.driverName, path: "/org/freedesktop/DBus", interface: InMemoryBus.driverName,
      method: "ReleaseName", arguments: [.string(name)]
    ) { result in
      reply?(
        result.flatMap { values in
          values.first?.uint32.map { .success($0) }
            ?? .failure(DBusError.failed("ReleaseName returned '\(values.signature)'"))
        })
    }
  }

  public func addObserver(_ observer: @escaping (MessageBusEvent) -> Void) {
    observers.append(observer)
  }

  // MARK: Delivery

  func receive(_ message: DBusMessage) {
    guard isConnected else { return }
    if isStopped {
      held.append(message)
      return
    }
    switch message.kind {
    case .methodCall:
      if message.interface == "org.freedesktop.DBus.Peer" {
        // Answered by libdbus itself on a real connection.
        switch message.member {
        case "Ping": try? send(message.makeReply())
        case "GetMachineId": try? send(message.makeReply([.string("0123456789abcdef0123456789abcdef")]))
        default: try? send(message.makeError(DBusError(DBusError.Name.unknownMethod, "no such Peer method")))
        }
        return
      }
      objects.handleMethodCall(message) { [weak self] reply throws(DBusError) in
        guard let self else { return }
        try self.send(reply)
      }
    case .methodReturn, .error:
      pendingCalls[message.replySerial]?.completed(message)
    case .signal:
      if message.sender == InMemoryBus.driverName, message.destination == uniqueName,
        let name = message.arguments.first?.string
      {
        if message.member == "NameAcquired" {
          for observer in observers { observer(.nameAcquired(name)) }
        } else if message.member == "NameLost" {
          for observer in observers { observer(.nameLost(name)) }
        }
      }
      subscriptions.deliver(message)
    }
  }

  /// The callee of the call `serial` left without answering.
  func replyLost(serial: UInt32, _ error: DBusError) {
    guard isConnected, let call = pendingCalls[serial] else { return }
    call.finish(.failure(error))
  }

  private func resume() {
    let waiting = held
    held.removeAll()
    for message in waiting { receive(message) }
  }
}
