import CSystemShims
import EventTime
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

// The Linux calls swift-system lacks, in its style: one thin wrapper per C call, on
// `FileDescriptor`, throwing the call's `Errno`. Callers name the call in a `SystemError`
// (`systemCall`). Every descriptor made here is close-on-exec, and non-blocking where it is read.

/// Calls `body` again while it fails with EINTR; its value, or the errno of its failure (-1).
@inline(__always)
func retryingOnInterrupt<Value: FixedWidthInteger>(_ body: () -> Value) throws(Errno) -> Value {
  while true {
    let value = body()
    if value != -1 { return value }
    let errno = Errno.last
    if errno != .interrupted { throw errno }
  }
}

/// What `epoll_ctl` does with a descriptor.
public enum EpollOperation: Sendable {
  case add, modify, delete

  var rawValue: Int32 {
    switch self {
    case .add: EPOLL_CTL_ADD
    case .modify: EPOLL_CTL_MOD
    case .delete: EPOLL_CTL_DEL
    }
  }
}

extension FileDescriptor {
  /// `epoll_create1(EPOLL_CLOEXEC)`: a new epoll instance.
  public static func epollCreate() throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try retryingOnInterrupt { epoll_create1(Int32(EPOLL_CLOEXEC)) })
  }

  /// `epoll_ctl` on this epoll instance: adds, changes or removes `target`, its events data being
  /// the descriptor.
  public func epollControl(_ operation: EpollOperation, _ target: FileDescriptor, events: IOEvents = [])
    throws(Errno)
  {
    var event = epoll_event()
    event.events = events.rawValue
    event.data.fd = target.rawValue
    _ = try retryingOnInterrupt { epoll_ctl(rawValue, operation.rawValue, target.rawValue, &event) }
  }

  /// `epoll_wait` on this epoll instance, at most `timeout` milliseconds (-1: forever): the number
  /// of entries of `events` filled. Not retried: EINTR is thrown (a signal woke the waiter).
  public func epollWait(into events: UnsafeMutableBufferPointer<epoll_event>, timeout: Int32) throws(Errno)
    -> Int
  {
    let count = epoll_wait(rawValue, events.baseAddress, Int32(events.count), timeout)
    guard count >= 0 else { throw Errno.last }
    return Int(count)
  }

  /// `epoll_pwait2` on this epoll instance: at most `seconds`, to the nanosecond (0: no wait). Throws
  /// ENOSYS where the kernel has no such call (before Linux 5.11) and EPERM where a system-call
  /// filter refuses it; EINTR, not retried, as `epollWait(into:timeout:)`.
  public func epollWait(into events: UnsafeMutableBufferPointer<epoll_event>, seconds: Double) throws(Errno)
    -> Int
  {
    // (At most a day: a longer wait is ended by the caller's next look at its timers.)
    let bounded = min(max(0, seconds), 86_400)
    let whole = bounded.rounded(.down)
    var limit = timespec(tv_sec: Int(whole), tv_nsec: Int((bounded - whole) * 1e9))
    let count = epoll_pwait2(rawValue, events.baseAddress, Int32(events.count), &limit, nil)
    guard count >= 0 else { throw Errno.last }
    return Int(count)
  }

  /// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)`: a counter another thread can wake a loop with.
  public static func eventFD() throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try retryingOnInterrupt { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) })
  }

  /// Reads the 8-byte counter of an eventfd: nil when it is zero (EAGAIN).
  public func readCounter() throws(Errno) -> UInt64? {
    var value: UInt64 = 0
    do {
      let count = try retryingOnInterrupt { Glibc.read(rawValue, &value, 8) }
      return count == 8 ? value : nil
    } catch .wouldBlock {
      return nil
    }
  }

  /// Adds `value` to an eventfd's counter.
  public func writeCounter(_ value: UInt64) throws(Errno) {
    var value = value
    _ = try retryingOnInterrupt { Glibc.write(rawValue, &value, 8) }
  }

  /// `signalfd` (CLOEXEC | NONBLOCK) for `signals`, which are blocked for the calling thread.
  public static func signalFD(for signals: [Int32]) throws(Errno) -> FileDescriptor {
    let fd = signals.withUnsafeBufferPointer { rsp_signalfd_for($0.baseAddress, Int32($0.count)) }
    guard fd >= 0 else { throw Errno.last }
    return FileDescriptor(rawValue: fd)
  }

  /// Reads one `signalfd_siginfo` from this signalfd: the signal, or nil when none is pending.
  public func readSignal() throws(Errno) -> Int32? {
    let signal = rsp_signalfd_read(rawValue)
    if signal > 0 { return signal }
    if signal == 0 { return nil }
    throw Errno.last
  }

  /// `pidfd_open(pid, 0)`: a descriptor readable when the process exits (Linux 5.3 or later).
  public static func pidFD(for pid: pid_t) throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try retryingOnInterrupt { rsp_pidfd_open(pid) })
  }

  /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
  public static func inotify() throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try retryingOnInterrupt { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
  }

  /// `inotify_add_watch` on this inotify instance: the watch descriptor.
  @discardableResult
  public func addInotifyWatch(_ path: FilePath, mask: UInt32) throws(Errno) -> Int32 {
    let path = path.string
    return try retryingOnInterrupt { inotify_add_watch(rawValue, path, mask) }
  }
}

/// `posix_spawnp` (searched in PATH) with stdin from /dev/null, an empty signal mask, default
/// signal actions and a process group of its own: the child's pid.
public func spawnProcess(_ file: String, arguments: [String], environment: [String]) throws(Errno) -> pid_t {
  let cArguments = arguments.map { strdup($0) } + [nil]
  let cEnvironment = environment.map { strdup($0) } + [nil]
  defer {
    cArguments.forEach { free($0) }
    cEnvironment.forEach { free($0) }
  }
  var pid: pid_t = 0
  let rc = rsp_spawn(file, cArguments, cEnvironment, &pid)
  guard rc == 0 else { throw Errno(rawValue: rc) }
  return pid
}
