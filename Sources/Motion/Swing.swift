import EventTime
import ResponderCore

/// The settings the swings are judged by, levels in m/s². A small value of its own, read into a
/// local once per sample: a direction's work then reads it in place, where passing the whole
/// `ShakeSettings` beside a track of the detector's state copied them for every direction.
struct SwingLimits {
  var vigorous: Double
  var active: Double
  var sustain: Double
  var sustainSquared: Double { sustain * sustain }
  var minimumSwing: Seconds
  var maximumSwing: Seconds
  var maximumGap: Seconds
  var minimumDuration: Seconds
  var maximumDuration: Seconds
  var minimumDuty: Double
  var minimumSwingDuty: Double
  var axisConsistency: Double

  init(_ settings: ShakeSettings) {
    vigorous = settings.threshold * standardGravity
    active = settings.activityThreshold * standardGravity
    sustain = settings.sustainThreshold * standardGravity
    minimumSwing = settings.minimumSwing
    maximumSwing = settings.maximumSwing
    maximumGap = settings.maximumGap
    minimumDuration = settings.minimumDuration
    maximumDuration = settings.maximumDuration
    minimumDuty = settings.minimumDuty
    minimumSwingDuty = settings.minimumSwingDuty
    axisConsistency = settings.axisConsistency
  }
}

/// One swing: a stretch during which the dynamic acceleration along a direction keeps one sign.
struct Swing {
  /// Whether the acceleration points along the direction (true) or against it.
  var positive: Bool
  /// Its strongest sample along the direction (m/s²), and the squared length of that sample's
  /// whole dynamic acceleration (m²/s⁴): how much of it lay along the direction.
  var peak: Double
  var peakMagnitudeSquared: Double
  /// Whether at its peak the acceleration, gravity included, was under `BounceRule.fallingLevel`.
  var peakFalling: Bool
  /// Whether at its peak the dynamic acceleration went along gravity (`PushRule.uprightShare`).
  var peakUpright: Bool
  /// Whether within it the value went back past the vigorous level the other way sooner than any
  /// hand turns (a reversal left out as ringing): a jolt's rattle.
  var rattled = false
  /// When it began (where the value crossed the activity level, between two samples), and its last
  /// active sample.
  var start: Seconds
  var lastActive: Seconds
  /// Time its samples stand for, and the part of it at or above the sustain level.
  var heldTime: Seconds = 0
  var strongTime: Seconds = 0

  /// The share of its time at or above the sustain level (`DutyRule`).
  var duty: Double { heldTime > 0 ? strongTime / heldTime : 0 }

  static let none = Swing(
    positive: false, peak: 0, peakMagnitudeSquared: 0, peakFalling: false, peakUpright: false, start: 0,
    lastActive: 0)

  mutating func addTime(_ time: Seconds, strong: Bool) {
    heldTime += time
    if strong { strongTime += time }
  }
}
