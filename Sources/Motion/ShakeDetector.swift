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

/// Recognizes shakes in a stream of accelerometer samples.
///
/// Gravity is removed as a vector: a low-pass estimate of it is subtracted from each sample, and
/// the rest (the dynamic acceleration) is cut into swings, a swing lasting while the dynamic
/// acceleration points into the same half-space. A shake is a chain of vigorous swings (peak at
/// least `threshold`) going back and forth; it begins once such motion has been under way for
/// `minimumDuration`, ends once no sample was vigorous for `quietTime`, and is cancelled when it
/// goes on longer than `maximumDuration` or the sensor goes away. After a cancel no new shake
/// begins until the shaking has stopped.
///
/// Everything is decided on the samples' timestamps, never on sample counts. Decisions that fall
/// due while no sample arrives (the shake ended and the device is still, or the samples stopped)
/// are taken by a timer on the scheduler, `lateSampleAllowance` after they fell due, so that
/// samples still on their way (buffered capture) are taken into account first.
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
  /// How long after a decision falls due the timer takes it when no sample arrives: the latest a
  /// sample may arrive after its timestamp (the buffer's latency for buffered capture).
  public var lateSampleAllowance: Seconds
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
  private var lastVigorous: Seconds = -.infinity
  /// The last sample that kept a shake under way going (see `ShakeSettings.sustainThreshold`).
  private var lastSustained: Seconds = -.infinity

  /// A stretch during which the dynamic acceleration points into one half-space.
  private struct Swing {
    var direction: Vector3
    /// Time of its first sample, or of its first sample after a lull (for the shortest-swing rule).
    var firstSample: Seconds
    /// Estimated time it started (crossing of the activity level, or the reversal).
    var start: Seconds
    var peak: Double
    var lastActive: Seconds
    /// When the swing this one reversed from started (a weaker swing leading into a shake).
    var previousStart: Seconds?
    var counted = false
  }
  private var swing: Swing?

  /// A chain of vigorous swings that may become a shake.
  private struct Run {
    var start: Seconds
    var direction: Vector3
    var sawOpposite = false
    var activityEnd: Seconds
  }
  private var run: Run?

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

    if run != nil, t - lastVigorous > settings.quietTime { run = nil }
    let isActive = m >= activeLevel
    if isActive {
      let crossing = wasActive ? t : interpolate(level: activeLevel, from: lastMagnitude, to: m, at: t)
      handleActive(d, magnitude: m, at: t, crossing: crossing)
      if run != nil { run!.activityEnd = t }
    } else if wasActive, run != nil {
      let end = interpolate(level: activeLevel, from: lastMagnitude, to: m, at: t)
      run!.activityEnd = max(run!.activityEnd, end)
    }
    if m >= vigorousLevel { lastVigorous = t }
    if m >= sustainLevel { lastSustained = t }

    if state == .idle, let current = run, current.sawOpposite,
      current.activityEnd - current.start >= settings.minimumDuration
    {
      state = .shaking(since: current.start)
      onEvent(ShakeEvent(phase: .began, time: t))
      armTimer()
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
    lastVigorous = -.infinity
    lastSustained = -.infinity
    swing = nil
    run = nil
  }

  // MARK: Swings

  private func handleActive(_ d: Vector3, magnitude m: Double, at t: Seconds, crossing: Seconds) {
    let direction = d * (1 / m)
    if var current = swing, t - current.lastActive <= settings.quietTime {
      if d.dot(current.direction) >= 0 {
        // Back after a lull in the same direction: the shortest-swing clock starts again, so
        // the ringing after a second tap is not taken for a reversal.
        if !wasActive { current.firstSample = t }
        current.lastActive = t
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
        swing = Swing(
          direction: direction, firstSample: t, start: start, peak: m, lastActive: t,
          previousStart: current.start)
      } else {
        return  // Faster than any shake: ringing or vibration, not a reversal.
      }
    } else {
      swing = Swing(direction: direction, firstSample: t, start: crossing, peak: m, lastActive: t)
    }
    if let current = swing, !current.counted, current.peak >= vigorousLevel {
      swing!.counted = true
      if run == nil {
        run = Run(start: current.previousStart ?? current.start, direction: current.direction, activityEnd: t)
      } else if current.direction.dot(run!.direction) < 0 {
        run!.sawOpposite = true
      }
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
    run = nil
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
