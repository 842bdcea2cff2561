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

/// Recognizes shakes in a stream of accelerometer samples.
///
/// Gravity is removed as a vector: a low-pass estimate of it is subtracted from each sample, and
/// the rest (the dynamic acceleration) is followed along four directions: the device's three axes
/// and the direction it moves most along lately (the principal axis of the recent dynamic
/// acceleration). Along each, the motion is cut into swings, a swing lasting while the
/// acceleration keeps one sign. A shake is the hand going there and back at least twice: at least
/// four swings in a row (`SwingTrack.shakeSwings`) along one direction, each reaching `threshold`
/// with its peak along that direction (`AxisRule`), each turning back within `maximumSwing` and no
/// sooner than `minimumSwing` (faster reversals are ringing), with no pause longer than
/// `maximumGap`, alike in length (`RhythmRule`), and the acceleration at or above
/// `sustainThreshold` for at least `minimumDuty` of the time (`DutyRule`: a hand's shake is a
/// sustained oscillation; steps and bumps are short impulses with little in between). No shake
/// begins in or soon after a free fall or a body's bounce (`FreeFallRule`, `BounceRule`), and one
/// from rest begins sooner (`PushRule`). A single stroke is a
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
  private var machine: ShakeMachine

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
    machine = ShakeMachine(settings: settings)
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
  private func report(_ outcome: ShakeMachine.Outcome) {
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
