import EventTime

/// Turns down short jolts with little in between (`ShakeRejection.impulses`): steps, heel strikes
/// and bumps are high for a moment, a hand's shake is a sustained oscillation.
///
/// Each finished swing must be at or above the sustain level for `ShakeSettings.minimumSwingDuty`
/// of its time, and the finished swings together for `ShakeSettings.minimumDuty` of theirs (a sine
/// shake: 2/3 at 1.5 g, 5/6 at 3 g; steps: a tenth to a quarter).
enum DutyRule {
  /// Whether a finished swing whose `duty` (`Swing.duty`) is this was too weak.
  static func swingFails(duty: Double, minimum: Double) -> Bool { duty < minimum }

  /// Whether swings that lasted `held` together, `strong` of it at the sustain level, were too weak.
  static func chainFails(held: Seconds, strong: Seconds, minimum: Double) -> Bool {
    strong < minimum * held
  }
}
