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
/// (devices, the bus, a timerfd for all timers, a signalfd). It never wakes up by itself: with
/// nothing registered ready and no timer due, it sleeps.
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
  /// The timers of this loop, on CLOCK_MONOTONIC through one timerfd.
  public private(set) var scheduler: TimerScheduler!

  private var wakeupObservers: [(Int) -> Void] = []

  public init() throws {
    epollFD = try systemCall("epoll_create1") { try FileDescriptor.epollCreate() }
    wakeFD = try systemCall("eventfd") { try FileDescriptor.eventFD() }
    scheduler = try TimerScheduler(loop: self)
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

  /// The number of registered descriptors (the loop's own wake-up and timer descriptors included).
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

  /// Runs handlers for what is ready, waiting at most `timeout` milliseconds (-1: forever).
  /// Returns the number of descriptors that were ready.
  @discardableResult
  public func runOnce(timeout: Int32) -> Int {
    runDeferred()
    if stopRequested { return 0 }
    let waitTimeout = deferred.isEmpty ? timeout : 0
    // On the stack: a busy loop wakes up hundreds of times a second (a handler may run the loop
    // again; each run has its own).
    return withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 32) { events in
      let count: Int
      do {
        count = try epollFD.epollWait(into: events, timeout: waitTimeout)
      } catch {
        return 0  // EINTR
      }
      for observer in wakeupObservers { observer(count) }
      for index in 0..<count {
        let ready = events[index]
        guard let source = sources[FileDescriptor(rawValue: ready.data.fd)], source.isRegistered else {
          continue
        }
        source.handler(IOEvents(rawValue: ready.events))
        runDeferred()
      }
      return count
    }
  }

  /// Calls `observer` after every wake-up from epoll, with the number of descriptors ready (for
  /// tests and benchmarks that check idleness).
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

/// The real scheduler: timers on CLOCK_MONOTONIC through one timerfd in the event loop, armed for
/// the earliest deadline only, and disarmed when no timer is left.
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
  private let timerFD: FileDescriptor
  private var armedFor: Seconds?
  /// The timerfd expired and reads as ready until read or set again: setting it for the next
  /// deadline clears that too, so an expiry followed by another timer costs one system call.
  private var expiredUnread = false
  private unowned let loop: EventLoop

  fileprivate init(loop: EventLoop) throws(SystemError) {
    self.loop = loop
    timerFD = try systemCall("timerfd_create") { try FileDescriptor.monotonicTimerFD() }
    try loop.register(fd: timerFD, events: .readable) { [weak self] _ in self?.expire() }
  }

  deinit { try? timerFD.close() }

  public var now: Seconds { rsp_monotonic_now() }

  /// Timers waiting to fire (cancelled ones are dropped when reached).
  public var pendingCount: Int { heap.count }

  @discardableResult
  public func schedule(at deadline: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer {
    sequence += 1
    let timer = ScheduledTimer(deadline: deadline, sequence: sequence, action: action)
    timer.setCancelHandler { [weak self] _ in self?.rearm() }
    heap.insert(Entry(timer: timer))
    rearm()
    return timer
  }

  private func expire() {
    expiredUnread = true
    armedFor = nil
    let current = now
    while let first = heap.min, first.timer.isCancelled || first.timer.deadline <= current {
      _ = heap.popMin()
      first.timer.fire()
    }
    rearm()
    // Not set again (no timer left): read, or epoll would report it again at once.
    if expiredUnread {
      _ = try? timerFD.readCounter()
      expiredUnread = false
    }
  }

  private func rearm() {
    while let first = heap.min, first.timer.isCancelled { _ = heap.popMin() }
    let next = heap.min?.timer.deadline
    guard next != armedFor else { return }
    armedFor = next
    if (try? timerFD.armTimer(at: next)) != nil { expiredUnread = false }
  }
}
