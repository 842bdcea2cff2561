import ResponderCore

/// Hands the touches of one frame to the gesture recognizers: each recognizer still taking touches
/// gets, phase by phase (began, moved, ended, cancelled), the frame's touches it tracks, in one
/// message per phase, recognizer after recognizer in the order the arena wants. The window keeps
/// one and reuses it frame after frame, so that its lists keep their storage.
///
/// The lists are kept apart by kind (struct of arrays): the recognizers, a class reference each,
/// are written once per frame, and the ranges, plain integers, are counted and moved without
/// retaining anything. No run-time exclusivity checks are given up here: every field is private
/// to this type or the frame's own, which lets the optimizer prove that no access overlaps another.
final class FrameDelivery {
  /// One recognizer's share of the frame: where its touches of each phase are in `entries`, in
  /// frame order.
  struct Ranges {
    var began = 0..<0
    var moved = 0..<0
    var ended = 0..<0
    var cancelled = 0..<0

    /// The range of `phase` (stationary touches are never delivered: cancelled's stands in).
    subscript(_ phase: TouchPhase) -> Range<Int> {
      get {
        switch phase {
        case .began: began
        case .moved: moved
        case .ended: ended
        default: cancelled
        }
      }
      set {
        switch phase {
        case .began: began = newValue
        case .moved: moved = newValue
        case .ended: ended = newValue
        default: cancelled = newValue
        }
      }
    }

    /// How many of the frame's touches the recognizer tracks.
    var touchCount: Int { began.count + moved.count + ended.count + cancelled.count }
  }

  /// The recognizers of the frame, in the order they first appear among its touches.
  private(set) var recognizers: [GestureRecognizer] = []
  /// The share of each recognizer (same index as `recognizers`).
  private var ranges: [Ranges] = []
  /// The identity of each recognizer, to find its index (a frame has a few recognizers: searched
  /// in order, which costs less than hashing).
  private var identities: [ObjectIdentifier] = []
  /// The frame's touch records, recognizer after recognizer and, within one, phase after phase.
  private var entries: [Window.TouchRecord?] = []
  /// Each (touch, recognizer) pair of the frame while it is sorted: the recognizer's index, the
  /// phase, and the record's index in the frame (integers only: nothing to retain).
  private var pairs: [(recognizer: Int, phase: TouchPhase, record: Int)] = []

  /// Where `recognizer` is in `recognizers`.
  func index(of recognizer: GestureRecognizer) -> Int? {
    identities.firstIndex(of: ObjectIdentifier(recognizer))
  }

  /// Sorts the touches of `frame` out per recognizer and phase. Returns whether the order of
  /// delivery may differ from the natural one (see `GestureArena.deliveryOrder`): `relations`
  /// (some recognizer may wait for another), or some touch has two recognizers with prevention
  /// rules of their own, or one of a subclass made elsewhere among others, or a recognizer also
  /// tracks touches outside the frame, which this look at the frame misses.
  func sort(_ frame: [Window.TouchRecord], relations: Bool) -> Bool {
    clear()
    // Changed out of place (see OutOfPlace.swift).
    var recognizers = self.recognizers.takeOut()
    var ranges = self.ranges.takeOut()
    var identities = self.identities.takeOut()
    var entries = self.entries.takeOut()
    var pairs = self.pairs.takeOut()
    defer {
      pairs.removeAll(keepingCapacity: true)
      self.recognizers.putBack(&recognizers)
      self.ranges.putBack(&ranges)
      self.identities.putBack(&identities)
      self.entries.putBack(&entries)
      self.pairs.putBack(&pairs)
    }
    // The index of each (touch, recognizer) pair's recognizer, then the pairs grouped by
    // recognizer and phase, in frame order within a group.
    var orderMayDiffer = relations
    for (position, record) in frame.enumerated() {
      let touch = record.touch
      let phase = touch.phase
      var withRules = 0
      var custom = false
      var count = 0
      for item in touch.gestureRecognizers {
        guard let recognizer = item as? GestureRecognizer, recognizer.storedState.takesTouches else {
          continue
        }
        count += 1
        if !recognizer.hasDefaultPreventionRules { withRules += 1 }
        if !recognizer.hasBuiltInFailureHooks { custom = true }
        let index: Int
        if let found = identities.firstIndex(of: ObjectIdentifier(recognizer)) {
          index = found
        } else {
          index = recognizers.count
          recognizers.append(recognizer)
          ranges.append(Ranges())
          identities.append(ObjectIdentifier(recognizer))
        }
        ranges[index][phase] = 0..<(ranges[index][phase].count + 1)
        pairs.append((index, phase, position))
      }
      if withRules > 1 || (custom && count > 1) { orderMayDiffer = true }
    }
    guard !recognizers.isEmpty else { return false }
    // Each range has its count so far: where each one starts, then the records put in place.
    var start = 0
    for index in ranges.indices {
      for phase in Self.phases {
        let count = ranges[index][phase].count
        ranges[index][phase] = start..<start
        start += count
      }
    }
    entries.append(contentsOf: repeatElement(nil, count: start))
    for pair in pairs {
      let range = ranges[pair.recognizer][pair.phase]
      entries[range.upperBound] = frame[pair.record]
      ranges[pair.recognizer][pair.phase] = range.lowerBound..<(range.upperBound + 1)
    }
    if !orderMayDiffer {
      for index in recognizers.indices
      where recognizers[index].trackedTouches.count != ranges[index].touchCount {
        orderMayDiffer = true
        break
      }
    }
    return orderMayDiffer
  }

