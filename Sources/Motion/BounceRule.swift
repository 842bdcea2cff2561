import EventTime
import ResponderCore

/// Turns down a shake that would begin in or soon after a body's bounce (`ShakeRejection.bounce`):
/// the flights and landings of running steps, hops and steps down stairs, which go mostly along
/// gravity and never pull the device down much harder than gravity would, where a hand pulls it
/// down as hard as it pushes it up. No shake begins within `memory` of such motion. The constants
/// of its two forms are in `ShakeRules`.
struct BounceRule {
  static let memory: Seconds = 2
  /// The extremes of the acceleration along gravity are kept per this part of a second.
  static let quarter: Seconds = 0.25
  /// A drop toward free fall: the acceleration, gravity included, under this (g).
  static let fallingLevel = 0.5

  /// (`fallingLevel` in m/s²)².
  private let fallingSquared =
    (BounceRule.fallingLevel * standardGravity) * (BounceRule.fallingLevel * standardGravity)
  /// The acceleration along gravity (a·g, gravity included): its least and greatest values in each
  /// quarter of the last second, a ring (`current` the quarter under way, ending at `currentEnd`).
  /// The quarter under way keeps its extremes in `low` and `high`, written to the ring when it ends
  /// or is read: a sample then touches no element of the ring.
  private var lows = InlineArray<4, Double>(repeating: 0)
  private var highs = InlineArray<4, Double>(repeating: 0)
  private var low = 0.0
  private var high = 0.0
  private var current = 0
  private var currentEnd: Seconds = -.infinity
  /// The last bounce found, and the last sample that dropped toward free fall (−∞: none yet).
  private var lastBounce: Seconds = -.infinity
  private var lastFalling: Seconds = -.infinity

  /// Takes a sample at `t`: the square of its acceleration, gravity included, and that
  /// acceleration along gravity (`vertical`, a·g). Returns whether it dropped toward free fall.
  @inline(__always) mutating func take(magnitudeSquared: Double, vertical: Double, at t: Seconds) -> Bool {
    let falling = magnitudeSquared < fallingSquared
    if falling { lastFalling = t }
    if t >= currentEnd {
      endQuarter(at: t)
      low = vertical
      high = vertical
    } else {
      low = min(low, vertical)
      high = max(high, vertical)
    }
    return falling
  }

  /// Writes the quarter under way to the ring, and begins the next (rarely: a call of its own).
  @inline(never) private mutating func endQuarter(at t: Seconds) {
    lows[current] = low
    highs[current] = high
    current = (current &+ 1) & 3
    currentEnd =
      currentEnd + BounceRule.quarter > t ? currentEnd + BounceRule.quarter : t + BounceRule.quarter
  }

  /// Whether the recent motion is, or was within `memory`, a bounce, with the gravity estimates
  /// and the recent dynamic acceleration's second moments as they are after the sample at `t`.
  mutating func holds(
    at t: Seconds, gravity: Vector3, steadyGravity: Vector3, moments: Moments, rules: ShakeRules
  ) -> Bool {
    if bounceLike(at: t, gravity: gravity, steadyGravity: steadyGravity, moments: moments, rules: rules) {
      lastBounce = t
      return true
    }
    return t - lastBounce <= BounceRule.memory
  }

  /// A lopsided bounce (hops, running steps): mostly along gravity, never pulled down much harder
  /// than gravity (the least acceleration along gravity above `rules.bounceFloor`), the jolts up
  /// (landings) reaching further above gravity than the dips below it. Or a steady one (below).
  /// (`mutating` only to read the extremes in place: see `SwingTrack.judgement`.)
  private mutating func bounceLike(
    at t: Seconds, gravity: Vector3, steadyGravity: Vector3, moments: Moments, rules: ShakeRules
  ) -> Bool {
    let g2 = gravity.dot(gravity)
    let trace = moments.xx + moments.yy + moments.zz
    guard g2 > 0, trace > 0 else { return false }
    let alongGravity = moments.quadratic(gravity)
    let steady2 = steadyGravity.dot(steadyGravity)
    let steadyUpright = moments.quadratic(steadyGravity) >= rules.steadyBounceShare * steady2 * trace
    if !steadyUpright, alongGravity < rules.bounceVerticalShare * g2 * trace { return false }
    lows[current] = self.low
    highs[current] = self.high
    var low = lows[0]
    var high = highs[0]
    for index in 1..<4 {
      low = min(low, lows[index])
      high = max(high, highs[index])
    }
    let inverseLength = PlainMath.inverseSquareRoot(g2)
    let length = g2 * inverseLength
    low *= inverseLength
    high *= inverseLength
    // A steady bounce: steps or hops that drop the device toward free fall but never pull it down
    // much past it, whatever the jolts up (running down stairs at the waist: landings no sharper
    // than the dips between them). A hand shaking the device up and down pulls it further; one
    // shaking it sideways or diagonally never drops it toward free fall.
    if steadyUpright, low >= rules.steadyBounceFloor * standardGravity,
      t - lastFalling <= rules.steadyBounceDrop
    {
      return true
    }
    if alongGravity < rules.bounceVerticalShare * g2 * trace { return false }
    if low < rules.bounceFloor * standardGravity { return false }
    return high - length >= rules.bounceLopsidedness * (length - low)
  }

  mutating func reset() {
    // (Element by element: `InlineArray(repeating:)` is a call the optimizer cannot see through,
    // which would bring back the run-time exclusivity check; see `PlainMath`.)
    for index in 0..<4 {
      lows[index] = 0
      highs[index] = 0
    }
    low = 0
    high = 0
    current = 0
    currentEnd = -.infinity
    lastBounce = -.infinity
    lastFalling = -.infinity
  }
}
