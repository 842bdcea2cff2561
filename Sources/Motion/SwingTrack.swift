import EventTime

extension ShakeRejection {
  /// Whether this is `.weak` (matched, not compared with `==`: see `PlainMath`).
  var isWeak: Bool {
    if case .weak = self { return true }
    return false
  }
}

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
  /// Whether at its peak the acceleration, gravity included, was under `ShakeDetector.fallingLevel`.
  var peakFalling: Bool
  /// Whether at its peak the dynamic acceleration went along gravity (`ShakeDetector.uprightShare`).
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

  static let none = Swing(
    positive: false, peak: 0, peakMagnitudeSquared: 0, peakFalling: false, peakUpright: false, start: 0,
    lastActive: 0)

  var duty: Double { heldTime > 0 ? strongTime / heldTime : 0 }

  /// Whether at the peak at least a share `cosine` of the dynamic acceleration lay along the
  /// direction (the cosine of the angle between the two at least `cosine`), compared squared: no
  /// square root (see `PlainMath`).
  func peakAlong(_ cosine: Double) -> Bool {
    cosine <= 0 || peak * peak >= cosine * cosine * peakMagnitudeSquared
  }

  mutating func addTime(_ time: Seconds, strong: Bool) {
    heldTime += time
    if strong { strongTime += time }
  }
}

/// The swings back and forth of the dynamic acceleration along one direction (a device axis, or
/// the direction the device moves most along): the last `ShakeDetector.shakeSwings` swings of the
/// chain under way, which a pause or a swing slower than a shake's breaks.
///
/// Constant work per sample and no allocation: the swings are a ring of fixed capacity kept inline,
/// and what the finished swings say about a shake is worked out once per swing, not per sample.
struct SwingTrack {
  /// The chain's last swings, a ring: `count` of them from `head`, oldest first.
  private var ring = InlineArray<4, Swing>(repeating: .none)
  private var head = 0
  private(set) var count = 0
  /// How many of the chain's swings so far reached the vigorous level.
  private(set) var vigorousCount = 0
  /// When the chain began, and whether it reached the sustain level (vigorous motion, worth a
  /// note when it is turned down).
  private(set) var chainStart: Seconds = 0
  private(set) var notable = false
  /// When the chain's first swing to reach the vigorous level began (nil: none yet): where a shake
  /// the chain becomes starts.
  private(set) var vigorousStart: Seconds?
  /// Whether a break of the chain is worth a rejection note (it began while no shake was under
  /// way, and did not become one).
  var reportable = false
  /// Why the chain's swings, when there were enough of them, were not a shake (nil: never checked).
  var lastFailure: ShakeRejection?
  /// The value along the direction at the previous sample (m/s²).
  var lastValue = 0.0
  /// Whether the chain began with the whole device at rest for `ShakeDetector.restBeforeShake`.
  private var startedFromRest = false
  /// Whether the swing under way was counted in `vigorousCount`.
  private var currentCounted = false
  /// What the swings say about a shake regardless of the time (nil: a shake, once it has lasted),
  /// valid while `judged`: worked out again only when a swing begins or the last one's peak grows.
  private var verdict: ShakeRejection? = .weak
  private var judged = false

  init() {}

  var isEmpty: Bool { count == 0 }

  private var lastIndex: Int { (head &+ count &- 1) & 3 }

  private mutating func append(_ swing: Swing) {
    if count < ShakeDetector.shakeSwings {
      ring[(head &+ count) & 3] = swing
      count += 1
    } else {
      ring[head] = swing
      head = (head &+ 1) & 3
    }
    judged = false
  }

  /// This direction's part of a sample: its swings (`add`), and whether they begin a shake (the
  /// time it starts, into `began` when nothing began yet) or keep one going (`keptGoing`). Returns
  /// the note of a burst of motion it turned down. (A call of its own: inlined into the sample's
  /// work four times over, once per direction, it made a sample a fifth dearer.)
  @inline(never) mutating func follow(
    _ value: Double, _ sample: SampleFacts, phase: DetectorPhase, bouncing: Bool, limits: SwingLimits,
    began: inout Seconds?, keptGoing: inout Bool
  ) -> ShakeRejectionNote? {
    let t = sample.t
    let note = add(
      value, magnitudeSquared: sample.magnitudeSquared, at: t, dt: sample.dt, lastBusy: sample.lastBusy,
      falling: sample.falling, upright: sample.upright, reportNew: phase == .idle, limits: limits)
    if phase == .idle {
      if began == nil, !isEmpty {
        var problem = shakeProblem(at: t, limits: limits)
        if problem == nil, bouncing { problem = .bounce }
        if problem == nil {
          began = vigorousStart ?? chainStart
        } else if let problem, !problem.isWeak {
          lastFailure = problem
        }
      }
    } else if phase == .shaking, abs(value) >= limits.sustain, keepsShaking(limits: limits) {
      keptGoing = true
    }
    return note
  }

