import EventLoop
import EventTime

/// Tells when a server's unix socket (re)appears, without polling (`FileAppearanceWatcher`:
/// inotify on the socket's directory or its nearest existing ancestor). Nothing wakes up while the
/// server stays away.
///
/// After the socket appears, an attempt that fails (the server has bound but does not listen
/// yet) is retried a few times on a short back-off (at most about 3 s in all), then the watcher
/// waits for the next change again.
final class SocketWatcher {
  private let scheduler: Scheduler
  private let appeared: () -> Void
  private var socket: FileAppearanceWatcher?
  private var retry: ScheduledTimer?
  private var quickRetriesLeft = 0

  init(socketPath: String, loop: EventLoop, scheduler: Scheduler, appeared: @escaping () -> Void) {
    self.scheduler = scheduler
    self.appeared = appeared
    socket = FileAppearanceWatcher(path: socketPath, loop: loop) { [weak self] in
      self?.socketDirectoryChanged()
    }
  }

  deinit { stop() }

  /// Starts watching (again, after a failed attempt: then a quick retry may be due).
  func start() {
    socket?.start()
    guard quickRetriesLeft > 0, retry == nil, socket?.fileExists == true else { return }
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
    socket?.stop()
  }

  private func socketDirectoryChanged() {
    guard socket?.fileExists == true else { return }
    quickRetriesLeft = 5
    retry?.cancel()
    retry = nil
    appeared()
  }
}
