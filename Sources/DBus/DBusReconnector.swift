import EventLoop
import EventTime

/// Waits for a bus to come back and runs `attempt` when it may have.
///
/// For a `unix:path=` address it watches the socket's directory with inotify
/// (`FileAppearanceWatcher`): nothing wakes up while the bus is away, and the attempt runs as soon
/// as the socket is created again (with a few short retries in case the daemon has bound but not
/// yet listened). For other addresses, or when the directory cannot be watched, it retries on a
/// back-off timer through the scheduler (0.1 s doubling up to 30 s).
final class DBusReconnector {
  private let scheduler: Scheduler
  /// Tries to connect; returns true when connected (or no longer needed).
  private let attempt: () -> Bool
  /// The bus socket, for a `unix:path=` address.
  private var socket: FileAppearanceWatcher?
  private var timer: ScheduledTimer?
  private var backoff: Seconds = 0.1
  private var quickRetries = 0
  private var stopped = false

  init(address: String, loop: EventLoop, scheduler: Scheduler, attempt: @escaping () -> Bool) {
    self.scheduler = scheduler
    self.attempt = attempt
    socket = DBusAddress.unixPath(of: address).map { path in
      FileAppearanceWatcher(path: path, loop: loop) { [weak self] in self?.socketDirectoryChanged() }
    }
  }

  deinit { stop() }

  /// Tries after `delay` (at once when 0), then waits as described above.
  func start(after delay: Seconds = 0) {
    socket?.start()
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
    socket?.stop()
  }

  private func tryNow() {
    guard !stopped else { return }
    timer?.cancel()
    timer = nil
    if attempt() {
      stop()
      return
    }
    if socket?.isWatching == true {
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

  /// Something changed on the way to the socket (the watcher watches the nearest existing
  /// directory again by now).
  private func socketDirectoryChanged() {
    guard let socket else { return }
    if !socket.isWatching, timer == nil {
      timer = scheduler.schedule(after: backoff) { [weak self] in self?.tryNow() }
      return
    }
    if socket.fileExists {
      quickRetries = 10
      tryNow()
    }
  }
}