  /// Takes a sample whose dynamic acceleration along the direction is `value` (the square of its
  /// whole dynamic acceleration's length `magnitudeSquared`), `dt` after the previous one. Returns
  /// the note of a chain it broke that is worth one. `lastBusy` is the last sample at which anything
  /// moved (a chain that begins `ShakeDetector.restBeforeShake` after it starts from rest);
  /// `falling` and `upright` say whether the sample dropped toward free fall and whether its motion
  /// went along gravity (kept at a swing's peak); `reportNew`, whether a chain it begins may be
  /// reported when it breaks (no shake under way).
  @inline(__always) private mutating func add(
    _ value: Double, magnitudeSquared: Double, at t: Seconds, dt: Seconds, lastBusy: Seconds,
    falling: Bool, upright: Bool, reportNew: Bool, limits: SwingLimits
  ) -> ShakeRejectionNote? {
    var note: ShakeRejectionNote?
    if count > 0 {
      // Each sample stands for the time half-way to its neighbours.
      if dt > 0 { ring[lastIndex].addTime(0.5 * dt, strong: abs(lastValue) >= limits.sustain) }
      let index = lastIndex
      if t - ring[index].lastActive > limits.maximumGap {
        note = breakChain(.pause, at: t)
      } else if t - ring[index].start > limits.maximumSwing {
        note = breakChain(.slow, at: t)
      }
    }
    let m = abs(value)
    if m >= limits.active {
      let positive = value > 0
      if count > 0 {
        let index = lastIndex
        if ring[index].positive == positive {
          if m > ring[index].peak {
            ring[index].peak = m
            ring[index].peakMagnitudeSquared = magnitudeSquared
            ring[index].peakFalling = falling
            ring[index].peakUpright = upright
            judged = false
          }
          ring[index].lastActive = t
          noteVigorous(m, limits)
        } else {
          let crossing = crossingTime(value, at: t, dt: dt, limits: limits)
          if crossing - ring[index].start >= limits.minimumSwing {
            // A reversal.
            append(
              Swing(
                positive: positive, peak: m, peakMagnitudeSquared: magnitudeSquared, peakFalling: falling,
                peakUpright: upright,
                start: crossing, lastActive: t))
            currentCounted = false
            noteVigorous(m, limits)
          } else if m >= limits.vigorous, !ring[index].rattled {
            // (A reversal faster than any shake's is ringing or vibration, left out; one past the
            // vigorous level is a jolt's rattle.)
            ring[index].rattled = true
            judged = false
          }
        }
      } else {
        append(
          Swing(
            positive: positive, peak: m, peakMagnitudeSquared: magnitudeSquared, peakFalling: falling,
            peakUpright: upright,
            start: crossingTime(value, at: t, dt: dt, limits: limits), lastActive: t))
        vigorousCount = 0
        vigorousStart = nil
        currentCounted = false
        chainStart = ring[lastIndex].start
        startedFromRest = chainStart - lastBusy >= ShakeDetector.restBeforeShake
        notable = false
        lastFailure = nil
        reportable = reportNew
        noteVigorous(m, limits)
      }
      if m >= limits.sustain { notable = true }
    }
    if dt > 0, count > 0 { ring[lastIndex].addTime(0.5 * dt, strong: m >= limits.sustain) }
    lastValue = value
    return note
  }

  /// Where the value crossed the activity level on its way to `value` at `t` (linear between the
  /// samples).
  private func crossingTime(_ value: Double, at t: Seconds, dt: Seconds, limits: SwingLimits)
    -> Seconds
  {
    guard dt > 0, value != lastValue else { return t }
    let level = value > 0 ? limits.active : -limits.active
    return t - dt * (1 - min(1, max(0, (level - lastValue) / (value - lastValue))))
  }

  private mutating func noteVigorous(_ m: Double, _ limits: SwingLimits) {
    if !currentCounted, m >= limits.vigorous {
      currentCounted = true
      vigorousCount += 1
      if vigorousStart == nil { vigorousStart = ring[lastIndex].start }
    }
  }

  /// Why the chain's last swings are not (yet) a shake at `t`, or nil when they are one: at least
  /// `shakeSwings` swings in a row, every one reaching the vigorous level with its peak along the
  /// direction (`axisConsistency`), strong for `minimumDuty` of the finished ones' time, alike in
  /// length (`ShakeDetector.maximumRhythmRatio`), under way for `minimumDuration`.
  mutating func shakeProblem(at t: Seconds, limits: SwingLimits)
    -> ShakeRejection?
  {
    if !judged {
      verdict = judgement(limits: limits)
      judged = true
    }
    if let verdict { return verdict }
    if t - ring[head].start < limits.minimumDuration { return .brief }
    // Vigorous motion that went on, unbroken, for longer than a shake may last before it looked like
    // one (a thigh's swings while walking) is not a shake beginning now.
    if let start = vigorousStart, t - start > limits.maximumDuration { return .long }
    return nil
  }

