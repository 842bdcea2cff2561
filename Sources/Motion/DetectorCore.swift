import EventTime
import ResponderCore

/// The per-sample part of the detector: the gravity estimate, the principal axis, the rules on the
/// whole motion (`FreeFallRule`, `BounceRule`) and the swings along the four directions.
///
/// It is on the hot path, and kept cheap by rules that hold in every file it uses: constant work
/// per sample and no allocation (the swings and extremes are rings kept inline); no call the
/// optimizer cannot see through (no C maths: `PlainMath`; rejection reasons matched, not compared
/// with `==`), so that the compiler proves the one access a sample makes to the detector's state
/// exclusive and no run-time check is left (`packaging/test-package` checks the release build for
/// both); inline rings read only in mutating methods (see `SwingTrack.judgement`); and the settings
/// read from a local copy (`SwingLimits`).
struct DetectorCore {
  /// What one sample did: a shake began (the time it started), the sample kept a shake under way
  /// going, a burst of motion was turned down.
  struct Step {
    var began: Seconds?
    var keptGoing = false
    var note: ShakeRejectionNote?
  }

  let settings: ShakeSettings
  let limits: SwingLimits
  /// 1 / `settings.gravityTimeConstant`, 1 / `ShakeRules.steadyGravityTime`.
  private let gravityRate: Double
  private let steadyGravityRate: Double
  /// Under the activity level's square by a margin (1 %) far wider than the axis's error in length
  /// and the rounding: a dynamic acceleration whose square is under it reaches the activity level
  /// along no direction.
  private let quietSquared: Double
  /// `limits.sustain`².
  private let sustainSquared: Double
  private var freeFall = FreeFallRule()
  private var bounce = BounceRule()
  /// The last sample at which anything moved (not a quiet sample).
  private var lastBusy: Seconds = -.infinity
  /// The last interval between samples, and the gravity filters' weights for it.
  private var lastInterval: Seconds = 0
  private var lastWeight = 0.0
  private var steadyWeight = 0.0
  /// Whether a sample was taken (the first one is gravity), and the last one's time.
  var hasGravity = false
  var lastTime: Seconds = 0
  var gravity: Vector3 = .zero
  /// Gravity estimated over `ShakeRules.steadyGravityTime` (a big slow shake tilts the detector's
  /// own estimate far enough to look upright).
  private var steadyGravity: Vector3 = .zero
  var dynamic: Vector3 = .zero
  private var principal = PrincipalAxis()
  /// The dynamic acceleration of the last sample when it was quiet for certain (see `step`): its
  /// value along the principal axis is still to be worked out.
  private var quietDynamic: Vector3?
  /// Swings along the principal axis and the device's x, y and z axes.
  private var principalTrack = SwingTrack()
  private var xTrack = SwingTrack()
  private var yTrack = SwingTrack()
  private var zTrack = SwingTrack()

  init(settings: ShakeSettings) {
    self.settings = settings
    limits = SwingLimits(settings)
    gravityRate = 1 / settings.gravityTimeConstant
    steadyGravityRate = 1 / settings.rules.steadyGravityTime
    quietSquared = 0.99 * limits.active * limits.active
    sustainSquared = limits.sustainSquared
  }

  mutating func step(_ a: Vector3, at t: Seconds, phase: DetectorPhase) -> Step {
    // The dynamic part is measured against the gravity estimated before this sample, which is
    // then updated with it: at low rates the sample would otherwise weigh on its own gravity.
    if !hasGravity {
      gravity = a
      steadyGravity = a
      hasGravity = true
      lastTime = t
    }
    let a2 = a.dot(a)
    let falling = bounce.take(magnitudeSquared: a2, vertical: a.dot(gravity), at: t)
    freeFall.take(magnitudeSquared: a2, at: t, previous: lastTime)
    let d = a - gravity
    let m2 = d.dot(d)
    let sampleGravity = gravity
    dynamic = d
    // Quiet for certain: no swing under way, and the dynamic acceleration too weak to reach the
    // activity level along any direction. Such a sample's value along the principal axis is worked
    // out only when a later sample needs it, with the axis of its own time (before this sample
    // moves it).
    let surelyQuiet =
      principalTrack.isEmpty && xTrack.isEmpty && yTrack.isEmpty && zTrack.isEmpty && m2 < quietSquared
    if !surelyQuiet, let pending = quietDynamic {
      principalTrack.lastValue = pending.dot(principal.current())
      quietDynamic = nil
    }
    let dt = t - lastTime
    if dt > 0 {
      // (Samples mostly come at a steady rate: the weights of the last interval are kept while the
      // interval stays within a thousandth of it, timestamps' jitter; the weights, and the filters'
      // time constants, are then off by a thousandth at most.)
      if abs(dt - lastInterval) > 1e-3 * dt {
        lastInterval = dt
        lastWeight = PlainMath.lowPassWeight(dt * gravityRate)
        steadyWeight = PlainMath.lowPassWeight(dt * steadyGravityRate)
      }
      let weight = lastWeight
      gravity = gravity + d * weight
      steadyGravity = steadyGravity + (a - steadyGravity) * steadyWeight
      principal.update(d, weight: weight, at: t)
    }
    if surelyQuiet {
      quietDynamic = d
      return quiet(d, magnitudeSquared: m2, at: t, phase: phase)
    }
    let along = d.dot(principal.current())
    if principalTrack.isEmpty, xTrack.isEmpty, yTrack.isEmpty, zTrack.isEmpty,
      max(abs(along), abs(d.x), abs(d.y), abs(d.z)) < limits.active
    {
      // Quiet, and no swing under way: nothing to follow but the values.
      principalTrack.lastValue = along
      return quiet(d, magnitudeSquared: m2, at: t, phase: phase)
    }
    return followSwings(
      d, along: along, magnitudeSquared: m2, sampleGravity: sampleGravity, falling: falling, at: t, dt: dt,
      phase: phase)
  }

