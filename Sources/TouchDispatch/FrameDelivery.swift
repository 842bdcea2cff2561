import ResponderCore

/// Hands the touches of one frame to the gesture recognizers: each recognizer still taking touches
/// gets, phase by phase (began, moved, ended, cancelled), the frame's touches it tracks, in one
/// message per phase, recognizer after recognizer in the order the arena wants. The window keeps
/// one and reuses it frame after frame, so that its list keeps its storage.
///
/// No run-time exclusivity checks are given up here: every field is private to this type or the
/// frame's own, which lets the optimizer prove that no access overlaps another.
final class FrameDelivery {
  /// One recognizer's share of the frame: where its touches of each phase are in `entries`, in
  /// frame order.
  struct Slot {
    let recognizer: GestureRecognizer
    var began = 0..<0
    var moved = 0..<0
    var ended = 0..<0
    var cancelled = 0..<0

    init(_ recognizer: GestureRecognizer) { self.recognizer = recognizer }

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
  private(set) var slots: [Slot] = []
  /// The identity of each slot's recognizer, to find a slot (a frame has a few recognizers:
  /// searched in order, which costs less than hashing).
  private var identities: [ObjectIdentifier] = []
  /// The frame's touch records, slot after slot and, within a slot, phase after phase.
  private var entries: [Window.TouchRecord?] = []

  /// Where `recognizer` is in `slots`.
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
    var slots = self.slots.takeOut()
    var identities = self.identities.takeOut()
    var entries = self.entries.takeOut()
    defer {
      self.slots.putBack(&slots)
      self.identities.putBack(&identities)
      self.entries.putBack(&entries)
    }
    // The slot of each (touch, recognizer) pair, then the pairs grouped by slot and phase, in
    // frame order within a group.
    var orderMayDiffer = relations
    var pairs: [(slot: Int, phase: TouchPhase, record: Window.TouchRecord)] = []
    pairs.reserveCapacity(frame.count * 4)
    for record in frame {
      let phase = record.touch.phase
      var withRules = 0
      var custom = false
      var count = 0
      for item in record.touch.gestureRecognizers {
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
          index = slots.count
          slots.append(Slot(recognizer))
          identities.append(ObjectIdentifier(recognizer))
        }
        slots[index][phase] = 0..<(slots[index][phase].count + 1)
        pairs.append((index, phase, record))
      }
      if withRules > 1 || (custom && count > 1) { orderMayDiffer = true }
    }
    guard !slots.isEmpty else { return false }
    // Each range has its count so far: where each one starts, then the records put in place.
    var start = 0
    for index in slots.indices {
      for phase in Self.phases {
        let count = slots[index][phase].count
        slots[index][phase] = start..<start
        start += count
      }
    }
    entries.append(contentsOf: repeatElement(nil, count: start))
    for pair in pairs {
      let range = slots[pair.slot][pair.phase]
      entries[range.upperBound] = pair.record
      slots[pair.slot][pair.phase] = range.lowerBound..<(range.upperBound + 1)
    }
    if !orderMayDiffer {
      orderMayDiffer = slots.contains { $0.recognizer.trackedTouches.count != $0.touchCount }
    }
    return orderMayDiffer
  }

  /// Delivers the sorted touches to the recognizers, in `order` (indices of `slots`; their own
  /// order when nil). Recognizer code runs through `arena`, so that what it leads to happens when
  /// it returns. A recognizer that stops taking touches midway (it failed, or was cancelled) gets
  /// no more of the frame's touches, nor touches it stopped tracking meanwhile.
  func deliver(with event: Event, order: [Int]?, arena: GestureArena) {
    let trackedTouchesChanged = arena.trackedTouchesChanged
    let slots = self.slots
    let entries = self.entries
    for position in slots.indices {
      let slot = slots[order?[position] ?? position]
      let recognizer = slot.recognizer
      for phase in Self.phases {
        let range = slot[phase]
        guard !range.isEmpty else { continue }
        guard recognizer.storedState.takesTouches else { break }
        let touches: Set<Touch>
        if arena.trackedTouchesChanged != trackedTouchesChanged {
          // Some recognizer ignored a touch or was reset meanwhile: only those still tracked.
          let tracked = recognizer.trackedTouches
          let kept = entries[range].map { $0!.touch }.filter { touch in tracked.contains { $0 === touch } }
          guard !kept.isEmpty else { continue }
          touches = Set(kept)
        } else if range.count == 1 {
          touches = entries[range.lowerBound]!.alone
        } else {
          touches = Set(entries[range].map { $0!.touch })
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

  /// Forgets the frame once it is delivered, keeping the lists' storage: its records hold their
  /// touches, which hold the window, so a frame kept until the next one would keep the window and
  /// its views alive after the last touch (a reference cycle through the window).
  func clear() {
    var slots = self.slots.takeOut()
    var identities = self.identities.takeOut()
    var entries = self.entries.takeOut()
    defer {
      self.slots.putBack(&slots)
      self.identities.putBack(&identities)
      self.entries.putBack(&entries)
    }
    slots.removeAll(keepingCapacity: true)
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
