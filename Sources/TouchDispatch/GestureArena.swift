import EventTime
import ResponderCore

/// What a window reports about its gesture recognizers (for tools, tests and logs).
public enum GestureObservation {
  /// A recognizer changed state (including the return to possible after a reset).
  case stateChanged(GestureRecognizer, from: GestureRecognizer.State, to: GestureRecognizer.State)
  /// A recognizer sent its action messages.
  case actionSent(GestureRecognizer)
}

/// The recognizers of one window that are engaged in a gesture, and the rules between them:
/// require-to-fail, prevention and simultaneity. State changes are applied at once; what they
/// lead to (cancelling the view's touches, action messages, delivering touches the window held
/// back) runs when the recognizer's callback returns, in order.
final class GestureArena {
  private enum Effect {
    case cancelCapturedTouches
    case sendActions(GestureRecognizer)
    case releaseWithheldTouches
  }

  private struct Pair: Hashable {
    var waiter: ObjectIdentifier
    var required: ObjectIdentifier
  }

  /// The window owning the arena (set once, as the window is made; it outlives the arena).
  unowned let window: Window
  /// Recognizers that received touches since their last reset, in the order they did.
  private(set) var engaged: [GestureRecognizer] = []
  /// Require-to-fail relations from subclass hooks and delegates, asked once when a recognizer
  /// engages (explicit `require(toFail:)` relations are checked directly).
  private var requirements = Set<Pair>()
  /// Whether some engaged recognizer may wait for another one (explicit `require(toFail:)` or an
  /// answer in `requirements`); when false, the failure-requirement checks are skipped.
  var relationsPossible = false
  private var engagements = 0
  /// The engaged recognizers that ask about failure requirements (see `engage`).
  private var askers: [GestureRecognizer] = []
  private var effects: [Effect] = []
  private var depth = 0
  private var flushing = false
  /// Counts the times a recognizer stopped tracking touches (ignored one, or reset).
  var trackedTouchesChanged = 0
  /// Recognizers that finished (or lost their last touch) since the last look.
  private var resetCandidates: [GestureRecognizer] = []
  /// Set when a frame ends touches: the next look checks every recognizer.
  private var touchesEndedSinceScan = false
  /// Set when a recognizer reached a final state or touches ended: resets may be due.
  private var resetsMayBeDue = false

  /// The window's scheduler, which recognizers set their timers on (kept here: reading it through
  /// `window`, an unowned reference, costs more).
  let scheduler: any Scheduler

  init(window: Window) {
    self.window = window
    scheduler = window.scheduler
  }

  /// Lets go of the engaged recognizers, which hold the arena (the window goes away).
  func detach() {
    let recognizers = engaged.takeOut()
    for recognizer in recognizers { recognizer.setArena(nil) }
  }

  // MARK: Engagement

  /// `recognizer` takes `touch` (`hasDelegate`: whether it has a delegate, as the window just saw).
  func engage(_ recognizer: GestureRecognizer, with touch: Touch, hasDelegate: Bool) {
    if !recognizer.isEngaged {
      recognizer.isEngaged = true
      recognizer.setArena(self)
      engagements += 1
      recognizer.engagementOrder = engagements
      if recognizer.hasRequiredFailures { relationsPossible = true }
      // Only recognizers with a delegate or hooks of their own can answer yes: a pair of
      // recognizers with neither is not asked.
      let asks = hasDelegate || !recognizer.hasBuiltInFailureHooks
      recognizer.asksAboutFailureRequirements = asks
      if asks || !askers.isEmpty {
        // (A copy of the list is iterated: `engaged` must be unshared again when appended to.)
        let others = asks ? engaged : askers
        for other in others {
          if asksToRequire(recognizer, other) {
            var list = requirements.takeOut()
            list.insert(Pair(waiter: ObjectIdentifier(recognizer), required: ObjectIdentifier(other)))
            requirements.putBack(&list)
          }
          if asksToRequire(other, recognizer) {
            var list = requirements.takeOut()
            list.insert(Pair(waiter: ObjectIdentifier(other), required: ObjectIdentifier(recognizer)))
            requirements.putBack(&list)
          }
        }
      }
      var list = engaged.takeOut()
      list.append(recognizer)
      engaged.putBack(&list)
      if asks {
        var list = askers.takeOut()
        list.append(recognizer)
        askers.putBack(&list)
      }
      if !requirements.isEmpty { relationsPossible = true }
    }
    var list = recognizer.trackedTouches.takeOut()
    list.append(touch)
    recognizer.trackedTouches.putBack(&list)
  }

