import EventTime
import ResponderCore

/// A decision of the shake detector: `motionBegan`, `motionEnded` or `motionCancelled` for
/// `.motionShake`, at `time` (seconds on the samples' clock).
public struct ShakeEvent: Equatable, Sendable, CustomStringConvertible {
  public var phase: MotionPhase
  public var time: Seconds

  public init(phase: MotionPhase, time: Seconds) {
    self.phase = phase
    self.time = time
  }

  public var description: String { "\(phase) at \(time)" }
}

/// Why a burst of vigorous motion was not taken for a shake (for tools that show the detector's
/// reasoning; the daemon does not ask).
public enum ShakeRejection: String, Equatable, Sendable, CaseIterable {
  /// Short jolts with little in between (steps, heel strikes, bumps): the acceleration was high for
  /// too small a part of the swings (a low duty cycle).
  case impulses
  /// The swings did not go along one direction: at a swing's peak, too little of the motion lay
  /// along the shake's direction.
  case axis
  /// The swings were not alike in length: jolts at odd moments, or a step felt at the thigh (a slow
  /// turn through gravity, then a heel strike and its rebound), not a rhythm.
  case rhythm
  /// A swing took too long to turn back: slower than any shake (a sway, a turn, a stride).
  case slow
  /// A pause in the middle: the motion stopped for longer than a shake's turn-around.
  case pause
  /// Back-and-forth, but it stopped before `minimumDuration`.
  case brief
  /// Vigorous motion had gone on, unbroken, for longer than a shake may last (`maximumDuration`)
  /// before it looked like one: steady motion, such as a thigh's while walking, not a shake
  /// beginning.
  case long
  /// The device fell freely a moment before (the acceleration, gravity included, near nothing for
  /// a while), or the motion was a body's bounce (mostly along gravity, never pulled down much
  /// harder than gravity, the jolts up sharper than the dips): the flights and landings of running
  /// steps or hops, or a fall, not a hand's shake (a hand holds the device up all along, and pulls
  /// it down as hard as it pushes it up).
  case bounce
  /// Fewer than four swings in a row reached `threshold`: a single stroke (a push, a brake and a
  /// rebound, three at most) or a step (a heel strike and its rebound), not a shake.
  case weak
}

/// A stretch of vigorous motion the detector turned down, and why.
public struct ShakeRejectionNote: Equatable, Sendable {
  public var reason: ShakeRejection
  /// When the stretch began and when it was turned down (seconds on the samples' clock).
  public var start: Seconds
  public var time: Seconds
}

/// Recognizes shakes in a stream of accelerometer samples.
///
/// Gravity is removed as a vector: a low-pass estimate of it is subtracted from each sample, and
/// the rest (the dynamic acceleration) is followed along four directions: the device's three axes
/// and the direction it moves most along lately (the principal axis of the recent dynamic
/// acceleration). Along each, the motion is cut into swings, a swing lasting while the
/// acceleration keeps one sign. A shake is the hand going there and back at least twice: at least
/// four swings in a row (`shakeSwings`) along one direction, each reaching `threshold` with its
/// peak along that direction (`axisConsistency`), each turning back within `maximumSwing` and no
/// sooner than `minimumSwing` (faster reversals are ringing), with no pause longer than
/// `maximumGap`, alike in length (`maximumRhythmRatio`), and the acceleration at or above
/// `sustainThreshold` for at least `minimumDuty` of the time (a hand's shake is a sustained
/// oscillation; steps and bumps are short impulses with little in between). A single stroke is a
/// push, a brake and at most a rebound: three swings, never four; a step in a pocket is a heel
/// strike and its rebound. It begins once such swings have been under way for `minimumDuration`,
/// ends once for `quietTime` no sample kept it going (one reaching `sustainThreshold` along a
/// direction whose swings still turn back and are strong, `minimumSwingDuty`), and is cancelled
/// when it goes on longer than `maximumDuration` (from its first swing to reach `threshold`) or the
/// sensor goes away. After a cancel no new shake begins until the shaking has stopped; vigorous
/// motion that went on, unbroken, for longer than `maximumDuration` before it looked like a shake
/// (a thigh's swings while walking) is none.
///
/// Everything is decided on the samples' timestamps, never on sample counts (durations are
/// measured with each sample standing for the time half-way to its neighbours). Decisions that
/// fall due while no sample arrives (the shake ended and the device is still, or the samples
/// stopped) are taken by a timer on the scheduler, `lateSampleAllowance` after they fell due, so
/// that samples still on their way (buffered capture) are taken into account first.
///
/// Not thread-safe: use it from the event loop's thread.
public final class ShakeDetector {
  /// Where the detector is.
  public enum State: Equatable, Sendable {
    /// No shake under way (one may be building up).
    case idle
    /// A shake began; `since` is when the shaking started.
    case shaking(since: Seconds)
    /// A shake was cancelled and the device is still being shaken.
    case waitingForQuiet
  }

