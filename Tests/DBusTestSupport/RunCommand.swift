import EventLoop

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
