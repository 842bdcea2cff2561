import EventTime
import ResponderCore

/// Turns down a shake that would begin soon after the device fell freely (`ShakeRejection.bounce`):
/// running, hopping and falling throw the device into the air, a hand shaking it never lets go of
/// it.
///
/// A free fall is the acceleration, gravity included, under `level` g for at least `minimum`; a
/// shake does not begin within `memory` after one. A flight lasts 0.05–0.3 s at a running step or
/// a hop (though not at every one); an up-and-down shake of 2 g passes through free fall in
/// 20–40 ms.
struct FreeFallRule {
  static let level = 0.3
  static let minimum: Seconds = 0.08
  /// At low rates a single sample in free fall stands for no more than this: the interval at
  /// 25 Hz, so that one sample alone is never a flight, and two in a row at 25 Hz or below are.
  static let step: Seconds = 0.04
  static let memory: Seconds = 4

  /// (`level` in m/s²)².
  private let levelSquared = (FreeFallRule.level * standardGravity) * (FreeFallRule.level * standardGravity)
  /// How long the free fall under way has lasted (each of its samples standing for the interval
  /// before it, at most `step`), and when the last one long enough was (−∞: none yet).
  private var fallTime: Seconds = 0
  private var lastFall: Seconds = -.infinity

  /// Takes a sample whose acceleration, gravity included, has the square `magnitudeSquared`, at
  /// `t`, the previous one at `previous`.
  mutating func take(magnitudeSquared: Double, at t: Seconds, previous: Seconds) {
    if magnitudeSquared < levelSquared {
      fallTime += min(t - previous, FreeFallRule.step)
      if fallTime >= FreeFallRule.minimum { lastFall = t }
    } else {
      fallTime = 0
    }
  }

  /// Whether a free fall was recent enough at `t` to turn a shake down.
  func holds(at t: Seconds) -> Bool { t - lastFall <= FreeFallRule.memory }

  mutating func reset() {
    fallTime = 0
    lastFall = -.infinity
  }
}
