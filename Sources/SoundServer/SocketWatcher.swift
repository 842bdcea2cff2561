internal import CPulse
import EventLoop
import EventTime
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Tells when a server's unix socket (re)appears, without polling: inotify on the socket's
/// directory, or on its nearest existing ancestor while the directory itself is missing (moving
/// down as directories are created). Nothing wakes up while the server stays away.
///
/// After the socket appears, an attempt that fails (the server has bound but does not listen
/// yet) is retried a few times on a short back-off (at most about 3 s in all), then the watcher
/// waits for the next change again.
final class SocketWatcher {
  private let socketPath: String
  private let loop: EventLoop
  private let scheduler: Scheduler
  private let appeared: () -> Void
  private var inotify: FileDescriptor?
  private var source: IOSource?
  private var watchedDirectory: String?
  private var retry: ScheduledTimer?
  private var quickRetriesLeft = 0

  init(socketPath: String, loop: EventLoop, scheduler: Scheduler, appeared: @escaping () -> Void) {
    self.socketPath = socketPath
    self.loop = loop
    self.scheduler = scheduler
    self.appeared = appeared
  }

  deinit { stop() }

  /// Starts watching (again, after a failed attempt: then a quick retry may be due).
  func start() {
    watchNearestDirectory()
    guard quickRetriesLeft > 0, retry == nil, access(socketPath, F_OK) == 0 else { return }
    let delay = 0.05 * Seconds(1 << (6 - quickRetriesLeft))
    quickRetriesLeft -= 1
    retry = scheduler.schedule(after: delay) { [weak self] in
      self?.retry = nil
      self?.appeared()
    }
  }

  /// Stops watching; no retry is left pending.
  func stop() {
    retry?.cancel()
    retry = nil
    quickRetriesLeft = 0
    source?.remove()
    source = nil
    try? inotify?.close()
    inotify = nil
    watchedDirectory = nil
  }

  private func watchNearestDirectory() {
    var directory = Self.parent(of: socketPath)
    while directory != "/" && access(directory, F_OK) != 0 { directory = Self.parent(of: directory) }
    guard directory != watchedDirectory || inotify == nil else { return }
    source?.remove()
    source = nil
    try? inotify?.close()
    inotify = nil
    guard let fd = try? FileDescriptor.inotify() else { return }
    let mask =
      CPULSE_IN_CREATE | CPULSE_IN_MOVED_TO | CPULSE_IN_ATTRIB | CPULSE_IN_DELETE_SELF | CPULSE_IN_MOVE_SELF
    guard (try? fd.addInotifyWatch(FilePath(directory), mask: mask)) != nil,
      let source = try? loop.register(
        fd: fd, events: .readable, handler: { [weak self] _ in self?.readEvents() })
    else {
      try? fd.close()
      return
    }
    inotify = fd
    self.source = source
    watchedDirectory = directory
  }

  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  private func readEvents() {
    guard let inotify else { return }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var watchGone = false
    while let count = try? buffer.withUnsafeMutableBytes({ try inotify.read(into: $0) }), count > 0 {
      var offset = 0
      while offset + 16 <= count {
        let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
        let length = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) }
        if mask & (CPULSE_IN_DELETE_SELF | CPULSE_IN_MOVE_SELF | CPULSE_IN_IGNORED) != 0 { watchGone = true }
        offset += 16 + Int(length)
      }
    }
    if watchGone {
      source?.remove()
      source = nil
      try? inotify.close()
      self.inotify = nil
    }
    watchNearestDirectory()
    guard access(socketPath, F_OK) == 0 else { return }
    quickRetriesLeft = 5
    retry?.cancel()
    retry = nil
    appeared()
  }
}
