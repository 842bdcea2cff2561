import EventTime
import Testing

@Suite struct VirtualSchedulerTests {
  @Test func timersFireInDeadlineOrderAtTheirDeadline() {
    let scheduler = VirtualScheduler(now: 10)
    var fired: [(String, Double)] = []
    scheduler.schedule(after: 0.5) { fired.append(("b", scheduler.now)) }
    scheduler.schedule(after: 0.2) { fired.append(("a", scheduler.now)) }
    scheduler.schedule(at: 10.5) { fired.append(("c", scheduler.now)) }
    scheduler.advance(by: 0.3)
    #expect(fired.map(\.0) == ["a"])
    #expect(scheduler.now == 10.3)
    scheduler.advance(to: 11)
    #expect(fired.map(\.0) == ["a", "b", "c"])
    #expect(fired.map(\.1) == [10.2, 10.5, 10.5])
  }

  @Test func cancelledTimersNeverFire() {
    let scheduler = VirtualScheduler()
    var fired = false
    let timer = scheduler.schedule(after: 1) { fired = true }
    timer.cancel()
    #expect(scheduler.pendingCount == 0)
    scheduler.runUntilIdle()
    #expect(!fired)
  }

  @Test func runUntilIdleFollowsTimersScheduledByTimers() {
    let scheduler = VirtualScheduler()
    var times: [Double] = []
    func tick() {
      times.append(scheduler.now)
      if times.count < 3 { scheduler.schedule(after: 1, tick) }
    }
    scheduler.schedule(after: 1, tick)
    #expect(scheduler.runUntilIdle() == 3)
    #expect(times == [1, 2, 3])
  }
}
