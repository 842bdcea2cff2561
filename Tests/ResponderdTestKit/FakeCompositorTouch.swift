import EventTime
import ResponderCore
import TouchDispatch
import WaylandTouch

/// The compositor's touches in process (`CompositorTouchSource`): a test puts fingers down on a
/// window's surface, moves and lifts them, ends each frame, and makes the compositor take the
/// gesture (`cancel`), lose touch or go away, on virtual time; they reach the attached
/// `TouchInput` through the same `TouchRouting` as `WaylandDisplay`'s.
///
/// ```swift
/// let compositor = FakeCompositorTouch(time: scheduler)
/// let surface = compositor.newSurface()
/// compositor.attach(TouchInput(window: window), to: surface)
/// compositor.tap(on: surface, x: 150, y: 120)
/// ```
public final class FakeCompositorTouch: CompositorTouchSource {
  /// A window's surface (a number).
  public typealias Surface = Int
  /// The clock the events are stamped and read on.
  public let time: VirtualScheduler
  private let routing = TouchRouting<Surface, Int>()
  private var surfaces = 0

  public init(time: VirtualScheduler) {
    self.time = time
  }

  /// A new surface to attach a window's input to.
  public func newSurface() -> Surface {
    surfaces += 1
    return surfaces
  }

  public func attach(_ input: TouchInput, to surface: Surface) { routing.attach(input, to: surface) }
  public func detach(surface: Surface) { routing.detach(surface: surface, now: time.now) }

  /// wl_touch's time now (milliseconds, wrapping as the protocol's do).
  private var milliseconds: UInt32 { UInt32(truncatingIfNeeded: Int64((time.now * 1000).rounded())) }

  // MARK: wl_touch events of seat `seat`'s touch device

  /// Finger `id` down on `surface` at `x`, `y` (surface coordinates).
  public func down(_ id: Int32, on surface: Surface, x: Double, y: Double, seat: Int = 0) {
    routing.down(seat, on: surface, id: id, x: x, y: y, time: milliseconds)
  }

  /// Finger `id` moved to `x`, `y`.
  public func motion(_ id: Int32, x: Double, y: Double, seat: Int = 0) {
    routing.motion(seat, id: id, x: x, y: y, time: milliseconds)
  }

  /// Finger `id` lifted.
  public func up(_ id: Int32, seat: Int = 0) { routing.up(seat, id: id, time: milliseconds) }

  /// The end of a frame: what came since the last one is delivered.
  public func frame(seat: Int = 0) { routing.frame(seat, now: time.now) }

  /// The compositor took the touches of `seat` (its own gesture): wl_touch.cancel.
  public func cancel(seat: Int = 0) { routing.cancel(seat, now: time.now) }

  /// `seat` lost its touch capability: its touches are cancelled.
  public func loseTouch(seat: Int = 0) { routing.remove(seat, now: time.now) }

  /// The compositor went away: every touch held is cancelled.
  public func goAway() { routing.cancelAll(now: time.now) }

  // MARK: Gestures

  /// A tap: down and a frame, `duration` later up and a frame.
  public func tap(on surface: Surface, x: Double, y: Double, duration: Seconds = 0.08, id: Int32 = 0) {
    down(id, on: surface, x: x, y: y)
    frame()
    time.advance(by: duration)
    up(id)
    frame()
  }

  /// A finger down on `surface` at `from`, moved in `steps` frames (one each `interval`) to `to`,
  /// left down (lift it with `up` and `frame`).
  public func drag(
    on surface: Surface, from: Point, to: Point, steps: Int = 10, interval: Seconds = 0.016, id: Int32 = 0
  ) {
    down(id, on: surface, x: from.x, y: from.y)
    frame()
    for step in 1...max(1, steps) {
      time.advance(by: interval)
      let fraction = Double(step) / Double(max(1, steps))
      motion(id, x: from.x + (to.x - from.x) * fraction, y: from.y + (to.y - from.y) * fraction)
      frame()
    }
  }
}
