import EventTime
import ResponderCore

/// Recognizes touch-and-hold, as UILongPressGestureRecognizer: `numberOfTouchesRequired` fingers
/// held at least `minimumPressDuration` without moving more than `allowableMovement`, after
/// `numberOfTapsRequired` taps. Continuous: began when the time is up, changed as the fingers
/// move, ended when they lift.
open class LongPressGestureRecognizer: GestureRecognizer {
  /// How long the fingers must stay down (0.5 s by default).
  public var minimumPressDuration: Seconds {
    get { minimumPressDurationStorage }
    set { minimumPressDurationStorage = newValue }
  }
  private var minimumPressDurationStorage: Seconds = 0.5
  /// How far a finger may move before the press begins, in points (10 by default).
  public var allowableMovement: Double {
    get { allowableMovementStorage }
    set { allowableMovementStorage = newValue }
  }
  private var allowableMovementStorage: Double = 10
  /// Fingers that must be held (1 by default).
  public var numberOfTouchesRequired: Int {
    get { numberOfTouchesRequiredStorage }
    set { numberOfTouchesRequiredStorage = newValue }
  }
  private var numberOfTouchesRequiredStorage: Int = 1
  /// Taps before the press (0 by default).
  public var numberOfTapsRequired: Int {
    get { numberOfTapsRequiredStorage }
    set { numberOfTapsRequiredStorage = newValue }
  }
  private var numberOfTapsRequiredStorage: Int = 0
  /// The longest pause between taps, and between the last tap and the press.
  public var maximumIntervalBetweenTaps: Seconds {
    get { maximumIntervalBetweenTapsStorage }
    set { maximumIntervalBetweenTapsStorage = newValue }
  }
  private var maximumIntervalBetweenTapsStorage: Seconds = 0.35

  private var starts = TouchStarts()
  private var down: [Touch] = []
  private var tapsCompleted = 0
  private var pressTimer: ScheduledTimer?
  private var intervalTimer: ScheduledTimer?
  private var tapTimer: ScheduledTimer?

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    // Once the press has begun, later fingers are the press's too: they do not reach the view
    // (seed 000), and do not change when it ends.
    guard state == .possible else { return }
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
      pressTimer = schedule(after: minimumPressDuration) { (recognizer: GestureRecognizer) in
        if recognizer.state == .possible { recognizer.state = .began }
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
      if down.contains(where: { touches.contains($0) }) { state = .changed }
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
      // The press ends when one of its own fingers lifts.
      if down.contains(where: { touches.contains($0) }) { state = .ended }
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
