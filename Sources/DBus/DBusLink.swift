internal import CDBus
import EventLoop
import EventTime
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// One libdbus connection (one socket) wired into the event loop: watches become epoll
/// registrations, timeouts become scheduler timers, and incoming messages are queued for the
/// owning `DBusConnection`, which processes them outside libdbus (so handlers may do anything).
///
/// A `DBusConnection` makes a new link each time it (re)connects.
final class DBusLink {
  let raw: OpaquePointer
  let loop: EventLoop
  let scheduler: Scheduler
  private(set) var isClosed = false
  /// Called when libdbus has something to dispatch or a message was queued.
  var onActivity: () -> Void = {}
  /// Where the filter puts each incoming message.
  var onMessage: (DBusMessage) -> Void = { _ in }

  /// Whether the socket is left out of the loop for reading (`DBusConnection.batchingDelay`): its
  /// read watch is not registered with the loop, while writing goes on; `readNow` still reads it.
  private(set) var readingPaused = false
  private var watches: [OpaquePointer: Int32] = [:]
  private var sources: [Int32: IOSource] = [:]
  private var timeouts: [OpaquePointer: ScheduledTimer?] = [:]

  /// Opens a private connection to `address` (no blocking: authentication and Hello proceed
  /// as the loop runs). Throws when the address cannot be reached at all.
  init(address: String, loop: EventLoop, scheduler: Scheduler) throws(DBusError) {
    let raw = try withDBusError { error in dbus_connection_open_private(address, error) }
    guard let raw else { throw DBusError(DBusError.Name.noServer, "cannot connect to \(address)") }
    self.raw = raw
    self.loop = loop
    self.scheduler = scheduler
    dbus_connection_set_exit_on_disconnect(raw, 0)
    // Messages read ahead of their dispatch: 8 MiB at most (libdbus's default is 63 MiB), then
    // the socket waits; a flood is held by the bus, not in this process.
    dbus_connection_set_max_received_size(raw, Self.maximumReadAhead)
    let me = Unmanaged.passUnretained(self).toOpaque()
    _ = dbus_connection_add_filter(raw, dbusLinkFilter, me, nil)
    dbus_connection_set_dispatch_status_function(raw, dbusLinkDispatchStatus, me, nil)
    // Each callback gets the watch or timeout first, the link's user data second.
    _ = dbus_connection_set_watch_functions(
      raw, { DBusLink.from($1).addWatch($0) ? 1 : 0 }, { DBusLink.from($1).removeWatch($0) },
      { DBusLink.from($1).toggleWatch($0) }, me, nil)
    _ = dbus_connection_set_timeout_functions(
      raw, { DBusLink.from($1).addTimeout($0) ? 1 : 0 }, { DBusLink.from($1).removeTimeout($0) },
      { DBusLink.from($1).toggleTimeout($0) }, me, nil)
  }

  deinit { close() }

  /// The most bytes of messages read from the socket and not yet dispatched.
  static let maximumReadAhead = 8 << 20

  /// Closes the socket and detaches every callback; safe to call more than once.
  func close() {
    guard !isClosed else { return }
    isClosed = true
    dbus_connection_close(raw)
    _ = dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
    _ = dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
    dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
    dbus_connection_remove_filter(raw, dbusLinkFilter, Unmanaged.passUnretained(self).toOpaque())
    for source in sources.values { source.remove() }
    sources.removeAll()
    for case let timer? in timeouts.values { timer.cancel() }
    timeouts.removeAll()
    watches.removeAll()
    dbus_connection_unref(raw)
  }

  var isConnected: Bool { !isClosed && dbus_connection_get_is_connected(raw) != 0 }

  /// Dispatches one queued message through libdbus (which hands it to the filter); returns
  /// whether more remain.
  func dispatchOne() -> Bool {
    guard !isClosed else { return false }
    guard dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS else { return false }
    return dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS
  }

  var hasDataToDispatch: Bool {
    !isClosed && dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS
  }

  /// Queues `message` for sending (written at once when the socket takes it).
  func send(_ message: DBusMessage) throws(DBusError) {
    guard isConnected else { throw DBusError.disconnected() }
    guard dbus_connection_send(raw, message.raw, nil) != 0 else { throw DBusError.noMemory }
  }

  /// Blocks until the outgoing queue is written (for tools that exit right after sending).
  func flush() {
    guard isConnected else { return }
    dbus_connection_flush(raw)
  }

  // MARK: Watches (several may share one descriptor: libdbus uses a read and a write watch)

  private func addWatch(_ watch: OpaquePointer?) -> Bool {
    guard let watch else { return false }
    let fd = dbus_watch_get_unix_fd(watch)
    guard fd >= 0 else { return false }
    watches[watch] = fd
    refresh(fd: fd)
    return true
  }

  private func removeWatch(_ watch: OpaquePointer?) {
    guard let watch, let fd = watches.removeValue(forKey: watch) else { return }
    refresh(fd: fd)
  }

  private func toggleWatch(_ watch: OpaquePointer?) {
    guard let watch, let fd = watches[watch] else { return }
    refresh(fd: fd)
  }

  /// Leaves the socket unread until `resumeReading` (messages wait in the socket and the bus).
  func pauseReading() {
    guard !readingPaused else { return }
    readingPaused = true
    refreshAll()
  }

  /// Reads the socket again (the loop reports it readable at once when messages wait).
  func resumeReading() {
    guard readingPaused else { return }
    readingPaused = false
    refreshAll()
  }

  /// Reads the socket now, as if the loop had reported it readable, leaving it as it is in the
  /// loop (out of it while paused): at the end of a pause, when a batch most likely waits, or
  /// when a batch is larger than one read. Costs a read that finds nothing when nothing came.
  func readNow() {
    guard !isClosed else { return }
    for (watch, fd) in watches where dbus_watch_get_flags(watch) & DBUS_WATCH_READABLE.rawValue != 0 {
      handle(fd: fd, ready: .readable)
      return
    }
  }

