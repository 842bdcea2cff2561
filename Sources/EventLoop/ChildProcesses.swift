import CSystemShims
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Starts programs without a shell and reaps them on the event loop (a pidfd per child), so the
/// loop never blocks on a child and no zombie is left behind.
///
/// Each child leads a process group of its own (a terminal's Ctrl-C meant for the parent never
/// reaches it): the parent ends them with `endAll` when it stops. However the parent ends, even
/// killed (SIGKILL), the kernel sends each child SIGTERM (its parent-death signal, asked for before
/// the program runs). With `adoptOrphans()`, what a child leaves behind (a program it started
/// that called `setsid`, say) becomes a child of this process too, and is ended with the others.
public final class ChildProcesses {
  private unowned let loop: EventLoop
  private var running: [FileDescriptor: (pid: pid_t, source: IOSource)] = [:]
  /// Whether this process is the subreaper of its descendants (`adoptOrphans()`).
  public private(set) var adoptsOrphans = false

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
    try track(pid, onExit: onExit)
    return pid
  }

  /// Reaps `pid` (a child of this process) on the loop when it exits.
  private func track(_ pid: pid_t, onExit: ((Int32) -> Void)?) throws(SystemError) {
    let pidfd = try systemCall("pidfd_open (Linux 5.3 or later is needed)") {
      try FileDescriptor.pidFD(for: pid)
    }
    let source = try loop.register(fd: pidfd, events: .readable) { [weak self] _ in
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
      self?.running[pidfd]?.source.remove()
      self?.running[pidfd] = nil
      try? pidfd.close()
      // Its orphans were handed to this process before its exit could be seen.
      self?.adoptOrphansLeft()
      let exited = status & 0x7f == 0
      onExit?(exited ? (status >> 8) & 0xff : 128 + (status & 0x7f))
    }
    running[pidfd] = (pid, source)
  }

  /// Makes this process the subreaper of what its children start (`PR_SET_CHILD_SUBREAPER`): a
  /// program a child leaves behind, even in a session of its own (`setsid`), becomes a child of
  /// this process when its parent ends, is reaped here and ended by `endAll`. For a program whose
  /// only children are those started here (the daemon, `responderctl respond`): any other child
  /// of the process would be taken for an orphan.
  public func adoptOrphans() {
    guard !adoptsOrphans else { return }
    adoptsOrphans = rsp_become_subreaper() == 0
  }

  /// Takes the children of this process that it did not start here (orphans handed to it as
  /// subreaper): reaped on the loop like the others, ended by `endAll`.
  private func adoptOrphansLeft() {
    guard adoptsOrphans else { return }
    let known = Set(running.values.map(\.pid))
    for pid in childrenOfThisProcess() where !known.contains(pid) {
      try? track(pid, onExit: nil)
    }
  }

  /// Sends `signal` to every child still running and to its process group (what it started in
  /// turn), as a terminal's Ctrl-C or systemd's stop would have: for a parent that stops. The
  /// children are reaped as usual while the loop runs; a child not yet reaped keeps its pid, so
  /// the signal never reaches another process.
  public func endAll(with signal: Int32 = SIGTERM) {
    adoptOrphansLeft()
    for child in running.values {
      // An orphan taken in may not lead a group: then itself.
      if kill(-child.pid, signal) != 0 { kill(child.pid, signal) }
    }
  }
}

/// The pids of this process's children, from `/proc/self/task/*/children`.
private func childrenOfThisProcess() -> [pid_t] {
  var pids: [pid_t] = []
  for task in directoryEntries("/proc/self/task") {
    guard let text = try? readTextFile("/proc/self/task/\(task)/children") else { continue }
    pids += text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t(String($0)) }
  }
  return pids
}
