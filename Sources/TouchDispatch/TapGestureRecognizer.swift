import EventTime
import ResponderCore

/// Recognizes taps, as UITapGestureRecognizer: `numberOfTouchesRequired` fingers down and up,
/// `numberOfTapsRequired` times. Discrete.
///
/// It fails when a finger moves more than `allowableMovement` from where it went down, when a tap
/// lasts longer than `maximumTapDuration`, when the next tap does not start within
/// `maximumIntervalBetweenTaps` of the previous one's end or far from the first, or when more
/// fingers than required come down. Timers decide, not event counts.
open class TapGestureRecognizer: GestureRecognizer {
  /// Taps needed (1 by default).
  @exclusivity(unchecked) public var numberOfTapsRequired = 1
  /// Fingers per tap (1 by default).
  @exclusivity(unchecked) public var numberOfTouchesRequired = 1
  /// How far a finger may move, in points, and the next taps may land from the first.
  @exclusivity(unchecked) public var allowableMovement: Double = 45
  /// The longest a tap may last, from the first finger down to the last up.
  @exclusivity(unchecked) public var maximumTapDuration: Seconds = 0.75
  /// The longest pause between one tap's end and the next one's start.
  @exclusivity(unchecked) public var maximumIntervalBetweenTaps: Seconds = 0.35

  @exclusivity(unchecked) private var tapsCompleted = 0
  @exclusivity(unchecked) private var currentTap: [Touch] = []
  @exclusivity(unchecked) private var lastTap: [Touch] = []
  @exclusivity(unchecked) private var liftedInTap = 0
  @exclusivity(unchecked) private var starts = TouchStarts()
  @exclusivity(unchecked) private var firstTapLocation: Point?
  @exclusivity(unchecked) private var tapTimer: ScheduledTimer?
  @exclusivity(unchecked) private var intervalTimer: ScheduledTimer?

  open override var isDiscrete: Bool { true }

  /// A tap does not prevent a tap that needs more taps: with a single and a double tap on one
  /// view, a double tap sends the single tap's action first, then the double tap's (UIKit's rule).
  open override func canPrevent(_ preventedGestureRecognizer: GestureRecognizer) -> Bool {
    if let other = preventedGestureRecognizer as? TapGestureRecognizer,
      other.numberOfTapsRequired > numberOfTapsRequired
    {
      return false
    }
    return super.canPrevent(preventedGestureRecognizer)
  }

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else { return }
    intervalTimer?.cancel()
    intervalTimer = nil
    if liftedInTap > 0 {
      state = .failed
      return
    }
    let isFirstOfTap = currentTap.isEmpty
    forEachInSlotOrder(touches) { touch in
      currentTap.append(touch)
      starts[touch] = touch.locationInWindow
    }
    if currentTap.count > numberOfTouchesRequired {
      state = .failed
      return
    }
    if let first = firstTapLocation, Self.centroid(touches).distance(to: first) > allowableMovement {
      state = .failed
      return
    }
    if isFirstOfTap {
      tapTimer = failIfStillPossible(after: maximumTapDuration)
    }
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else { return }
    if movedTooFar(touches) { state = .failed }
  }

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else { return }
    if movedTooFar(touches) {
      state = .failed
      return
    }
    liftedInTap += touches.count { touch in currentTap.contains { $0 === touch } }
    guard liftedInTap >= currentTap.count else { return }
    tapTimer?.cancel()
    tapTimer = nil
    if currentTap.count < numberOfTouchesRequired {
      state = .failed
      return
    }
    tapsCompleted += 1
    if firstTapLocation == nil { firstTapLocation = Self.centroid(currentTap) }
    swap(&lastTap, &currentTap)
    currentTap.removeAll(keepingCapacity: true)
    liftedInTap = 0
    if tapsCompleted >= numberOfTapsRequired {
      state = .recognized
    } else {
      intervalTimer = failIfStillPossible(after: maximumIntervalBetweenTaps)
    }
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
    if state == .possible { state = .failed }
  }

  private func movedTooFar(_ touches: Set<Touch>) -> Bool {
    touches.contains { touch in
      guard let start = starts[touch] else { return false }
      return touch.locationInWindow.distance(to: start) > allowableMovement
    }
  }

  /// The centroid of the last tap's fingers (of the current tap's while one is under way).
  open override func location(in view: View?) -> Point {
    let set = currentTap.isEmpty ? lastTap : currentTap
    guard !set.isEmpty else { return super.location(in: view) }
    let point = Self.centroid(set)
    guard let view else { return point }
    return view.convert(point, from: nil)
  }

  open override var numberOfTouches: Int {
    let set = currentTap.isEmpty ? lastTap : currentTap
    return set.isEmpty ? super.numberOfTouches : set.count
  }

  open override func reset() {
    tapsCompleted = 0
    currentTap.removeAll(keepingCapacity: true)
    lastTap.removeAll(keepingCapacity: true)
    liftedInTap = 0
    starts.removeAll()
    firstTapLocation = nil
    tapTimer = nil
    intervalTimer = nil
  }
}
