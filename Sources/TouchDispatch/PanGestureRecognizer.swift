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
  /// The translation's end: moves by the mean movement of the fingers that were down at the last
  /// update and still are (or lift in this frame, from where they were), so that a finger landing
  /// or lifting never moves it, whatever the order the frame's phases are delivered in.
  private var point: Point = .zero
  /// Where each finger counted at the last update was (a handful: searched in order).
  private var lastLocations: [(touch: ObjectIdentifier, location: Point)] = []
  private var nextLocations: [(touch: ObjectIdentifier, location: Point)] = []
  private var history = MotionHistory()
  private var started = false

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    if !started {
      started = true
      point = activeCentroid().point
      origin = point
    }
    let count = follow()
    addToHistory(at: Self.latest(touches))
    if state == .possible && count > maximumNumberOfTouches { state = .failed }
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    let count = follow()
    guard count > 0 else { return }
    addToHistory(at: Self.latest(touches))
    advanceContinuous(
      beginIf: count >= minimumNumberOfTouches && count <= maximumNumberOfTouches
        && point.distance(to: origin) >= hysteresis)
  }

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    lift(touches, cancelled: false)
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
    lift(touches, cancelled: true)
  }

  /// Moves `point` by the mean movement of the fingers counted at the last update (those that
  /// lifted since count as still, where they were) and counts the fingers now down; returns
  /// their number.
  private func follow() -> Int {
    var dx = 0.0
    var dy = 0.0
    var moving = 0
    var next = nextLocations.takeOut()
    next.removeAll(keepingCapacity: true)
    for touch in trackedTouches {
      let id = ObjectIdentifier(touch)
      let location = touch.locationInWindow
      if let last = lastLocations.first(where: { $0.touch == id }) {
        dx += location.x - last.location.x
        dy += location.y - last.location.y
        moving += 1
      }
      if !touch.phase.isFinal { next.append((id, location)) }
    }
    if moving > 0 { point = point + Point(x: dx / Double(moving), y: dy / Double(moving)) }
    var last = lastLocations.takeOut()
    swap(&last, &next)
    lastLocations.putBack(&last)
    nextLocations.putBack(&next)
    return lastLocations.count
  }

  private func lift(_ touches: Set<Touch>, cancelled: Bool) {
    let remaining = follow()
    // A finger lifted while moving keeps the velocity it had; one that had stopped (no movement
    // for a while before the lift) ends with the velocity falling to zero.
    let time = Self.latest(touches)
    if history.lastValue != point || time - (history.lastTime ?? time) > Self.stillness {
      addToHistory(at: time)
    }
    switch state {
    case .possible:
      if remaining == 0 || cancelled { state = .failed }
    case .began, .changed:
      if cancelled {
        state = .cancelled
      } else if remaining < minimumNumberOfTouches {
        state = .ended
      }
    default:
      break
    }
  }

  /// Adds `point` to the history, out of place (see OutOfPlace.swift).
  private func addToHistory(at time: Seconds) {
    var list = history.takeOut()
    list.add(point, at: time)
    history.putBack(&list)
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
    var last = lastLocations.takeOut()
    last.removeAll(keepingCapacity: true)
    lastLocations.putBack(&last)
    var list = history.takeOut()
    list.removeAll()
    history.putBack(&list)
    started = false
  }
}