  /// Delivers the sorted touches to the recognizers, in `order` (indices of `recognizers`; their
  /// own order when nil). Recognizer code runs through `arena`, so that what it leads to happens
  /// when it returns. A recognizer that stops taking touches midway (it failed, or was cancelled)
  /// gets no more of the frame's touches, nor touches it stopped tracking meanwhile.
  func deliver(with event: Event, order: [Int]?, arena: GestureArena) {
    let trackedTouchesChanged = arena.trackedTouchesChanged
    let recognizers = self.recognizers
    let ranges = self.ranges
    let entries = self.entries
    for position in recognizers.indices {
      let index = order?[position] ?? position
      let recognizer = recognizers[index]
      let shares = ranges[index]
      for phase in Self.phases {
        let range = shares[phase]
        guard !range.isEmpty else { continue }
        guard recognizer.storedState.takesTouches else { break }
        let touches: Set<Touch>
        if arena.trackedTouchesChanged != trackedTouchesChanged {
          // Some recognizer ignored a touch or was reset meanwhile: only those still tracked.
          guard let kept = Self.stillTracked(entries[range], by: recognizer) else { continue }
          touches = kept
        } else if range.count == 1 {
          touches = entries[range.lowerBound]!.alone
        } else {
          touches = Self.set(of: entries[range])
        }
        arena.run {
          switch phase {
          case .began: recognizer.touchesBegan(touches, with: event)
          case .moved: recognizer.touchesMoved(touches, with: event)
          case .ended: recognizer.touchesEnded(touches, with: event)
          default: recognizer.touchesCancelled(touches, with: event)
          }
        }
      }
    }
  }

  /// The touches of `records`, made into a set without an array in between.
  private static func set(of records: ArraySlice<Window.TouchRecord?>) -> Set<Touch> {
    var touches = Set<Touch>(minimumCapacity: records.count)
    for record in records { touches.insert(record!.touch) }
    return touches
  }

  /// The touches of `records` that `recognizer` still tracks; nil when none is.
  private static func stillTracked(
    _ records: ArraySlice<Window.TouchRecord?>, by recognizer: GestureRecognizer
  ) -> Set<Touch>? {
    let tracked = recognizer.trackedTouches
    var kept = 0
    for record in records where tracked.contains(where: { $0 === record!.touch }) { kept += 1 }
    if kept == 0 { return nil }
    if kept == records.count {
      return records.count == 1 ? records.first!!.alone : set(of: records)
    }
    var touches = Set<Touch>(minimumCapacity: kept)
    for record in records where tracked.contains(where: { $0 === record!.touch }) {
      touches.insert(record!.touch)
    }
    return touches
  }

  /// Forgets the frame once it is delivered, keeping the lists' storage: its records hold their
  /// touches, which hold the window, so a frame kept until the next one would keep the window and
  /// its views alive after the last touch (a reference cycle through the window).
  func clear() {
    var recognizers = self.recognizers.takeOut()
    var ranges = self.ranges.takeOut()
    var identities = self.identities.takeOut()
    var entries = self.entries.takeOut()
    defer {
      self.recognizers.putBack(&recognizers)
      self.ranges.putBack(&ranges)
      self.identities.putBack(&identities)
      self.entries.putBack(&entries)
    }
    recognizers.removeAll(keepingCapacity: true)
    ranges.removeAll(keepingCapacity: true)
    identities.removeAll(keepingCapacity: true)
    entries.removeAll(keepingCapacity: true)
  }

  /// The phases in the order a recognizer gets them.
  private static let phases: [TouchPhase] = [.began, .moved, .ended, .cancelled]
}

extension GestureRecognizer.State {
  /// Whether a recognizer in this state still takes touches (possible, began or changed).
  var takesTouches: Bool {
    switch self {
    case .possible, .began, .changed: true
    default: false
    }
  }
}
