import ResponderCore
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

@Suite struct EventSubtypeTests {
  @Test func rawValuesAreUIKits() {
    #expect(EventSubtype.none.rawValue == 0)
    #expect(EventSubtype.motionShake.rawValue == 1)
    #expect(EventSubtype.remoteControlPlay.rawValue == 100)
    #expect(EventSubtype.remoteControlTogglePlayPause.rawValue == 103)
    #expect(EventSubtype.remoteControlEndSeekingForward.rawValue == 109)
    #expect(EventType.touches.rawValue == 0 && EventType.presses.rawValue == 3)
  }

  @Test func namesParseInEveryForm() {
    #expect(EventSubtype(name: "nextTrack") == .remoteControlNextTrack)
    #expect(EventSubtype(name: "remoteControlNextTrack") == .remoteControlNextTrack)
    #expect(EventSubtype(name: "next-track") == .remoteControlNextTrack)
    #expect(EventSubtype(name: "toggle-play-pause") == .remoteControlTogglePlayPause)
    #expect(EventSubtype(name: "motionShake") == .motionShake)
    #expect(EventSubtype(name: "shake") == nil)
    #expect(EventType(name: "remote-control") == .remoteControl)
    for subtype in EventSubtype.allCases { #expect(EventSubtype(name: subtype.name) == subtype) }
  }
}

@Suite struct EvemuRecordingTests {
  @Test func readsHeaderAndEvents() throws {
    let text = """
      # EVEMU 1.3
      N: Intel HDA Headset Jack
      I: 0000 0000 0000 0000
      P: 00 00 00 00 00 00 00 00
      B: 00 0b 00 00 00 00 00 00 00
      A: 35 0 4095 0 0 0
      E: 0.000000 0001 00e2 0001
      E: 0.000000 0000 0000 0000
      E: 1.050000 0001 00e2 0000
      """
    let recording = try EvemuRecording(text: text)
    #expect(recording.identity.name == "Intel HDA Headset Jack")
    #expect(recording.events.count == 3)
    #expect(recording.events[2] == RawInputEvent(time: 1.05, type: 1, code: 0xe2, value: 0))
    #expect(recording.absoluteAxes[0x35]?.maximum == 4095)
  }

  @Test func badLinesNameTheirLine() {
    #expect(
      throws: EvemuRecording.ParseError(line: 2, message: "E: bad type, code or value in '0.1 zz 00 1'")
    ) {
      try EvemuRecording(text: "N: x\nE: 0.1 zz 00 1\n")
    }
    #expect(throws: EvemuRecording.ParseError.self) { try EvemuRecording(text: "E: 2.0 1 2 1\nE: 1.0 1 2 0") }
  }

  @Test func microsecondsAreAnIntegerCountAsEvemuWritesThem() throws {
    let recording = try EvemuRecording(text: "E: 2.050000 0001 00e2 1\nE: 3.5 0001 00e2 0\n")
    #expect(recording.events.map(\.time) == [2.05, 3.000005])
  }
}
