/// Seconds, as TimeInterval: timestamps are seconds since boot (CLOCK_MONOTONIC).
public typealias Seconds = Double

/// A timer scheduled on a `Scheduler`; cancel it to keep it from firing.
public final class ScheduledTimer {
  /// When the timer fires, in the scheduler's seconds.
  public let deadline: Seconds
  /// Order of scheduling, so that timers with the same deadline fire in the order they were set.
  public let sequence: UInt64
  let action: () -> Void
  /// Whether the timer was cancelled or fired. (Public properties of this module's classes are
  /// computed over private fields: another module's access to a public stored property is checked
  /// at run time, on every read; one to a private field is proven safe when compiled.)
  public var isCancelled: Bool { isCancelledStorage }
  private var isCancelledStorage = false
  /// Called once when the timer is cancelled (the scheduler uses it to forget the timer).
  var onCancel: ((ScheduledTimer) -> Void)?

  public init(deadline: Seconds, sequence: UInt64, action: @escaping () -> Void) {
    self.deadline = deadline
    self.sequence = sequence
    self.action = action
  }

  /// Keeps the timer from firing. Cancelling twice, or after it fired, does nothing.
  public func cancel() {
    guard !isCancelled else { return }
    isCancelledStorage = true
    onCancel?(self)
    onCancel = nil
  }

  /// Runs the action unless cancelled (schedulers call this when the deadline is reached).
  public func fire() {
    guard !isCancelled else { return }
    isCancelledStorage = true
    onCancel = nil
    action()
  }

  /// Sets the hook called when the timer is cancelled.
  public func setCancelHandler(_ handler: @escaping (ScheduledTimer) -> Void) { onCancel = handler }
}

/// The clock and timers every timer of the project goes through (multi-click windows, long press,
/// shake end, D-Bus deadlines), so that tests run on virtual time.
public protocol Scheduler: AnyObject {
  /// The current time, in seconds on the scheduler's clock (CLOCK_MONOTONIC for the real one).
  var now: Seconds { get }
  /// Runs `action` once at `deadline` (at once, on the next turn, when it has passed).
  @discardableResult
  func schedule(at deadline: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer
}

extension Scheduler {
  /// Runs `action` once, `delay` seconds from now.
  @discardableResult
  public func schedule(after delay: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer {
    schedule(at: now + delay, action)
  }
}

/// A scheduler on virtual time: time only moves when the test (or an offline tool) advances it.
public final class VirtualScheduler: Scheduler {
  /// The current virtual time.
  public var now: Seconds { nowStorage }
  private var nowStorage: Seconds
  /// Waiting timers in firing order (deadline, then sequence); cancelled ones are dropped when
  /// they reach the front, or all at once when they pile up. Changed out of place (taken out with
  /// a swap, changed, swapped back), so that no access to it releases anything within it and none
  /// needs a run-time exclusivity check.
  private var timers: [ScheduledTimer] = []
  private var sequence: UInt64 = 0
  private var compactionThreshold = 64

  public init(now: Seconds = 0) { nowStorage = now }

  @discardableResult
  public func schedule(at deadline: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer {
    sequence += 1
    let timer = ScheduledTimer(deadline: deadline, sequence: sequence, action: action)
    var timers: [ScheduledTimer] = []
    swap(&timers, &self.timers)
    defer { swap(&timers, &self.timers) }
    if timers.count >= compactionThreshold {
      timers.removeAll { $0.isCancelled }
      compactionThreshold = max(64, timers.count * 2)
    }
    // After every timer with the same or an earlier deadline (sequences only grow).
    var low = 0
    var high = timers.count
    while low < high {
      let middle = (low + high) / 2
      if timers[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
    }
    if timers.count - low <= 8 {
      // Appended and moved down past the few later ones, through a span (moves, nothing retained):
      // an insertion takes the general path of replacing a range, which costs more.
      timers.append(timer)
      var span = timers.mutableSpan
      var index = span.count - 1
      while index > low {
        span.swapAt(index - 1, index)
        index -= 1
      }
    } else {
      timers.insert(timer, at: low)
    }
    return timer
  }

  /// The number of timers waiting to fire.
  public var pendingCount: Int { timers.reduce(0) { $0 + ($1.isCancelled ? 0 : 1) } }

  /// The deadline of the next timer, if any.
  public var nextDeadline: Seconds? { timers.first { !$0.isCancelled }?.deadline }

  /// The next timer due by `time`, removed from the list.
  private func takeTimer(dueBy time: Seconds) -> ScheduledTimer? {
    var timers: [ScheduledTimer] = []
    swap(&timers, &self.timers)
    defer { swap(&timers, &self.timers) }
    while let first = timers.first {
      if first.isCancelled {
        timers.removeFirst()
        continue
      }
      guard first.deadline <= time else { return nil }
      timers.removeFirst()
      return first
    }
    return nil
  }

  /// Moves time to `time`, firing every timer due by then in deadline order (each at its deadline).
  public func advance(to time: Seconds) {
    while let timer = takeTimer(dueBy: time) {
      nowStorage = max(now, timer.deadline)
      timer.fire()
    }
    nowStorage = max(now, time)
  }

  /// Moves time forward by `delta` seconds.
  public func advance(by delta: Seconds) { advance(to: now + delta) }

  /// Fires timers until none is left (time jumps to each deadline). Stops after `limit` timers,
  /// which catches a timer that keeps re-arming itself.
  @discardableResult
  public func runUntilIdle(limit: Int = 1_000_000) -> Int {
    var fired = 0
    while fired < limit, let timer = takeTimer(dueBy: .infinity) {
      nowStorage = max(now, timer.deadline)
      timer.fire()
      fired += 1
    }
    return fired
  }
}
