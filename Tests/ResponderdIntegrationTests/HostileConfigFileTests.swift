import DBusTestSupport
import Foundation
import Testing

/// Config paths that do not name a regular file, and output nobody reads (issue 27): the real
/// `responderd` refuses them at once, with the file and the reason, whether it checks a config, starts,
/// or checks its config again on SIGHUP, and a broken pipe never kills it.
@Suite struct HostileConfigFileTests {
  /// A fresh directory with a FIFO in it (`mkfifo`; nobody ever writes to it).
  func directoryWithFIFO() throws -> (dir: URL, fifo: String) {
    let dir = URL(fileURLWithPath: try scratchDirectory())
    let fifo = dir.appendingPathComponent("fifo.toml").path
    guard mkfifo(fifo, 0o600) == 0 else { throw TestSupportError("mkfifo \(fifo): errno \(errno)") }
    return (dir, fifo)
  }

  func environment(configHome: String = "/nonexistent") -> [String: String] {
    ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": configHome, "XDG_RUNTIME_DIR": "/nonexistent"]
  }

  @Test func checkConfigRefusesAFIFOAndDevicesAtOnceWithTheReason() throws {
    // The FIFO blocked `open()` for ever; /dev/zero and /dev/urandom were read without bound
    // until the process aborted (exit 134).
    let (dir, fifo) = try directoryWithFIFO()
    defer { try? FileManager.default.removeItem(at: dir) }
    let linkToZero = dir.appendingPathComponent("zero.toml").path
    try FileManager.default.createSymbolicLink(atPath: linkToZero, withDestinationPath: "/dev/zero")
    for (path, reason) in [
      (fifo, "it is a FIFO (named pipe), not a regular file"),
      ("/dev/zero", "it is a character device, not a regular file"),
      ("/dev/urandom", "it is a character device, not a regular file"),
      (linkToZero, "it is a character device, not a regular file"),
      (dir.path, "it is a directory, not a regular file"),
    ] {
      let check = try DaemonProcess(
        builtExecutable("responderd"), ["--check-config", path], environment: environment())
      #expect(try check.waitForExit(timeout: 10) == 78, "\(path): \(check.text)")
      #expect(check.text == "\(path): not read: \(reason)\n")
    }
  }

  @Test func aHugeConfigFileIsRefusedBySizeBeforeItIsRead() throws {
    let (dir, _) = try directoryWithFIFO()
    defer { try? FileManager.default.removeItem(at: dir) }
    // 4 GiB that take no disk (a sparse file): reading it whole would take 4 GiB of memory.
    let huge = dir.appendingPathComponent("huge.toml").path
    guard FileManager.default.createFile(atPath: huge, contents: nil), truncate(huge, 1 << 32) == 0 else {
      throw TestSupportError("cannot make \(huge)")
    }
    let check = try DaemonProcess(
      builtExecutable("responderd"), ["--check-config", huge], environment: environment())
    #expect(try check.waitForExit(timeout: 10) == 78)
    #expect(
      check.text
        == "\(huge): not read: it is 4294967296 bytes long, more than the 1048576 such a file may have\n")
  }

  @Test func startUpRefusesAFIFOWithTheSameExitCodeAsCheckConfig() throws {
    let (dir, fifo) = try directoryWithFIFO()
    defer { try? FileManager.default.removeItem(at: dir) }
    let daemon = try DaemonProcess(
      builtExecutable("responderd"), ["--config", fifo], environment: environment())
    #expect(try daemon.waitForExit(timeout: 10) == 78)
    #expect(daemon.text.contains("refusing to start: \(fifo): not read: it is a FIFO (named pipe)"))
  }

  /// SIGHUP with the config replaced by a FIFO froze the running service in `open()` (even SIGTERM
  /// waited for a writer); replaced by a link to /dev/zero, it read until it aborted.
  @Test func sighupOnAFIFOOrADeviceLogsTheRefusalAndTheServiceRunsOn() throws {
    let (home, file) = try configHome(holding: "chain = [\"log\"]\n")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let daemon = try DaemonProcess(
      builtExecutable("responderd"), asRoot, environment: environment(configHome: home))
    try daemon.waitForOutput(timeout: 10) { $0.contains("bus: no session bus") }

    try FileManager.default.removeItem(atPath: file)
    guard mkfifo(file, 0o600) == 0 else { throw TestSupportError("mkfifo: errno \(errno)") }
    try daemon.reload(reporting: "\(file): not read: it is a FIFO (named pipe), not a regular file")

    try FileManager.default.removeItem(atPath: file)
    try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/dev/zero")
    try daemon.reload(reporting: "\(file): not read: it is a character device, not a regular file")
    #expect(daemon.isRunning)
    try daemon.expectCleanStop()
  }

  /// `responderd 2>&1 | head -n 1` exited 141 (SIGPIPE) when head was gone before its second line:
  /// SIGPIPE was ignored only once the service ran. Here nobody ever reads its output.
  @Test func outputNobodyReadsNeverKillsIt() throws {
    let dir = URL(fileURLWithPath: try scratchDirectory())
    defer { try? FileManager.default.removeItem(at: dir) }
    let good = dir.appendingPathComponent("good.toml").path
    try "chain = [\"log\"]\n".write(toFile: good, atomically: true, encoding: .utf8)
    let bad = dir.appendingPathComponent("bad.toml").path
    try "chain = \"log\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
    for (arguments, expected) in [
      (["--check-config", good], Int32(0)), (["--check-config", bad], 78), (["--config", bad], 78),
      (["--version"], 0),
    ] {
      let child = try ChildProcess(
        [builtExecutable("responderd").path] + arguments, environment: environment(),
        inheritEnvironment: false,
        stdout: .closedPipe, stderr: .closedPipe)
      let status = try child.waitForExit(timeout: 10)
      #expect(ChildProcess.exitCode(status) == expected, "\(arguments): wait status \(status)")
    }
    // The service itself: it logs before its loop runs, then runs (its loop takes SIGTERM through
    // a signalfd, so the signal is blocked once it listens), and stops cleanly.
    let service = try ChildProcess(
      [builtExecutable("responderd").path, "--config", good] + asRoot, environment: environment(),
      inheritEnvironment: false, stdout: .closedPipe, stderr: .closedPipe)
    let deadline = monotonicNow() + 10
    while service.isRunning, !blocksSIGTERM(service.pid) {
      guard monotonicNow() < deadline else { throw TestSupportError("responderd did not start its loop") }
      usleep(10_000)  // bounded polling: the deadline above ends it
    }
    #expect(service.isRunning, "wait status \(service.exitStatus ?? -1)")
    service.signal(SIGTERM)
    #expect(ChildProcess.exitedSuccessfully(try service.waitForExit(timeout: 10)))
  }

  /// Whether process `pid` blocks SIGTERM (`SigBlk` of /proc/PID/status).
  func blocksSIGTERM(_ pid: pid_t) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
      let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << (UInt64(SIGTERM) - 1)) != 0
  }
}
