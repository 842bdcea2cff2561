import EventTime

/// The swings back and forth of the dynamic acceleration along one direction (a device axis, or
/// the direction the device moves most along): the last `shakeSwings` swings of the chain under way,
/// which a pause or a swing slower than a shake's breaks.
///
/// Constant work per sample and no allocation: the swings are a ring of fixed capacity kept inline,
/// and what the finished swings say about a shake is worked out once per swing, not per sample.
struct SwingTrack {
  /// A shake is at least this many swings (half-cycles) in a row that reach `threshold`: there and
  /// back twice. Fewer are turned down as `ShakeRejection.weak`: a single stroke is three at most
  /// (the push, the brake and a rebound), a step a heel strike and its rebound.
  static let shakeSwings = 4

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
  /// Whether the chain began with the whole device at rest for `PushRule.restBefore`.
  private var startedFromRest = false
  /// Whether the swing under way was counted in `vigorousCount`.
  private var currentCounted = false
  /// What the swings say about a shake regardless of the time, worked out again only when a
  /// swing begins or the last one's peak grows.
  private var verdict = Verdict.due

  private enum Verdict {
    /// To be worked out (a swing began, or the last one's peak grew).
    case due
    /// Why the swings are no shake (nil: they are one, once it has lasted).
    case known(ShakeRejection?)
  }

  init() {}

  var isEmpty: Bool { count == 0 }

  private var lastIndex: Int { (head &+ count &- 1) & 3 }

  private mutating func append(_ swing: Swing) {
    if count < SwingTrack.shakeSwings {
      ring[(head &+ count) & 3] = swing
      count += 1
    } else {
      ring[head] = swing
      head = (head &+ 1) & 3
    }
    verdict = .due
  }

  /// This direction's part of a sample: its swings (`add`), and whether they begin a shake (the
  /// time it starts, into `began` when nothing began yet) or keep one going (`keptGoing`). Returns
  /// the note of a burst of motion it turned down. (A call of its own: inlined into the sample's
  /// work four times over, once per direction, it made a sample a fifth dearer.)
  @inline(never) mutating func follow(
    _ value: Double, _ sample: SampleFacts, limits: SwingLimits, began: inout Seconds?, keptGoing: inout Bool
  ) -> ShakeRejectionNote? {
    let t = sample.t
    let phase = sample.phase
    let note = add(
      value, magnitudeSquared: sample.magnitudeSquared, at: t, dt: sample.dt, lastBusy: sample.lastBusy,
      falling: sample.falling, upright: sample.upright, reportNew: phase == .idle, limits: limits)
    if phase == .idle {
      if began == nil, !isEmpty {
        var problem = shakeProblem(at: t, limits: limits)
        if problem == nil, sample.bouncing { problem = .bounce }
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
  /// moved (a chain that begins `PushRule.restBefore` after it starts from rest);
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
            verdict = .due
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
            verdict = .due
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
        startedFromRest = chainStart - lastBusy >= PushRule.restBefore
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
  /// length (`RhythmRule`), under way for `minimumDuration`.
  mutating func shakeProblem(at t: Seconds, limits: SwingLimits)
    -> ShakeRejection?
  {
    let problem: ShakeRejection?
    if case .known(let known) = verdict {
      problem = known
    } else {
      problem = judgement(limits: limits)
      verdict = .known(problem)
    }
    if let problem { return problem }
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
    guard count == SwingTrack.shakeSwings else { return .weak }
    // A hand shaking from rest begins with a push alone: a swing weaker and shorter (or, winding
    // up, longer) than the rest; and a shake begins within its newest swing. Not for a jolt's
    // rattle, a body's bounce or a flight (see `PushRule.restBefore`).
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
      // (The newest swing counts from `PushRule.relaxedFactor` of the level: a shake begins
      // within it.)
      let level =
        push || (relaxed && index == count - 1 && !ring[slot].peakUpright) ? PushRule.relaxedFactor : 1
      if peak < level * limits.vigorous { return .weak }
      if !AxisRule.holds(
        peak: peak, magnitudeSquared: ring[slot].peakMagnitudeSquared, cosine: limits.axisConsistency)
      {
        return .axis
      }
      if index < count - 1, !push {
        held += ring[slot].heldTime
        strong += ring[slot].strongTime
        if DutyRule.swingFails(duty: ring[slot].duty, minimum: limits.minimumSwingDuty) { return .impulses }
      }
      if !push, peak < RhythmRule.violentFactor * limits.vigorous { violent = false }
    }
    if DutyRule.chainFails(held: held, strong: strong, minimum: limits.minimumDuty) { return .impulses }
    var shortest = Seconds.infinity
    var longest: Seconds = 0
    for index in (fromRest ? 2 : 1)..<count {
      let length = ring[(head &+ index) & 3].start - ring[(head &+ index &- 1) & 3].start
      shortest = min(shortest, length)
      longest = max(longest, length)
    }
    if RhythmRule.fails(shortest: shortest, longest: longest, violent: violent) { return .rhythm }
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
    let previous = (current &+ 3) & 3
    return ring[previous].duty >= limits.minimumSwingDuty
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
      } else if vigorousCount < SwingTrack.shakeSwings {
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
    verdict = .due
  }
}
