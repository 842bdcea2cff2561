import EventTime
import ResponderCore

/// Where the detector is, as the per-sample work sees it: no shake under way, one under way, or
/// one cancelled and the device still shaken.
enum DetectorPhase { case idle, shaking, waiting }

/// The detector's decisions on the samples and on time, in one value (the class around it keeps
/// the timer and tells the decisions).
struct ShakeMachine {
  /// What a sample, or time passing, decided.
  struct Outcome {
    /// The shake under way ended or was cancelled (before the sample was taken).
    var settled: ShakeEvent?
    /// A burst of motion was turned down.
    var note: ShakeRejectionNote?
    /// A shake began, at this time.
    var began: Seconds?
  }

  /// Samples closer than this to the last one taken are averaged with the ones after them, and
  /// taken together: a sensor faster than about 65 Hz is followed at 50–65 Hz (200 Hz in threes,
  /// 100 Hz in pairs). A shake's swings last 70 ms or more; an average over 15 ms keeps their shape.
  /// Compared with `sampleSpacingTolerance`: a 64 Hz sensor whose timestamps are rounded to the
  /// millisecond comes 15 and 16 ms apart, and the difference of two such timestamps may fall a
  /// hair under 15 ms (averaged in pairs, a third of its samples would irregularly halve its rate,
  /// which lets steps felt at the thigh through as shakes).
  static let sampleSpacing: Seconds = 0.015
  static let sampleSpacingTolerance: Seconds = 1e-6

  var state: ShakeDetector.State = .idle
  /// The last sample that kept a shake under way going (see `ShakeSettings.sustainThreshold`).
  var lastSustained: Seconds = -.infinity
  var core: DetectorCore
  /// What the last sample decided, until it is fetched.
  private var outcome = Outcome()
  /// Samples not taken yet (closer than `sampleSpacing` to the last one taken): their
  /// sum, their number and the last one's time.
  private var pendingSum = Vector3.zero
  private var pendingCount = 0
  private var pendingTime: Seconds = 0

  init(settings: ShakeSettings) { core = DetectorCore(settings: settings) }

  var isShaking: Bool {
    if case .shaking = state { return true }
    return false
  }

  /// The time of the last sample seen (−∞ before the first).
  var latestTime: Seconds {
    if pendingCount > 0 { return pendingTime }
    return core.hasGravity ? core.lastTime : -.infinity
  }

  /// Takes a sample; true when it decided something (`takeOutcome`).
  mutating func process(_ sample: MotionSample) -> Bool {
    guard core.hasGravity else { return take(sample.acceleration, at: sample.t) }
    let t = max(sample.t, latestTime)
    let spaced = t - core.lastTime >= ShakeMachine.sampleSpacing - ShakeMachine.sampleSpacingTolerance
    if spaced, pendingCount == 0 { return take(sample.acceleration, at: t) }
    // (Averaged with the samples before it since the last one taken, or with the next.)
    pendingSum = pendingSum + sample.acceleration
    pendingCount += 1
    pendingTime = t
    return spaced && takePending()
  }

  /// What the last sample decided (and forgets it).
  mutating func takeOutcome() -> Outcome {
    defer { outcome = Outcome() }
    return outcome
  }

  /// Takes the samples still waiting to be averaged with a later one.
  mutating func flush() -> Outcome {
    pendingCount > 0 && takePending() ? takeOutcome() : Outcome()
  }

  /// Takes the mean of the samples waiting, at the last one's time.
  private mutating func takePending() -> Bool {
    let mean = pendingSum * (1 / Double(pendingCount))
    pendingSum = .zero
    pendingCount = 0
    return take(mean, at: pendingTime)
  }

  @inline(__always) private mutating func take(_ a: Vector3, at t: Seconds) -> Bool {
    if state != .idle { outcome = settle(upTo: t) }
    let phase: DetectorPhase
    switch state {
    case .idle: phase = .idle
    case .shaking: phase = .shaking
    case .waitingForQuiet: phase = .waiting
    }
    let step = core.step(a, at: t, phase: phase)
    if step.keptGoing { lastSustained = t }
    guard step.note != nil || step.began != nil || outcome.settled != nil else { return false }
    outcome.note = step.note
    if let since = step.began {
      lastSustained = t
      state = .shaking(since: since)
      outcome.began = t
    }
    return true
  }

  /// Takes every decision due by `time`.
  mutating func settle(upTo time: Seconds) -> Outcome {
    var outcome = Outcome()
    if case .shaking(let since) = state {
      let endAt = lastSustained + core.settings.quietTime
      let cancelAt = since + core.settings.maximumDuration
      if endAt <= cancelAt, endAt <= time {
        finish()
        outcome.settled = ShakeEvent(phase: .ended, time: endAt)
      } else if cancelAt < endAt, cancelAt <= time {
        state = .waitingForQuiet
        outcome.settled = ShakeEvent(phase: .cancelled, time: cancelAt)
      }
    }
    if state == .waitingForQuiet, lastSustained + core.settings.quietTime <= time {
      finish()
    }
    return outcome
  }

  private mutating func finish() {
    state = .idle
    core.clearTracks()
  }

  mutating func reset() {
    state = .idle
    lastSustained = -.infinity
    pendingSum = .zero
    pendingCount = 0
    core.reset()
  }
}
