import EventLoop
import Glibc
import Testing

@Suite(.serialized) struct EventLoopTests {
  @Test func readableDescriptorRunsItsHandler() throws {
    let loop = try EventLoop()
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    var got: [UInt8] = []
    let source = try loop.register(fd: fds[0], events: .readable) { events in
      #expect(events.contains(.readable))
      var byte: UInt8 = 0
      _ = read(fds[0], &byte, 1)
      got.append(byte)
    }
    var byte: UInt8 = 42
    _ = write(fds[1], &byte, 1)
    #expect(loop.run(until: { got == [42] }, timeout: 5))
    source.remove()
    _ = write(fds[1], &byte, 1)
    loop.runOnce(timeout: 0)
    #expect(got == [42])
  }

  @Test func hangupIsReportedAsGone() throws {
    let loop = try EventLoop()
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]) }
    var gone = false
    try loop.register(fd: fds[0], events: .readable) { events in gone = events.isGone }
    close(fds[1])
    #expect(loop.run(until: { gone }, timeout: 5))
  }

  @Test func timersFireInOrderAndCancelledOnesDoNot() throws {
    let loop = try EventLoop()
    let scheduler = loop.scheduler!
    var fired: [String] = []
    scheduler.schedule(after: 0.004) { fired.append("b") }
    scheduler.schedule(after: 0.002) { fired.append("a") }
    let cancelled = scheduler.schedule(after: 0.001) { fired.append("never") }
    cancelled.cancel()
    scheduler.schedule(at: scheduler.now - 1) { fired.append("past") }
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
