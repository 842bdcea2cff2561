import EventTime
import ResponderCore

/// Recognizes dragging, as UIPanGestureRecognizer: begins once the centroid of
/// `minimumNumberOfTouches`…`maximumNumberOfTouches` fingers has moved `hysteresis` points,
/// changes as it moves, ends when the fingers lift (or fewer than the minimum remain).
/// Continuous. Fingers coming down or lifting do not make the translation jump.
open class PanGestureRecognizer: GestureRecognizer {
  /// The fewest fingers that pan (1 by default).
  public var minimumNumberOfTouches: Int {
    get { minimumNumberOfTouchesStorage }
    set { minimumNumberOfTouchesStorage = newValue }
  }
  private var minimumNumberOfTouchesStorage: Int = 1
  /// The most fingers that pan (no limit by default); more fingers before it begins make it fail.
  public var maximumNumberOfTouches: Int {
    get { maximumNumberOfTouchesStorage }
    set { maximumNumberOfTouchesStorage = newValue }
  }
  private var maximumNumberOfTouchesStorage: Int = Int.max
  /// How far the fingers must move before the pan begins, in points (10 by default).
  public var hysteresis: Double {
    get { hysteresisStorage }
    set { hysteresisStorage = newValue }
  }
  private var hysteresisStorage: Double = 10

  private var origin: Point = .zero
  private var point: Point = .zero
  private var lastRawCentroid: Point = .zero
  private var history = MotionHistory()
  private var started = false

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let active = activeCentroid()
    if !started {
      started = true
      point = active.point
      origin = point
    } else {
      let earlier = activeCentroid(excluding: touches)
      if earlier.count > 0 { point = point + (earlier.point - lastRawCentroid) }
    }
    lastRawCentroid = active.point
    history.add(point, at: Self.latest(touches))
    if state == .possible && active.count > maximumNumberOfTouches { state = .failed }
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    let active = activeCentroid()
    guard active.count > 0 else { return }
    point = point + (active.point - lastRawCentroid)
    lastRawCentroid = active.point
    history.add(point, at: Self.latest(touches))
    advanceContinuous(
      beginIf: active.count >= minimumNumberOfTouches && active.count <= maximumNumberOfTouches
        && point.distance(to: origin) >= hysteresis)
  }

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    lift(touches, cancelled: false)
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
    lift(touches, cancelled: true)
  }

  private func lift(_ touches: Set<Touch>, cancelled: Bool) {
    let remaining = activeTouches
    point = point + (Self.centroid(remaining + Array(touches)) - lastRawCentroid)
    if !remaining.isEmpty { lastRawCentroid = Self.centroid(remaining) }
    // A finger lifted while moving keeps the velocity it had; one that had stopped (no movement
    // for a while before the lift) ends with the velocity falling to zero.
    let time = Self.latest(touches)
    if history.lastValue != point || time - (history.lastTime ?? time) > Self.stillness {
      history.add(point, at: time)
    }
    switch state {
    case .possible:
      if remaining.isEmpty || cancelled { state = .failed }
    case .began, .changed:
      if cancelled {
        state = .cancelled
      } else if remaining.count < minimumNumberOfTouches {
        state = .ended
      }
    default:
      break
    }
  }

  /// How long without movement before a lift counts as the fingers having stopped.
  static let stillness: Seconds = 0.05

  /// How far the fingers moved since they went down (or since `setTranslation`), in `view`'s
  /// coordinates (window coordinates when nil).
  public func translation(in view: View?) -> Point {
    let vector = point - origin
    return view?.convertVectorFromWindow(vector) ?? vector
  }

  /// Makes the translation read `translation` from now on.
  public func setTranslation(_ translation: Point, in view: View?) {
    let vector = view?.convertVectorToWindow(translation) ?? translation
    origin = point - vector
  }

  /// The speed of the fingers over the last tenth of a second, in points per second of `view`.
  public func velocity(in view: View?) -> Point {
    let vector = history.velocity
    return view?.convertVectorFromWindow(vector) ?? vector
  }

  open override func reset() {
    origin = .zero
    point = .zero
    lastRawCentroid = .zero
    history.removeAll()
    started = false
  }
}
