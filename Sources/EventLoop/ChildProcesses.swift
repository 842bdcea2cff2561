import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Starts programs without a shell and reaps them on the event loop (a pidfd per child), so the
/// loop never blocks on a child and no zombie is left behind.
public final class ChildProcesses {
  private unowned let loop: EventLoop
  private var running: [FileDescriptor: IOSource] = [:]

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
    running[pidfd] = try loop.register(fd: pidfd, events: .readable) { [weak self] _ in
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
      self?.running[pidfd]?.remove()
      self?.running[pidfd] = nil
      try? pidfd.close()
      let exited = status & 0x7f == 0
      onExit?(exited ? (status >> 8) & 0xff : 128 + (status & 0x7f))
    }
    return pid
  }
}
