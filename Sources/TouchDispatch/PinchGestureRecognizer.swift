import ResponderCore

/// The two fingers a pinch or a rotation follows: the first two that come down. Later ones are
/// ignored while the gesture has not begun; once it has, they are the gesture's too (they do not
/// reach the view, seed 000) but change nothing.
struct FingerPair {
  var first: Touch?
  var second: Touch?

  /// Takes the fingers that came down (in slot order); returns the vector between the two when
  /// they complete the pair.
  mutating func take(_ touches: Set<Touch>, recognizer: GestureRecognizer, event: Event) -> Point? {
    let hadPair = isComplete
    for touch in touches.sorted(by: { $0.identifier < $1.identifier }) {
      if first == nil {
        first = touch
      } else if second == nil {
        second = touch
      } else if recognizer.state == .possible {
        recognizer.ignore(touch, for: event)
      }
    }
    return hadPair ? nil : vector
  }

  var isComplete: Bool { first != nil && second != nil }

  /// The vector from the first finger to the second, in window coordinates.
  var vector: Point? {
    guard let first, let second else { return nil }
    return second.locationInWindow - first.locationInWindow
  }

  func contains(any touches: Set<Touch>) -> Bool {
    touches.contains { $0 === first || $0 === second }
  }

  /// Whether lifting `touches` ends the gesture: one of the pair lifted, or the pair never formed.
  func isBroken(byLifting touches: Set<Touch>) -> Bool {
    contains(any: touches) || !isComplete
  }

  /// Ends `recognizer`'s gesture (or cancels it) when lifting `touches` breaks the pair.
  func end(_ recognizer: GestureRecognizer, lifting touches: Set<Touch>, cancelled: Bool) {
    guard isBroken(byLifting: touches) else { return }
    recognizer.endContinuous(cancelled: cancelled)
  }

  mutating func clear() {
    first = nil
    second = nil
  }
}

/// What a pinch and a rotation share: the two fingers they follow (`FingerPair`), the history of
/// their measure, and the end of the gesture when one of the two lifts. Subclass the pinch or the
/// rotation rather than this class.
open class TwoFingerGestureRecognizer: GestureRecognizer {
  var pair = FingerPair()
  var history = MotionHistory()

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    pair.end(self, lifting: touches, cancelled: false)
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
    pair.end(self, lifting: touches, cancelled: true)
  }

  open override func reset() {
    pair.clear()
    history.removeAll()
    resetMeasure()
  }

  /// Puts the subclass's measure back to where it is before the fingers come down.
  func resetMeasure() {}
}

/// Recognizes pinching, as UIPinchGestureRecognizer: two fingers moving apart or together.
/// Begins once their distance has changed by `hysteresis` points; `scale` is the distance over
/// the starting distance. Continuous; ends when a finger lifts.
open class PinchGestureRecognizer: TwoFingerGestureRecognizer {
  /// How much the distance between the fingers must change before the pinch begins, in points.
  public var hysteresis: Double {
    get { hysteresisStorage }
    set { hysteresisStorage = newValue }
  }
  private var hysteresisStorage: Double = 8

  private var initialDistance: Double = 0
  private var rawScale: Double = 1
  private var adjustment: Double = 1

  /// The distance between the fingers relative to when they came down (settable, as UIKit's:
  /// later changes multiply the value set).
  public var scale: Double {
    get { rawScale * adjustment }
    set { adjustment = rawScale == 0 ? newValue : newValue / rawScale }
  }

  /// The change of scale per second, over the last tenth of a second.
  public var velocity: Double { history.velocity.x * adjustment }

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    guard let vector = pair.take(touches, recognizer: self, event: event) else { return }
    initialDistance = max(vector.length, 1)
    rawScale = 1
    history.add(Point(x: 1, y: 0), at: Self.latest(touches))
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    guard pair.contains(any: touches), let vector = pair.vector else { return }
    rawScale = vector.length / initialDistance
    history.add(Point(x: rawScale, y: 0), at: Self.latest(touches))
    advanceContinuous(beginIf: abs(vector.length - initialDistance) >= hysteresis)
  }

  override func resetMeasure() {
    initialDistance = 0
    rawScale = 1
    adjustment = 1
  }
}

/// Recognizes rotation, as UIRotationGestureRecognizer: two fingers turning around each other.
/// Begins once they have turned `hysteresis` radians; `rotation` is the angle turned, in radians,
/// positive clockwise on screen. Continuous; ends when a finger lifts.
open class RotationGestureRecognizer: TwoFingerGestureRecognizer {
  /// How far the fingers must turn before the rotation begins, in radians (0.1 by default).
  public var hysteresis: Double {
    get { hysteresisStorage }
    set { hysteresisStorage = newValue }
  }
  private var hysteresisStorage: Double = 0.1

  private var lastVector: Point = .zero
  private var rawRotation: Double = 0
  private var offset: Double = 0

  /// The angle turned since the fingers came down, in radians (settable, as UIKit's: later
  /// changes add to the value set).
  public var rotation: Double {
    get { rawRotation + offset }
    set { offset = newValue - rawRotation }
  }

  /// The change of rotation in radians per second, over the last tenth of a second.
  public var velocity: Double { history.velocity.x }

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    guard let vector = pair.take(touches, recognizer: self, event: event) else { return }
    lastVector = vector
    rawRotation = 0
    history.add(.zero, at: Self.latest(touches))
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    guard pair.contains(any: touches), let vector = pair.vector, vector.length > 0 else { return }
    let cross = lastVector.x * vector.y - lastVector.y * vector.x
    let dot = lastVector.x * vector.x + lastVector.y * vector.y
    rawRotation += Trig.arcTangent(cross, dot)
    lastVector = vector
    history.add(Point(x: rawRotation, y: 0), at: Self.latest(touches))
    advanceContinuous(beginIf: abs(rawRotation) >= hysteresis)
  }

  override func resetMeasure() {
    lastVector = .zero
    rawRotation = 0
    offset = 0
  }
}
