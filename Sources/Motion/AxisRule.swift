/// Turns down swings that do not go along one direction (`ShakeRejection.axis`): at a swing's
/// peak, less than `ShakeSettings.axisConsistency` (a cosine) of the dynamic acceleration lay along
/// the direction followed, as when the device is turned or tumbles rather than shaken.
enum AxisRule {
  /// Whether a swing whose peak along the direction is `peak`, the square of the whole dynamic
  /// acceleration there `magnitudeSquared`, went along the direction: the cosine of the angle
  /// between the two at least `cosine`, compared squared (no square root: see `PlainMath`).
  static func holds(peak: Double, magnitudeSquared: Double, cosine: Double) -> Bool {
    cosine <= 0 || peak * peak >= cosine * cosine * magnitudeSquared
  }
}
