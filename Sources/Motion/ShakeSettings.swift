import EventTime
import ResponderCore

/// The thresholds of the shake detector. Accelerations are in g (9.80665 m/s²), times in seconds.
/// Every decision is on time, never on sample counts, so the same settings work from 10 Hz to 1 kHz.
///
/// Most users choose a `Sensitivity` (`ShakeSettings(sensitivity:)`); the individual thresholds
/// are there for experts.
public struct ShakeSettings: Equatable, Sendable {
  /// How readily a shake is recognized: presets of the thresholds below.
  public enum Sensitivity: String, Equatable, Sendable, CaseIterable {
    /// A lighter shake is enough (four swings of 0.8 g, shorter, less strong between peaks). Still
    /// turns down single strokes, sitting down and standing up, lying down, bumps and taps; takes
    /// some steps with the device in a trouser pocket for shakes (about 4 an hour), and a jolty
    /// stair descent now and then (Benchmarks/ShakeAccuracy, docs/motion-research.md).
    case light
    /// The default: a shake back and forth along one direction, at least four swings of 1 g in a
    /// row (there and back twice), strong for half the time. Also turns down single strokes (a
    /// device picked up, put down or moved once, even fast and with a rebound), walking with the
    /// device in a trouser pocket (front or back) or strapped to the thigh, stairs, arm exercises
    /// at the wrist and a device being strapped on, put into a pocket or knocked.
    case medium
    /// Only a vigorous, regular shake: four swings of 1.5 g along a steady direction for 0.4 s;
    /// turns down light shakes too (about one real shake in four on the corpora).
    case hard
  }

  /// Peak dynamic acceleration (gravity removed) a swing must reach to count as vigorous; a shake
  /// needs at least four in a row.
  public var threshold: Double = 1.0
  /// While shaking, samples reaching this level keep the shake going; and the acceleration must
  /// be at or above it for at least `minimumDuty` of the time.
  public var sustainThreshold: Double = 0.75
  /// Dynamic acceleration above which the device counts as moving; a swing runs from crossing it
  /// in one direction to crossing it in the opposite direction.
  public var activityThreshold: Double = 0.5
  /// Time constant of the low-pass filter that estimates gravity (as a vector).
  public var gravityTimeConstant: Seconds = 0.3
  /// How long a back-and-forth shake must be under way before `began`.
  public var minimumDuration: Seconds = 0.3
  /// The shortest swing that counts as a reversal (faster ones are vibration or ringing, as from a
  /// tap on a table or a heel strike felt in a pocket): about 1 / (2 × the fastest shake frequency).
  public var minimumSwing: Seconds = 0.07
  /// The longest swing of a shake: about 1 / (2 × the slowest shake frequency; a big arm shake
  /// goes down to 1 Hz). Slower motion (a sway, a turn) is not shaking.
  public var maximumSwing: Seconds = 0.5
  /// The longest pause (below `activityThreshold`) within a shake.
  public var maximumGap: Seconds = 0.25
  /// The share of a shake's time the acceleration is at or above `sustainThreshold` (a sine shake:
  /// 2/3 at 1.5 g, 5/6 at 3 g; steps: a tenth to a quarter).
  public var minimumDuty: Double = 0.5
  /// The same share within each swing that keeps a shake under way going.
  public var minimumSwingDuty: Double = 0.3
  /// How well each swing of a shake goes along the shake's direction: at the swing's peak, the
  /// cosine of the angle between the dynamic acceleration and that direction (1: exactly along it;
  /// 0: at right angles).
  public var axisConsistency: Double = 0.4
  /// The shaking has stopped once no sample reached `sustainThreshold` for this long.
  public var quietTime: Seconds = 0.4
  /// A shake that goes on longer than this (from its first swing to reach `threshold`) is
  /// cancelled (`motionCancelled`); no new shake begins until the shaking has stopped. Vigorous
  /// motion that went on this long, unbroken, before it looked like a shake (walking) is none.
  public var maximumDuration: Seconds = 5

  /// The rules' inner constants, for the benchmark that chooses them (`ShakeAccuracy --loso`);
  /// not a setting for users.
  package var rules = ShakeRules()

  /// The default settings (`Sensitivity.medium`).
  public init() {}

  /// The settings of a sensitivity level.
  public init(sensitivity: Sensitivity) {
    switch sensitivity {
    case .light:
      threshold = 0.8
      sustainThreshold = 0.6
      activityThreshold = 0.4
      minimumSwingDuty = 0.3
      minimumDuration = 0.25
    case .medium:
      break
    case .hard:
      threshold = 1.5
      sustainThreshold = 1.0
      activityThreshold = 0.6
      minimumDuty = 0.55
      minimumSwingDuty = 0.45
      axisConsistency = 0.7
      minimumDuration = 0.4
    }
  }

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
    positive(maximumSwing, "max-swing")
    positive(maximumGap, "max-gap")
    positive(quietTime, "quiet-time")
    positive(maximumDuration, "max-duration")
    positive(sustainThreshold, "sustain-threshold")
    for (value, name) in [(minimumDuty, "min-duty"), (minimumSwingDuty, "min-swing-duty")]
    where !(value >= 0 && value <= 1) {
      result.append("\(name) must be between 0 and 1")
    }
    if !(axisConsistency >= -1 && axisConsistency <= 1) {
      result.append("axis-consistency must be between -1 and 1")
    }
    if sustainThreshold > threshold { result.append("sustain-threshold must not be above threshold") }
    if activityThreshold > threshold {
      result.append("activity-threshold must not be above threshold")
    }
    if maximumSwing <= minimumSwing { result.append("max-swing must be longer than min-swing") }
    if maximumDuration <= minimumDuration {
      result.append("max-duration must be longer than min-duration")
    }
    return result
  }
}

/// The constants of the detector's rules against a body's bounce, in one value so that the
/// benchmark can try others (`Benchmarks/ShakeAccuracy --loso`); see `BounceRule`. Not
/// a setting for users.
package struct ShakeRules: Equatable, Sendable {
  /// A lopsided bounce (hops, running steps): at least this share of the recent motion's second
  /// moment along gravity, the acceleration along gravity never under `bounceFloor` g, and the
  /// jolts up reaching `bounceLopsidedness` times as far above gravity as the dips go below it.
  package var bounceVerticalShare = 0.5
  package var bounceFloor = -0.9
  package var bounceLopsidedness = 1.2
  /// A steady bounce (steps down stairs at the waist, jogging): at least this share along
  /// gravity (estimated over `steadyGravityTime`), and the acceleration along gravity never under `steadyBounceFloor` g, however
  /// alike the jolts up and the dips (a hand shaking the device up and down pulls it further).
  package var steadyBounceShare = 0.35
  package var steadyBounceFloor = -0.7
  /// …and the acceleration, gravity included, dropped under `BounceRule.fallingLevel` within
  /// this long (a body's step unloads the device; a hand shaking it sideways never does).
  package var steadyBounceDrop: Seconds = 1
  /// The time constant of the gravity estimate the steady bounce's share is measured against.
  package var steadyGravityTime: Seconds = 2

  package init() {}
}