  public let settings: ShakeSettings
  /// A shake is at least this many swings (half-cycles) in a row that reach `threshold`: there and
  /// back twice. A single stroke is three at most (the push, the brake and a rebound).
  static let shakeSwings = 4
  /// A shake has a rhythm: among its swings, the longest lasts at most this many times the
  /// shortest. Jolts while a device is handled come at odd moments, and a step felt at the thigh
  /// is a slow turn through gravity, then a heel strike and its rebound: swings of unlike lengths.
  static let maximumRhythmRatio = 1.8
  /// A violent shake, every swing at least `violentShakeFactor` times `threshold`, may keep a
  /// looser rhythm (a hand shaking hard flails): its longest swing up to `violentRhythmRatio`
  /// times the shortest. A step's slow turn through gravity never reaches twice the threshold.
  static let violentShakeFactor = 2.0
  static let violentRhythmRatio = 3.0
  /// Free fall: the acceleration, gravity included, under `freeFallLevel` g for at least
  /// `freeFallMinimum`. A shake does not begin within `freeFallMemory` after one: running, hopping
  /// and falling throw the device into the air (a flight of 0.05–0.3 s at each step or hop, though
  /// not at every one), a hand shaking it never lets go of it (an up-and-down shake of 2 g passes
  /// through free fall in 20–40 ms).
  static let freeFallLevel = 0.3
  static let freeFallMinimum: Seconds = 0.08
  /// (At low rates a single sample in free fall stands for no more than this: the interval at
  /// 25 Hz, so that one sample alone is never a flight, and two in a row at 25 Hz or below are.)
  static let freeFallStep: Seconds = 0.04
  static let freeFallMemory: Seconds = 4
  /// A body's bounce (hops, running steps, steps down stairs; see `Core.hopping` and
  /// `ShakeRules`): no shake begins within `hopMemory` of such motion. The extremes of the
  /// acceleration along gravity are kept per `verticalQuarter` of a second.
  static let hopMemory: Seconds = 2
  static let verticalQuarter: Seconds = 0.25
  /// A shake from rest begins sooner. A chain of swings that begins after the whole device was at
  /// rest for `restBeforeShake` starts with a push: the hand's first swing, from rest, is weaker and
  /// shorter (or, winding up, longer) than the rest, so it needs only `relaxedSwingFactor` times
  /// `threshold`, its strength is not counted in the duty, and its length not in the rhythm;
  /// unless a swing of the four peaked in a drop toward free fall (the acceleration, gravity
  /// included, under `fallingLevel`): a hop's launch and flight, not a hand's push and brake.
  /// And the newest swing of four counts from `relaxedSwingFactor` times `threshold` (a shake
  /// begins within it, not at its peak), unless it goes along gravity (`uprightShare` of its
  /// dynamic acceleration's square at its peak: a landing or a flight); then `threshold` itself.
  /// Neither holds for motion that is no hand's: when the three finished swings all went along
  /// gravity (a body's bounce, steps or hops, up and down), or when one of the four rattled. A
  /// hand's swing is one smooth stroke; a jolt (a sensor knocked, grabbed or dropped into place)
  /// rings: within one swing the value flies back past `threshold` the other way sooner than any
  /// hand turns (`min-swing`), a reversal the swings leave out as ringing.
  static let restBeforeShake: Seconds = 0.5
  static let relaxedSwingFactor = 0.75
  static let fallingLevel = 0.5
  static let uprightShare = 0.8
  /// The principal axis takes a step of power iteration at most this often.
  static let axisStep: Seconds = 0.02
  /// Samples closer than this to the last one taken are averaged with the ones after them, and
  /// taken together: a sensor faster than about 65 Hz is followed at 50–65 Hz (200 Hz in threes,
  /// 100 Hz in pairs). A shake's swings last 70 ms or more; an average over 15 ms keeps their shape.
  /// Compared with `sampleSpacingTolerance`: a 64 Hz sensor whose timestamps are rounded to the
  /// millisecond comes 15 and 16 ms apart, and the difference of two such timestamps may fall a
  /// hair under 15 ms; without it, a third of its samples were averaged in pairs (irregularly
  /// halving its rate, which let steps felt at the thigh through as shakes).
  static let sampleSpacing: Seconds = 0.015
  static let sampleSpacingTolerance: Seconds = 1e-6
  /// How long after a decision falls due the timer takes it when no sample arrives: the latest a
  /// sample may arrive after its timestamp (the buffer's latency for buffered capture).
  public var lateSampleAllowance: Seconds
  /// Told about each stretch of vigorous motion that was turned down (nil: nobody asks; the
  /// daemon leaves it so).
  public var onRejection: ((ShakeRejectionNote) -> Void)?
  private let scheduler: any Scheduler
  private let onEvent: (ShakeEvent) -> Void

