import DBus
import EventLoop
import EventTime

#if canImport(Glibc)
  import Glibc
#endif

/// logind for tests: python3-dbusmock's `logind` template on a private system bus (a second
/// private dbus-daemon; its address is what `DBUS_SYSTEM_BUS_ADDRESS` would hold). Sessions are
/// added and changed through dbusmock's own API (`AddSession`, `UpdateProperties`), which emits
/// `PropertiesChanged` as logind does.
public final class MockLogind {
  /// The private system bus.
  public let bus: PrivateBus
  /// The dbusmock process.
  public let process: ChildProcess
  /// A connection of the test to the system bus (on the test's loop).
  public let connection: DBusConnection
  public let loop: EventLoop

  /// The system bus address (for `DBUS_SYSTEM_BUS_ADDRESS` or `SessionComponent(systemBusAddress:)`).
  public var address: String { bus.address }

  public static let name = "org.freedesktop.login1"
  static let mockInterface = "org.freedesktop.DBus.Mock"

  /// Starts the bus and dbusmock, and waits (10 s at most) until logind's name is on the bus.
  public init(loop: EventLoop) throws {
    self.loop = loop
    bus = try PrivateBus()
    let python = "/usr/bin/python3"
    guard access(python, X_OK) == 0 else {
      throw TestSupportError("\(python) is missing: install python3-dbusmock (scripts/packages.txt)")
    }
    process = try ChildProcess(
      [python, "-m", "dbusmock", "--template", "logind"],
      environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], stdout: .null, stderr: .capture)
    connection = try bus.connect(loop: loop)
    var owner: String?
    let watch = connection.watchNameOwner(Self.name) { owner = $0 }
    defer { watch.cancel() }
    guard loop.run(until: { owner != nil }, timeout: 10) else {
      let output = (try? process.readToEnd(timeout: 1)) ?? ""
      process.terminate()
      throw TestSupportError(
        "python3-dbusmock's logind template did not appear on the private system bus in 10 s (install python3-dbusmock, scripts/packages.txt): \(output)"
      )
    }
    // The template's GetUser adds the uid to a string and fails (dbusmock 0.28): answer as
    // logind does.
    _ = try connection.callAndWait(
      destination: Self.name, path: "/org/freedesktop/login1", interface: Self.mockInterface,
      method: "AddMethod",
      arguments: [
        .string("org.freedesktop.login1.Manager"), .string("GetUser"), .string("u"), .string("o"),
        .string("ret = '/org/freedesktop/login1/user/%u' % args[0]"),
      ], timeout: 5)
  }

  deinit {
    connection.close()
    process.terminate()
    bus.stop()
  }

  /// The object path dbusmock gives session `id`.
  public static func path(ofSession id: String) -> String { "/org/freedesktop/login1/session/" + id }

  /// Adds session `id` of user `uid` on seat0 (`AddSession`: the seat and the user are created
  /// when missing); returns its path.
  @discardableResult
  public func addSession(_ id: String, uid: UInt32, active: Bool) throws -> String {
    let reply = try connection.callAndWait(
      destination: Self.name, path: "/org/freedesktop/login1", interface: Self.mockInterface,
      method: "AddSession",
      arguments: [.string(id), .string("seat0"), .uint32(uid), .string("user\(uid)"), .bool(active)],
      timeout: 5)
    return reply.first?.string ?? Self.path(ofSession: id)
  }

  /// Sets properties of session `id` (`Active`, `LockedHint`) and announces them with
  /// PropertiesChanged; `sent` runs when the call is on its way, `done` with dbusmock's answer.
  public func updateSession(
    _ id: String, _ properties: [String: DBusValue], done: ((Result<[DBusValue], DBusError>) -> Void)? = nil
  ) {
    connection.call(
      destination: Self.name, path: Self.path(ofSession: id), interface: Self.mockInterface,
      method: "UpdateProperties",
      arguments: [.string("org.freedesktop.login1.Session"), .vardict(properties)], timeout: 5
    ) { done?($0) }
  }

  /// `updateSession`, waiting for dbusmock's answer.
  public func updateSessionAndWait(_ id: String, _ properties: [String: DBusValue]) throws {
    var result: Result<[DBusValue], DBusError>?
    updateSession(id, properties) { result = $0 }
    guard loop.run(until: { result != nil }, timeout: 6), let result else {
      throw TestSupportError("dbusmock did not answer UpdateProperties in 6 s")
    }
    _ = try result.get()
  }

  /// Sets the `Display` of user `uid` (the session the user's display runs in), announced with
  /// PropertiesChanged (`Properties.Set`: dbusmock's UpdateProperties cannot take a struct).
  public func setDisplay(ofUser uid: UInt32, toSession id: String) throws {
    _ = try connection.callAndWait(
      destination: Self.name, path: "/org/freedesktop/login1/user/\(uid)",
      interface: "org.freedesktop.DBus.Properties", method: "Set",
      arguments: [
        .string("org.freedesktop.login1.User"), .string("Display"),
        .variant(.structure([.string(id), .objectPath(Self.path(ofSession: id))])),
      ], timeout: 5)
  }
}
