import EventTime

/// One swing: a stretch during which the dynamic acceleration along a direction keeps one sign.
struct Swing {
  /// Whether the acceleration points along the direction (true) or against it.
  var positive: Bool
  /// Its strongest sample along the direction (m/s²), and the share of that sample's dynamic
  /// acceleration that lay along the direction (the cosine of the angle between the two).
  var peak: Double
  var peakShare: Double
  /// When it began (where the value crossed the activity level, between two samples), and its last
  /// active sample.
  var start: Seconds
  var lastActive: Seconds
  /// Time its samples stand for, and the part of it at or above the sustain level.
  var heldTime: Seconds = 0
  var strongTime: Seconds = 0

  var duty: Double { heldTime > 0 ? strongTime / heldTime : 0 }
}

/// The swings back and forth of the dynamic acceleration along one direction (a device axis, or
/// the direction the device moves most along): the last `ShakeDetector.shakeSwings` swings of the
/// chain under way, which a pause or a swing slower than a shake's breaks.
struct SwingTrack {
  /// The chain's last swings, oldest first (at most `ShakeDetector.shakeSwings`).
  private(set) var swings: [Swing] = []
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
  private(set) var lastValue = 0.0
  /// Whether new chains may be reported when they break (no shake under way).
  var reportNewChains = true
  /// Whether the swing under way was counted in `vigorousCount`.
  private var currentCounted = false

  init() { swings.reserveCapacity(ShakeDetector.shakeSwings + 1) }

  var isEmpty: Bool { swings.isEmpty }

  /// Takes a sample whose dynamic acceleration along the direction is `value` (its whole dynamic
  /// acceleration `magnitude` long), `dt` after the previous one. Returns the note of a chain it
  /// broke that is worth one.
  mutating func add(
    _ value: Double, magnitude: Double, at t: Seconds, dt: Seconds, settings: ShakeSettings,
    levels: ShakeDetector.Levels
  ) -> ShakeRejectionNote? {
    var note: ShakeRejectionNote?
    // Each sample stands for the time half-way to its neighbours.
    if dt > 0, !swings.isEmpty {
      swings[swings.count - 1].addTime(0.5 * dt, strong: abs(lastValue) >= levels.sustain)
    }
    if let swing = swings.last {
      if t - swing.lastActive > settings.maximumGap {
        note = breakChain(.pause, at: t)
      } else if t - swing.start > settings.maximumSwing {
        note = breakChain(.slow, at: t)
      }
    }
    let m = abs(value)
    if m >= levels.active {
      let share = magnitude > 0 ? m / magnitude : 0
      let positive = value > 0
      // Where the value crossed the activity level on its way here (linear between the samples).
      var crossing = t
      if dt > 0, value != lastValue {
        let level = positive ? levels.active : -levels.active
        crossing = t - dt * (1 - min(1, max(0, (level - lastValue) / (value - lastValue))))
      }
      if var swing = swings.last {
        if swing.positive == positive {
          if m > swing.peak {
            swing.peak = m
            swing.peakShare = share
          }
          swing.lastActive = t
          swings[swings.count - 1] = swing
          noteVigorous(m, levels)
        } else if crossing - swing.start >= settings.minimumSwing {
          // A reversal.
          swings.append(Swing(positive: positive, peak: m, peakShare: share, start: crossing, lastActive: t))
          if swings.count > ShakeDetector.shakeSwings { swings.removeFirst() }
          currentCounted = false
          noteVigorous(m, levels)
        }
        // (A reversal faster than any shake's is ringing or vibration: left out.)
      } else {
        swings.append(Swing(positive: positive, peak: m, peakShare: share, start: crossing, lastActive: t))
        vigorousCount = 0
        vigorousStart = nil
        currentCounted = false
        chainStart = crossing
        notable = false
        lastFailure = nil
        reportable = reportNewChains
        noteVigorous(m, levels)
      }
      if m >= levels.sustain { notable = true }
    }
    if dt > 0, !swings.isEmpty { swings[swings.count - 1].addTime(0.5 * dt, strong: m >= levels.sustain) }
    lastValue = value
    return note
  }

  private mutating func noteVigorous(_ m: Double, _ levels: ShakeDetector.Levels) {
    if !currentCounted, m >= levels.vigorous {
      currentCounted = true
      vigorousCount += 1
      if vigorousStart == nil { vigorousStart = swings.last?.start }
    }
  }

  /// Why the chain's last swings are not (yet) a shake at `t`, or nil when they are one: at least
  /// `shakeSwings` swings in a row, every one reaching the vigorous level with its peak along the
  /// direction (`axisConsistency`), strong for `minimumDuty` of the finished ones' time, alike in
  /// length (`ShakeDetector.maximumRhythmRatio`), under way for `minimumDuration`.
  func shakeProblem(at t: Seconds, settings: ShakeSettings, levels: ShakeDetector.Levels) -> ShakeRejection? {
    guard swings.count == ShakeDetector.shakeSwings else { return .weak }
    var held: Seconds = 0
    var strong: Seconds = 0
    for (index, swing) in swings.enumerated() {
      if swing.peak < levels.vigorous { return .weak }
      if swing.peakShare < settings.axisConsistency { return .axis }
      if index < swings.count - 1 {
        held += swing.heldTime
        strong += swing.strongTime
        if swing.duty < settings.minimumSwingDuty { return .impulses }
      }
    }
    if strong < settings.minimumDuty * held { return .impulses }
    // A shake's swings are alike in length (a rhythm); jolts and steps come at odd moments. Only
    // a violent shake may keep a looser rhythm.
    var shortest = Seconds.infinity
    var longest: Seconds = 0
    for index in 1..<swings.count {
      let length = swings[index].start - swings[index - 1].start
      shortest = min(shortest, length)
      longest = max(longest, length)
    }
    let violent = swings.allSatisfy { $0.peak >= ShakeDetector.violentShakeFactor * levels.vigorous }
    let ratio = violent ? ShakeDetector.violentRhythmRatio : ShakeDetector.maximumRhythmRatio
    if longest > ratio * shortest { return .rhythm }
    if t - swings[0].start < settings.minimumDuration { return .brief }
    // Vigorous motion that went on, unbroken, for longer than a shake may last before it looked like
    // one (a thigh's swings while walking) is not a shake beginning now.
    if let start = vigorousStart, t - start > settings.maximumDuration { return .long }
    return nil
  }

  /// Whether the chain is still a shake's: it turned back at least once, the last finished swing
  /// was strong for `minimumSwingDuty` of its time, and the one under way so far.
  func keepsShaking(settings: ShakeSettings) -> Bool {
    guard swings.count >= 2 else { return false }
    return swings[swings.count - 2].duty >= settings.minimumSwingDuty
      && swings[swings.count - 1].strongTime >= settings.minimumSwingDuty * swings[swings.count - 1].heldTime
  }

  /// Forgets the chain; a note says why it was not a shake when it was reportable and vigorous.
  mutating func breakChain(_ reason: ShakeRejection, at t: Seconds) -> ShakeRejectionNote? {
    guard !swings.isEmpty else { return nil }
    var note: ShakeRejectionNote?
    if reportable, notable {
      var why = reason
      if let failure = lastFailure, failure != .weak {
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
    swings.removeAll(keepingCapacity: true)
    vigorousCount = 0
    vigorousStart = nil
    notable = false
    lastFailure = nil
    reportable = false
    currentCounted = false
  }
}

extension Swing {
  mutating func addTime(_ time: Seconds, strong: Bool) {
    heldTime += time
    if strong { strongTime += time }
  }
}
