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
  /// How long after a decision falls due the timer takes it when no sample arrives: the latest a
  /// sample may arrive after its timestamp (the buffer's latency for buffered capture).
  public var lateSampleAllowance: Seconds
  /// Told about each stretch of vigorous motion that was turned down (nil: nobody asks; the
  /// daemon leaves it so).
  public var onRejection: ((ShakeRejectionNote) -> Void)?
  private let scheduler: any Scheduler
  private let onEvent: (ShakeEvent) -> Void

  /// The levels of `settings` in m/s².
  struct Levels {
    var vigorous: Double
    var active: Double
    var sustain: Double
  }
  private let levels: Levels

  public private(set) var state: State = .idle
  /// The current estimate of gravity, in m/s² (valid once a sample was processed).
  public private(set) var gravity: Vector3 = .zero
  /// The dynamic acceleration of the last sample (gravity removed), in m/s².
  public private(set) var dynamic: Vector3 = .zero

  private var hasGravity = false
  private var lastTime: Seconds = 0
  /// The last sample that kept a shake under way going (see `ShakeSettings.sustainThreshold`).
  private var lastSustained: Seconds = -.infinity

  /// The recent dynamic acceleration's second moments (a low-pass of d·dᵀ, m²/s⁴), and its
  /// principal axis: the direction the device moves most along lately.
  private var moments = Moments()
  private var principalAxis = Vector3(1, 0, 0)
  /// Swings along the principal axis (first) and the device's x, y and z axes.
  private var tracks = [SwingTrack](repeating: SwingTrack(), count: 4)
  private static let deviceAxes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]

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
    levels = Levels(
      vigorous: settings.threshold * standardGravity, active: settings.activityThreshold * standardGravity,
      sustain: settings.sustainThreshold * standardGravity)
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
    if dt > 0 {
      let k = 1 - exp(-dt / settings.gravityTimeConstant)
      gravity = gravity + d * k
      updatePrincipalAxis(d, weight: k)
    }

    let idle = state == .idle
    var keptGoing = false
    var began: Seconds?
    for index in tracks.indices {
      let direction = index == 0 ? principalAxis : Self.deviceAxes[index - 1]
      let value = d.dot(direction)
      tracks[index].reportNewChains = idle
      if let note = tracks[index].add(value, magnitude: m, at: t, dt: dt, settings: settings, levels: levels),
        index == 0
      {
        // (Notes come from the principal axis alone: one per stretch of motion.)
        onRejection?(note)
      }
      if idle, began == nil, !tracks[index].isEmpty {
        let problem = tracks[index].shakeProblem(at: t, settings: settings, levels: levels)
        if problem == nil {
          began = tracks[index].vigorousStart ?? tracks[index].chainStart
        } else if problem != .weak {
          tracks[index].lastFailure = problem
        }
      } else if isShaking, abs(value) >= levels.sustain, tracks[index].keepsShaking(settings: settings) {
        keptGoing = true
      }
    }
    if state == .waitingForQuiet, m >= levels.sustain { keptGoing = true }
    if keptGoing { lastSustained = t }
    if let since = began {
      // What is under way now is the shake: none of it is reported as turned down.
      for index in tracks.indices { tracks[index].reportable = false }
      lastSustained = t
      state = .shaking(since: since)
      onEvent(ShakeEvent(phase: .began, time: t))
      armTimer()
    }
    lastTime = t
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
    lastSustained = -.infinity
    moments = Moments()
    principalAxis = Vector3(1, 0, 0)
    for index in tracks.indices { tracks[index].clear() }
  }

  /// One step of power iteration on the low-passed second moments of the dynamic acceleration: the
  /// principal axis follows the direction of the motion (a positive semi-definite matrix never
  /// turns it by more than a right angle, so its sign stays).
  private func updatePrincipalAxis(_ d: Vector3, weight k: Double) {
    moments.add(d, weight: k)
    let next = moments.times(principalAxis)
    let length = next.length
    guard length > 1e-12 else { return }
    principalAxis = next * (1 / length)
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
    for index in tracks.indices { tracks[index].clear() }
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

/// The second moments of a vector, low-passed (a symmetric 3 × 3 matrix).
private struct Moments {
  var xx = 0.0, yy = 0.0, zz = 0.0, xy = 0.0, xz = 0.0, yz = 0.0

  /// Moves each moment a share `k` of the way to `d`'s.
  mutating func add(_ d: Vector3, weight k: Double) {
    xx += (d.x * d.x - xx) * k
    yy += (d.y * d.y - yy) * k
    zz += (d.z * d.z - zz) * k
    xy += (d.x * d.y - xy) * k
    xz += (d.x * d.z - xz) * k
    yz += (d.y * d.z - yz) * k
  }

  func times(_ v: Vector3) -> Vector3 {
    Vector3(xx * v.x + xy * v.y + xz * v.z, xy * v.x + yy * v.y + yz * v.z, xz * v.x + yz * v.y + zz * v.z)
  }
}