  /// What the swings say, whatever the time: the part of `shakeProblem` that changes only when a
  /// swing begins or the last one's peak grows (the finished swings' times no longer change).
  /// (`mutating` though it changes nothing, as `keepsShaking`: read through a non-mutating method,
  /// an element of the ring copies the whole ring first, and the track with it.)
  private mutating func judgement(limits: SwingLimits) -> ShakeRejection? {
    guard count == ShakeDetector.shakeSwings else { return .weak }
    // A hand shaking from rest begins with a push alone: a swing weaker and shorter (or, winding
    // up, longer) than the rest; and a shake begins within its newest swing. Not for a jolt's
    // rattle, a body's bounce or a flight (see `ShakeDetector.restBeforeShake`).
    var rattled = false
    var bouncing = true
    var falling = false
    for index in 0..<count {
      let slot = (head &+ index) & 3
      if ring[slot].rattled { rattled = true }
      if index < count - 1, !ring[slot].peakUpright { bouncing = false }
      if ring[slot].peakFalling { falling = true }
    }
    let relaxed = !rattled && !bouncing
    let fromRest = relaxed && !falling && startedFromRest && ring[head].start == chainStart
    var held: Seconds = 0
    var strong: Seconds = 0
    var violent = true
    for index in 0..<count {
      let slot = (head &+ index) & 3
      let peak = ring[slot].peak
      let push = fromRest && index == 0
      // (The newest swing counts from `relaxedSwingFactor` of the level: a shake begins within it.)
      let level =
        push || (relaxed && index == count - 1 && !ring[slot].peakUpright)
        ? ShakeDetector.relaxedSwingFactor : 1
      if peak < level * limits.vigorous { return .weak }
      if !ring[slot].peakAlong(limits.axisConsistency) { return .axis }
      if index < count - 1, !push {
        held += ring[slot].heldTime
        strong += ring[slot].strongTime
        if ring[slot].duty < limits.minimumSwingDuty { return .impulses }
      }
      if !push, peak < ShakeDetector.violentShakeFactor * limits.vigorous { violent = false }
    }
    if strong < limits.minimumDuty * held { return .impulses }
    // A shake's swings are alike in length (a rhythm); jolts and steps come at odd moments. Only
    // a violent shake may keep a looser rhythm.
    var shortest = Seconds.infinity
    var longest: Seconds = 0
    for index in (fromRest ? 2 : 1)..<count {
      let length = ring[(head &+ index) & 3].start - ring[(head &+ index &- 1) & 3].start
      shortest = min(shortest, length)
      longest = max(longest, length)
    }
    let ratio = violent ? ShakeDetector.violentRhythmRatio : ShakeDetector.maximumRhythmRatio
    if longest > ratio * shortest { return .rhythm }
    return nil
  }

  /// A shake these swings would begin was vetoed for `reason` (a property of the whole motion).
  mutating func vetoBegin(
    _ reason: ShakeRejection, at t: Seconds, limits: SwingLimits
  ) {
    if !isEmpty, shakeProblem(at: t, limits: limits) == nil { lastFailure = reason }
  }

  /// Whether the chain is still a shake's: it turned back at least once, the last finished swing
  /// was strong for `minimumSwingDuty` of its time, and the one under way so far.
  mutating func keepsShaking(limits: SwingLimits) -> Bool {
    guard count >= 2 else { return false }
    let current = lastIndex
    return ring[(current + 3) & 3].duty >= limits.minimumSwingDuty
      && ring[current].strongTime >= limits.minimumSwingDuty * ring[current].heldTime
  }

  /// Forgets the chain; a note says why it was not a shake when it was reportable and vigorous.
  mutating func breakChain(_ reason: ShakeRejection, at t: Seconds) -> ShakeRejectionNote? {
    guard count > 0 else { return nil }
    var note: ShakeRejectionNote?
    if reportable, notable {
      var why = reason
      if let failure = lastFailure, !failure.isWeak {
        why = failure
      } else if vigorousCount < ShakeDetector.shakeSwings {
        why = .weak
      }
      note = ShakeRejectionNote(reason: why, start: chainStart, time: t)
    }
    clear()
    return note
  }

  /// Forgets the chain without a note.
  mutating func clear() {
    head = 0
    count = 0
    vigorousCount = 0
    vigorousStart = nil
    notable = false
    lastFailure = nil
    reportable = false
    currentCounted = false
    judged = false
  }
}
