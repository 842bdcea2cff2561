import DBus
import EventLoop
import ResponderClient
import ResponderConfig
import ResponderTools
import SystemCalls
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// Exit code when responderd is not running (EX_UNAVAILABLE).
let exitDaemonNotRunning: Int32 = 69

/// The session bus and the running responderd on it, for one responderctl command.
struct DaemonLink {
  let loop: EventLoop
  let bus: DBusConnection
  /// The unique name of the responderd answering (the owner of org.responderd.Daemon1).
  let owner: String

  /// Connects to the session bus and finds responderd; prints "responderd is not running on the
  /// session bus (…)" and exits with 69 when it is not there. With `json`, also prints
  /// `{"running": false, "error": …}` on stdout.
  static func connect(json: Bool = false) throws -> DaemonLink {
    let loop = try EventLoop()
    let address: String
    do {
      address = try DBusConnection.sessionBusAddress()
    } catch {
      throw notRunning(error.message, json: json)
    }
    let bus: DBusConnection
    do {
      bus = try DBusConnection(address: address, loop: loop)
      try bus.waitUntilConnected(timeout: 5)
    } catch {
      throw notRunning("cannot connect to \(address): \(error.message)", json: json)
    }
    do throws(DBusError) {
      let owner = try bus.callAndWait(
        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        method: "GetNameOwner", arguments: [.string(ResponderBusAPI.daemonName)], timeout: 5)
      guard let name = owner.first?.string else { throw DBusError.failed("GetNameOwner returned nothing") }
      return DaemonLink(loop: loop, bus: bus, owner: name)
    } catch {
      let reason =
        error.name == DBusError.Name.nameHasNoOwner
        ? "\(ResponderBusAPI.daemonName) has no owner on \(address)" : "\(address): \(error.message)"
      throw notRunning(reason, json: json)
    }
  }

  private static func notRunning(_ reason: String, json: Bool) -> ExitCode {
    let message = "responderd is not running on the session bus (\(reason))"
    if json {
      writeText(
        JSON.object([("running", .bool(false)), ("error", .string(message))]).text + "\n", to: .standardOutput
      )
    }
    writeText("responderctl: \(message)\n", to: .standardError)
    return ExitCode(exitDaemonNotRunning)
  }

  /// Calls a method of the daemon and waits; prints the error and exits with 1 when it fails.
  func call(_ method: String, _ arguments: [DBusValue] = [], timeout: Double = 10) throws -> [DBusValue] {
    try call(
      path: ResponderBusAPI.daemonPath, interface: ResponderBusAPI.daemonInterface, method, arguments,
      timeout: timeout)
  }

  /// Calls a method of one of the daemon's objects and waits; prints the error and exits with 1
  /// when it fails.
  func call(
    path: String, interface: String, _ method: String, _ arguments: [DBusValue] = [], timeout: Double = 10
  ) throws -> [DBusValue] {
    do {
      return try bus.callAndWait(
        destination: owner, path: path, interface: interface, method: method, arguments: arguments,
        timeout: timeout)
    } catch {
      throw failure("\(method) failed: \(error.message.isEmpty ? error.name : error.message)")
    }
  }

  /// Every property of the daemon's interface.
  func properties() throws -> [String: DBusValue] {
    do throws(DBusError) {
      let values = try bus.callAndWait(
        destination: owner, path: ResponderBusAPI.daemonPath, interface: "org.freedesktop.DBus.Properties",
        method: "GetAll", arguments: [.string(ResponderBusAPI.daemonInterface)], timeout: 5)
      guard let dictionary = values.first?.dictionary else {
        throw DBusError.failed("GetAll returned nothing")
      }
      return dictionary
    } catch {
      throw failure("cannot read responderd's properties: \(error.message)")
    }
  }
}

/// Prints `responderctl: message` on stderr and returns the exit code to throw.
func failure(_ message: String, code: Int32 = 1) -> ExitCode {
  writeText("responderctl: \(message)\n", to: .standardError)
  return ExitCode(code)
}

/// Writes a line on stdout at once (stdout is often a pipe).
func output(_ line: String) {
  writeText(line + "\n", to: .standardOutput)
}

/// One entry of the daemon's `Chain` property.
struct ChainEntry {
  var name: String
  var kind: String
  var id: UInt32?
  var busName: String?
  var path: String?
  var eventTypes: [String]
  var isFirstResponder: Bool
  /// What the app said of its window (`SetActive`): "active" or "inactive"; nil when it never said.
  var focus: String?
  /// Why its events pass it by now (its connection missed its deadlines); nil when they do not.
  var passedOver: String?

  init(_ dictionary: [String: DBusValue]) {
    name = dictionary["name"]?.string ?? "?"
    kind = dictionary["kind"]?.string ?? "?"
    id = dictionary["id"]?.uint32
    busName = dictionary["busName"]?.string
    path = dictionary["path"]?.string
    eventTypes = dictionary["eventTypes"]?.stringArray ?? []
    isFirstResponder = dictionary["firstResponder"]?.bool ?? false
    focus = dictionary["focus"]?.string.flatMap { $0 == "undeclared" ? nil : $0 }
    passedOver = dictionary["passedOver"]?.string
  }

  static func list(_ value: DBusValue?) -> [ChainEntry] {
    (value?.elements ?? []).compactMap { $0.dictionary }.map(ChainEntry.init)
  }

  var json: JSON {
    var fields: [(String, JSON)] = [("name", .string(name)), ("kind", .string(kind))]
    if let id { fields.append(("id", .number(Double(id)))) }
    if let busName { fields.append(("busName", .string(busName))) }
    if let path { fields.append(("path", .string(path))) }
    fields.append(("eventTypes", .array(eventTypes.map(JSON.string))))
    if kind == "app" { fields.append(("firstResponder", .bool(isFirstResponder))) }
    if let focus { fields.append(("focus", .string(focus))) }
    if let passedOver { fields.append(("passedOver", .string(passedOver))) }
    return .object(fields)
  }
}

/// The wall-clock time now: local "HH:MM:SS.mmm" for people, UTC ISO 8601 for JSON.
struct WallClock {
  var seconds: Int
  var milliseconds: Int

  static func now() -> WallClock {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return WallClock(seconds: Int(spec.tv_sec), milliseconds: Int(spec.tv_nsec / 1_000_000))
  }

  private func format(_ pattern: String, utc: Bool) -> String {
    var time = time_t(seconds)
    var parts = tm()
    if utc { gmtime_r(&time, &parts) } else { localtime_r(&time, &parts) }
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, pattern, &parts)
    let text = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let millis = String(milliseconds)
    return text + "." + String(repeating: "0", count: 3 - millis.count) + millis
  }

  var local: String { format("%H:%M:%S", utc: false) }
  var iso8601: String { format("%Y-%m-%dT%H:%M:%S", utc: true) + "Z" }
}

/// Pads `text` with spaces to `width` characters.
func padded(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
