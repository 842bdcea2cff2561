import EventTime
import Motion
import ResponderCore
import Testing

@Suite("Shake cancel, sensor loss, timers")
struct ShakeLifecycleTests {
  @Test("A 10 s shake begins, then is cancelled at 5 s; no new shake until it stops")
  func longShakeIsCancelled() {
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 10)
    let events = detect(Sampler(rate: 100).samples(of: motion, to: 14))
    #expect(events.map(\.phase) == [.began, .cancelled])
    if events.count == 2 {
      #expect(abs(events[1].time - 6) < 0.1, "cancelled \(events[1].time - 1) s after the start")
    }
  }

  /// docs/design.md: the detector works on time, not sample counts: from 10 Hz to 1 kHz a 10 s
  /// shake is cancelled 5 s after it started, and after a cancel the next shake begins only once
  /// the shaking has stopped.
  @Test(
    "Cancelled at 5 s, and a new shake only after a pause, from 10 Hz to 1 kHz",
    arguments: [10.0, 12.5, 25, 50, 100, 200, 400, 1000])
  func cancelAtEveryRate(rate: Double) {
    let long = Motion.still() + Motion.shake(frequency: 2, amplitude: 2, start: 1, duration: 10)
    let events = detect(Sampler(rate: rate).samples(of: long, to: 14))
    #expect(events.map(\.phase) == [.began, .cancelled], "\(events)")
    if events.count == 2 { #expect(abs(events[1].time - 6) < 0.15, "cancelled at \(events[1].time)") }

    let again =
      Motion.still() + Motion.shake(frequency: 2, amplitude: 2, start: 1, duration: 8)
      + Motion.shake(frequency: 2, amplitude: 2, start: 11, duration: 1.5)
    let twice = detect(Sampler(rate: rate).samples(of: again, to: 15))
    #expect(twice.map(\.phase) == [.began, .cancelled, .began, .ended], "\(twice)")
    if twice.count == 4 { #expect(twice[2].time > 11, "began again at \(twice[2].time)") }
  }

  /// Vigorous swings of unlike lengths (a jab and a slower return, as much impulse each: not a
  /// shake) for 6 s, running on without a break into regular ones: the motion had gone on longer
  /// than a shake may last before it looked like one, so no shake begins (it used to begin, then be
  /// cancelled at a time before it began). Once the motion stops, a shake is found again.
  @Test("Vigorous motion for longer than max-duration is no shake when it turns regular")
  func longVigorousMotionThenRegular() {
    let uneven = Motion.swings(
      at: 1, peaks: [3.2, 1.2], lengths: [0.09, 0.24], axis: Vector3(1, 0, 0), period: 0.33)
    let motion =
      Motion.still() + Motion { t in t < 7 ? uneven.acceleration(t) : .zero }
      + Motion.shake(frequency: 3, amplitude: 1.5, start: 7, duration: 2)
      + Motion.shake(frequency: 3, amplitude: 2, start: 11, duration: 1.5)
    let events = detect(Sampler(rate: 100, seed: 3).samples(of: motion, to: 14))
    #expect(events.map(\.phase) == [.began, .ended], "\(events)")
    if let began = events.first?.time { #expect(began > 11, "began at \(began)") }
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(events)")
  }

  /// A back-and-forth of 2 g at 3 Hz, but every 0.5 s the device is in the air for 0.2 s (all
  /// three axes read nothing), as a phone in a pocket while hopping; then the same shake held in
  /// the hand 2 s after the last flight (still too soon: not every hop's flight is long enough to
  /// tell, so a free fall is remembered for 4 s), and again 5 s after it.
  @Test("Vigorous swings between free falls (running, hopping) are no shake; a held shake 4 s after is")
  func freeFallIsNoShake() {
    let swings = Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 4)
    let bouncing = Motion { t in
      let flying = t >= 1 && t < 5 && (t - 1).truncatingRemainder(dividingBy: 0.5) < 0.2
      return flying ? .zero : Vector3(0, 0, g) + swings.acceleration(t)
    }
    let soon = Motion.shake(frequency: 3, amplitude: 2, start: 6.7, duration: 1.5)
    let later = Motion.shake(frequency: 3, amplitude: 2, start: 9.7, duration: 1.5)
    for rate in [25.0, 50, 100, 200] {
      let events = detect(Sampler(rate: rate, seed: 5).samples(of: bouncing + soon + later, to: 13))
      #expect(events.map(\.phase) == [.began, .ended], "\(rate) Hz: \(events)")
      if let began = events.first?.time {
        #expect(began > 9.7 && began < 10.5, "\(rate) Hz: began at \(began)")
      }
    }
  }

  /// An up-and-down shake of 2 g passes through free fall at each downward peak, for 20–40 ms: it
  /// is still a shake.
  @Test("An up-and-down shake of 2 g at 3–4 Hz is a shake", arguments: [3.0, 4])
  func verticalShake(frequency: Double) {
    let motion =
      Motion.still()
      + Motion.shake(frequency: frequency, amplitude: 2, start: 1, duration: 1.5, axis: Vector3(0, 0, 1))
    for rate in [25.0, 50, 100, 200] {
      let events = detect(Sampler(rate: rate, seed: 6).samples(of: motion, to: 4))
      #expect(events.map(\.phase) == [.began, .ended], "\(rate) Hz: \(events)")
    }
  }

  @Test("After a cancel, a new shake after a pause is detected again")
  func newShakeAfterCancel() {
    let motion =
      Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 8)
      + Motion.shake(frequency: 4, amplitude: 2, start: 11, duration: 1)
    let events = detect(Sampler(rate: 50).samples(of: motion, to: 15))
    #expect(events.map(\.phase) == [.began, .cancelled, .began, .ended])
    if events.count == 4 { #expect(events[2].time > 11 && events[2].time < 11.6) }
  }

  @Test("max-duration is a setting")
  func maximumDurationSetting() {
    var settings = ShakeSettings()
    settings.maximumDuration = 2
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 3)
    let events = detect(Sampler(rate: 50).samples(of: motion, to: 6), settings: settings)
    #expect(events.map(\.phase) == [.began, .cancelled])
    if events.count == 2 { #expect(abs(events[1].time - 3) < 0.1) }
  }

  @Test("The threshold is a setting")
  func thresholdSetting() {
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 1.5, start: 1, duration: 2)
    let samples = Sampler(rate: 50).samples(of: motion, to: 5)
    var strict = ShakeSettings()
    strict.threshold = 2
    #expect(detect(samples, settings: strict).isEmpty)
    #expect(detect(samples).map(\.phase) == [.began, .ended])
  }

  @Test("Sensor lost mid-shake: cancelled at that moment")
  func sensorLostMidShake() {
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 3)
    let events = detect(Sampler(rate: 100).samples(of: motion, to: 6), sensorLostAt: 2.5)
    #expect(
      events == [
        ShakeEvent(phase: .began, time: events.first?.time ?? 0), ShakeEvent(phase: .cancelled, time: 2.5),
      ])
  }

  @Test("Sensor lost while still or before a shake began: nothing")
  func sensorLostWhileIdle() {
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 3)
    let samples = Sampler(rate: 100).samples(of: motion, to: 6)
    #expect(detect(samples, sensorLostAt: 0.8).isEmpty)
    #expect(detect(samples, sensorLostAt: 1.2).isEmpty)
  }

  @Test("Samples stop while shaking: the end is decided by a timer")
  func endWithoutSamples() {
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 5)
    let samples = Sampler(rate: 100).samples(of: motion, to: 2)  // the sensor goes silent at 2 s
    let scheduler = VirtualScheduler()
    var events: [ShakeEvent] = []
    let detector = ShakeDetector(scheduler: scheduler, lateSampleAllowance: 0.2) { events.append($0) }
    for sample in samples {
      scheduler.advance(to: sample.t)
      detector.process(sample)
    }
    #expect(events.map(\.phase) == [.began])
    #expect(scheduler.pendingCount == 1)
    scheduler.advance(to: 2.3)
    #expect(events.map(\.phase) == [.began], "no decision before the late-sample allowance")
    scheduler.advance(to: 3)
    #expect(events.map(\.phase) == [.began, .ended])
    // The end is dated when the shaking stopped plus quiet-time, not when the timer fired.
    if events.count == 2 { #expect(events[1].time > 2.3 && events[1].time <= 2.4) }
    #expect(scheduler.pendingCount == 0)
  }

  /// A sensor at 64 Hz with timestamps in milliseconds (15 and 16 ms apart), five minutes into a
  /// recording, where the difference of two timestamps 15 ms apart comes out a hair under 15 ms:
  /// every sample is taken when it comes, none waits to be averaged with the next (which would
  /// halve the rate at times).
  @Test("Samples 15 ms apart, timestamps rounded to the millisecond, are each taken at once")
  func millisecondTimestamps() {
    let detector = ShakeDetector(scheduler: VirtualScheduler()) { _ in }
    for index in 0..<12 {
      let milliseconds = 300_000 + (Double(index) * 15.625).rounded()
      // (Gravity along z, and a push along x that grows with each sample.)
      let push = Double(index)
      detector.process(MotionSample(t: milliseconds / 1000, x: push, y: 0, z: standardGravity))
      if index > 0 {
        #expect(
          detector.dynamic.x > 0.5 * push, "the sample at \(milliseconds) ms waits: \(detector.dynamic)")
      }
    }
  }

  @Test("Idle means idle: no timer while nothing happens")
  func noTimersWhenStill() {
    let scheduler = VirtualScheduler()
    let detector = ShakeDetector(scheduler: scheduler) { _ in Issue.record("unexpected event") }
    for sample in Sampler(rate: 100).samples(of: .still() + .walking(), to: 10) {
      scheduler.advance(to: sample.t)
      detector.process(sample)
      #expect(scheduler.pendingCount == 0)
    }
  }

  @Test("A late sample is taken into account before the timer decides")
  func lateSamplesCount() {
    // Samples arrive in blocks of 0.25 s (buffered capture): the detector must not end the shake
    // while the next block is on its way.
    let motion = Motion.still() + Motion.shake(frequency: 3, amplitude: 2, start: 1, duration: 3)
    let samples = Sampler(rate: 100).samples(of: motion, to: 6)
    let scheduler = VirtualScheduler()
    var events: [ShakeEvent] = []
    let detector = ShakeDetector(scheduler: scheduler, lateSampleAllowance: 0.3) { events.append($0) }
    var blockEnd = 0.25
    var index = 0
    while index < samples.count {
      scheduler.advance(to: blockEnd)
      while index < samples.count, samples[index].t <= blockEnd {
        detector.process(samples[index])
        index += 1
      }
      blockEnd += 0.25
    }
    scheduler.runUntilIdle()
    #expect(events.map(\.phase) == [.began, .ended])
  }
}

@Suite("Settings")
struct ShakeSettingsTests {
  @Test func defaultsAreUsable() { #expect(ShakeSettings().problems.isEmpty) }

  @Test func problemsAreReported() {
    var settings = ShakeSettings()
    settings.threshold = 0.3
    settings.quietTime = -1
    settings.maximumDuration = 0.2
    let problems = settings.problems
    #expect(problems.contains("quiet-time must be a positive number"))
    #expect(problems.contains("activity-threshold must not be above threshold"))
    #expect(problems.contains("max-duration must be longer than min-duration"))
  }
}