  /// Whether `recognizer` may take a new touch: enabled, and possible (not waiting) or under way.
  func accepts(_ recognizer: GestureRecognizer) -> Bool {
    guard recognizer.isEnabled else { return false }
    switch recognizer.storedState {
    case .possible: return recognizer.pendingState == nil
    case .began, .changed: return true
    default: return false
    }
  }

  func ignore(_ touch: Touch, by recognizer: GestureRecognizer) {
    resetsMayBeDue = true
    var candidates = resetCandidates.takeOut()
    candidates.append(recognizer)
    resetCandidates.putBack(&candidates)
    trackedTouchesChanged += 1
    var tracked = recognizer.trackedTouches.takeOut()
    tracked.removeAll { $0 === touch }
    recognizer.trackedTouches.putBack(&tracked)
    touch.removeGestureRecognizer(recognizer)
    queueRelease()
    if depth == 0 { flush() }
  }

  private func asksToRequire(_ waiter: GestureRecognizer, _ required: GestureRecognizer) -> Bool {
    if waiter.shouldRequireFailure(of: required) || required.shouldBeRequiredToFail(by: waiter) {
      return true
    }
    if let delegate = waiter.delegate,
      delegate.gestureRecognizer(waiter, shouldRequireFailureOf: required)
    {
      return true
    }
    if let delegate = required.delegate,
      delegate.gestureRecognizer(required, shouldBeRequiredToFailBy: waiter)
    {
      return true
    }
    return false
  }

  /// Whether `waiter` must wait for `required` to fail.
  func requires(_ waiter: GestureRecognizer, _ required: GestureRecognizer) -> Bool {
    waiter.requiresFailure(of: required)
      || (!requirements.isEmpty
        && requirements.contains(Pair(waiter: ObjectIdentifier(waiter), required: ObjectIdentifier(required))))
  }

  private func simultaneous(_ a: GestureRecognizer, _ b: GestureRecognizer) -> Bool {
    if let delegate = a.delegate, delegate.gestureRecognizer(a, shouldRecognizeSimultaneouslyWith: b) {
      return true
    }
    if let delegate = b.delegate, delegate.gestureRecognizer(b, shouldRecognizeSimultaneouslyWith: a) {
      return true
    }
    return false
  }

  private func sharesTouch(_ a: GestureRecognizer, _ b: GestureRecognizer) -> Bool {
    for touch in a.trackedTouches where b.trackedTouches.contains(where: { $0 === touch }) { return true }
    return false
  }

  /// The recognizers of `delivery` reordered so that a recognizer comes after those it requires
  /// to fail, and after those sharing a touch with it that can prevent it when it cannot prevent
  /// them (a double tap is served before a single tap, so that the one finishing both in one frame
  /// wins). The result lists indices of `delivery.recognizers`; nil when they keep their order.
  func deliveryOrder(of delivery: FrameDelivery) -> [Int]? {
    let recognizers = delivery.recognizers
    guard recognizers.count > 1 else { return nil }
    if !relationsPossible && recognizers.allSatisfy({ $0.hasDefaultPreventionRules }) { return nil }
    var after: [[Int]] = Array(repeating: [], count: recognizers.count)
    var anyEdge = false
    // Prevention only matters between recognizers sharing a touch (a touch lists the recognizers
    // tracking it), and `a` can only come after `b` this way when `a` has rules of its own.
    for (i, a) in recognizers.enumerated() where !a.hasDefaultPreventionRules {
      for touch in a.trackedTouches {
        for item in touch.gestureRecognizers {
          guard let b = item as? GestureRecognizer, b !== a, !(a.isBuiltInTap && b.hasDefaultPreventionRules),
            let j = delivery.index(of: b)
          else { continue }
          if b.canPrevent(a) && !a.canPrevent(b) {
            after[i].append(j)
            anyEdge = true
          }
        }
      }
    }
    // Failure requirements, explicit or answered when the recognizers engaged.
    for (i, waiter) in recognizers.enumerated() where waiter.hasRequiredFailures {
      for (j, required) in recognizers.enumerated() where i != j && waiter.requiresFailure(of: required) {
        after[i].append(j)
        anyEdge = true
      }
    }
    if !requirements.isEmpty {
      var index: [ObjectIdentifier: Int] = [:]
      for (i, recognizer) in recognizers.enumerated() { index[ObjectIdentifier(recognizer)] = i }
      for pair in requirements {
        guard let i = index[pair.waiter], let j = index[pair.required] else { continue }
        after[i].append(j)
        anyEdge = true
      }
    }
    guard anyEdge else { return nil }
    var result: [Int] = []
    var visited = Array(repeating: false, count: recognizers.count)
    func visit(_ index: Int) {
      guard !visited[index] else { return }
      visited[index] = true
      for earlier in after[index] { visit(earlier) }
      result.append(index)
    }
    for index in recognizers.indices { visit(index) }
    return result
  }