  /// Where the detector is.
  public var state: State { machine.state }
  /// The current estimate of gravity, in m/s² (valid once a sample was processed).
  public var gravity: Vector3 { machine.core.gravity }
  /// The dynamic acceleration of the last sample (gravity removed), in m/s².
  public var dynamic: Vector3 { machine.core.dynamic }

  /// Everything followed sample by sample, in one value: a sample is one access to it, which the
  /// compiler proves never overlaps another (no run-time check; see `PlainMath`).
  private var machine: Machine

  private var timer: ScheduledTimer?
  private var timerTarget: Seconds = 0

  /// - Parameters:
  ///   - scheduler: the clock and timers (the event loop's, or virtual time).
  ///   - onEvent: called with each decision, in order.
  public init(
    settings: ShakeSettings = ShakeSettings(), scheduler: any Scheduler,
    lateSampleAllowance: Seconds = 0.1, onEvent: @escaping (ShakeEvent) -> Void
  ) {
    self.settings = settings
    self.scheduler = scheduler
    self.lateSampleAllowance = lateSampleAllowance
    self.onEvent = onEvent
    machine = Machine(core: Core(settings: settings))
  }

  /// Whether a shake is under way (began, and neither ended nor cancelled).
  public var isShaking: Bool { machine.isShaking }

  /// Feeds one sample. Samples must come in time order; one that goes back in time (timestamp
  /// jitter) is taken as happening at the previous sample's time.
  public func process(_ sample: MotionSample) {
    // (Most samples decide nothing: what one decided is fetched only when there is something.)
    if machine.process(sample) { report(machine.takeOutcome()) }
  }

  /// The sensor went away, or sampling stopped, at `time` (now by default): decisions already due
  /// are taken, a shake under way is cancelled, and the detector starts afresh (gravity included).
  public func sensorLost(at time: Seconds? = nil) {
    report(machine.flush())
    let when = max(time ?? scheduler.now, machine.latestTime)
    report(machine.settle(upTo: when))
    if isShaking { onEvent(ShakeEvent(phase: .cancelled, time: when)) }
    reset()
  }

