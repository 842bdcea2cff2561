import DBus
import DBusTestSupport
import EventLoop
import Foundation
import ResponderClient
import ResponderCore
import Testing

/// How a test application answers the events it receives.
enum Answer {
  case handled
  case notHandled
  /// An error reply.
  case error
  /// Never replies (the calls are kept, unanswered).
  case never
}

/// An application on its own bus connection implementing `org.responderd.Responder1` by hand, so
/// that it can misbehave: never answer, answer with an error, leave the bus.
final class TestApp {
  let connection: DBusConnection
  let path: String
  var answer: (ResponderEvent) -> Answer
  /// Every call received: "MotionBegan motionShake", "RemoteControlReceived nextTrack".
  private(set) var received: [String] = []
  private(set) var receivedAt: [Double] = []
  private var unanswered: [DBusMethodCall] = []
  var id: UInt32 = 0

  /// `canBecome`/`canResign` nil: the property is absent (the daemon then uses UIKit's defaults).
  init(
    _ fixture: DaemonFixture, path: String = "/test/App", canBecome: Bool? = true, canResign: Bool? = nil,
    answer: @escaping (ResponderEvent) -> Answer = { _ in .handled }
  ) throws {
    connection = try fixture.bus.connect(loop: fixture.loop)
    self.path = path
    self.answer = answer
    let methods = ["RemoteControlReceived", "MotionBegan", "MotionEnded", "MotionCancelled"].map { name in
      DBusMethod.replyLater(name, in: "sd", out: "b") { [weak self] call in self?.receive(call) }
    }
    var properties: [DBusProperty] = []
    if let canBecome { properties.append(DBusProperty("CanBecomeFirstResponder", get: { canBecome })) }
    if let canResign { properties.append(DBusProperty("CanResignFirstResponder", get: { canResign })) }
    try connection.export(
      path: path,
      interfaces: [
        DBusInterface(ResponderBusAPI.responderInterface, methods: methods, properties: properties)
      ])
  }

  private func receive(_ call: DBusMethodCall) {
    let subtype = call.arguments[0].string ?? "?"
    received.append("\(call.member) \(subtype)")
    receivedAt.append(monotonicNow())
    let (type, phase) = ResponderBusAPI.event(forMethod: call.member)!
    let event = ResponderEvent(
      type: type, subtype: EventSubtype(name: subtype) ?? .none, phase: phase,
      timestamp: call.arguments[1].double ?? 0)
    switch answer(event) {
    case .handled: call.reply([.bool(true)])
    case .notHandled: call.reply([.bool(false)])
    case .error: call.reply(error: DBusError("org.example.App.Error.Broken", "this app is broken"))
    case .never: unanswered.append(call)
    }
  }

  /// Registers with the daemon for `eventTypes`.
  @discardableResult
  func register(_ eventTypes: [String]) throws -> UInt32 {
    id =
      try daemonCall(connection, "RegisterResponder", [.objectPath(path), eventTypes.dbusValue]).get()[0]
      .uint32 ?? 0
    return id
  }

  func becomeFirstResponder() throws -> Bool {
    try daemonCall(connection, "BecomeFirstResponder", [.uint32(id)]).get()[0].bool ?? false
  }

  func resignFirstResponder() throws -> Bool {
    try daemonCall(connection, "ResignFirstResponder", [.uint32(id)]).get()[0].bool ?? false
  }

  /// Says whether its window is the active one (`SetActive`); returns whether it is first responder.
  @discardableResult
  func setActive(_ active: Bool) throws -> Bool {
    try daemonCall(connection, "SetActive", [.uint32(id), .bool(active)]).get()[0].bool ?? false
  }
}

/// Calls a method of the daemon on `connection` and waits for the result.
func daemonCall(
  _ connection: DBusConnection, _ method: String, _ arguments: [DBusValue] = [], timeout: Double = 5
) throws -> Result<[DBusValue], DBusError> {
  var result: Result<[DBusValue], DBusError>?
  connection.call(
    destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
    interface: ResponderBusAPI.daemonInterface, method: method, arguments: arguments, timeout: timeout
  ) { result = $0 }
  guard connection.loop.run(until: { result != nil }, timeout: timeout + 2) else {
    throw TestSupportError("no reply to \(method)")
  }
  return result!
}

/// The error of a daemon call that must fail.
func daemonError(_ connection: DBusConnection, _ method: String, _ arguments: [DBusValue]) throws -> DBusError
{
  switch try daemonCall(connection, method, arguments) {
  case .success(let values):
    throw TestSupportError("\(method) succeeded with \(values); an error was expected")
  case .failure(let error): return error
  }
}

/// Follows `EventDispatched` and `PropertiesChanged` of the daemon.
final class DaemonWatcher {
  private(set) var events: [DispatchedEvent] = []
  private(set) var eventTimes: [Double] = []
  /// `FirstResponder` values announced by PropertiesChanged, in order.
  private(set) var firstResponders: [UInt32] = []
  private(set) var motionInterest: [Bool] = []
  private var subscriptions: [DBusSubscription] = []
  private let fixture: DaemonFixture

  init(_ fixture: DaemonFixture) throws {
    self.fixture = fixture
    let connection = fixture.connection
    subscriptions.append(
      connection.onSignal(
        sender: fixture.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface,
        member: "EventDispatchedDetails"
      ) { [weak self] message in
        guard let event = DispatchedEvent(arguments: message.arguments) else { return }
        self?.events.append(event)
        self?.eventTimes.append(monotonicNow())
      })
    subscriptions.append(
      connection.onPropertiesChanged(
        sender: fixture.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface
      ) { [weak self] _, changed, _ in
        if let first = changed["FirstResponder"]?.uint32 { self?.firstResponders.append(first) }
        if let motion = changed["MotionInterest"]?.bool { self?.motionInterest.append(motion) }
      })
    // The dispatch signals come to connections that ask for them (and the match rules are in
    // place once it answers).
    _ = try daemonCall(connection, "WatchEvents").get()
  }

