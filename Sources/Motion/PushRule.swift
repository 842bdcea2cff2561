import EventTime

/// Lets a shake from rest begin sooner, and rejects nothing itself: it relaxes the other rules for
/// a hand's first and newest swings, and not for motion that is no hand's.
///
/// A chain of swings that begins after the whole device was at rest for `restBefore` starts with
/// a push: the hand's first swing, from rest, is weaker and shorter (or, winding up, longer) than
/// the rest, so it needs only `relaxedFactor` times `threshold`, its strength is not counted in the
/// duty, and its length not in the rhythm; unless a swing of the four peaked in a drop toward free
/// fall (the acceleration, gravity included, under `BounceRule.fallingLevel`): a hop's launch and
/// flight, not a hand's push and brake. And the newest swing of four counts from `relaxedFactor`
/// times `threshold` (a shake begins within it, not at its peak), unless it goes along gravity
/// (`uprightShare` of its dynamic acceleration's square at its peak: a landing or a flight); then
/// `threshold` itself. Neither holds when the three finished swings all went along gravity (a
/// body's bounce, steps or hops, up and down), or when one of the four rattled: a hand's swing is
/// one smooth stroke; a jolt (a sensor knocked, grabbed or dropped into place) rings, the value
/// flying back past `threshold` the other way within one swing sooner than any hand turns.
enum PushRule {
  static let restBefore: Seconds = 0.5
  static let relaxedFactor = 0.75
  static let uprightShare = 0.8
}
