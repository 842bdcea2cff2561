import Motion

/// `[motion]`: the accelerometer and the shake detector (`[motion.shake]`).
///
/// ```toml
/// [motion]
/// enabled = true          # false: never open the accelerometer
/// sampling-rate = 50      # Hz asked from the sensor (the nearest it offers at or above)
/// capture = "auto"        # "auto" (buffered when the sensor has a trigger), "buffered", "polled"
/// rotation = "normal"     # how the display is turned: normal, left, inverted, right
/// device = ""             # a sensor name or iio:deviceN; empty: the first accelerometer
///
/// [motion.shake]
/// sensitivity = "medium"  # "light", "medium" (default) or "hard": how vigorous a shake must be
/// max-duration = 5        # s: a longer shake is cancelled
/// # Expert thresholds (override the sensitivity's): threshold, sustain-threshold,
/// # activity-threshold (g); min-duty, min-swing-duty (0–1); axis-consistency (cosine);
/// # gravity-time-constant, min-duration, min-swing, max-swing, max-gap, quiet-time (s)
/// ```
public struct MotionSettings: Equatable {
  /// How samples are captured.
  public enum Capture: String, Equatable, CaseIterable {
    /// Buffered with the sensor's trigger when it has one, else polled.
    case auto
    /// Buffered only (a sensor without a trigger is not used).
    case buffered
    /// Polled sysfs reads on a timer.
    case polled
  }

  public var enabled = true
  public var samplingRate = 50.0
  public var capture = Capture.auto
  public var rotation = ScreenRotation.normal
  public var device = ""
  public var shake = ShakeSettings()

  public init() {}

  init(_ section: ConfigSection) throws {
    enabled = try section.bool("enabled", default: enabled)
    samplingRate = try section.double("sampling-rate", default: samplingRate, range: 1...4000)
    let captureName = try section.string(
      "capture", default: capture.rawValue, allowed: Capture.allCases.map(\.rawValue))
    capture = Capture(rawValue: captureName) ?? .auto
    let rotationName = try section.string(
      "rotation", default: rotation.name, allowed: ScreenRotation.allCases.map(\.name))
    rotation = ScreenRotation(name: rotationName) ?? .normal
    device = try section.string("device", default: device)
    shake = try Self.shakeSettings(try section.section("shake"))
    try section.finish()
  }

  static func shakeSettings(_ section: ConfigSection) throws -> ShakeSettings {
    let level = try section.string(
      "sensitivity", default: ShakeSettings.Sensitivity.medium.rawValue,
      allowed: ShakeSettings.Sensitivity.allCases.map(\.rawValue))
    var shake = ShakeSettings(sensitivity: ShakeSettings.Sensitivity(rawValue: level) ?? .medium)
    let g = 0.01...16.0
    shake.threshold = try section.double("threshold", default: shake.threshold, range: g)
    shake.sustainThreshold = try section.double(
      "sustain-threshold", default: shake.sustainThreshold, range: g)
    shake.activityThreshold = try section.double(
      "activity-threshold", default: shake.activityThreshold, range: g)
    shake.gravityTimeConstant = try section.seconds(
      "gravity-time-constant", default: shake.gravityTimeConstant)
    shake.minimumDuration = try section.seconds("min-duration", default: shake.minimumDuration)
    shake.minimumSwing = try section.seconds("min-swing", default: shake.minimumSwing)
    shake.maximumSwing = try section.seconds("max-swing", default: shake.maximumSwing)
    shake.maximumGap = try section.seconds("max-gap", default: shake.maximumGap)
    shake.minimumDuty = try section.double("min-duty", default: shake.minimumDuty, range: 0...1)
    shake.minimumSwingDuty = try section.double(
      "min-swing-duty", default: shake.minimumSwingDuty, range: 0...1)
    shake.axisConsistency = try section.double(
      "axis-consistency", default: shake.axisConsistency, range: -1...1)
    shake.quietTime = try section.seconds("quiet-time", default: shake.quietTime)
    shake.maximumDuration = try section.seconds("max-duration", default: shake.maximumDuration)
    try section.finish()
    if let problem = shake.problems.first {
      let key = problem.split(separator: " ").first.map(String.init) ?? ""
      throw section.error(section.contains(key) ? key : "", "[\(section.path)] \(problem)")
    }
    return shake
  }
}
