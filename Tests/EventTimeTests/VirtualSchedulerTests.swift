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

  @Test func aTimerGoesAfterThoseWithItsDeadlineAndBeforeLaterOnes() {
    // Before a few later timers (moved down past them) and before many (inserted).
    for later in [1, 3, 20] {
      let scheduler = VirtualScheduler()
      var fired: [String] = []
      for index in 0..<later { scheduler.schedule(at: 5) { fired.append("late\(index)") } }
      scheduler.schedule(at: 2) { fired.append("first") }
      scheduler.schedule(at: 2) { fired.append("second") }
      scheduler.schedule(at: 1) { fired.append("earliest") }
      scheduler.runUntilIdle()
      #expect(fired == ["earliest", "first", "second"] + (0..<later).map { "late\($0)" })
    }
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
