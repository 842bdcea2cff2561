import EventTime

/// What happened to a bus connection, for its observers.
public enum MessageBusEvent: Sendable, Equatable {
  /// Registered on the bus (first connection and reconnections), after subscriptions and names
  /// were registered again.
  case connected
  /// The connection to the bus was lost (the bus died or closed us), with the reason.
  case disconnected(DBusError)
  /// The bus told us we own a name (also after waiting in the queue).
  case nameAcquired(String)
  /// The bus told us we lost a name (another connection replaced us).
  case nameLost(String)
}

/// A connection to a message bus, as the clients of the bus use it: method calls with a reply and
/// a deadline, replies, signals (emitted and subscribed to), bus names and their owners, exported
/// objects. `DBusConnection` is the real one (libdbus, a bus daemon); an in-memory bus for tests
/// (`InMemoryBus` in `ResponderdTestKit`) runs the same clients on virtual time.
///
/// Everything a bus delivers (replies, signals, incoming calls, observer events) runs later on
/// its thread, never inside the call that caused it.
public protocol MessageBus: AnyObject {
  /// The clock of every deadline of the bus.
  var scheduler: Scheduler { get }
  /// Whether the connection is registered on the bus.
  var isConnected: Bool { get }
  /// The unique name (`:1.42`) given by the bus, nil until connected.
  var uniqueName: String? { get }

  /// Sends `message` as is (a signal, a reply, or a method call whose reply you do not want).
  func send(_ message: DBusMessage) throws(DBusError)

  /// Sends a method call; `reply` runs once with the reply (an error reply becomes `.failure`),
  /// or with `NoReply` when `timeout` seconds pass first, or `Disconnected`. Never runs `reply`
  /// before returning.
  @discardableResult
  func call(
    _ message: DBusMessage, timeout: Seconds, reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) -> DBusPendingCall

  /// Subscribes `handler` to messages matching `rule`. Handlers run in subscription order.
  @discardableResult
  func subscribe(_ rule: DBusMatchRule, handler: @escaping (DBusMessage) -> Void) -> DBusSubscription

  /// Exports an object at `path` implementing `interfaces`; Introspectable, Properties and Peer
  /// are provided. Throws for an invalid description or a path already exported.
  @discardableResult
  func export(path: String, interfaces: [DBusInterface]) throws(DBusError) -> DBusExportedObject

  /// The object exported at `path`, if any.
  func exportedObject(at path: String) -> DBusExportedObject?

  /// Asks for `name` (and again after every reconnection until `releaseName`).
  func requestName(
    _ name: String, flags: DBusNameFlags, reply: ((Result<DBusRequestNameResult, DBusError>) -> Void)?)

  /// Releases `name` (and stops asking for it after reconnections).
  func releaseName(_ name: String, reply: ((Result<UInt32, DBusError>) -> Void)?)

  /// Calls `observer` with every later event of the connection (connected, disconnected, names).
  func addObserver(_ observer: @escaping (MessageBusEvent) -> Void)

  /// Who may call the exported objects: asked with the sender of every incoming method call
  /// (every interface, the standard Properties and Introspectable ones included) before it is
  /// answered. Nil answers everyone.
  var callerCheck: DBusCallerCheck? { get set }
}

/// Decides whether the connection `sender` (a unique name) may make a call (`member`, as
/// `interface.method`) on the exported objects: `done` gets nil to let the call through, or the
/// error to answer it with. It may decide later.
public typealias DBusCallerCheck = (
  _ sender: String, _ member: String, _ done: @escaping (DBusError?) -> Void
) -> Void

extension MessageBus {
  /// Asks for `name` with `doNotQueue` (kept across reconnections until `releaseName`).
  public func requestName(
    _ name: String, reply: ((Result<DBusRequestNameResult, DBusError>) -> Void)? = nil
  ) {
    requestName(name, flags: [.doNotQueue], reply: reply)
  }

  /// Releases `name`.
  public func releaseName(_ name: String) { releaseName(name, reply: nil) }

  /// Emits a signal from `path`: to every connection with a matching rule, or to `destination`
  /// alone (a unicast signal, which no other connection receives).
  public func emitSignal(
    path: String, interface: String, name: String, arguments: [DBusValue] = [], destination: String? = nil
  )
    throws(DBusError)
  {
    try send(
      DBusMessage.signal(
        path: path, interface: interface, name: name, arguments: arguments, destination: destination))
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
      let call = DBusPendingCall(message: nil, timeout: timeout) { reply($0.map(\.arguments)) }
      scheduler.schedule(after: 0) { call.finish(.failure(error)) }
      return call
    }
    return call(message, timeout: timeout) { reply($0.map(\.arguments)) }
  }
}
