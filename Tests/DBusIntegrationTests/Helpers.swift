import DBus
import DBusTestSupport
import EventLoop
import Testing

/// Runs `loop` until `condition` holds; throws a clear error after `timeout` seconds.
func waitFor(
  _ what: String, on loop: EventLoop, timeout: Double = 5, _ condition: () -> Bool
) throws {
  guard loop.run(until: condition, timeout: timeout) else {
    throw TestSupportError("timed out after \(timeout) s waiting for \(what)")
  }
}

/// Calls and waits for the result (a failure is returned, not thrown).
func callResult(
  _ connection: DBusConnection, destination: String, path: String, interface: String?, method: String,
  _ arguments: [DBusValue] = [], timeout: Double = 5
) throws -> Result<[DBusValue], DBusError> {
  var result: Result<[DBusValue], DBusError>?
  connection.call(
    destination: destination, path: path, interface: interface, method: method, arguments: arguments,
    timeout: timeout
  ) { result = $0 }
  try waitFor("the reply to \(method)", on: connection.loop, timeout: timeout + 2) { result != nil }
  return result!
}

/// The error of a call that must fail.
func callError(
  _ connection: DBusConnection, destination: String, path: String, interface: String?, method: String,
  _ arguments: [DBusValue] = [], timeout: Double = 5
) throws -> DBusError {
  let result = try callResult(
    connection, destination: destination, path: path, interface: interface, method: method, arguments,
    timeout: timeout)
  switch result {
  case .success(let values):
    throw TestSupportError("\(method) succeeded with \(values), an error was expected")
  case .failure(let error): return error
  }
}

/// A bus, a loop, and two registered connections on it.
final class BusFixture {
  let bus: PrivateBus
  let loop: EventLoop
  let server: DBusConnection
  let client: DBusConnection

  init() throws {
    bus = try PrivateBus()
    loop = try EventLoop()
    server = try bus.connect(loop: loop)
    client = try bus.connect(loop: loop)
  }

  /// Exports `methods` on the server as interface org.responderd.Test at /t.
  func serveTest(_ methods: [DBusMethod]) throws {
    try server.export(path: "/t", interfaces: [DBusInterface("org.responderd.Test", methods: methods)])
  }

  /// Runs an external command with this bus as its session bus while the loop serves.
  func run(_ arguments: [String], timeout: Double = 10) throws -> CommandResult {
    try ChildProcess.run(arguments, environment: bus.environment, loop: loop, timeout: timeout)
  }
}

/// DBusEchoPeer (Tests/DBusEchoPeer) owning `name` on `bus`, once it said it is ready.
func echoPeer(
  named name: String, on bus: PrivateBus, sourceLocation: SourceLocation = #_sourceLocation
) throws -> ChildProcess {
  let peer = try ChildProcess(
    [try BuiltProducts.path(of: "DBusEchoPeer"), name], environment: bus.environment, stdout: .capture)
  let ready = try peer.readLine(timeout: 10)
  #expect(
    ready?.hasPrefix("ready :") == true, "peer said \(ready ?? "nothing")", sourceLocation: sourceLocation)
  return peer
}