  /// The end of a quiet sample's step: each axis keeps its value (a swing that starts at the next
  /// sample is measured from it), and the sample may keep a waiting shake going.
  @inline(__always) private mutating func quiet(
    _ d: Vector3, magnitudeSquared m2: Double, at t: Seconds, phase: DetectorPhase
  ) -> Step {
    xTrack.lastValue = d.x
    yTrack.lastValue = d.y
    zTrack.lastValue = d.z
    lastTime = t
    var result = Step()
    if phase == .waiting, m2 >= sustainSquared { result.keptGoing = true }
    return result
  }

  /// The part of a sample that follows the swings (the rest of `step`, when something moves): a
  /// call of its own, so that the quiet samples' part keeps its values in registers.
  @inline(never) private mutating func followSwings(
    _ d: Vector3, along: Double, magnitudeSquared m2: Double, sampleGravity: Vector3, falling: Bool,
    at t: Seconds, dt: Seconds, phase: DetectorPhase
  ) -> Step {
    var result = Step()
    // (A local copy: the directions read it in place, not a copy each from the state they change.)
    let limits = self.limits
    // (Whether the dynamic acceleration lies along gravity, the estimate it was measured against.)
    let alongGravity = d.dot(sampleGravity)
    let upright =
      alongGravity * alongGravity >= PushRule.uprightShare * m2 * sampleGravity.dot(sampleGravity)
    let sample = SampleFacts(
      t: t, dt: dt, magnitudeSquared: m2, lastBusy: lastBusy, falling: falling, upright: upright,
      phase: phase, bouncing: freeFall.holds(at: t))
    // (Notes come from the principal axis alone: one per stretch of motion.)
    result.note = Self.follow(&principalTrack, along, sample, limits, &result)
    _ = Self.follow(&xTrack, d.x, sample, limits, &result)
    _ = Self.follow(&yTrack, d.y, sample, limits, &result)
    _ = Self.follow(&zTrack, d.z, sample, limits, &result)
    if phase == .waiting, m2 >= sustainSquared { result.keptGoing = true }
    if result.began != nil,
      bounce.holds(
        at: t, gravity: gravity, steadyGravity: steadyGravity, moments: principal.moments,
        rules: settings.rules)
    {
      result.began = nil
      eachTrack { $0.vetoBegin(.bounce, at: t, limits: limits) }
    }
    if result.began != nil {
      // What is under way now is the shake: none of it is reported as turned down.
      eachTrack { $0.reportable = false }
    }
    lastBusy = t
    lastTime = t
    return result
  }

  /// One direction's part of a sample. A direction with no swing under way and a value under the
  /// activity level has nothing to do but keep the value.
  @inline(__always) private static func follow(
    _ track: inout SwingTrack, _ value: Double, _ sample: SampleFacts, _ limits: SwingLimits,
    _ result: inout Step
  ) -> ShakeRejectionNote? {
    guard !track.isEmpty || abs(value) >= limits.active else {
      track.lastValue = value
      return nil
    }
    return track.follow(value, sample, limits: limits, began: &result.began, keptGoing: &result.keptGoing)
  }

  mutating func clearTracks() { eachTrack { $0.clear() } }

  /// Does the same to the swings along each of the four directions.
  private mutating func eachTrack(_ body: (inout SwingTrack) -> Void) {
    body(&principalTrack)
    body(&xTrack)
    body(&yTrack)
    body(&zTrack)
  }

  mutating func reset() {
    hasGravity = false
    gravity = .zero
    steadyGravity = .zero
    dynamic = .zero
    principal = PrincipalAxis()
    quietDynamic = nil
    freeFall.reset()
    bounce.reset()
    lastBusy = -.infinity
    clearTracks()
  }
}

/// What a sample says alike for each direction it is followed along (`SwingTrack.follow`'s terms):
/// its time and the interval before it, the square of its dynamic acceleration, the last sample
/// at which anything moved, whether it dropped toward free fall (`BounceRule.fallingLevel`) and
/// went along gravity (`PushRule.uprightShare`), where the detector is, and whether a free fall
/// turns a shake down now (`FreeFallRule`).
struct SampleFacts {
  var t: Seconds
  var dt: Seconds
  var magnitudeSquared: Double
  var lastBusy: Seconds
  var falling: Bool
  var upright: Bool
  var phase: DetectorPhase
  var bouncing: Bool
}
