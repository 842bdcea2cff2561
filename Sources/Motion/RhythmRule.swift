import EventTime

/// Turns down swings of unlike lengths (`ShakeRejection.rhythm`): jolts while a device is handled
/// come at odd moments, and a step felt at the thigh is a slow turn through gravity, then a heel
/// strike and its rebound.
///
/// Among a shake's swings the longest lasts at most `maximumRatio` times the shortest. A violent
/// shake, every swing at least `violentFactor` times `threshold`, may keep a looser rhythm (a hand
/// shaking hard flails): up to `violentRatio`. A step's slow turn through gravity never reaches
/// twice the threshold.
enum RhythmRule {
  static let maximumRatio = 1.8
  static let violentFactor = 2.0
  static let violentRatio = 3.0

  /// Whether swings whose lengths range from `shortest` to `longest` are out of rhythm.
  static func fails(shortest: Seconds, longest: Seconds, violent: Bool) -> Bool {
    longest > (violent ? violentRatio : maximumRatio) * shortest
  }
}
