import DBusTestSupport
import EventLoop
import Foundation
import Testing

/// A built executable of the package: in `$RESPONDERD_BIN_DIR`, else next to the tests (so that a
/// sanitized build, as `scripts/test` makes, runs the sanitized daemon).
func builtExecutable(_ name: String) -> URL {
  if let dir = ProcessInfo.processInfo.environment["RESPONDERD_BIN_DIR"] {
    return URL(fileURLWithPath: dir).appendingPathComponent(name)
  }
  return URL(fileURLWithPath: BuiltProducts.directory).appendingPathComponent(name)
}

/// A child process with its stdout and stderr collected, in an environment of its own (the
/// test's is not inherited).
final class DaemonProcess {
  let child: ChildProcess
  private var output = ""

  init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
    child = try ChildProcess(
      [executable.path] + arguments, environment: environment, inheritEnvironment: false, stdout: .capture,
      stderr: .capture)
  }

  /// The output so far.
  var text: String {
    child.readAvailable()
    output += child.takeBufferedOutput()
    return output
  }

  var isRunning: Bool { child.isRunning }

  /// Sends SIGTERM.
  func terminate() { child.signal(SIGTERM) }

  /// Sends SIGTERM and expects it to exit 0 (bounded).
  func expectCleanStop(sourceLocation: SourceLocation = #_sourceLocation) throws {
    terminate()
    #expect(try waitForExit(timeout: 10) == 0, sourceLocation: sourceLocation)
  }

  /// Sends SIGHUP and waits for the line of the config checked again, "received SIGHUP: <report>".
  func reload(reporting report: String) throws {
    child.signal(SIGHUP)
    try waitForOutput(timeout: 10) { $0.contains("received SIGHUP: \(report)") }
  }

  /// Waits (bounded, reading its output as it comes) until the output satisfies `condition`.
  func waitForOutput(timeout: Double, _ condition: (String) -> Bool) throws {
    let deadline = monotonicNow() + timeout
    while !condition(text) {
      let left = deadline - monotonicNow()
      guard left > 0 else { throw TimeoutError(what: "output condition", output: output) }
      let line: String?
      do {
        line = try child.readLine(timeout: left)
      } catch {
        throw TimeoutError(what: "output condition", output: text)
      }
      guard let line else { throw TimeoutError(what: "output condition (the output ended)", output: output) }
      output += line + "\n"
    }
  }

  /// Waits (bounded) for the process to exit and for the rest of its output; returns its exit
  /// code (128 + the signal when a signal killed it).
  func waitForExit(timeout: Double) throws -> Int32 {
    let status: Int32
    do {
      status = try child.waitForExit(timeout: timeout)
    } catch {
      throw TimeoutError(what: "exit", output: text)
    }
    output += child.takeBufferedOutput() + ((try? child.readToEnd(timeout: 2)) ?? "")
    return ChildProcess.exitCode(status) ?? 128 + (status & 0x7f)
  }
}

/// `--allow-root` when the tests run as root (a container): responderd refuses root without it.
var asRoot: [String] { geteuid() == 0 ? ["--allow-root"] : [] }

struct TimeoutError: Error, CustomStringConvertible {
  var what: String
  var output: String
  var description: String { "timed out waiting for \(what); output so far:\n\(output)" }
}

@Suite struct DaemonProcessTests {
  func bareEnvironment() throws -> [String: String] {
    let config = URL(fileURLWithPath: try scratchDirectory())
    return ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": "/nonexistent"]
  }

  @Test func startsWithNoDevicesAndNoBusSaysWhatItLacksAndStopsOnSIGTERM() throws {
    let daemon = try DaemonProcess(builtExecutable("responderd"), asRoot, environment: try bareEnvironment())
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus") }
    #expect(daemon.isRunning)
    let text = daemon.text
    #expect(text.contains("no session bus"))
    #expect(!text.contains("error"))
    try daemon.expectCleanStop()
    #expect(daemon.text.contains("stopped"))
  }

  /// Started as root with no --user, it could reach no session bus a desktop uses: one line says
  /// why and what to do, and it exits 77 (it dropped to `nobody` and waited for ever).
  @Test(.enabled(if: geteuid() == 0, "runs as root only"))
  func asRootWithoutAUserItSaysWhyInOneLineAndExits() throws {
    let daemon = try DaemonProcess(builtExecutable("responderd"), [], environment: try bareEnvironment())
    #expect(try daemon.waitForExit(timeout: 10) == 77)
    let lines = daemon.text.split(separator: "\n")
    #expect(lines.count == 1, "\(daemon.text)")
    #expect(lines.first?.hasPrefix("responderd: started as root: ") == true)
    #expect(daemon.text.contains("cannot reach root's session bus"))
    #expect(daemon.text.contains("systemctl --user start responderd"))
    #expect(daemon.text.contains("--user NAME"))
  }

