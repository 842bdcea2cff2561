internal import CDBus
import EventLoop
import EventTime
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Waits for a bus to come back and runs `attempt` when it may have.
///
/// For a `unix:path=` address it watches the socket's directory with inotify: nothing wakes up
/// while the bus is away, and the attempt runs as soon as the socket is created again (with a
/// few short retries in case the daemon has bound but not yet listened). For other addresses, or
/// when the directory cannot be watched, it retries on a back-off timer through the scheduler
/// (0.1 s doubling up to 30 s).
final class DBusReconnector {
  private let loop: EventLoop
  private let scheduler: Scheduler
  private let socketPath: String?
  /// Tries to connect; returns true when connected (or no longer needed).
  private let attempt: () -> Bool
  private var inotify: FileDescriptor?
  private var inotifySource: IOSource?
  private var watchedDirectory: String?
  private var timer: ScheduledTimer?
  private var backoff: Seconds = 0.1
  private var quickRetries = 0
  private var stopped = false

  init(address: String, loop: EventLoop, scheduler: Scheduler, attempt: @escaping () -> Bool) {
    self.loop = loop
    self.scheduler = scheduler
    self.socketPath = DBusAddress.unixPath(of: address)
    self.attempt = attempt
  }

  deinit { stop() }

  /// Tries after `delay` (at once when 0), then waits as described above.
  func start(after delay: Seconds = 0) {
    watchNearestDirectory()
    if delay > 0 {
      timer = scheduler.schedule(after: delay) { [weak self] in self?.tryNow() }
    } else {
      tryNow()
    }
  }

  func stop() {
    stopped = true
    timer?.cancel()
    timer = nil
    removeWatch()
  }

  private func tryNow() {
    guard !stopped else { return }
    timer?.cancel()
    timer = nil
    if attempt() {
      stop()
      return
    }
    if inotifySource != nil {
      // The socket is there but refused us: the daemon may not listen yet (it binds, then
      // starts). Retry on a short back-off for a few seconds, then wait for the next change.
      if quickRetries > 0 {
        let delay = 0.05 * Seconds(1 << min(10 - quickRetries, 6))
        quickRetries -= 1
        timer = scheduler.schedule(after: delay) { [weak self] in self?.tryNow() }
      }
    } else {
      timer = scheduler.schedule(after: backoff) { [weak self] in self?.tryNow() }
      backoff = min(backoff * 2, 30)
    }
  }

  /// Watches the deepest existing directory on the way to the socket: the socket's own directory
  /// when it exists, else its nearest ancestor (e.g. /run/user before the session starts), moving
  /// down as directories are created. No timer runs meanwhile.
  private func watchNearestDirectory() {
    guard let socketPath else { return }
    var directory = Self.parent(of: socketPath)
    while directory != "/" && access(directory, F_OK) != 0 { directory = Self.parent(of: directory) }
    guard directory != watchedDirectory || inotify == nil else { return }
    removeWatch()
    guard let fd = try? FileDescriptor.inotify() else { return }
    let mask =
      CDBUS_IN_CREATE | CDBUS_IN_MOVED_TO | CDBUS_IN_ATTRIB | CDBUS_IN_DELETE_SELF | CDBUS_IN_MOVE_SELF
    guard (try? fd.addInotifyWatch(FilePath(directory), mask: mask)) != nil,
      let source = try? loop.register(
        fd: fd, events: .readable, handler: { [weak self] _ in self?.readEvents() })
    else {
      try? fd.close()
      return
    }
    inotify = fd
    inotifySource = source
    watchedDirectory = directory
  }

  private func removeWatch() {
    inotifySource?.remove()
    inotifySource = nil
    try? inotify?.close()
    inotify = nil
    watchedDirectory = nil
  }

  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  private func readEvents() {
    guard let inotify else { return }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var watchGone = false
    while true {
      guard let count = try? buffer.withUnsafeMutableBytes({ try inotify.read(into: $0) }), count > 0 else {
        break
      }
      var offset = 0
      while offset + 16 <= count {
        let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
        let length = Int(
          buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
        if mask & (CDBUS_IN_DELETE_SELF | CDBUS_IN_MOVE_SELF | CDBUS_IN_IGNORED) != 0 { watchGone = true }
        offset += 16 + length
      }
    }
    if watchGone { removeWatch() }
    // A directory on the way may have appeared (or ours went away): watch the nearest one again.
    watchNearestDirectory()
    if self.inotify == nil, timer == nil {
      timer = scheduler.schedule(after: backoff) { [weak self] in self?.tryNow() }
      return
    }
    if let socketPath, access(socketPath, F_OK) == 0 {
      quickRetries = 10
      tryNow()
    }
  }
}