  /// Waits for `count` events in all.
  func waitForEvents(_ count: Int, timeout: Double = 5) throws {
    try fixture.waitFor("\(count) EventDispatched signals (got \(events.count): \(events))", timeout: timeout)
    {
      events.count >= count
    }
  }

  /// The handlers of the events seen, "" for dropped ones.
  var handledBy: [String] { events.map { $0.handledBy ?? "" } }
}

extension DaemonFixture {
  /// Sends an event through the daemon's SendEvent and returns who handled it ("" when dropped).
  func send(_ type: String, _ subtype: String, phase: String = "", timeout: Double = 5) throws -> String {
    try daemonCall(
      connection, "SendEvent", [.string(type), .string(subtype), .string(phase)], timeout: timeout
    )
    .get().first?.string ?? ""
  }

  /// Sends an event without waiting for the answer; the returned box gets it.
  func sendLater(_ type: String, _ subtype: String, phase: String = "") -> AnswerBox {
    let box = AnswerBox()
    sendEvent(type, subtype, phase: phase) { result in
      box.handledBy = (try? result.get().first?.string) ?? "error"
      box.at = monotonicNow()
    }
    return box
  }

  /// A property of the daemon.
  func property(_ name: String) throws -> DBusValue {
    var result: Result<DBusValue, DBusError>?
    connection.getProperty(
      name, interface: ResponderBusAPI.daemonInterface, path: ResponderBusAPI.daemonPath,
      destination: ResponderBusAPI.daemonName, timeout: 5
    ) { result = $0 }
    try waitFor("property \(name)") { result != nil }
    return try result!.get()
  }

  /// The `focus` of each application in the Chain property, by name.
  func chainFocus() throws -> [String: String] {
    var result: [String: String] = [:]
    for entry in try property("Chain").elements ?? [] {
      guard let fields = entry.dictionary, let name = fields["name"]?.string,
        let focus = fields["focus"]?.string
      else { continue }
      result[name] = focus
    }
    return result
  }

  /// The names in the Chain property, in order.
  func chainNames() throws -> [String] {
    (try property("Chain").elements ?? []).compactMap { $0.dictionary?["name"]?.string }
  }

  /// The path to a built executable of the package.
  func executable(_ name: String) throws -> String { try BuiltProducts.path(of: name) }
}

/// The answer to a SendEvent sent with `sendLater`.
final class AnswerBox {
  var handledBy: String?
  var at: Double = 0
}

/// A long-running command whose output (stdout and stderr merged) is read while the loop runs.
final class RunningCommand {
  let process: ChildProcess
  private(set) var output = ""
  private var source: IOSource?
  private let fixture: DaemonFixture

  init(_ arguments: [String], fixture: DaemonFixture) throws {
    self.fixture = fixture
    process = try ChildProcess(
      arguments, environment: fixture.bus.environment, stdout: .capture, stderr: .capture)
    source = try fixture.loop.register(fd: process.outputDescriptor, events: .readable) { [weak self] _ in
      guard let self else { return }
      let open = self.process.readAvailable()
      self.output += self.process.takeBufferedOutput()
      if !open {
        self.source?.remove()
        self.source = nil
      }
    }
  }

  deinit { source?.remove() }

  var lines: [String] { output.split(separator: "\n").map(String.init) }

  func waitForOutput(_ what: String, timeout: Double = 5, _ condition: (String) -> Bool) throws {
    try fixture.waitFor("\(what) from \(process.arguments[0]); output so far:\n\(output)", timeout: timeout) {
      condition(output)
    }
  }

  /// Waits for the process to exit while the loop runs; returns its exit code (nil: killed).
  func waitForExit(timeout: Double = 5) throws -> Int32? {
    try fixture.waitFor("\(process.arguments[0]) to exit; output:\n\(output)", timeout: timeout) {
      !process.isRunning
    }
    let status = try process.waitForExit(timeout: 1)
    _ = process.readAvailable()
    output += process.takeBufferedOutput()
    return ChildProcess.exitCode(status)
  }
}

/// Whether process `pid` exists and has not exited (a zombie waiting for its reaper has).
func processIsRunning(_ pid: Int32) -> Bool {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return false }
  let state = stat[close...].dropFirst(2).first
  return state != "Z" && state != "X"
}

/// A new directory of its own under the temporary directory, named `prefix`-<UUID>.
func scratchDirectory(_ prefix: String = "rsp") throws -> String {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    .path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// Runs the built responderctl with no session bus reachable (its address and runtime directory
/// are in `directory`, where no bus listens); returns its status, stdout and stderr.
func responderctlWithoutABus(_ arguments: [String], in directory: String) throws -> (
  status: Int32, stdout: String, stderr: String
) {
  try ChildProcess.runSeparately(
    [try BuiltProducts.path(of: "responderctl")] + arguments,
    environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory)/no-bus", "XDG_RUNTIME_DIR": directory])
}

/// A new XDG config home whose responderd/config.toml holds `text`.
func configHome(holding text: String) throws -> (home: String, file: String) {
  let home = try scratchDirectory()
  try FileManager.default.createDirectory(atPath: home + "/responderd", withIntermediateDirectories: true)
  let file = home + "/responderd/config.toml"
  try text.write(toFile: file, atomically: true, encoding: .utf8)
  return (home, file)
}
