import EventTime

/// Why a burst of vigorous motion was not taken for a shake (for tools that show the detector's
/// reasoning; the daemon does not ask).
public enum ShakeRejection: String, Equatable, Sendable, CaseIterable {
  /// Short jolts with little in between (steps, heel strikes, bumps): the acceleration was high for
  /// too small a part of the swings (a low duty cycle).
  case impulses
  /// The swings did not go along one direction: at a swing's peak, too little of the motion lay
  /// along the shake's direction.
  case axis
  /// The swings were not alike in length: jolts at odd moments, or a step felt at the thigh (a slow
  /// turn through gravity, then a heel strike and its rebound), not a rhythm.
  case rhythm
  /// A swing took too long to turn back: slower than any shake (a sway, a turn, a stride).
  case slow
  /// A pause in the middle: the motion stopped for longer than a shake's turn-around.
  case pause
  /// Back-and-forth, but it stopped before `minimumDuration`.
  case brief
  /// Vigorous motion had gone on, unbroken, for longer than a shake may last (`maximumDuration`)
  /// before it looked like one: steady motion, such as a thigh's while walking, not a shake
  /// beginning.
  case long
  /// The device fell freely a moment before (the acceleration, gravity included, near nothing for
  /// a while), or the motion was a body's bounce (mostly along gravity, never pulled down much
  /// harder than gravity, the jolts up sharper than the dips): the flights and landings of running
  /// steps or hops, or a fall, not a hand's shake (a hand holds the device up all along, and pulls
  /// it down as hard as it pushes it up).
  case bounce
  /// Fewer than four swings in a row reached `threshold`: a single stroke (a push, a brake and a
  /// rebound, three at most) or a step (a heel strike and its rebound), not a shake.
  case weak
}

/// A stretch of vigorous motion the detector turned down, and why.
public struct ShakeRejectionNote: Equatable, Sendable {
  public var reason: ShakeRejection
  /// When the stretch began and when it was turned down (seconds on the samples' clock).
  public var start: Seconds
  public var time: Seconds
}

extension ShakeRejection {
  /// Whether this is `.weak` (matched, not compared with `==`: see `PlainMath`).
  var isWeak: Bool {
    if case .weak = self { return true }
    return false
  }
}
