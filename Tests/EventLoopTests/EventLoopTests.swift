import EventLoop
import Glibc
import SystemPackage
import Testing

@Suite(.serialized) struct EventLoopTests {
  @Test func readableDescriptorRunsItsHandler() throws {
    let loop = try EventLoop()
    let pipe = try FileDescriptor.pipe()
    defer {
      try? pipe.readEnd.close()
      try? pipe.writeEnd.close()
    }
    var got: [UInt8] = []
    let source = try loop.register(fd: pipe.readEnd, events: .readable) { events in
      #expect(events.contains(.readable))
      var byte: [UInt8] = [0]
      _ = try? byte.withUnsafeMutableBytes { try pipe.readEnd.read(into: $0) }
      got += byte
    }
    _ = try pipe.writeEnd.writeAll([42])
    #expect(loop.run(until: { got == [42] }, timeout: 5))
    source.remove()
    _ = try pipe.writeEnd.writeAll([42])
    loop.runOnce(timeout: 0)
    #expect(got == [42])
  }

  @Test func hangupIsReportedAsGone() throws {
    let loop = try EventLoop()
    let pipe = try FileDescriptor.pipe()
    defer { try? pipe.readEnd.close() }
    var gone = false
    try loop.register(fd: pipe.readEnd, events: .readable) { events in gone = events.isGone }
    try pipe.writeEnd.close()
    #expect(loop.run(until: { gone }, timeout: 5))
  }

  @Test func timersFireInOrderAndCancelledOnesDoNot() throws {
    let loop = try EventLoop()
    let scheduler = loop.scheduler!
    var fired: [String] = []
    // Deadlines from one reading of the clock: on a loaded machine (the sanitizers, two cores),
    // more than 2 ms can pass between two `schedule(after:)` calls and swap their deadlines.
    let now = scheduler.now
    scheduler.schedule(at: now + 0.004) { fired.append("b") }
    scheduler.schedule(at: now + 0.002) { fired.append("a") }
    let cancelled = scheduler.schedule(at: now + 0.001) { fired.append("never") }
    cancelled.cancel()
    scheduler.schedule(at: now - 1) { fired.append("past") }
    #expect(loop.run(until: { fired.count == 3 }, timeout: 5))
    #expect(fired == ["past", "a", "b"])
    #expect(scheduler.pendingCount == 0)
  }

  @Test func timersFireNoEarlierThanTheirDeadline() throws {
    let loop = try EventLoop()
    let scheduler = loop.scheduler!
    let deadline = scheduler.now + 0.003
    var firedAt: Double?
    scheduler.schedule(at: deadline) { firedAt = scheduler.now }
    #expect(loop.run(until: { firedAt != nil }, timeout: 5))
    #expect(firedAt! >= deadline)
  }

  // A timer ends the loop's wait at its deadline (epoll's timeout): it wakes the loop once, and
  // once the last timer fired the loop has nothing to wake it.
  @Test func aTimerWakesTheLoopOnce() throws {
    let loop = try EventLoop()
    let scheduler = loop.scheduler!
    var fired: [String] = []
    let now = scheduler.now
    scheduler.schedule(at: now + 0.001) { fired.append("first") }
    scheduler.schedule(at: now + 0.030) { fired.append("second") }
    #expect(loop.run(until: { fired == ["first"] }, timeout: 5))
    var wakeups = 0
    loop.addWakeupObserver { if $0 > 0 { wakeups += 1 } }
    #expect(loop.run(until: { fired == ["first", "second"] }, timeout: 5))
    #expect(wakeups == 1)
    #expect(loop.runOnce(timeout: 0) == 0)
    #expect(scheduler.pendingCount == 0)
  }

  // Waiting "forever" ends at the earliest timer, also one a handler set while the loop ran, and
  // a cancelled timer does not end the wait: the loop's timeout follows the timers.
  @Test func theWaitEndsAtTheEarliestTimer() throws {
    let loop = try EventLoop()
    let scheduler = loop.scheduler!
    let pipe = try FileDescriptor.pipe()
    defer {
      try? pipe.readEnd.close()
      try? pipe.writeEnd.close()
    }
    var firedAt: Double?
    var deadline = 0.0
    try loop.register(fd: pipe.readEnd, events: .readable) { _ in
      var byte: [UInt8] = [0]
      _ = try? byte.withUnsafeMutableBytes { try pipe.readEnd.read(into: $0) }
      scheduler.schedule(at: scheduler.now + 10) { Issue.record("a cancelled timer fired") }.cancel()
      deadline = scheduler.now + 0.005
      scheduler.schedule(at: deadline) { firedAt = scheduler.now }
    }
    _ = try pipe.writeEnd.writeAll([1])
    #expect(loop.runOnce(timeout: 0) == 1)
    #expect(scheduler.pendingCount == 1)
    let start = scheduler.now
    // A bounded "forever": without the timer in the timeout, this waits the whole 10 s.
    while firedAt == nil && scheduler.now - start < 10 { loop.runOnce(timeout: 10_000) }
    #expect(try #require(firedAt) >= deadline)
    #expect(scheduler.now - start < 5)
    #expect(scheduler.pendingCount == 0)
  }

  // Idle: with no timer pending, only the loop's own wake-up descriptor is registered (no timer
  // descriptor), and a wait of 0 ms finds nothing.
  @Test func anIdleLoopHasNothingToWakeIt() throws {
    let loop = try EventLoop()
    #expect(loop.registeredCount == 1)
    loop.scheduler.schedule(after: 0) {}
    #expect(loop.runOnce(timeout: 0) == 1)
    #expect(loop.runOnce(timeout: 0) == 0)
    #expect(loop.registeredCount == 1)
  }

  @Test func signalsArriveOnTheLoop() throws {
    let loop = try EventLoop()
    var got: [Int32] = []
    try loop.onSignals([SIGUSR1]) { got.append($0) }
    raise(SIGUSR1)
    #expect(loop.run(until: { got == [SIGUSR1] }, timeout: 5))
  }

  @Test func runSoonRunsBeforeTheLoopSleeps() throws {
    let loop = try EventLoop()
    var ran = false
    loop.runSoon { ran = true }
    loop.runOnce(timeout: 0)
    #expect(ran)
  }

  @Test func stopEndsRun() throws {
    let loop = try EventLoop()
    loop.scheduler.schedule(after: 0) { loop.stop() }
    loop.run()
  }
}
