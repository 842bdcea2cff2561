import CSystemShims
import EventTime
import HeapModule
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Readiness of a file descriptor, as epoll reports it.
public struct IOEvents: OptionSet, Sendable, CustomStringConvertible {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  public static let readable = IOEvents(rawValue: rsp_epollin())
  public static let writable = IOEvents(rawValue: rsp_epollout())
  public static let priority = IOEvents(rawValue: rsp_epollpri())
  public static let error = IOEvents(rawValue: rsp_epollerr())
  public static let hangup = IOEvents(rawValue: rsp_epollhup())
  /// Error or hang-up: for a device, it is gone.
  public var isGone: Bool { !intersection([.error, .hangup]).isEmpty }
  public var description: String {
    var parts: [String] = []
    if contains(.readable) { parts.append("in") }
    if contains(.writable) { parts.append("out") }
    if contains(.priority) { parts.append("pri") }
    if contains(.error) { parts.append("err") }
    if contains(.hangup) { parts.append("hup") }
    return parts.joined(separator: "|")
  }
}

/// A file descriptor registered with an `EventLoop`. Remove it before closing the descriptor.
public final class IOSource {
  public let fd: FileDescriptor
  public fileprivate(set) var events: IOEvents
  fileprivate var handler: (IOEvents) -> Void
  fileprivate weak var loop: EventLoop?
  public fileprivate(set) var isRegistered = true

  fileprivate init(
    fd: FileDescriptor, events: IOEvents, handler: @escaping (IOEvents) -> Void, loop: EventLoop
  ) {
    self.fd = fd
    self.events = events
    self.handler = handler
    self.loop = loop
  }

  /// Changes the events waited for (e.g. add `.writable` while output is pending).
  public func setEvents(_ events: IOEvents) throws {
    guard isRegistered, let loop, events != self.events else { return }
    try loop.modify(self, events: events)
  }

  /// Stops watching the descriptor. The descriptor itself is not closed.
  public func remove() { loop?.remove(self) }
}

/// The one event loop of a process: a thread blocking in epoll on every registered descriptor
/// (devices, the bus, a signalfd), for at most the time to its earliest timer (the wait's timeout,
/// to the nanosecond with `epoll_pwait2`: a timer costs no system call of its own). It never wakes
/// up by itself: with nothing registered ready and no timer pending, it sleeps.
///
/// Not thread-safe: use it from the thread that runs it, except `wake()`.
public final class EventLoop {
  private let epollFD: FileDescriptor
  private var sources: [FileDescriptor: IOSource] = [:]
  private var deferred: [() -> Void] = []
  private var running = false
  private var stopRequested = false
  private let wakeFD: FileDescriptor
  private var wakeSource: IOSource?
  /// The timers of this loop, on CLOCK_MONOTONIC: the loop waits in epoll until the earliest.
  public private(set) var scheduler: TimerScheduler!

  private var wakeupObservers: [(Int) -> Void] = []

  public init() throws {
    epollFD = try systemCall("epoll_create1") { try FileDescriptor.epollCreate() }
    wakeFD = try systemCall("eventfd") { try FileDescriptor.eventFD() }
    scheduler = TimerScheduler()
    wakeSource = try register(fd: wakeFD, events: .readable) { [wakeFD] _ in
      _ = try? wakeFD.readCounter()
    }
  }

  deinit {
    try? wakeFD.close()
    try? epollFD.close()
  }

  /// Watches `fd` for `events`; `handler` runs on the loop thread with what epoll reported.
  /// Error and hang-up are always reported, whatever `events` says.
  @discardableResult
  public func register(fd: FileDescriptor, events: IOEvents, handler: @escaping (IOEvents) -> Void)
    throws(SystemError) -> IOSource
  {
    if let old = sources[fd] { remove(old) }
    let source = IOSource(fd: fd, events: events, handler: handler, loop: self)
    try systemCall("epoll_ctl(ADD)") { try epollFD.epollControl(.add, fd, events: events) }
    sources[fd] = source
    return source
  }

  fileprivate func modify(_ source: IOSource, events: IOEvents) throws(SystemError) {
    try systemCall("epoll_ctl(MOD)") { try epollFD.epollControl(.modify, source.fd, events: events) }
    source.events = events
  }

  fileprivate func remove(_ source: IOSource) {
    guard source.isRegistered else { return }
    source.isRegistered = false
    if sources[source.fd] === source {
      sources[source.fd] = nil
      try? epollFD.epollControl(.delete, source.fd)
    }
  }

  /// The number of registered descriptors (the loop's own wake-up descriptor included).
  public var registeredCount: Int { sources.count }

  /// Runs `block` on the loop thread after the current handler returns, before sleeping again.
  public func runSoon(_ block: @escaping () -> Void) { deferred.append(block) }

  /// Wakes the loop from another thread (the only thread-safe call).
  public func wake() {
    try? wakeFD.writeCounter(1)
  }

  /// Makes `run()` return after the current iteration.
  public func stop() { stopRequested = true }

  /// Blocks in epoll and runs handlers until `stop()` is called.
  public func run() {
    running = true
    stopRequested = false
    defer { running = false }
    while !stopRequested {
      runOnce(timeout: -1)
    }
  }