  // MARK: State changes

  /// Runs recognizer code (touch callbacks, timers); effects run when the outermost call returns.
  @inline(__always)
  func run(_ body: () -> Void) {
    depth += 1
    body()
    depth -= 1
    if depth == 0 { flush() }
  }

  /// A state change a recognizer asked for.
  func request(_ recognizer: GestureRecognizer, _ new: GestureRecognizer.State) {
    depth += 1
    defer {
      depth -= 1
      if depth == 0 { flush() }
    }
    let old = recognizer.storedState
    switch (old, new) {
    case (.possible, .began), (.possible, .ended):
      if recognizer.pendingState != nil {
        recognizer.pendingState = new
      } else {
        attempt(recognizer, new)
      }
    case (.possible, .failed), (.possible, .cancelled):
      fail(recognizer)
    case (.began, .changed), (.changed, .changed):
      setState(recognizer, .changed)
      queue(.sendActions(recognizer))
    case (.began, .ended), (.changed, .ended):
      setState(recognizer, .ended)
      queue(.sendActions(recognizer))
    case (.began, .cancelled), (.changed, .cancelled), (.began, .failed), (.changed, .failed):
      // The action method sees cancelled, to throw away what the gesture changed (seed 003: use
      // the cancelled state to discard changes; seed 000's rotation sample tests for it).
      setState(recognizer, .cancelled)
      queue(.sendActions(recognizer))
    default:
      break
    }
  }

  /// Leaving possible: wait for required recognizers, or fail, or begin/recognize.
  private func attempt(_ recognizer: GestureRecognizer, _ new: GestureRecognizer.State) {
    if requiredRecognized(recognizer) {
      fail(recognizer)
      return
    }
    if hasBlockers(recognizer) {
      recognizer.pendingState = new
      return
    }
    guard shouldBegin(recognizer), !preventedByActive(recognizer) else {
      fail(recognizer)
      return
    }
    activate(recognizer, new)
  }

  private func activate(_ recognizer: GestureRecognizer, _ new: GestureRecognizer.State) {
    recognizer.pendingState = nil
    if recognizer.cancelsTouchesInView {
      window.capture(recognizer.trackedTouches)
      queue(.cancelCapturedTouches)
    }
    setState(recognizer, new)
    let candidates = relationsPossible ? engaged : sharingRecognizers(recognizer, inOrder: true)
    for other in candidates where other !== recognizer && other.storedState == .possible && other.isEngaged {
      if requires(other, recognizer) {
        fail(other)
      } else if sharesTouch(recognizer, other), !simultaneous(recognizer, other),
        recognizer.canPrevent(other), other.canBePrevented(by: recognizer)
      {
        fail(other)
      }
    }
    queue(.sendActions(recognizer))
  }

  private func fail(_ recognizer: GestureRecognizer) {
    guard recognizer.storedState == .possible else { return }
    recognizer.pendingState = nil
    setState(recognizer, .failed)
    queueRelease()
    guard relationsPossible else { return }
    for waiter in engaged where waiter.pendingState != nil && requires(waiter, recognizer) {
      guard let pending = waiter.pendingState, !hasBlockers(waiter) else { continue }
      waiter.pendingState = nil
      attempt(waiter, pending)
    }
  }

