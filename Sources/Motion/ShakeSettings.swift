import EventTime
import ResponderCore

/// The thresholds of the shake detector. Accelerations are in g (9.80665 m/s²), times in seconds.
/// Every decision is on time, never on sample counts, so the same settings work from 10 Hz to 1 kHz.
public struct ShakeSettings: Equatable, Sendable {
  /// Peak dynamic acceleration (gravity removed) a swing must reach to count as vigorous.
  public var threshold: Double = 1.0
  /// Once a shake began, samples reaching this level keep it going (hysteresis: a sampled peak
  /// may fall short of `threshold` at low rates without ending the shake).
  public var sustainThreshold: Double = 0.75
  /// Dynamic acceleration above which the device counts as moving; a swing runs from crossing it
  /// in one direction to crossing it in the opposite direction.
  public var activityThreshold: Double = 0.5
  /// Time constant of the low-pass filter that estimates gravity (as a vector).
  public var gravityTimeConstant: Seconds = 0.3
  /// How long a vigorous back-and-forth shake must be under way before `began`.
  public var minimumDuration: Seconds = 0.4
  /// The shortest swing that counts as a reversal (faster ones are vibration or ringing, as from a
  /// tap on a table): about 1 / (2 × the fastest shake frequency).
  public var minimumSwing: Seconds = 0.06
  /// The shaking has stopped once no sample reached `threshold` for this long.
  public var quietTime: Seconds = 0.4
  /// A shake that goes on longer than this is cancelled (`motionCancelled`); no new shake begins
  /// until the shaking has stopped.
  public var maximumDuration: Seconds = 5

  public init() {}

  /// What is wrong with these settings, one message per problem (empty when they are usable).
  public var problems: [String] {
    var result: [String] = []
    func positive(_ value: Double, _ name: String) {
      if !(value > 0) || !value.isFinite { result.append("\(name) must be a positive number") }
    }
    positive(threshold, "threshold")
    positive(activityThreshold, "activity-threshold")
    positive(gravityTimeConstant, "gravity-time-constant")
    positive(minimumDuration, "min-duration")
    positive(minimumSwing, "min-swing")
    positive(quietTime, "quiet-time")
    positive(maximumDuration, "max-duration")
    positive(sustainThreshold, "sustain-threshold")
    if sustainThreshold > threshold { result.append("sustain-threshold must not be above threshold") }
    if activityThreshold > threshold {
      result.append("activity-threshold must not be above threshold")
    }
    if maximumDuration <= minimumDuration {
      result.append("max-duration must be longer than min-duration")
    }
    return result
  }
}