  /// Reads and writes what the socket takes now, without waiting and without dispatching: moves
  /// authentication and Hello on between the loop's turns (received messages wait for the loop).
  func readAndWriteNow() {
    guard !isClosed else { return }
    _ = dbus_connection_read_write(raw, 0)
    onActivity()
  }

  /// Whether the socket holds bytes not read yet. libdbus reads at most about 4 KB each time the
  /// socket is reported readable (two reads of 2048 bytes), so a batch of signals may need more.
  var hasUnreadBytes: Bool {
    guard !isClosed else { return false }
    var fd: Int32 = -1
    guard dbus_connection_get_socket(raw, &fd) != 0, fd >= 0 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
  }

  /// Refreshes each descriptor of the watches once (a read and a write watch share one).
  private func refreshAll() {
    var done: [Int32] = []
    for fd in watches.values where !done.contains(fd) {
      done.append(fd)
      refresh(fd: fd)
    }
  }

  /// Registers `fd` for the union of its enabled watches (but reading while paused), or
  /// unregisters it when that is nothing (epoll reports hang-up even for no events, which would
  /// spin while disabled).
  private func refresh(fd: Int32) {
    guard !isClosed else { return }
    var events: IOEvents = []
    for (watch, watchFD) in watches where watchFD == fd && dbus_watch_get_enabled(watch) != 0 {
      let flags = dbus_watch_get_flags(watch)
      if flags & DBUS_WATCH_READABLE.rawValue != 0, !readingPaused { events.insert(.readable) }
      if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events.insert(.writable) }
    }
    if events.isEmpty {
      sources.removeValue(forKey: fd)?.remove()
      return
    }
    if let source = sources[fd], source.isRegistered {
      try? source.setEvents(events)
    } else {
      sources[fd] = try? loop.register(fd: FileDescriptor(rawValue: fd), events: events) {
        [weak self] ready in
        self?.handle(fd: fd, ready: ready)
      }
    }
  }

  private func handle(fd: Int32, ready: IOEvents) {
    // Iterates a snapshot (a watch removed meanwhile is skipped below), without copying it.
    for (watch, watchFD) in watches where watchFD == fd {
      guard !isClosed, watches[watch] == fd, dbus_watch_get_enabled(watch) != 0 else { continue }
      let wanted = dbus_watch_get_flags(watch)
      var flags: UInt32 = 0
      if ready.contains(.readable) && wanted & DBUS_WATCH_READABLE.rawValue != 0 {
        flags |= DBUS_WATCH_READABLE.rawValue
      }
      if ready.contains(.writable) && wanted & DBUS_WATCH_WRITABLE.rawValue != 0 {
        flags |= DBUS_WATCH_WRITABLE.rawValue
      }
      if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
      if ready.contains(.hangup) { flags |= DBUS_WATCH_HANGUP.rawValue }
      if flags != 0 { _ = dbus_watch_handle(watch, flags) }
    }
    onActivity()
  }

  // MARK: Timeouts (through the Scheduler; libdbus timeouts repeat until removed or disabled)

  private func addTimeout(_ timeout: OpaquePointer?) -> Bool {
    guard let timeout else { return false }
    timeouts[timeout] = .some(nil)
    arm(timeout)
    return true
  }

  private func removeTimeout(_ timeout: OpaquePointer?) {
    guard let timeout, case let timer?? = timeouts.removeValue(forKey: timeout) else { return }
    timer.cancel()
  }

  private func toggleTimeout(_ timeout: OpaquePointer?) {
    guard let timeout, timeouts[timeout] != nil else { return }
    arm(timeout)
  }

  private func arm(_ timeout: OpaquePointer) {
    if case let timer?? = timeouts[timeout] { timer.cancel() }
    guard !isClosed, dbus_timeout_get_enabled(timeout) != 0 else {
      timeouts[timeout] = .some(nil)
      return
    }
    let interval = Seconds(dbus_timeout_get_interval(timeout)) / 1000
    timeouts[timeout] = scheduler.schedule(after: interval) { [weak self] in self?.fire(timeout) }
  }

  private func fire(_ timeout: OpaquePointer) {
    guard !isClosed, timeouts[timeout] != nil else { return }
    timeouts[timeout] = .some(nil)
    _ = dbus_timeout_handle(timeout)
    // Still there and not re-armed by a toggle: it repeats.
    if !isClosed, case .some(.none) = timeouts[timeout] { arm(timeout) }
    onActivity()
  }

  // MARK: From the C callbacks

  fileprivate func received(_ message: OpaquePointer) {
    onMessage(DBusMessage(retaining: message))
  }

  fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> DBusLink {
    Unmanaged<DBusLink>.fromOpaque(data!).takeUnretainedValue()
  }
}

// C callbacks: no captures, the link comes back through the unretained user-data pointer.

/// Never dispatches here (libdbus forbids it): the link tells its owner, which defers.
private func dbusLinkDispatchStatus(
  _ connection: OpaquePointer?, _ status: DBusDispatchStatus, _ data: UnsafeMutableRawPointer?
) {
  guard status == DBUS_DISPATCH_DATA_REMAINS else { return }
  DBusLink.from(data).onActivity()
}

private func dbusLinkFilter(
  _ connection: OpaquePointer?, _ message: OpaquePointer?, _ data: UnsafeMutableRawPointer?
) -> DBusHandlerResult {
  guard let message else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
  DBusLink.from(data).received(message)
  return DBUS_HANDLER_RESULT_HANDLED
}