  private func setState(_ recognizer: GestureRecognizer, _ new: GestureRecognizer.State) {
    let old = recognizer.storedState
    recognizer.storedState = new
    if new.isFinal {
      // Failed, cancelled or recognized, it receives its touches no more: they stop listing it
      // (seed 003: a touch's recognizers are those currently receiving it). It keeps them in
      // `trackedTouches` until its reset.
      for touch in recognizer.trackedTouches { touch.removeGestureRecognizer(recognizer) }
    }
    // A recognizer in a final state resets once its touches are over (the frame that ends them
    // says so in `endOfFrame`).
    if new.isFinal && recognizer.trackedTouches.allSatisfy({ $0.phase.isFinal }) {
      resetsMayBeDue = true
      var list = resetCandidates.takeOut()
      list.append(recognizer)
      resetCandidates.putBack(&list)
    }
    if window.hasGestureObservers { window.notify(.stateChanged(recognizer, from: old, to: new)) }
  }

  private func requiredRecognized(_ recognizer: GestureRecognizer) -> Bool {
    guard relationsPossible else { return false }
    return engaged.contains { other in
      other !== recognizer && other.storedState.isRecognizing && requires(recognizer, other)
    }
  }

  private func hasBlockers(_ recognizer: GestureRecognizer) -> Bool {
    guard relationsPossible else { return false }
    return engaged.contains { other in
      other !== recognizer && other.storedState == .possible && requires(recognizer, other)
    }
  }

  private func preventedByActive(_ recognizer: GestureRecognizer) -> Bool {
    sharingRecognizers(recognizer, inOrder: false).contains { other in
      other.storedState.isRecognizing && !simultaneous(other, recognizer) && other.canPrevent(recognizer)
        && recognizer.canBePrevented(by: other)
    }
  }

  /// The other engaged recognizers sharing a touch with `recognizer` (a touch lists the
  /// recognizers tracking it), in engagement order when `inOrder`.
  private func sharingRecognizers(_ recognizer: GestureRecognizer, inOrder: Bool) -> [GestureRecognizer] {
    var result: [GestureRecognizer] = []
    for touch in recognizer.trackedTouches {
      for item in touch.gestureRecognizers {
        guard let other = item as? GestureRecognizer, other !== recognizer, other.isEngaged,
          !result.contains(where: { $0 === other })
        else { continue }
        result.append(other)
      }
    }
    if inOrder && result.count > 1 { result.sort { $0.engagementOrder < $1.engagementOrder } }
    return result
  }

  /// The delegate, the recognizer's view, and the views whose touches it would take.
  private func shouldBegin(_ recognizer: GestureRecognizer) -> Bool {
    if let delegate = recognizer.delegate, !delegate.gestureRecognizerShouldBegin(recognizer) { return false }
    if let view = recognizer.view, !view.gestureRecognizerShouldBegin(recognizer) { return false }
    guard recognizer.cancelsTouchesInView else { return true }
    var asked: [View] = []
    for touch in recognizer.trackedTouches {
      guard let view = touch.view as? View, view !== recognizer.view,
        !asked.contains(where: { $0 === view })
      else { continue }
      asked.append(view)
      if !view.gestureRecognizerShouldBegin(recognizer) { return false }
    }
    return true
  }

  // MARK: Effects and resets

  /// Queues the delivery of touches no recognizer holds back any more (once: a release queued
  /// right behind another finds nothing the first one left).
  private func queueRelease() {
    if case .releaseWithheldTouches? = effects.last { return }
    queue(.releaseWithheldTouches)
  }

  /// Queues an effect. The list is taken out of the arena while it changes, as in
  /// `takeFirstEffect`: see `GestureArena`'s documentation.
  private func queue(_ effect: Effect) {
    var list: [Effect] = []
    swap(&list, &effects)
    list.append(effect)
    swap(&list, &effects)
  }

  private func takeFirstEffect() -> Effect {
    var list: [Effect] = []
    swap(&list, &effects)
    let effect = list.removeFirst()
    swap(&list, &effects)
    return effect
  }