  /// As root with --user: it runs as that user, on that user's session bus (not root's).
  @Test(.enabled(if: geteuid() == 0, "runs as root only"))
  func asRootWithAUserItServesThatUsersBus() throws {
    var environment = try bareEnvironment()
    environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/run/user/0/bus"
    let daemon = try DaemonProcess(
      builtExecutable("responderd"), ["--user", "nobody"], environment: environment)
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus found") }
    let uid = getpwnam("nobody").map { $0.pointee.pw_uid } ?? 65534
    #expect(daemon.text.contains("now running as 'nobody' (uid \(uid)) on its session bus"))
    #expect(daemon.text.contains("no session bus found at unix:path=/run/user/\(uid)/bus"))
    try daemon.expectCleanStop()
  }

  @Test func checkConfigNamesFileLineAndKey() throws {
    let dir = URL(fileURLWithPath: try scratchDirectory())
    let file = dir.appendingPathComponent("config.toml")
    try "chain = [\"log\"]\n[logging]\nlevle = \"debug\"\n".write(to: file, atomically: true, encoding: .utf8)
    let check = try DaemonProcess(
      builtExecutable("responderd"), ["--check-config", file.path], environment: try bareEnvironment())
    #expect(try check.waitForExit(timeout: 10) != 0)
    #expect(check.text.contains("\(file.path):3: unknown key 'levle' in [logging] (did you mean 'level'?)"))
  }

  /// `--check-config` without a file checks the one the service would load and names it (as
  /// `sshd -t`); with none, it says the built-in defaults apply.
  @Test func checkConfigWithoutAFileChecksTheOneTheServiceWouldLoad() throws {
    var environment = try bareEnvironment()
    environment["XDG_CONFIG_DIRS"] = "/nonexistent"
    let home = environment["XDG_CONFIG_HOME"]!
    let none = try DaemonProcess(builtExecutable("responderd"), ["--check-config"], environment: environment)
    #expect(try none.waitForExit(timeout: 10) == 0)
    #expect(
      none.text
        == "no config file (\(home)/responderd/config.toml, /nonexistent/responderd/config.toml do not exist): the service would run on the built-in defaults\n"
    )
    let dir = URL(fileURLWithPath: home).appendingPathComponent("responderd")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("config.toml").path
    try "chain = [\"log\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
    let good = try DaemonProcess(builtExecutable("responderd"), ["--check-config"], environment: environment)
    #expect(try good.waitForExit(timeout: 10) == 0)
    #expect(good.text == "checking \(file), the file the service would load\n\(file): OK (chain: log)\n")
    try "chain = \"log\"\n".write(toFile: file, atomically: true, encoding: .utf8)
    let bad = try DaemonProcess(builtExecutable("responderd"), ["--check-config"], environment: environment)
    #expect(try bad.waitForExit(timeout: 10) == 78)
    #expect(bad.text.contains("\(file):1: 'chain' must be an array of strings, not a string"))
  }

  /// A three-finger rule on GNOME: `--check-config` warns (file, line, shell, reason) and accepts
  /// the file; the service logs the same warning and runs.
  @Test func aRuleTheShellTakesIsWarnedAboutAndTheServiceStarts() throws {
    var environment = try bareEnvironment()
    environment["XDG_CURRENT_DESKTOP"] = "GNOME"
    let dir = URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]!).appendingPathComponent("responderd")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("config.toml")
    let rule =
      "[[touch.gesture]]\nname = \"next\"\ngesture = \"swipe\"\nfingers = 3\ndirection = \"up\"\nevent = \"nextTrack\"\n"
    let warning =
      "\(file.path):9: warning: gesture 'next' (swipe, 3 fingers): GNOME Shell 40+ takes every touch sequence that reaches 3 fingers (its overview and workspace swipe), so this rule never acts there"
    for shell in ["auto", "gnome"] {
      try "[touch]\nwidth = 1280\nheight = 800\nshell = \"\(shell)\"\n\n\(rule)".write(
        to: file, atomically: true, encoding: .utf8)
      let check = try DaemonProcess(
        builtExecutable("responderd"), ["--check-config", file.path], environment: environment)
      #expect(try check.waitForExit(timeout: 10) == 0)
      #expect(check.text.contains(warning), "shell = \(shell)")
      #expect(check.text.contains("\(file.path): OK"))
    }
    // Two fingers: no warning.
    try "[touch]\nwidth = 1280\nheight = 800\nshell = \"gnome\"\n\n\(rule)".replacingOccurrences(
      of: "fingers = 3", with: "fingers = 2"
    ).write(to: file, atomically: true, encoding: .utf8)
    let two = try DaemonProcess(
      builtExecutable("responderd"), ["--check-config", file.path], environment: environment)
    #expect(try two.waitForExit(timeout: 10) == 0)
    #expect(!two.text.contains("warning"))

    try "[touch]\nwidth = 1280\nheight = 800\nshell = \"gnome\"\n\n\(rule)".write(
      to: file, atomically: true, encoding: .utf8)
    let daemon = try DaemonProcess(builtExecutable("responderd"), ["--allow-root"], environment: environment)
    try daemon.waitForOutput(timeout: 10) { $0.contains("touch: \(warning)") }
    #expect(daemon.isRunning)
    try daemon.expectCleanStop()
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
    try daemon.expectCleanStop()
  }
}