  /// Forgets everything without reporting anything (a new sensor, new settings).
  public func reset() {
    timer?.cancel()
    timer = nil
    machine.reset()
  }

  /// Tells what a sample or a settling decided, in order, and keeps the timer in step.
  private func report(_ outcome: Machine.Outcome) {
    if let event = outcome.settled {
      if !machine.isShaking {
        timer?.cancel()
        timer = nil
      }
      onEvent(event)
    }
    if let note = outcome.note { onRejection?(note) }
    if let began = outcome.began {
      onEvent(ShakeEvent(phase: .began, time: began))
      armTimer()
    }
  }

  private func armTimer() {
    guard case .shaking(let since) = machine.state else { return }
    let due = min(machine.lastSustained + settings.quietTime, since + settings.maximumDuration)
    timerTarget = due
    timer = scheduler.schedule(at: due + lateSampleAllowance) { [weak self] in
      guard let self else { return }
      self.timer = nil
      self.report(
        self.machine.settle(upTo: max(self.scheduler.now - self.lateSampleAllowance, self.timerTarget)))
      if self.isShaking { self.armTimer() }
    }
  }
}

/// Where the detector is, as the per-sample work sees it: no shake under way, one under way, or
/// one cancelled and the device still shaken.
enum DetectorPhase { case idle, shaking, waiting }

/// The detector's decisions on the samples and on time, in one value (the class around it keeps
/// the timer and tells the decisions).
private struct Machine {
  /// What a sample, or time passing, decided.
  struct Outcome {
    /// The shake under way ended or was cancelled (before the sample was taken).
    var settled: ShakeEvent?
    /// A burst of motion was turned down.
    var note: ShakeRejectionNote?
    /// A shake began, at this time.
    var began: Seconds?
  }

  var state: ShakeDetector.State = .idle
  /// The last sample that kept a shake under way going (see `ShakeSettings.sustainThreshold`).
  var lastSustained: Seconds = -.infinity
  var core: Core
  /// What the last sample decided, until it is fetched.
  private var outcome = Outcome()
  /// Samples not taken yet (closer than `ShakeDetector.sampleSpacing` to the last one taken): their
  /// sum, their number and the last one's time.
  private var pendingSum = Vector3.zero
  private var pendingCount = 0
  private var pendingTime: Seconds = 0

  init(core: Core) { self.core = core }

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
    let spaced = t - core.lastTime >= ShakeDetector.sampleSpacing - ShakeDetector.sampleSpacingTolerance
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

