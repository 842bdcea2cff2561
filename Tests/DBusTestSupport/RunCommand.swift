import EventLoop

#if canImport(Glibc)
  import Glibc
#endif

/// The result of a command run to completion.
public struct CommandResult: CustomStringConvertible {
  /// The wait status (see `ChildProcess.exitCode`).
  public let status: Int32
  /// stdout and stderr, merged.
  public let output: String
  /// The exit code, nil when killed by a signal.
  public var exitCode: Int32? { ChildProcess.exitCode(status) }
  public var description: String { "exit \(exitCode.map(String.init) ?? "signal") output: \(output)" }
}

extension ChildProcess {
  /// Runs a command to completion while `loop` keeps running, so that the command can talk to
  /// objects served by this process (e.g. `dbus-send` or `playerctl` calling our own service).
  /// Throws after `timeout` seconds (the command is killed).
  public static func run(
    _ arguments: [String], environment: [String: String] = [:], loop: EventLoop, timeout: Double = 10
  ) throws -> CommandResult {
    let child = try ChildProcess(arguments, environment: environment, stdout: .capture, stderr: .capture)
    var open = true
    let source = try loop.register(fd: child.outputDescriptor, events: .readable) { _ in
      open = child.readAvailable()
    }
    defer { source.remove() }
    guard loop.run(until: { !open }, timeout: timeout) else {
      child.signal(9)
      throw TestSupportError(
        "\(arguments.joined(separator: " ")) did not finish within \(timeout) s; output: \(child.takeBufferedOutput())"
      )
    }
    let status = try child.waitForExit(timeout: timeout)
    return CommandResult(status: status, output: child.takeBufferedOutput())
  }
}

extension ChildProcess {
  /// Runs a program alone to completion, its stdout and stderr apart; returns its exit code (128 +
  /// the signal when a signal killed it) and both outputs. Throws after `timeout` seconds (the
  /// program is killed).
  public static func runSeparately(
    _ arguments: [String], environment: [String: String] = [:], timeout: Double = 10
  ) throws -> (status: Int32, stdout: String, stderr: String) {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    let errorFile = "\(base)/responderd-test-stderr-\(getpid())-\(monotonicNow())"
    defer { unlink(errorFile) }
    let child = try ChildProcess(
      arguments, environment: environment, stdout: .capture, stderr: .file(errorFile))
    let deadline = monotonicNow() + timeout
    let stdout = try child.readToEnd(timeout: timeout)
    let status = try child.waitForExit(timeout: max(deadline - monotonicNow(), 0.1))
    var stderr: [UInt8] = []
    if let file = fopen(errorFile, "r") {
      defer { fclose(file) }
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        stderr += chunk[..<count]
      }
    }
    return (
      ChildProcess.exitCode(status) ?? 128 + (status & 0x7f), stdout, String(decoding: stderr, as: UTF8.self)
    )
  }
}