@Suite(.serialized) struct DaemonSecondInstanceTests {
  /// A second responderd on a bus where one owns the name says so in one line and exits 1; the
  /// first runs on.
  @Test func aSecondInstanceExitsNonZeroWithOneLine() throws {
    let bus = try PrivateBus()
    defer { bus.stop() }
    var environment = ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": "/nonexistent", "HOME": "/nonexistent"]
    environment.merge(bus.environment) { $1 }
    let first = try DaemonProcess(builtExecutable("responderd"), asRoot, environment: environment)
    try first.waitForOutput(timeout: 10) { $0.contains("bus: owns org.responderd.Daemon1") }
    let second = try DaemonProcess(builtExecutable("responderd"), asRoot, environment: environment)
    #expect(try second.waitForExit(timeout: 10) == 1)
    let refusals = second.text.split(separator: "\n").filter { $0.contains("another responderd") }
    #expect(refusals.count == 1, "\(second.text)")
    #expect(
      refusals.first?.contains(
        "bus: another responderd already owns org.responderd.Daemon1 on \(bus.address): exiting") == true)
    #expect(first.isRunning)
    try first.expectCleanStop()
  }
}

@Suite struct DaemonSignalTests {
  /// `responderd 2>&1 | head -n 1` killed it with SIGPIPE at its second log line (issue 16).
  /// Here the reader of its stderr goes away after the first line; SIGHUP, SIGUSR1 and SIGUSR2
  /// each make it log a line into the closed pipe, and it still stops cleanly on SIGTERM.
  @Test func survivesTheLossOfItsStderrAndSignalsThatMeanNothing() throws {
    let config = URL(fileURLWithPath: try scratchDirectory())
    let daemon = try ChildProcess(
      [builtExecutable("responderd").path] + asRoot,
      environment: [
        "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": "/nonexistent",
      ], inheritEnvironment: false, stdout: .capture, stderr: .capture)
    // Its log up to the line that says it runs (the pipe closes if it dies), then the reader goes
    // away.
    var log = ""
    while !log.contains("no session bus") {
      guard let line = try daemon.readLine(timeout: 10) else {
        throw TimeoutError(what: "its start", output: log)
      }
      log += line + "\n"
    }
    daemon.closeOutput()
    for signal in [SIGHUP, SIGUSR1, SIGUSR2, SIGTERM] { daemon.signal(signal) }
    let status = try daemon.waitForExit(timeout: 10)
    #expect(ChildProcess.exitedSuccessfully(status), "wait status \(status)")
  }

  @Test func sighupChecksTheConfigAgain() throws {
    let (home, file) = try configHome(holding: "chain = [\"log\"]\n")
    let daemon = try DaemonProcess(
      builtExecutable("responderd"), asRoot,
      environment: ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": home, "XDG_RUNTIME_DIR": "/nonexistent"])
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus") }
    try daemon.reload(reporting: "\(file) is valid")
    try "chain = [\"lg\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
    try daemon.reload(reporting: "\(file):1: unknown handler 'lg'")
    #expect(daemon.isRunning)
    try daemon.expectCleanStop()
  }
}

@Suite struct DaemonLibrariesTests {
  /// In a session with no Wayland compositor (no socket where WAYLAND_DISPLAY names one), the undo
  /// asks each way to send its keys and finds none, and the daemon never maps libwayland-client:
  /// it is loaded only for a compositor that is there.
  @Test func withoutAWaylandCompositorTheDaemonMapsNoWaylandLibrary() throws {
    let runtime = URL(fileURLWithPath: try scratchDirectory())
    defer { try? FileManager.default.removeItem(at: runtime) }
    let fixture = try DaemonFixture(
      config: "", environment: ["XDG_RUNTIME_DIR": runtime.path, "WAYLAND_DISPLAY": "wayland-0"])
    let status = try fixture.run([try BuiltProducts.path(of: "responderctl"), "status"])
    #expect(status.output.contains("undo: on"), "\(status)")
    let maps = try String(contentsOfFile: "/proc/\(fixture.daemon.pid)/maps", encoding: .utf8)
    #expect(!maps.contains("libwayland-client"))
    #expect(fixture.daemon.isRunning)
  }
}