  private mutating func take(_ a: Vector3, at t: Seconds) -> Bool {
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

/// The per-sample part of the detector: the gravity estimate, the principal axis and the swings
/// along the four directions. Constant work per sample, no allocation (the tracks are kept inline).
private struct Core {

  /// What one sample did: a shake began (the time it started), the sample kept a shake under way
  /// going, a burst of motion was turned down.
  struct Step {
    var began: Seconds?
    var keptGoing = false
    var note: ShakeRejectionNote?
  }

  let settings: ShakeSettings
  let limits: SwingLimits
  /// 1 / `settings.gravityTimeConstant`, 1 / `ShakeRules.steadyGravityTime`.
  private let gravityRate: Double
  private let steadyGravityRate: Double
  /// (`ShakeDetector.freeFallLevel` in m/s²)².
  private let freeFallSquared: Double
  /// (`ShakeDetector.fallingLevel` in m/s²)².
  private let fallingSquared: Double
  /// How long the free fall under way has lasted (each of its samples standing for the interval
  /// before it, at most `freeFallStep`), and when the last one long enough was.
  private var freeFallTime: Seconds = 0
  private var lastFreeFall: Seconds = -.infinity
  /// The acceleration along gravity (a·g, gravity included): its least and greatest values in each
  /// quarter of the last second, a ring (`quarter` the one under way, ending at `quarterEnd`).
  private var verticalLows = InlineArray<4, Double>(repeating: 0)
  private var verticalHighs = InlineArray<4, Double>(repeating: 0)
  private var quarter = 0
  private var quarterEnd: Seconds = -.infinity
  private var lastHop: Seconds = -.infinity
  /// The last sample whose acceleration, gravity included, was under `ShakeDetector.fallingLevel`.
  private var lastFalling: Seconds = -.infinity
  /// The last sample at which anything moved (not the quiet path of `step`).
  private var lastBusy: Seconds = -.infinity
  /// The last interval between samples, and the gravity filter's weight for it.
  private var lastInterval: Seconds = 0
  private var lastWeight = 0.0
  /// When the principal axis is next brought up to date.
  private var nextAxisStep: Seconds = -.infinity
  var gravity: Vector3 = .zero
  /// Gravity estimated over `ShakeRules.steadyGravityTime` (a big slow shake tilts the detector's
  /// own estimate far enough to look upright), and the weight of the last interval for it.
  private var steadyGravity: Vector3 = .zero
  private var steadyWeight = 0.0
  var dynamic: Vector3 = .zero
  var hasGravity = false
  var lastTime: Seconds = 0
  /// The recent dynamic acceleration's second moments (a low-pass of d·dᵀ, m²/s⁴), and its
  /// principal axis: the direction the device moves most along lately.
  private var moments = Moments()
  /// A vector along it, of whatever length (kept between 1e-40 and 1e40): the power iteration
  /// runs on it unnormalized, so that no square root and division lie on the chain from one
  /// sample to the next; the axis itself is this vector divided by its length.
  private var principalVector = Vector3(1, 0, 0)
  /// The principal axis itself (a unit vector), and whether `principalVector` moved since.
  private var principalAxis = Vector3(1, 0, 0)
  private var axisStale = false
  /// The dynamic acceleration of the last sample when it was quiet for certain (see `step`): its
  /// value along the principal axis is still to be worked out.
  private var quietDynamic: Vector3?
  /// Under the activity level's square by a margin (1 %) far wider than the axis's error in length
  /// and the rounding: a dynamic acceleration whose square is under it reaches the activity level
  /// along no direction.
  private let quietSquared: Double
  /// Swings along the principal axis and the device's x, y and z axes.
  private var principalTrack = SwingTrack()
  private var xTrack = SwingTrack()
  private var yTrack = SwingTrack()
  private var zTrack = SwingTrack()

  init(settings: ShakeSettings) {
    self.settings = settings
    limits = SwingLimits(settings)
    quietSquared = 0.99 * limits.active * limits.active
    gravityRate = 1 / settings.gravityTimeConstant
    steadyGravityRate = 1 / settings.rules.steadyGravityTime
    fallingSquared =
      (ShakeDetector.fallingLevel * standardGravity) * (ShakeDetector.fallingLevel * standardGravity)
    freeFallSquared =
      (ShakeDetector.freeFallLevel * standardGravity) * (ShakeDetector.freeFallLevel * standardGravity)
  }

  mutating func step(_ a: Vector3, at t: Seconds, phase: DetectorPhase) -> Step {
    // The dynamic part is measured against the gravity estimated before this sample, which is
    // then updated with it: at low rates the sample would otherwise weigh on its own gravity.
    if !hasGravity {
      gravity = a
      steadyGravity = a
      hasGravity = true
      lastTime = t
    }
    let a2 = a.dot(a)
    let falling = a2 < fallingSquared
    if falling { lastFalling = t }
    if a2 < freeFallSquared {
      freeFallTime += min(t - lastTime, ShakeDetector.freeFallStep)
      if freeFallTime >= ShakeDetector.freeFallMinimum { lastFreeFall = t }
    } else {
      freeFallTime = 0
    }
    let vertical = a.dot(gravity)
    if t >= quarterEnd {
      quarter = (quarter &+ 1) & 3
      verticalLows[quarter] = vertical
      verticalHighs[quarter] = vertical
      quarterEnd =
        quarterEnd + ShakeDetector.verticalQuarter > t
        ? quarterEnd + ShakeDetector.verticalQuarter : t + ShakeDetector.verticalQuarter
    } else {
      verticalLows[quarter] = min(verticalLows[quarter], vertical)
      verticalHighs[quarter] = max(verticalHighs[quarter], vertical)
    }
    let d = a - gravity
    let m2 = d.dot(d)
    let sampleGravity = gravity
    dynamic = d
    // Quiet for certain: no swing under way, and the dynamic acceleration too weak to reach the
    // activity level along any direction. Such a sample's value along the principal axis is worked
    // out only when a later sample needs it, with the axis of its own time (before this sample
    // moves it).
    let surelyQuiet =
      principalTrack.isEmpty && xTrack.isEmpty && yTrack.isEmpty && zTrack.isEmpty && m2 < quietSquared
    if !surelyQuiet, let pending = quietDynamic {
      principalTrack.lastValue = pending.dot(axis())
      quietDynamic = nil
    }
    let dt = t - lastTime
    if dt > 0 {
      // (Samples mostly come at a steady rate: the weight of the last interval is kept while the
      // interval stays within a thousandth of it, timestamps' jitter; the weight, and the filter's
      // time constant, are then off by a thousandth at most.)
      if abs(dt - lastInterval) > 1e-3 * dt {
        lastInterval = dt
        lastWeight = PlainMath.lowPassWeight(dt * gravityRate)
        steadyWeight = PlainMath.lowPassWeight(dt * steadyGravityRate)
      }
      let weight = lastWeight
      gravity = gravity + d * weight
      steadyGravity = steadyGravity + (a - steadyGravity) * steadyWeight
      updatePrincipalAxis(d, weight: weight, at: t)
    }
    // (A local copy: the directions read it in place, not a copy each from the state they change.)
    let limits = self.limits
    var result = Step()
    if surelyQuiet {
      quietDynamic = d
      xTrack.lastValue = d.x
      yTrack.lastValue = d.y
      zTrack.lastValue = d.z
      if phase == .waiting, m2 >= limits.sustainSquared { result.keptGoing = true }
      lastTime = t
      return result
    }
    let along = d.dot(axis())
    let bouncing = t - lastFreeFall <= ShakeDetector.freeFallMemory
    if principalTrack.isEmpty, xTrack.isEmpty, yTrack.isEmpty, zTrack.isEmpty,
      max(abs(along), abs(d.x), abs(d.y), abs(d.z)) < limits.active
    {
      // Quiet, and no swing under way: nothing to follow but the values.
      principalTrack.lastValue = along
      xTrack.lastValue = d.x
      yTrack.lastValue = d.y
      zTrack.lastValue = d.z
      if phase == .waiting, m2 >= limits.sustainSquared { result.keptGoing = true }
      lastTime = t
      return result
    }
    // (Whether the dynamic acceleration lies along gravity, the estimate it was measured against.)
    let alongGravity = d.dot(sampleGravity)
    let upright =
      alongGravity * alongGravity >= ShakeDetector.uprightShare * m2 * sampleGravity.dot(sampleGravity)
    let facts = SampleFacts(
      t: t, dt: dt, magnitudeSquared: m2, lastBusy: lastBusy, falling: falling, upright: upright)
    // A direction with no swing under way and a value under the activity level has nothing to do
    // but keep the value. (Notes come from the principal axis alone: one per stretch of motion.)
    if !principalTrack.isEmpty || abs(along) >= limits.active {
      result.note = principalTrack.follow(
        along, facts, phase: phase, bouncing: bouncing, limits: limits, began: &result.began,
        keptGoing: &result.keptGoing)
    } else {
      principalTrack.lastValue = along
    }
    if !xTrack.isEmpty || abs(d.x) >= limits.active {
      _ = xTrack.follow(
        d.x, facts, phase: phase, bouncing: bouncing, limits: limits, began: &result.began,
        keptGoing: &result.keptGoing)
    } else {
      xTrack.lastValue = d.x
    }
    if !yTrack.isEmpty || abs(d.y) >= limits.active {
      _ = yTrack.follow(
        d.y, facts, phase: phase, bouncing: bouncing, limits: limits, began: &result.began,
        keptGoing: &result.keptGoing)
    } else {
      yTrack.lastValue = d.y
    }
    if !zTrack.isEmpty || abs(d.z) >= limits.active {
      _ = zTrack.follow(
        d.z, facts, phase: phase, bouncing: bouncing, limits: limits, began: &result.began,
        keptGoing: &result.keptGoing)
    } else {
      zTrack.lastValue = d.z
    }
    if phase == .waiting, m2 >= limits.sustainSquared { result.keptGoing = true }
    if result.began != nil, hopping(at: t) {
      result.began = nil
      eachTrack { $0.vetoBegin(.bounce, at: t, limits: limits) }
    }
    if result.began != nil {
      // What is under way now is the shake: none of it is reported as turned down.
      eachTrack { $0.reportable = false }
    }
    lastBusy = t
    lastTime = t
    return result
  }

  /// Whether the recent motion is a body's bounce (hops, running steps): it goes mostly along
  /// gravity, the device is never pulled down much harder than gravity would (the least
  /// acceleration along gravity, gravity included, above `ShakeDetector.bounceFloor`), and it is
  /// lopsided: the jolts up (landings) reach further above gravity than the dips below it.
  mutating func hopping(at t: Seconds) -> Bool {
    if bounceLike(at: t) {
      lastHop = t
      return true
    }
    return t - lastHop <= ShakeDetector.hopMemory
  }

  /// (`mutating` only to read the extremes in place: see `SwingTrack.judgement`.)
  private mutating func bounceLike(at t: Seconds) -> Bool {
    let g2 = gravity.dot(gravity)
    let trace = moments.xx + moments.yy + moments.zz
    guard g2 > 0, trace > 0 else { return false }
    let alongGravity = moments.quadratic(gravity)
    let rules = settings.rules
    let steady2 = steadyGravity.dot(steadyGravity)
    let steadyUpright = moments.quadratic(steadyGravity) >= rules.steadyBounceShare * steady2 * trace
    if !steadyUpright, alongGravity < rules.bounceVerticalShare * g2 * trace { return false }
    var low = verticalLows[0]
    var high = verticalHighs[0]
    for index in 1..<4 {
      low = min(low, verticalLows[index])
      high = max(high, verticalHighs[index])
    }
    let inverseLength = PlainMath.inverseSquareRoot(g2)
    let length = g2 * inverseLength
    low *= inverseLength
    high *= inverseLength
    // A steady bounce: steps or hops that drop the device toward free fall but never pull it down
    // much past it, whatever the jolts up (running down stairs at the waist: landings no sharper
    // than the dips between them). A hand shaking the device up and down pulls it further; one
    // shaking it sideways or diagonally never drops it toward free fall.
    if steadyUpright, low >= rules.steadyBounceFloor * standardGravity,
      t - lastFalling <= rules.steadyBounceDrop
    {
      return true
    }
    if alongGravity < rules.bounceVerticalShare * g2 * trace { return false }
    if low < rules.bounceFloor * standardGravity { return false }
    return high - length >= rules.bounceLopsidedness * (length - low)
  }

  mutating func clearTracks() { eachTrack { $0.clear() } }

  /// Does the same to the swings along each of the four directions.
  private mutating func eachTrack(_ body: (inout SwingTrack) -> Void) {
    body(&principalTrack)
    body(&xTrack)
    body(&yTrack)
    body(&zTrack)
  }

  mutating func reset() {
    hasGravity = false
    gravity = .zero
    steadyGravity = .zero
    dynamic = .zero
    moments = Moments()
    principalVector = Vector3(1, 0, 0)
    principalAxis = Vector3(1, 0, 0)
    axisStale = false
    quietDynamic = nil
    freeFallTime = 0
    lastFreeFall = -.infinity
    // (Element by element: `InlineArray(repeating:)` is a call the optimizer cannot see through;
    // see `PlainMath`.)
    for index in 0..<4 {
      verticalLows[index] = 0
      verticalHighs[index] = 0
    }
    quarter = 0
    quarterEnd = -.infinity
    lastHop = -.infinity
    lastFalling = -.infinity
    lastBusy = -.infinity
    nextAxisStep = -.infinity
    clearTracks()
  }

  /// One step of power iteration on the low-passed second moments of the dynamic acceleration: the
  /// principal axis follows the direction of the motion (a positive semi-definite matrix never
  /// turns it by more than a right angle, so its sign stays).
  private mutating func updatePrincipalAxis(_ d: Vector3, weight k: Double, at t: Seconds) {
    let updated = moments.adding(d, weight: k)
    moments = updated
    // (A step of the iteration every `axisStep` at most: the axis of a motion of a few hertz moves
    // no faster, and at high rates most samples skip it.)
    guard t >= nextAxisStep else { return }
    nextAxisStep = t + ShakeDetector.axisStep
    let next = updated.times(principalVector)
    let squared = next.dot(next)
    // (The axis stays where it was when the moments are all but nothing.)
    guard squared > 1e-24 * principalVector.dot(principalVector) else { return }
    principalVector = squared > 1e40 || squared < 1e-40 ? next * PlainMath.inverseSquareRoot(squared) : next
    axisStale = true
  }

  /// The principal axis, worked out from `principalVector` when that moved. (Two Newton steps: the
  /// axis's length is off by 5e-6 at most, which moves no decision on any corpus.)
  private mutating func axis() -> Vector3 {
    if axisStale {
      principalAxis =
        principalVector * PlainMath.inverseSquareRoot(principalVector.dot(principalVector), steps: 2)
      axisStale = false
    }
    return principalAxis
  }
}

/// What a sample says alike for each direction it is followed along (`SwingTrack.add`'s terms).
struct SampleFacts {
  var t: Seconds
  var dt: Seconds
  var magnitudeSquared: Double
  var lastBusy: Seconds
  var falling: Bool
  var upright: Bool
}

/// The second moments of a vector, low-passed (a symmetric 3 × 3 matrix).
private struct Moments {
  var xx = 0.0, yy = 0.0, zz = 0.0, xy = 0.0, xz = 0.0, yz = 0.0

  /// These moments moved a share `k` of the way to `d`'s.
  @inline(__always) func adding(_ d: Vector3, weight k: Double) -> Moments {
    Moments(
      xx: xx + (d.x * d.x - xx) * k, yy: yy + (d.y * d.y - yy) * k, zz: zz + (d.z * d.z - zz) * k,
      xy: xy + (d.x * d.y - xy) * k, xz: xz + (d.x * d.z - xz) * k, yz: yz + (d.y * d.z - yz) * k)
  }

  /// vᵀ M v.
  func quadratic(_ v: Vector3) -> Double {
    v.x * v.x * xx + v.y * v.y * yy + v.z * v.z * zz + 2 * (v.x * v.y * xy + v.x * v.z * xz + v.y * v.z * yz)
  }

  func times(_ v: Vector3) -> Vector3 {
    Vector3(xx * v.x + xy * v.y + xz * v.z, xy * v.x + yy * v.y + yz * v.z, xz * v.x + yz * v.y + zz * v.z)
  }
}
