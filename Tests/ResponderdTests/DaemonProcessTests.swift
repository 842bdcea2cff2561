import DBusTestSupport
import EventLoop
import Foundation
import Testing

/// A built executable of the package: in `$RESPONDERD_BIN_DIR`, else in `.build/debug`.
func builtExecutable(_ name: String) -> URL {
  if let dir = ProcessInfo.processInfo.environment["RESPONDERD_BIN_DIR"] {
    return URL(fileURLWithPath: dir).appendingPathComponent(name)
  }
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  return root.appendingPathComponent(".build/debug/\(name)")
}

/// A child process with its stderr collected line by line.
final class DaemonProcess: @unchecked Sendable {
  let process = Process()
  private let lock = NSLock()
  private var output = ""
  private var outputClosed = false

  init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = pipe
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard let self else { return }
      guard !data.isEmpty else {
        handle.readabilityHandler = nil
        self.lock.withLock { self.outputClosed = true }
        return
      }
      self.lock.withLock { self.output += String(decoding: data, as: UTF8.self) }
    }
    try process.run()
  }

  var text: String { lock.withLock { output } }

  /// Waits (bounded polling) until the output satisfies `condition`.
  func waitForOutput(timeout: Double, _ condition: (String) -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition(text) {
      guard Date() < deadline else {
        throw TimeoutError(what: "output condition", output: text)
      }
      RunLoop.current.run(until: Date().addingTimeInterval(0.01))
    }
  }

  /// Waits (bounded) for the process to exit and for the last of its output, and returns its status.
  func waitForExit(timeout: Double) throws -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
      guard Date() < deadline else { throw TimeoutError(what: "exit", output: text) }
      RunLoop.current.run(until: Date().addingTimeInterval(0.01))
    }
    // The rest of its output: until the pipe closes, or for a moment when a process started
    // meanwhile by another test inherited the pipe's write end and keeps it open.
    let drained = Date().addingTimeInterval(1)
    while !lock.withLock({ outputClosed }) && Date() < drained {
      RunLoop.current.run(until: Date().addingTimeInterval(0.01))
    }
    return process.terminationStatus
  }

  deinit { if process.isRunning { process.terminate() } }
}

struct TimeoutError: Error, CustomStringConvertible {
  var what: String
  var output: String
  var description: String { "timed out waiting for \(what); output so far:\n\(output)" }
}

@Suite struct DaemonProcessTests {
  func bareEnvironment() throws -> [String: String] {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("rsp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    return ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": "/nonexistent"]
  }

  @Test func startsWithNoDevicesAndNoBusSaysWhatItLacksAndStopsOnSIGTERM() throws {
    let daemon = try DaemonProcess(builtExecutable("responderd"), [], environment: try bareEnvironment())
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus") }
    #expect(daemon.process.isRunning)
    let text = daemon.text
    #expect(text.contains("no session bus"))
    #expect(!text.contains("error"))
    daemon.process.terminate()
    #expect(try daemon.waitForExit(timeout: 10) == 0)
    #expect(daemon.text.contains("stopped"))
  }

  @Test func checkConfigNamesFileLineAndKey() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rsp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("config.toml")
    try "chain = [\"log\"]\n[logging]\nlevle = \"debug\"\n".write(to: file, atomically: true, encoding: .utf8)
    let check = try DaemonProcess(
      builtExecutable("responderd"), ["--check-config", file.path], environment: try bareEnvironment())
    #expect(try check.waitForExit(timeout: 10) != 0)
    #expect(check.text.contains("\(file.path):3: unknown key 'levle' in [logging] (did you mean 'level'?)"))
  }

  @Test func aBadConfigIsRefusedAtStart() throws {
    var environment = try bareEnvironment()
    let dir = URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]!).appendingPathComponent("responderd")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    try "chain = \"log\"\n".write(
      to: dir.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    environment["HOME"] = "/nonexistent"
    let daemon = try DaemonProcess(builtExecutable("responderd"), [], environment: environment)
    #expect(try daemon.waitForExit(timeout: 10) == 78)
    #expect(daemon.text.contains("config.toml:1: 'chain' must be an array of strings, not a string"))
  }
}

@Suite(.serialized) struct DaemonBusTests {
  @Test func picksUpTheSessionBusWhenItAppearsAndOwnsItsName() throws {
    let bus = try PrivateBus(start: false)
    defer { bus.stop() }
    var environment = ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": "/nonexistent", "HOME": "/nonexistent"]
    environment.merge(bus.environment) { $1 }
    let daemon = try DaemonProcess(builtExecutable("responderd"), ["--allow-root"], environment: environment)
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus found") }
    try bus.start()
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: owns org.responderd.Daemon1") }
    let owner = try DBusTestSupport.ChildProcess.run(
      [
        "dbus-send", "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
        "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.responderd.Daemon1",
      ], loop: try EventLoop())
    #expect(owner.output.contains("boolean true"))
    try bus.restart()
    try daemon.waitForOutput(timeout: 10) {
      $0.components(separatedBy: "bus: owns org.responderd.Daemon1").count == 3
    }
    daemon.process.terminate()
    #expect(try daemon.waitForExit(timeout: 10) == 0)
  }
}

@Suite struct DaemonSignalTests {
  /// `responderd 2>&1 | head -n 1` killed it with SIGPIPE at its second log line (issue 16).
  /// Here the reader of its stderr goes away after the first line; SIGHUP, SIGUSR1 and SIGUSR2
  /// each make it log a line into the closed pipe, and it still stops cleanly on SIGTERM.
  @Test func survivesTheLossOfItsStderrAndSignalsThatMeanNothing() throws {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("rsp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = builtExecutable("responderd")
    process.environment = [
      "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": "/nonexistent",
    ]
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = pipe
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    // Its log up to the line that says it runs (each read blocks until bytes come, and the pipe
    // closes if it dies), then the reader goes away.
    var log = ""
    while !log.contains("no session bus") {
      let data = pipe.fileHandleForReading.availableData
      guard !data.isEmpty else { throw TimeoutError(what: "its start", output: log) }
      log += String(decoding: data, as: UTF8.self)
    }
    try pipe.fileHandleForReading.close()
    for signal in [SIGHUP, SIGUSR1, SIGUSR2, SIGTERM] { kill(process.processIdentifier, signal) }
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning {
      guard Date() < deadline else { throw TimeoutError(what: "exit after SIGTERM", output: "") }
      RunLoop.current.run(until: Date().addingTimeInterval(0.01))
    }
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
  }

  @Test func sighupChecksTheConfigAgain() throws {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("rsp-\(UUID().uuidString)")
    let dir = home.appendingPathComponent("responderd")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("config.toml")
    try "chain = [\"log\"]\n".write(to: file, atomically: true, encoding: .utf8)
    let daemon = try DaemonProcess(
      builtExecutable("responderd"), [],
      environment: ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": home.path, "XDG_RUNTIME_DIR": "/nonexistent"])
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus") }
    kill(daemon.process.processIdentifier, SIGHUP)
    try daemon.waitForOutput(timeout: 10) { $0.contains("received SIGHUP: \(file.path) is valid") }
    try "chain = [\"lg\"]\n".write(to: file, atomically: true, encoding: .utf8)
    kill(daemon.process.processIdentifier, SIGHUP)
    try daemon.waitForOutput(timeout: 10) {
      $0.contains("received SIGHUP: \(file.path):1: unknown handler 'lg'")
    }
    #expect(daemon.process.isRunning)
    daemon.process.terminate()
    #expect(try daemon.waitForExit(timeout: 10) == 0)
  }
}
