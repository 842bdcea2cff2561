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
  public var numberOfTapsRequired: Int {
    get { numberOfTapsRequiredStorage }
    set { numberOfTapsRequiredStorage = newValue }
  }
  private var numberOfTapsRequiredStorage: Int = 1
  /// Fingers per tap (1 by default).
  public var numberOfTouchesRequired: Int {
    get { numberOfTouchesRequiredStorage }
    set { numberOfTouchesRequiredStorage = newValue }
  }
  private var numberOfTouchesRequiredStorage: Int = 1
  /// How far a finger may move, in points, and the next taps may land from the first.
  public var allowableMovement: Double {
    get { allowableMovementStorage }
    set { allowableMovementStorage = newValue }
  }
  private var allowableMovementStorage: Double = 45
  /// The longest a tap may last, from the first finger down to the last up.
  public var maximumTapDuration: Seconds {
    get { maximumTapDurationStorage }
    set { maximumTapDurationStorage = newValue }
  }
  private var maximumTapDurationStorage: Seconds = 0.75
  /// The longest pause between one tap's end and the next one's start.
  public var maximumIntervalBetweenTaps: Seconds {
    get { maximumIntervalBetweenTapsStorage }
    set { maximumIntervalBetweenTapsStorage = newValue }
  }
  private var maximumIntervalBetweenTapsStorage: Seconds = 0.35

  /// Where the recognizer is in its sequence of taps (`state` stays possible throughout, until the
  /// last tap recognizes it or something makes it fail).
  enum Progress {
    /// No finger has come down since the last reset.
    case idle
    /// `fingers` are down, or were, for the tap after `completedTaps` taps; `lifted` of them have
    /// lifted. The tap fails at `durationTimer` unless the last finger lifts before.
    case tapping(completedTaps: Int, fingers: [Touch], lifted: Int, durationTimer: ScheduledTimer?)
    /// `completedTaps` taps are done, the last one with `fingers`. When more are needed, the next
    /// must start before `intervalTimer` fires; nil when the taps are complete.
    case tapped(completedTaps: Int, fingers: [Touch], intervalTimer: ScheduledTimer?)
  }

  private(set) var progress = Progress.idle
  /// Where each finger of the taps went down.
  private var starts = TouchStarts()
  /// The centroid of the first tap: the next ones must land near it.
  private var firstTapLocation: Point?
  /// An empty list whose storage the next tap's fingers reuse (one list per tap otherwise).
  private var spareFingers: [Touch] = []

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
    var completedTaps = 0
    var fingers = spareFingers
    var durationTimer: ScheduledTimer?
    switch progress {
    case .idle:
      spareFingers = []
    case .tapping(let completed, let down, let lifted, let timer):
      // A finger coming down after one of the tap lifted is not part of this tap.
      if lifted > 0 {
        state = .failed
        return
      }
      completedTaps = completed
      fingers = down
      durationTimer = timer
    case .tapped(let completed, _, let intervalTimer):
      intervalTimer?.cancel()
      completedTaps = completed
      spareFingers = []
    }
    let isFirstOfTap = fingers.isEmpty
    // Changed out of place (see OutOfPlace.swift).
    var starts = self.starts.takeOut()
    forEachInSlotOrder(touches) { touch in
      fingers.append(touch)
      starts[touch] = touch.locationInWindow
    }
    self.starts.putBack(&starts)
    // Too many fingers, or the tap too far from the first: it fails, with its progress noted first
    // (the failure may reset it, which reads it). Else the progress is stored once, with the
    // duration timer the tap's first finger sets.
    let fails =
      fingers.count > numberOfTouchesRequired
      || firstTapLocation.map { Self.centroid(touches).distance(to: $0) > allowableMovement } == true
    if isFirstOfTap && !fails { durationTimer = failIfStillPossible(after: maximumTapDuration) }
    progress = .tapping(
      completedTaps: completedTaps, fingers: fingers, lifted: 0, durationTimer: durationTimer)
    if fails { state = .failed }
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
    guard case .tapping(var completedTaps, let fingers, var lifted, let durationTimer) = progress else {
      return
    }
    lifted += touches.count { touch in fingers.contains { $0 === touch } }
    guard lifted >= fingers.count else {
      progress = .tapping(
        completedTaps: completedTaps, fingers: fingers, lifted: lifted, durationTimer: durationTimer)
      return
    }
    durationTimer?.cancel()
    if fingers.count < numberOfTouchesRequired {
      state = .failed
      return
    }
    completedTaps += 1
    if firstTapLocation == nil { firstTapLocation = Self.centroid(fingers) }
    if completedTaps >= numberOfTapsRequired {
      progress = .tapped(completedTaps: completedTaps, fingers: fingers, intervalTimer: nil)
      state = .recognized
    } else {
      progress = .tapped(
        completedTaps: completedTaps, fingers: fingers,
        intervalTimer: failIfStillPossible(after: maximumIntervalBetweenTaps))
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

  /// The fingers of the tap under way, else of the last tap (none before the first finger).
  private var tapFingers: [Touch] {
    switch progress {
    case .idle: []
    case .tapping(_, let fingers, _, _), .tapped(_, let fingers, _): fingers
    }
  }

  /// The centroid of the last tap's fingers (of the current tap's while one is under way).
  open override func location(in view: View?) -> Point {
    let fingers = tapFingers
    guard !fingers.isEmpty else { return super.location(in: view) }
    let point = Self.centroid(fingers)
    guard let view else { return point }
    return view.convert(point, from: nil)
  }

  open override var numberOfTouches: Int {
    let fingers = tapFingers
    return fingers.isEmpty ? super.numberOfTouches : fingers.count
  }

  open override func reset() {
    if case .tapping(_, var fingers, _, _) = progress {
      progress = .idle
      fingers.removeAll(keepingCapacity: true)
      spareFingers = fingers
    } else if case .tapped(_, var fingers, _) = progress {
      progress = .idle
      fingers.removeAll(keepingCapacity: true)
      spareFingers = fingers
    }
    var starts = self.starts.takeOut()
    starts.removeAll()
    self.starts.putBack(&starts)
    firstTapLocation = nil
  }
}
