import EventTime
import ResponderCore

/// Recognizes touch-and-hold, as UILongPressGestureRecognizer: `numberOfTouchesRequired` fingers
/// held at least `minimumPressDuration` without moving more than `allowableMovement`, after
/// `numberOfTapsRequired` taps. Continuous: began when the time is up, changed as the fingers
/// move, ended when they lift.
open class LongPressGestureRecognizer: GestureRecognizer {
  /// How long the fingers must stay down (0.5 s by default).
  @exclusivity(unchecked) public var minimumPressDuration: Seconds = 0.5
  /// How far a finger may move before the press begins, in points (10 by default).
  @exclusivity(unchecked) public var allowableMovement: Double = 10
  /// Fingers that must be held (1 by default).
  @exclusivity(unchecked) public var numberOfTouchesRequired = 1
  /// Taps before the press (0 by default).
  @exclusivity(unchecked) public var numberOfTapsRequired = 0
  /// The longest pause between taps, and between the last tap and the press.
  @exclusivity(unchecked) public var maximumIntervalBetweenTaps: Seconds = 0.35

  @exclusivity(unchecked) private var starts = TouchStarts()
  @exclusivity(unchecked) private var down: [Touch] = []
  @exclusivity(unchecked) private var tapsCompleted = 0
  @exclusivity(unchecked) private var pressTimer: ScheduledTimer?
  @exclusivity(unchecked) private var intervalTimer: ScheduledTimer?
  @exclusivity(unchecked) private var tapTimer: ScheduledTimer?

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else {
      forEachInSlotOrder(touches) { ignore($0, for: event) }
      return
    }
    intervalTimer?.cancel()
    intervalTimer = nil
    forEachInSlotOrder(touches) { touch in
      down.append(touch)
      starts[touch] = touch.locationInWindow
    }
    if down.count > numberOfTouchesRequired {
      state = .failed
      return
    }
    if tapsCompleted < numberOfTapsRequired {
      // A finger held as long as a press during the taps is not a tap.
      tapTimer?.cancel()
      tapTimer = failIfStillPossible(after: minimumPressDuration)
    } else if down.count == numberOfTouchesRequired {
      pressTimer?.cancel()
      pressTimer = schedule(after: minimumPressDuration) { [unowned(unsafe) self] in
        if self.state == .possible { self.state = .began }
      }
    }
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    switch state {
    case .possible:
      let tooFar = touches.contains { touch in
        guard let start = starts[touch] else { return false }
        return touch.locationInWindow.distance(to: start) > allowableMovement
      }
      if tooFar { state = .failed }
    case .began, .changed:
      state = .changed
    default:
      break
    }
  }

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    switch state {
    case .possible:
      down.removeAll { touches.contains($0) }
      if tapsCompleted < numberOfTapsRequired && pressTimer == nil {
        guard down.isEmpty else { return }
        tapTimer?.cancel()
        tapTimer = nil
        tapsCompleted += 1
        starts.removeAll()
        intervalTimer = failIfStillPossible(after: maximumIntervalBetweenTaps)
      } else {
        state = .failed
      }
    case .began, .changed:
      if activeTouches.count < numberOfTouchesRequired { state = .ended }
    default:
      break
    }
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
    endContinuous(cancelled: true)
  }

  open override func reset() {
    starts.removeAll()
    down.removeAll(keepingCapacity: true)
    tapsCompleted = 0
    pressTimer = nil
    intervalTimer = nil
    tapTimer = nil
  }
}
