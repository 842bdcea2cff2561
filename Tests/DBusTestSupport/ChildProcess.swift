import CDBus
import CSystemShims
import EventLoop
import EventTime
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A failure of the test harness, with what was seen.
public struct TestSupportError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// A child process of the test (never orphaned: killed and reaped on `deinit`).
///
/// Waiting is bounded and event-driven (a pidfd and poll), never a sleep.
public final class ChildProcess {
  public let pid: pid_t
  public let arguments: [String]
  private let pidFD: FileDescriptor
  /// The read end of the captured output; nil when not captured or at its end.
  private var output: FileDescriptor?
  private var buffered: [UInt8] = []
  public private(set) var exitStatus: Int32?

  /// How the child's stdout and stderr are set up.
  public enum Output {
    /// Inherit the test's descriptor.
    case inherit
    /// Discard.
    case null
    /// Captured through a pipe (`readLine`, `readToEnd`). For stderr: merged into stdout's pipe.
    case capture
    /// Written to this file (created or truncated), to read once the child is done.
    case file(String)
    /// A pipe nobody reads: its read end is closed before the child starts, so its first write
    /// gets SIGPIPE (or EPIPE when it ignores the signal), as under `| head -n 1` once head is gone.
    case closedPipe
  }

  /// What a child gets instead of the test's own sanitizer options, in a sanitized run
  /// (`scripts/test` sets `RESPONDERD_CHILD_ASAN_OPTIONS`): memory errors stop
  /// it, but its leak check at exit is off. A program keeps its service and loop until it exits,
  /// and that memory goes back to the system then; the leaks that matter, those of a running
  /// service, are checked in the test process, which runs the same components. Empty otherwise.
  public static var sanitizerEnvironment: [String: String] {
    guard let options = getenv("RESPONDERD_CHILD_ASAN_OPTIONS").map({ String(cString: $0) }) else {
      return [:]
    }
    return ["ASAN_OPTIONS": options, "RESPONDERD_CHILD_ASAN_OPTIONS": options]
  }

  /// Starts `arguments[0]` (looked up in PATH when it has no slash) with the test's environment
  /// plus `environment`, or `environment` alone when `inheritEnvironment` is false (the
  /// sanitizer options of a sanitized run apply to both, see `sanitizerEnvironment`).
  public init(
    _ arguments: [String], environment: [String: String] = [:], inheritEnvironment: Bool = true,
    stdout: Output = .inherit, stderr: Output = .inherit
  ) throws {
    precondition(!arguments.isEmpty)
    self.arguments = arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }

