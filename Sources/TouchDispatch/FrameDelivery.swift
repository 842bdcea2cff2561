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
  /// The recognizers of the frame, in the order they first appear among its touches.
  private(set) var recognizers: [GestureRecognizer] = []
  /// Where each recognizer's touches are in `entries`: those of recognizer `i` in phase slot `p`
  /// (began, moved, ended, cancelled: see `slot(of:)`) are at `bounds[4 * i + p] ..< bounds[4 * i
  /// + p + 1]`, in frame order (one list of integers for all of them: nothing to retain).
  private var bounds: [Int] = []
  /// Tells this frame's sorting from the last one: a recognizer whose `deliveryStamp` is this
  /// has its index in `recognizers` in `deliveryIndex` (no search, no hashing).
  private var stamp = 0
  /// The frame's touch records (their indices in the frame: nothing to retain or release),
  /// recognizer after recognizer and, within one, phase after phase.
  private var entries: [Int] = []
  /// Each (touch, recognizer) pair of the frame while it is sorted: the recognizer's phase slot
  /// (`4 * index + phase`) and the record's index in the frame (integers only).
  private var pairs: [(slot: Int, record: Int)] = []

  /// Where `recognizer` is in `recognizers`.
  func index(of recognizer: GestureRecognizer) -> Int? {
    recognizer.deliveryStamp == stamp ? recognizer.deliveryIndex : nil
  }

  /// The place of `phase` among a recognizer's four (stationary touches are never delivered:
  /// cancelled's stands in).
  private static func slot(of phase: TouchPhase) -> Int {
    switch phase {
    case .began: 0
    case .moved: 1
    case .ended: 2
    default: 3
    }
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
    var bounds = self.bounds.takeOut()
    var entries = self.entries.takeOut()
    var pairs = self.pairs.takeOut()
    let stamp = self.stamp
    defer {
      pairs.removeAll(keepingCapacity: true)
      self.recognizers.putBack(&recognizers)
      self.bounds.putBack(&bounds)
      self.entries.putBack(&entries)
      self.pairs.putBack(&pairs)
    }
    // The pairs, each with its recognizer's phase slot, and how many pairs each slot has.
    var orderMayDiffer = relations
    for (position, record) in frame.enumerated() {
      let touch = record.touch
      let phase = Self.slot(of: touch.phase)
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
        if recognizer.deliveryStamp == stamp {
          index = recognizer.deliveryIndex
        } else {
          index = recognizers.count
          recognizer.deliveryStamp = stamp
          recognizer.deliveryIndex = index
          recognizers.append(recognizer)
          // Four counts, one a phase (appended one by one: a repeated collection costs more).
          for _ in 0..<4 { bounds.append(0) }
        }
        let slot = 4 * index + phase
        bounds[slot] += 1
        pairs.append((slot, position))
      }
      if withRules > 1 || (custom && count > 1) { orderMayDiffer = true }
    }
    guard !recognizers.isEmpty else { return false }
    // The counts become where each slot starts; the records are put in place, each slot's start
    // moving to its end (the next one's start), then back. (Through spans: checked like any
    // subscript, but the lists are made unique once, not at every write.)
    var start = 0
    bounds.append(0)
    entries.append(contentsOf: repeatElement(0, count: pairs.count))
    var starts = bounds.mutableSpan
    for slot in starts.indices {
      let count = starts[slot]
      starts[slot] = start
      start += count
    }
    var places = entries.mutableSpan
    for pair in pairs {
      places[starts[pair.slot]] = pair.record
      starts[pair.slot] += 1
    }
    var slot = starts.count - 2
    while slot > 0 {
      starts[slot] = starts[slot - 1]
      slot -= 1
    }
    starts[0] = 0
    if !orderMayDiffer {
      for index in recognizers.indices
      where recognizers[index].trackedTouches.count != bounds[4 * index + 4] - bounds[4 * index] {
        orderMayDiffer = true
        break
      }
    }
    return orderMayDiffer
  }

  /// Delivers the sorted touches of `frame` (the frame `sort` was given) to the recognizers, in
  /// `order` (indices of `recognizers`; their own order when nil). Recognizer code runs through
  /// `arena`, so that what it leads to happens when it returns. A recognizer that stops taking
  /// touches midway (it failed, or was cancelled) gets no more of the frame's touches, nor touches
  /// it stopped tracking meanwhile.
  func deliver(_ frame: [Window.TouchRecord], with event: Event, order: [Int]?, arena: GestureArena) {
    let trackedTouchesChanged = arena.trackedTouchesChanged
    let recognizers = self.recognizers
    let bounds = self.bounds
    let entries = self.entries
    for position in recognizers.indices {
      let index = order?[position] ?? position
      let recognizer = recognizers[index]
      for slot in (4 * index)..<(4 * index + 4) {
        let range = bounds[slot]..<bounds[slot + 1]
        guard !range.isEmpty else { continue }
        guard recognizer.storedState.takesTouches else { break }
        let touches: Set<Touch>
        if arena.trackedTouchesChanged != trackedTouchesChanged {
          // Some recognizer ignored a touch or was reset meanwhile: only those still tracked.
          guard let kept = Self.stillTracked(entries[range], of: frame, by: recognizer) else { continue }
          touches = kept
        } else if range.count == 1 {
          touches = frame[entries[range.lowerBound]].alone
        } else {
          touches = Self.set(of: entries[range], in: frame)
        }
        arena.run {
          switch slot & 3 {
          case 0: recognizer.touchesBegan(touches, with: event)
          case 1: recognizer.touchesMoved(touches, with: event)
          case 2: recognizer.touchesEnded(touches, with: event)
          default: recognizer.touchesCancelled(touches, with: event)
          }
        }
      }
    }
  }

  /// The touches of the records of `frame` at `records`, made into a set without an array in
  /// between.
  private static func set(of records: ArraySlice<Int>, in frame: [Window.TouchRecord]) -> Set<Touch> {
    var touches = Set<Touch>(minimumCapacity: records.count)
    for record in records { touches.insert(frame[record].touch) }
    return touches
  }

  /// The touches of the records of `frame` at `records` that `recognizer` still tracks; nil when
  /// none is.
  private static func stillTracked(
    _ records: ArraySlice<Int>, of frame: [Window.TouchRecord], by recognizer: GestureRecognizer
  ) -> Set<Touch>? {
    let tracked = recognizer.trackedTouches
    var kept = 0
    for record in records where tracked.contains(where: { $0 === frame[record].touch }) { kept += 1 }
    if kept == 0 { return nil }
    if kept == records.count {
      return records.count == 1 ? frame[records.first!].alone : set(of: records, in: frame)
    }
    var touches = Set<Touch>(minimumCapacity: kept)
    for record in records where tracked.contains(where: { $0 === frame[record].touch }) {
      touches.insert(frame[record].touch)
    }
    return touches
  }

  /// Forgets the frame once it is delivered, keeping the lists' storage (and takes a new stamp):
  /// the recognizers of a frame kept until the next one would stay alive after the last touch.
  func clear() {
    var recognizers = self.recognizers.takeOut()
    var bounds = self.bounds.takeOut()
    var entries = self.entries.takeOut()
    defer {
      self.recognizers.putBack(&recognizers)
      self.bounds.putBack(&bounds)
      self.entries.putBack(&entries)
    }
    stamp += 1
    guard !recognizers.isEmpty || !bounds.isEmpty || !entries.isEmpty else { return }
    recognizers.removeAll(keepingCapacity: true)
    bounds.removeAll(keepingCapacity: true)
    entries.removeAll(keepingCapacity: true)
  }
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