  private func flush() {
    guard !flushing else { return }
    flushing = true
    defer { flushing = false }
    repeat {
      while !effects.isEmpty {
        let effect = takeFirstEffect()
        depth += 1
        switch effect {
        case .cancelCapturedTouches:
          window.deliverCapturedCancellations()
        case .sendActions(let recognizer):
          if window.hasGestureObservers { window.notify(.actionSent(recognizer)) }
          recognizer.sendActions()
        case .releaseWithheldTouches:
          window.releaseWithheldTouches()
        }
        depth -= 1
      }
      resetFinishedRecognizers()
    } while !effects.isEmpty
  }

  /// Resets recognizers in a final state whose touches are all over, and lets go of possible
  /// ones left with no touch at all (every touch ignored).
  func resetFinishedRecognizers() {
    guard resetsMayBeDue else { return }
    resetsMayBeDue = false
    guard !engaged.isEmpty else {
      // Nothing engaged is a look at every recognizer too: the next gesture starts afresh, not
      // with a look at all its recognizers at its first callback.
      touchesEndedSinceScan = false
      var list = resetCandidates.takeOut()
      list.removeAll(keepingCapacity: true)
      resetCandidates.putBack(&list)
      return
    }
    if !touchesEndedSinceScan {
      // Nothing ended since the last look at every recognizer: only those that finished since
      // can be due.
      guard !resetCandidates.isEmpty else { return }
      let candidates = resetCandidates
      var list = resetCandidates.takeOut()
      list.removeAll(keepingCapacity: true)
      resetCandidates.putBack(&list)
      var index = 0
      while index < engaged.count {
        if candidates.contains(where: { $0 === engaged[index] }) && resetIfDue(at: index) { continue }
        index += 1
      }
      if engaged.isEmpty { relationsPossible = false }
      return
    }
    touchesEndedSinceScan = false
    var list = resetCandidates.takeOut()
    list.removeAll(keepingCapacity: true)
    resetCandidates.putBack(&list)
    var index = 0
    while index < engaged.count {
      if !resetIfDue(at: index) { index += 1 }
    }
    if engaged.isEmpty { relationsPossible = false }
  }

  /// Resets the recognizer at `index` of `engaged` (removing it) if it is due; returns whether.
  private func resetIfDue(at index: Int) -> Bool {
    let recognizer = engaged[index]
    let touchesOver = recognizer.trackedTouches.allSatisfy { $0.phase.isFinal }
    if recognizer.storedState.isFinal && touchesOver {
      var list = engaged.takeOut()
      list.remove(at: index)
      engaged.putBack(&list)
      forget(recognizer)
      let old = recognizer.storedState
      trackedTouchesChanged += 1
      recognizer.performReset()
      if window.hasGestureObservers { window.notify(.stateChanged(recognizer, from: old, to: .possible)) }
      queueRelease()
      return true
    } else if recognizer.storedState == .possible && recognizer.pendingState == nil
      && recognizer.trackedTouches.isEmpty
    {
      var list = engaged.takeOut()
      list.remove(at: index)
      engaged.putBack(&list)
      forget(recognizer)
      trackedTouchesChanged += 1
      recognizer.performReset()
      return true
    }
    return false
  }

  /// Called when a frame in which touches end or are cancelled starts: every recognizer may be
  /// due for a reset at the next look.
  func touchesEnding() {
    touchesEndedSinceScan = true
  }

  private func forget(_ recognizer: GestureRecognizer) {
    if recognizer.asksAboutFailureRequirements {
      recognizer.asksAboutFailureRequirements = false
      var list = askers.takeOut()
      list.removeAll { $0 === recognizer }
      askers.putBack(&list)
    }
    guard !requirements.isEmpty else { return }
    let id = ObjectIdentifier(recognizer)
    var list = requirements.takeOut()
    list = list.filter { $0.waiter != id && $0.required != id }
    requirements.putBack(&list)
  }

  /// Called at the end of every touch frame; `touchesEnded` when some touch ended or was cancelled.
  func endOfFrame(touchesEnded: Bool) {
    if touchesEnded {
      resetsMayBeDue = true
      touchesEndedSinceScan = true
    }
    depth += 1
    resetFinishedRecognizers()
    depth -= 1
    if depth == 0 { flush() }
  }
}
