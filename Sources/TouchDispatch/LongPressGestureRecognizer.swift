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
    _ = exchange(&intervalTimer, nil)
    // Changed out of place (see OutOfPlace.swift), as every list of this class.
    var down = self.down.takeOut()
    var starts = self.starts.takeOut()
    forEachInSlotOrder(touches) { touch in
      down.append(touch)
      starts[touch] = touch.locationInWindow
    }
    self.down.putBack(&down)
    self.starts.putBack(&starts)
    if self.down.count > numberOfTouchesRequired {
      state = .failed
      return
    }
    if tapsCompleted < numberOfTapsRequired {
      // A finger held as long as a press during the taps is not a tap.
      tapTimer?.cancel()
      _ = exchange(&tapTimer, failIfStillPossible(after: minimumPressDuration))
    } else if self.down.count == numberOfTouchesRequired {
      pressTimer?.cancel()
      _ = exchange(&pressTimer, beginIfStillPossible(after: minimumPressDuration))
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
      var down = self.down.takeOut()
      down.removeAll { touches.contains($0) }
      self.down.putBack(&down)
      if tapsCompleted < numberOfTapsRequired && pressTimer == nil {
        guard self.down.isEmpty else { return }
        tapTimer?.cancel()
        _ = exchange(&tapTimer, nil)
        tapsCompleted += 1
        var starts = self.starts.takeOut()
        starts.removeAll()
        self.starts.putBack(&starts)
        _ = exchange(&intervalTimer, failIfStillPossible(after: maximumIntervalBetweenTaps))
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
    var starts = self.starts.takeOut()
    starts.removeAll()
    self.starts.putBack(&starts)
    var down = self.down.takeOut()
    down.removeAll(keepingCapacity: true)
    self.down.putBack(&down)
    tapsCompleted = 0
    _ = exchange(&pressTimer, nil)
    _ = exchange(&intervalTimer, nil)
    _ = exchange(&tapTimer, nil)
  }
}
