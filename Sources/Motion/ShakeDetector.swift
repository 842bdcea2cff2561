import EventTime
import ResponderCore

#if canImport(Glibc)
  import Glibc
#endif

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
  /// too small a part of a swing (a low duty cycle).
  case impulses
  /// The direction did not go back and forth along one axis (it wandered between axes).
  case axis
  /// A swing took too long to turn back: slower than any shake (a sway, a turn, a stride).
  case slow
  /// A pause in the middle: the motion stopped for longer than a shake's turn-around.
  case pause
  /// Back-and-forth, but it stopped before `minimumDuration`.
  case brief
  /// Fewer than three swings reached `threshold` (a single stroke: a push, a brake and a weaker
  /// rebound), or their peaks were not alike: not a shake.
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
/// the rest (the dynamic acceleration) is cut into swings, a swing lasting while the dynamic
/// acceleration points into the same half-space. A shake is a chain of swings going back and
/// forth along one axis (each reversal within `axisConsistency` of the opposite direction), each
/// swing turning back within `maximumSwing` (half as long again for a swing driven hard all along:
/// a big, slow arm stroke), with no pause longer than `maximumGap`, the
/// acceleration at or above `sustainThreshold` for at least `minimumDuty` of the time (a hand's
/// shake is a sustained oscillation; steps and bumps are short impulses with little in between),
/// and at least three swings in a row (`minimumVigorousSwings` half-cycles) reaching `threshold`
/// with peaks alike (the strongest at most `maximumPeakRatio` times the weakest): a single stroke
/// is a push and a brake with a weaker rebound, and a step in a pocket a heel strike and its
/// rebound, never three like swings. It begins once such a chain has been under way
/// for `minimumDuration`, ends once for `quietTime` no sample kept it going (one reaching
/// `sustainThreshold` along the shake's axis, in swings that are still strong), and is cancelled when it goes on longer than `maximumDuration` or the sensor goes
/// away. After a cancel no new shake begins until the shaking has stopped.
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
  /// A shake is at least this many swings (half-cycles) in a row that reach `threshold`: a single
  /// stroke is two (the push and the brake), and its rebound is weaker.
  static let minimumVigorousSwings = 3
  /// A shake's swings are alike: among its last `minimumVigorousSwings` swings, the strongest
  /// peak is at most this many times the weakest (a heel strike and its rebound, or a stroke's
  /// push, brake and rebound, are not alike: 3 g, 1.5 g, 1 g).
  static let maximumPeakRatio = 2.0
  /// How long after a decision falls due the timer takes it when no sample arrives: the latest a
  /// sample may arrive after its timestamp (the buffer's latency for buffered capture).
  public var lateSampleAllowance: Seconds
  /// Told about each stretch of vigorous motion that was turned down (nil: nobody asks; the
  /// daemon leaves it so).
  public var onRejection: ((ShakeRejectionNote) -> Void)?
  private let scheduler: any Scheduler
  private let onEvent: (ShakeEvent) -> Void

  private let vigorousLevel: Double
  private let activeLevel: Double
  private let sustainLevel: Double

  public private(set) var state: State = .idle
  /// The current estimate of gravity, in m/s² (valid once a sample was processed).
  public private(set) var gravity: Vector3 = .zero
  /// The dynamic acceleration of the last sample (gravity removed), in m/s².
  public private(set) var dynamic: Vector3 = .zero

  private var hasGravity = false
  private var lastTime: Seconds = 0
  private var lastDynamic: Vector3 = .zero
  private var lastMagnitude: Double = 0
  private var wasActive = false
  private var lastActive: Seconds = -.infinity
  /// The last sample that kept a shake under way going (see `ShakeSettings.sustainThreshold`).
  private var lastSustained: Seconds = -.infinity

  /// A stretch during which the dynamic acceleration points into one half-space.
  private struct Swing {
    var direction: Vector3
    /// Time of its first sample, or of its first sample after a lull (for the shortest-swing rule).
    var firstSample: Seconds
    /// When it started (crossing of the activity level, or the reversal).
    var start: Seconds
    var peak: Double
    /// Time its samples stand for, and the part of it at or above the sustain level.
    var heldTime: Seconds = 0
    var strongTime: Seconds = 0
    /// Whether it went quiet and came back the same way (a second jolt, not one swing of a shake).
    var resumed = false
    /// The sum of its active samples' dynamic acceleration: its axis, less swayed by one jolt than
    /// the peak's direction.
    var sum: Vector3 = .zero

    var axis: Vector3 {
      let length = sum.length
      return length > 0 ? sum * (1 / length) : direction
    }

    mutating func add(_ time: Seconds, strong: Bool) {
      heldTime += time
      if strong { strongTime += time }
    }
  }
  private var swing: Swing?

  /// Swings going back and forth that may become a shake.
  private struct Chain {
    var start: Seconds
    /// Time the chain's finished swings stand for, and the part at or above the sustain level.
    var heldTime: Seconds = 0
    var strongTime: Seconds = 0
    var reversals = 0
    var vigorousSwings = 0
    /// Its highest dynamic acceleration (m/s²).
    var peak = 0.0
    /// Whether the current swing was counted as vigorous.
    var currentCounted = false
    var previousDirection: Vector3?
    /// The direction of its first strong swing: every swing must go along it, one way or the other.
    var axis: Vector3?
    /// The share of the last finished swing at or above the sustain level.
    var previousDuty = 0.0
    /// The peaks of its last finished swings, oldest first (at most `minimumVigorousSwings - 1`).
    var swingPeaks: [Double] = []
  }
  private var chain: Chain?
  /// Whether the chain under way is the shake that began (samples keep it going).
  private var chainIsShake = false

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
    vigorousLevel = settings.threshold * standardGravity
    activeLevel = settings.activityThreshold * standardGravity
    sustainLevel = settings.sustainThreshold * standardGravity
  }

  /// Whether a shake is under way (began, and neither ended nor cancelled).
  public var isShaking: Bool {
    if case .shaking = state { return true }
    return false
  }

  /// Feeds one sample. Samples must come in time order; one that goes back in time (timestamp
  /// jitter) is taken as happening at the previous sample's time.
  public func process(_ sample: MotionSample) {
    var t = sample.t
    if hasGravity && t < lastTime { t = lastTime }
    settle(upTo: t)

    // The dynamic part is measured against the gravity estimated before this sample, which is
    // then updated with it: at low rates the sample would otherwise weigh on its own gravity.
    let a = sample.acceleration
    if !hasGravity {
      gravity = a
      hasGravity = true
      lastTime = t
    }
    let d = a - gravity
    let m = d.length
    dynamic = d
    let dt = t - lastTime
    if dt > 0 { gravity = gravity + d * (1 - exp(-dt / settings.gravityTimeConstant)) }

    // Each sample stands for the time half-way to its neighbours: the first half of the interval
    // since the previous sample goes to that sample's swing, the second half to this one's.
    let isStrong = m >= sustainLevel
    if swing != nil, dt > 0 { swing!.add(0.5 * dt, strong: lastMagnitude >= sustainLevel) }
    let isActive = m >= activeLevel
    if isActive {
      let crossing = wasActive ? t : interpolate(level: activeLevel, from: lastMagnitude, to: m, at: t)
      if t - lastActive > settings.maximumGap { breakChain(.pause, at: t) }
      handleActive(d, magnitude: m, at: t, crossing: crossing)
      lastActive = t
    } else if chain != nil, t - lastActive > settings.maximumGap {
      breakChain(.pause, at: t)
    }
    if swing != nil, dt > 0 { swing!.add(0.5 * dt, strong: isStrong) }
    if let current = swing, chain != nil, t - current.start > longestSwing(current) {
      breakChain(.slow, at: t)
    }
    if isStrong, state == .waitingForQuiet || (chainIsShake && chain != nil && swingsAreStrong(along: d)) {
      lastSustained = t
    }

    if isStrong, !chainIsShake, state != .waitingForQuiet, let current = chain, let currentSwing = swing,
      t - current.start >= settings.minimumDuration,
      current.strongTime + currentSwing.strongTime
        >= settings.minimumDuty * (current.heldTime + currentSwing.heldTime),
      followsAxis(currentSwing.axis), !currentSwing.resumed,
      lastSwingsAreAlike(current, currentSwing)
    {
      chainIsShake = true
      lastSustained = t
      if state == .idle {
        // (While shaking, a new chain after a stumble keeps the same shake going.)
        state = .shaking(since: current.start)
        onEvent(ShakeEvent(phase: .began, time: t))
        armTimer()
      }
    }

    lastTime = t
    lastDynamic = d
    lastMagnitude = m
    wasActive = isActive
  }

  /// The sensor went away, or sampling stopped, at `time` (now by default): decisions already due
  /// are taken, a shake under way is cancelled, and the detector starts afresh (gravity included).
  public func sensorLost(at time: Seconds? = nil) {
    let when = max(time ?? scheduler.now, hasGravity ? lastTime : -.infinity)
    settle(upTo: when)
    if isShaking { onEvent(ShakeEvent(phase: .cancelled, time: when)) }
    reset()
  }

  /// Forgets everything without reporting anything (a new sensor, new settings).
  public func reset() {
    timer?.cancel()
    timer = nil
    state = .idle
    hasGravity = false
    gravity = .zero
    dynamic = .zero
    lastDynamic = .zero
    lastMagnitude = 0
    wasActive = false
    lastActive = -.infinity
    lastSustained = -.infinity
    swing = nil
    chain = nil
    chainIsShake = false
  }

  // MARK: Swings

  private func handleActive(_ d: Vector3, magnitude m: Double, at t: Seconds, crossing: Seconds) {
    let direction = d * (1 / m)
    if var current = swing, t - lastActive <= settings.maximumGap {
      if d.dot(current.direction) >= 0 {
        // Back after a lull in the same direction: the shortest-swing clock starts again, so
        // the ringing after a second tap is not taken for a reversal.
        if !wasActive {
          current.firstSample = t
          current.resumed = true
        }
        current.sum = current.sum + d
        if m > current.peak {
          current.peak = m
          current.direction = direction
        }
        swing = current
      } else if t - current.firstSample >= settings.minimumSwing {
        // A reversal: when the previous sample was still active, it happened where the dynamic
        // acceleration crossed zero along the old direction.
        var start = crossing
        if wasActive {
          let before = lastDynamic.dot(current.direction)
          let after = d.dot(current.direction)
          if before > 0 && after < 0 { start = lastTime + (t - lastTime) * before / (before - after) }
        }
        finishSwing(current, at: start)
        swing = Swing(direction: direction, firstSample: t, start: start, peak: m, sum: d)
      } else {
        return  // Faster than any shake: ringing or vibration, not a reversal.
      }
    } else {
      swing = Swing(direction: direction, firstSample: t, start: crossing, peak: m, sum: d)
      chain = Chain(start: crossing)
    }
    if chain == nil { chain = Chain(start: swing!.start) }
    chain!.peak = max(chain!.peak, m)
    if !chain!.currentCounted, swing!.peak >= vigorousLevel {
      chain!.currentCounted = true
      chain!.vigorousSwings += 1
    }
  }

  /// A swing turned back at `end`: the chain goes on if the swing was a shake's.
  private func finishSwing(_ finished: Swing, at end: Seconds) {
    guard chain != nil else { return }
    var problem: ShakeRejection?
    if end - finished.start > longestSwing(finished) {
      problem = .slow
    } else if !followsAxis(finished.axis) {
      problem = .axis
    } else if finished.heldTime > settings.maximumSwing / 2,
      finished.strongTime < settings.minimumSwingDuty * finished.heldTime
    {
      // (A short weak swing is a turn-around seen between samples at low rates.)
      problem = .impulses
    }
    if let problem {
      breakChain(problem, at: end)
      chain = Chain(start: end)
      return
    }
    chain!.strongTime += finished.strongTime
    chain!.heldTime += finished.heldTime
    chain!.reversals += 1
    chain!.previousDirection = finished.axis
    chain!.swingPeaks.append(finished.peak)
    if chain!.swingPeaks.count >= Self.minimumVigorousSwings { chain!.swingPeaks.removeFirst() }
    if chain!.axis == nil, finished.peak >= sustainLevel { chain!.axis = finished.axis }
    if finished.peak >= sustainLevel || finished.heldTime > settings.maximumSwing / 2 {
      chain!.previousDuty = finished.heldTime > 0 ? finished.strongTime / finished.heldTime : 0
    }
    chain!.currentCounted = false
  }

  /// How long `swing` may take to turn back: `maximumSwing`, or half as long again for a swing
  /// driven hard all along (a big arm stroke of a shake at 1–1.4 Hz; a sway, a turn or a stride is
  /// weak or impulsive).
  private func longestSwing(_ swing: Swing) -> Seconds {
    let driven = swing.peak >= 2 * vigorousLevel && swing.strongTime >= settings.minimumDuty * swing.heldTime
    return driven ? 1.5 * settings.maximumSwing : settings.maximumSwing
  }

  /// Whether the chain's last finished swings and the one under way are at least
  /// `minimumVigorousSwings` swings that all reach `threshold`, with peaks alike.
  private func lastSwingsAreAlike(_ chain: Chain, _ current: Swing) -> Bool {
    guard chain.swingPeaks.count == Self.minimumVigorousSwings - 1 else { return false }
    let peaks = chain.swingPeaks + [current.peak]
    let weakest = peaks.min()!
    return weakest >= vigorousLevel && peaks.max()! <= Self.maximumPeakRatio * weakest
  }

  /// Whether the last finished swing was strong for much of its time, and the one under way so
  /// far, and `d` points along the shake's axis (a shake goes on; a step soon after a shake does
  /// not keep it going).
  private func swingsAreStrong(along d: Vector3) -> Bool {
    guard let chain, let swing else { return false }
    return chain.previousDuty >= settings.minimumSwingDuty
      && swing.strongTime >= settings.minimumSwingDuty * swing.heldTime
      && abs((chain.axis ?? swing.direction).dot(d)) >= settings.axisConsistency * d.length
  }

  /// Whether a swing in `direction` goes back along the chain's axis.
  private func followsAxis(_ direction: Vector3) -> Bool {
    guard let chain else { return false }
    if let previous = chain.previousDirection, previous.dot(direction) > -settings.axisConsistency {
      return false
    }
    if let axis = chain.axis, abs(axis.dot(direction)) < settings.axisConsistency { return false }
    return true
  }

  /// The chain under way cannot be (or go on being) a shake.
  private func breakChain(_ reason: ShakeRejection, at t: Seconds) {
    guard let current = chain else { return }
    chain = nil
    if chainIsShake {
      chainIsShake = false
    } else if current.peak >= sustainLevel, let onRejection {
      var why = reason
      if current.vigorousSwings < Self.minimumVigorousSwings && (reason == .pause || reason == .slow) {
        why = .weak
      } else if reason == .pause && current.reversals >= 1 {
        why = .brief
      }
      onRejection(ShakeRejectionNote(reason: why, start: current.start, time: t))
    }
  }

  /// When the magnitude crossed `level` between the previous sample and this one (linear).
  private func interpolate(level: Double, from previous: Double, to current: Double, at t: Seconds) -> Seconds
  {
    guard hasGravity, t > lastTime, previous != current else { return t }
    let fraction = min(1, max(0, (level - previous) / (current - previous)))
    return lastTime + (t - lastTime) * fraction
  }

  // MARK: Decisions on time

  /// Takes every decision due by `time`.
  private func settle(upTo time: Seconds) {
    if case .shaking(let since) = state {
      let endAt = lastSustained + settings.quietTime
      let cancelAt = since + settings.maximumDuration
      if endAt <= cancelAt, endAt <= time {
        finish()
        onEvent(ShakeEvent(phase: .ended, time: endAt))
      } else if cancelAt < endAt, cancelAt <= time {
        timer?.cancel()
        timer = nil
        state = .waitingForQuiet
        onEvent(ShakeEvent(phase: .cancelled, time: cancelAt))
      }
    }
    if state == .waitingForQuiet, lastSustained + settings.quietTime <= time {
      finish()
    }
  }

  private func finish() {
    timer?.cancel()
    timer = nil
    state = .idle
    chain = nil
    chainIsShake = false
    swing = nil
  }

  private func armTimer() {
    guard case .shaking(let since) = state else { return }
    let due = min(lastSustained + settings.quietTime, since + settings.maximumDuration)
    timerTarget = due
    timer = scheduler.schedule(at: due + lateSampleAllowance) { [weak self] in
      guard let self else { return }
      self.timer = nil
      self.settle(upTo: max(self.scheduler.now - self.lateSampleAllowance, self.timerTarget))
      if self.isShaking { self.armTimer() }
    }
  }
}