    // The test thread may block signals (signalfd): give the child a clean mask and defaults.
    var emptyMask = sigset_t()
    sigemptyset(&emptyMask)
    posix_spawnattr_setsigmask(&attributes, &emptyMask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE, SIGUSR1, SIGUSR2] {
      sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var pipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)?
    if case .capture = stdout {
      pipe = try systemCall("pipe2") { try FileDescriptor.pipe(options: .closeOnExec) }
    } else if case .capture = stderr {
      pipe = try systemCall("pipe2") { try FileDescriptor.pipe(options: .closeOnExec) }
    }
    var closedPipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)?
    if case .closedPipe = stdout {
      closedPipe = try systemCall("pipe2") { try FileDescriptor.pipe(options: .closeOnExec) }
    } else if case .closedPipe = stderr {
      closedPipe = try systemCall("pipe2") { try FileDescriptor.pipe(options: .closeOnExec) }
    }
    try? closedPipe?.readEnd.close()
    defer { try? closedPipe?.writeEnd.close() }
    if case .closedPipe = stdout, let closedPipe {
      posix_spawn_file_actions_adddup2(&actions, closedPipe.writeEnd.rawValue, 1)
    }
    if case .closedPipe = stderr, let closedPipe {
      posix_spawn_file_actions_adddup2(&actions, closedPipe.writeEnd.rawValue, 2)
    }
    for (output, descriptor) in [(stdout, Int32(1)), (stderr, 2)] {
      switch (output, pipe) {
      case (.null, _): posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
      case (.capture, let pipe?):
        posix_spawn_file_actions_adddup2(&actions, pipe.writeEnd.rawValue, descriptor)
      case (.file(let path), _):
        posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      default: break
      }
    }
    // Only 0, 1 and 2 reach the child: a long-lived child (a player, a bus) must not keep open a
    // pipe another test created at the same time, or that test never sees its end of output.
    rsp_spawn_close_from(&actions, 3)

    var env: [String: String] = [:]
    var entry = Glibc.environ
    while inheritEnvironment, let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        env[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    for (key, value) in environment { env[key] = value }
    for (key, value) in Self.sanitizerEnvironment { env[key] = value }

    let argv = arguments.map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
    try? pipe?.writeEnd.close()
    guard result == 0 else {
      try? pipe?.readEnd.close()
      throw SystemError("cannot start \(arguments[0])", errno: Errno(rawValue: result))
    }
    self.pid = pid
    self.output = pipe?.readEnd
    do {
      self.pidFD = try systemCall("pidfd_open") { try FileDescriptor.pidFD(for: pid) }
    } catch {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
      try? output?.close()
      throw error
    }
  }

  deinit {
    if exitStatus == nil {
      kill(pid, SIGCONT)
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    try? pidFD.close()
    try? output?.close()
  }

  /// Whether the process has exited (reaps it if so).
  public var isRunning: Bool {
    if exitStatus != nil { return false }
    return !reap(timeoutMilliseconds: 0)
  }

  /// Sends `signal` (does nothing once the child is reaped).
  public func signal(_ signal: Int32) {
    guard exitStatus == nil else { return }
    kill(pid, signal)
  }

  /// Stops the child with SIGSTOP and returns once the whole process is stopped: `kill` only
  /// queues the signal, and until every thread has taken it another thread of the child can
  /// still answer a message that was sent after `kill` returned. Throws after `timeout` seconds,
  /// or if the child exits instead.
  public func freeze(timeout: Double = 5) throws {
    guard exitStatus == nil else { throw TestSupportError("pid \(pid) has already exited") }
    kill(pid, SIGSTOP)
    let deadline = monotonicNow() + timeout
    while true {
      var status: Int32 = 0
      let result = waitpid(pid, &status, WUNTRACED | WNOHANG)
      if result == pid {
        if status & 0xff == 0x7f { return }  // WIFSTOPPED: the group stop is complete
        exitStatus = status
        throw TestSupportError("\(arguments.joined(separator: " ")) (pid \(pid)) exited instead of stopping")
      }
      guard monotonicNow() < deadline else {
        throw TestSupportError(
          "\(arguments.joined(separator: " ")) (pid \(pid)) not stopped after \(timeout) s")
      }
      // Bounded polling: the kernel gives no descriptor that becomes ready when a child stops.
      var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
      nanosleep(&pause, nil)
    }
  }

  /// Waits for the child to exit; returns its wait status. Throws after `timeout` seconds.
  @discardableResult
  public func waitForExit(timeout: Double) throws -> Int32 {
    if let exitStatus { return exitStatus }
    guard reap(timeoutMilliseconds: Int32(timeout * 1000)) else {
      throw TestSupportError(
        "\(arguments.joined(separator: " ")) (pid \(pid)) still running after \(timeout) s")
    }
    return exitStatus!
  }

  /// SIGTERM, then SIGKILL if it is still there after `grace` seconds; reaps it.
  public func terminate(grace: Double = 5) {
    guard exitStatus == nil else { return }
    kill(pid, SIGCONT)
    kill(pid, SIGTERM)
    if (try? waitForExit(timeout: grace)) == nil {
      kill(pid, SIGKILL)
      _ = try? waitForExit(timeout: 30)
    }
  }

  private func reap(timeoutMilliseconds: Int32) -> Bool {
    var poller = pollfd(fd: pidFD.rawValue, events: Int16(POLLIN), revents: 0)
    let ready = poll(&poller, 1, timeoutMilliseconds)
    guard ready > 0 else { return false }
    var status: Int32 = 0
    let result = waitpid(pid, &status, 0)
    exitStatus = result == pid ? status : -1
    return true
  }

  /// Whether the exit status says "exited with code 0".
  public static func exitedSuccessfully(_ status: Int32) -> Bool {
    status & 0x7f == 0 && (status >> 8) & 0xff == 0
  }

  /// The exit code from a wait status (nil when killed by a signal).
  public static func exitCode(_ status: Int32) -> Int32? { status & 0x7f == 0 ? (status >> 8) & 0xff : nil }

  // MARK: Captured output

  /// Reads one line of captured output (without the newline), waiting at most `timeout`
  /// seconds; nil at end of output. Throws on timeout.
  public func readLine(timeout: Double) throws -> String? {
    let deadline = monotonicNow() + timeout
    while true {
      if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffered[..<newline], as: UTF8.self)
        buffered.removeSubrange(...newline)
        return line
      }
      guard try fill(until: deadline) else {
        if buffered.isEmpty { return nil }
        let line = String(decoding: buffered, as: UTF8.self)
        buffered.removeAll()
        return line
      }
    }
  }

  /// Reads captured output until the child closes it, waiting at most `timeout` seconds.
  public func readToEnd(timeout: Double) throws -> String {
    let deadline = monotonicNow() + timeout
    while try fill(until: deadline) {}
    let text = String(decoding: buffered, as: UTF8.self)
    buffered.removeAll()
    return text
  }

  /// The read end of the captured output, to watch with an event loop. Throws (EBADF) when the
  /// output is not captured or has ended.
  public var outputDescriptor: FileDescriptor {
    get throws(SystemError) {
      guard let output else {
        throw SystemError("output of \(arguments.joined(separator: " "))", errno: .badFileDescriptor)
      }
      return output
    }
  }

  /// Reads what is available now into the buffer without waiting; false at end of output.
  @discardableResult
  public func readAvailable() -> Bool {
    guard let output else { return false }
    var poller = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, 0) > 0 else { return true }
    return readChunk(from: output)
  }

  /// Reads once from `output` into the buffer (it is readable); false at its end, when it is closed.
  private func readChunk(from output: FileDescriptor) -> Bool {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = (try? chunk.withUnsafeMutableBytes { try output.read(into: $0) }) ?? 0
    if count == 0 {
      try? output.close()
      self.output = nil
      return false
    }
    buffered += chunk[..<count]
    return true
  }

  /// Closes the read end of the captured output (the child's next write to it fails with EPIPE).
  public func closeOutput() {
    try? output?.close()
    output = nil
  }

  /// Takes the output read so far.
  public func takeBufferedOutput() -> String {
    let text = String(decoding: buffered, as: UTF8.self)
    buffered.removeAll()
    return text
  }

  /// Takes the whole lines read so far (without their newlines); a line not ended yet stays.
  public func takeBufferedLines() -> [String] {
    guard let last = buffered.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
    let text = String(decoding: buffered[..<last], as: UTF8.self)
    buffered.removeSubrange(...last)
    return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// Reads what is available; false at end of output.
  private func fill(until deadline: Double) throws -> Bool {
    guard let output else { return false }
    let left = deadline - monotonicNow()
    guard left > 0 else {
      throw TestSupportError(
        "no output from \(arguments.joined(separator: " ")) within the time given; got so far: \(String(decoding: buffered, as: UTF8.self))"
      )
    }
    var poller = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
    let ready = poll(&poller, 1, Int32(min(left * 1000 + 1, Double(Int32.max))))
    if ready == 0 { return try fill(until: deadline) }
    return readChunk(from: output)
  }
}

/// Seconds on CLOCK_MONOTONIC.
public func monotonicNow() -> Double {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
