import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Starts programs without a shell and reaps them on the event loop (a pidfd per child), so the
/// loop never blocks on a child and no zombie is left behind.
///
/// Each child leads a process group of its own (a terminal's Ctrl-C meant for the parent never
/// reaches it): the parent ends them with `endAll` when it stops.
public final class ChildProcesses {
  private unowned let loop: EventLoop
  private var running: [FileDescriptor: (pid: pid_t, source: IOSource)] = [:]

  public init(loop: EventLoop) { self.loop = loop }

  /// Children started and not yet reaped.
  public var count: Int { running.count }

  /// Starts `argv[0]` (searched in PATH) with `argv`, the daemon's environment plus `extraEnvironment`.
  /// `onExit` gets the exit status (or 128 + signal). Throws `SystemError` (`.noSuchFileOrDirectory`
  /// when the program does not exist).
  @discardableResult
  public func spawn(
    _ argv: [String], extraEnvironment: [String: String] = [:], onExit: ((Int32) -> Void)? = nil
  ) throws(SystemError) -> pid_t {
    precondition(!argv.isEmpty, "spawn needs a program")
    var environmentLines: [String] = []
    var index = 0
    while let entry = environ[index] {
      let line = String(cString: entry)
      let name = line.split(separator: "=", maxSplits: 1).first.map(String.init) ?? line
      if extraEnvironment[name] == nil { environmentLines.append(line) }
      index += 1
    }
    environmentLines += extraEnvironment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let pid = try systemCall("spawn \(argv[0])") {
      try spawnProcess(argv[0], arguments: argv, environment: environmentLines)
    }
    let pidfd = try systemCall("pidfd_open (Linux 5.3 or later is needed)") {
      try FileDescriptor.pidFD(for: pid)
    }
    let source = try loop.register(fd: pidfd, events: .readable) { [weak self] _ in
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
      self?.running[pidfd]?.source.remove()
      self?.running[pidfd] = nil
      try? pidfd.close()
      let exited = status & 0x7f == 0
      onExit?(exited ? (status >> 8) & 0xff : 128 + (status & 0x7f))
    }
    running[pidfd] = (pid, source)
    return pid
  }

  /// Sends `signal` to every child still running and to its process group (what it started in
  /// turn), as a terminal's Ctrl-C or systemd's stop would have: for a parent that stops. The
  /// children are reaped as usual while the loop runs; a child not yet reaped keeps its pid, so
  /// the signal never reaches another process.
  public func endAll(with signal: Int32 = SIGTERM) {
    for child in running.values { kill(-child.pid, signal) }
  }
}