  /// Runs handlers for what is ready and the timers that are due, waiting at most `timeout`
  /// milliseconds (-1: forever), and no longer than until the earliest timer. Returns the number
  /// of descriptors that were ready, plus one when timers were due.
  @discardableResult
  public func runOnce(timeout: Int32) -> Int {
    runDeferred()
    if stopRequested { return 0 }
    let waitTimeout = deferred.isEmpty ? timeout : 0
    // The earliest timer, when it comes before the caller's limit, ends the wait to the nanosecond.
    var untilTimer: Seconds?
    if waitTimeout != 0, let left = scheduler.secondsToEarliest(),
      waitTimeout < 0 || left * 1000 < Double(waitTimeout)
    {
      untilTimer = left
    }
    // On the stack: a busy loop wakes up hundreds of times a second (a handler may run the loop
    // again; each run has its own).
    return withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 32) { events in
      let count: Int
      do {
        count = try wait(into: events, timeout: waitTimeout, untilTimer: untilTimer)
      } catch {
        return 0  // EINTR
      }
      // Timers first: their deadlines passed before the wait ended.
      let timersDue = scheduler.fireDue()
      if timersDue { runDeferred() }
      let woken = count + (timersDue ? 1 : 0)
      for observer in wakeupObservers { observer(woken) }
      for index in 0..<count {
        let ready = events[index]
        guard let source = sources[FileDescriptor(rawValue: ready.data.fd)], source.isRegistered else {
          continue
        }
        source.handler(IOEvents(rawValue: ready.events))
        runDeferred()
      }
      return woken
    }
  }

  /// Whether `epoll_pwait2` is refused here (an older kernel, or a system-call filter): timers then
  /// end the wait in whole milliseconds, rounded up.
  private var millisecondWaitsOnly = false

  /// Waits in epoll for at most `timeout` milliseconds (-1: forever), or `untilTimer` seconds when
  /// a timer comes first.
  private func wait(
    into events: UnsafeMutableBufferPointer<epoll_event>, timeout: Int32, untilTimer: Seconds?
  ) throws(Errno) -> Int {
    guard let untilTimer else { return try epollFD.epollWait(into: events, timeout: timeout) }
    if !millisecondWaitsOnly {
      do {
        return try epollFD.epollWait(into: events, seconds: untilTimer)
      } catch let error where error == .noFunction || error == .notPermitted {
        millisecondWaitsOnly = true
      }
    }
    // (Rounded up: a timer never fires early.)
    let milliseconds = (untilTimer * 1000).rounded(.up)
    return try epollFD.epollWait(
      into: events, timeout: milliseconds >= Double(Int32.max) ? .max : Int32(milliseconds))
  }

  /// Calls `observer` after every wake-up from epoll, with the number of descriptors ready, plus
  /// one when timers were due (for tests and benchmarks that check idleness).
  public func addWakeupObserver(_ observer: @escaping (Int) -> Void) { wakeupObservers.append(observer) }

  /// Runs the loop until `condition` holds, `timeout` seconds pass or `stop()` is called; returns
  /// whether the condition held. For tests and tools that wait for a real process or bus
  /// (bounded, never a sleep).
  @discardableResult
  public func run(until condition: () -> Bool, timeout: Seconds) -> Bool {
    let deadline = rsp_monotonic_now() + timeout
    stopRequested = false
    defer { stopRequested = false }
    while !condition() {
      if stopRequested { return condition() }
      let left = deadline - rsp_monotonic_now()
      if left <= 0 { return condition() }
      runOnce(timeout: Int32(max(1, min(left * 1000, 100))))
    }
    return true
  }

  private func runDeferred() {
    while !deferred.isEmpty {
      let blocks = deferred
      deferred.removeAll()
      for block in blocks { block() }
    }
  }

  /// Calls `handler` on the loop thread for each of `signals` received (they are blocked for the
  /// calling thread and read from a signalfd, so no handler runs asynchronously).
  @discardableResult
  public func onSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemError)
    -> IOSource
  {
    let fd = try systemCall("signalfd") { try FileDescriptor.signalFD(for: signals) }
    return try register(fd: fd, events: .readable) { _ in
      while let signal = try? fd.readSignal() { handler(signal) }
    }
  }
}

/// The real scheduler: timers on CLOCK_MONOTONIC, kept in a heap whose earliest deadline is the
/// loop's wait's timeout (no timer descriptor: setting, reading and waking on one cost three
/// system calls a timer). No timer pending: the loop waits for its descriptors alone.
public final class TimerScheduler: Scheduler {
  private struct Entry: Comparable {
    let timer: ScheduledTimer
    static func < (lhs: Entry, rhs: Entry) -> Bool {
      (lhs.timer.deadline, lhs.timer.sequence) < (rhs.timer.deadline, rhs.timer.sequence)
    }
    static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.timer === rhs.timer }
  }
  private var heap = Heap<Entry>()
  private var sequence: UInt64 = 0

  fileprivate init() {}

  public var now: Seconds { rsp_monotonic_now() }

  /// Timers waiting to fire (cancelled ones are dropped when reached).
  public var pendingCount: Int { heap.count }

  @discardableResult
  public func schedule(at deadline: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer {
    sequence += 1
    let timer = ScheduledTimer(deadline: deadline, sequence: sequence, action: action)
    timer.setCancelHandler { [weak self] _ in self?.dropCancelled() }
    heap.insert(Entry(timer: timer))
    return timer
  }

  /// Seconds until the earliest timer (0 when it is due), or nil when none is pending.
  fileprivate func secondsToEarliest() -> Seconds? {
    guard let first = heap.min else { return nil }
    return max(0, first.timer.deadline - now)
  }

  /// Fires every timer whose deadline has passed, in order; returns whether one was due.
  fileprivate func fireDue() -> Bool {
    let current = now
    guard let first = heap.min, first.timer.deadline <= current else { return false }
    while let first = heap.min, first.timer.isCancelled || first.timer.deadline <= current {
      _ = heap.popMin()
      first.timer.fire()
    }
    dropCancelled()
    return true
  }

  /// Drops cancelled timers from the front: the earliest deadline is always a live timer's.
  private func dropCancelled() {
    while let first = heap.min, first.timer.isCancelled { _ = heap.popMin() }
  }
}
