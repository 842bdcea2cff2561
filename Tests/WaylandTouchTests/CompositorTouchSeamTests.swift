import EventTime
import ResponderCore
import ResponderdTestKit
import Testing
import TouchDispatch
import WaylandTouch

/// Two app windows fed by the test kit's `FakeCompositorTouch` (the compositor's wl_touch in
/// process, virtual time): what each window's recognizers do as the user taps and drags, and when
/// the compositor takes a gesture, loses touch, goes away or a window closes.
@Suite struct CompositorTouchSeamTests {
  let time = VirtualScheduler(now: 10)
  let compositor: FakeCompositorTouch
  let left: (surface: Int, view: View, tap: TapGestureRecognizer, pan: PanGestureRecognizer)
  let right: (surface: Int, view: View, tap: TapGestureRecognizer, pan: PanGestureRecognizer)
  /// What the recognizers did ("left tap at (50.5, 20.0)", "right pan began", …).
  let seen = Log()

  final class Log {
    var lines: [String] = []
  }

  init() {
    compositor = FakeCompositorTouch(time: time)
    left = Self.window("left", compositor: compositor, time: time, seen: seen)
    right = Self.window("right", compositor: compositor, time: time, seen: seen)
  }

  /// A 400 × 300 window named `name` with a 100-point view at (100, 100) that taps and pans,
  /// attached to a new surface.
  static func window(_ name: String, compositor: FakeCompositorTouch, time: VirtualScheduler, seen: Log) -> (
    surface: Int, view: View, tap: TapGestureRecognizer, pan: PanGestureRecognizer
  ) {
    let window = Window(frame: Rect(x: 0, y: 0, width: 400, height: 300), scheduler: time)
    let view = View(frame: Rect(x: 100, y: 100, width: 100, height: 100))
    window.addSubview(view)
    let tap = TapGestureRecognizer()
    tap.addHandler { [weak view] recognizer in
      let point = recognizer.location(in: view)
      seen.lines.append("\(name) tap at (\(point.x), \(point.y))")
    }
    let pan = PanGestureRecognizer()
    pan.addHandler { recognizer in
      guard recognizer.state != .changed else { return }
      seen.lines.append("\(name) pan \(recognizer.state)")
    }
    view.addGestureRecognizer(tap)
    view.addGestureRecognizer(pan)
    let surface = compositor.newSurface()
    // The window is kept by its input, which the compositor's routing keeps while attached.
    compositor.attach(TouchInput(window: window), to: surface)
    return (surface, view, tap, pan)
  }

  @Test func aTapReachesTheViewUnderItOnItsOwnWindowOnly() {
    compositor.tap(on: left.surface, x: 150.5, y: 120)
    #expect(seen.lines == ["left tap at (50.5, 20.0)"])
    compositor.tap(on: right.surface, x: 10, y: 10)
    #expect(seen.lines == ["left tap at (50.5, 20.0)"], "outside the right window's view: nothing")
  }

  @Test func aDragPansAndLiftingEndsIt() {
    compositor.drag(on: right.surface, from: Point(x: 110, y: 150), to: Point(x: 190, y: 150))
    #expect(seen.lines == ["right pan began"])
    compositor.up(0)
    compositor.frame()
    #expect(seen.lines == ["right pan began", "right pan ended"])
  }

  @Test func theCompositorTakingTheGestureCancelsThePan() {
    compositor.drag(on: left.surface, from: Point(x: 110, y: 150), to: Point(x: 190, y: 150))
    compositor.cancel()
    #expect(seen.lines == ["left pan began", "left pan cancelled"])
    // Its fingers are forgotten: their up changes nothing, and the next tap is new.
    compositor.up(0)
    compositor.frame()
    compositor.tap(on: left.surface, x: 150, y: 150)
    #expect(seen.lines == ["left pan began", "left pan cancelled", "left tap at (50.0, 50.0)"])
  }

  @Test func touchLostOrTheCompositorGoneCancelsEveryWindowsTouches() {
    compositor.drag(on: left.surface, from: Point(x: 110, y: 150), to: Point(x: 190, y: 150))
    compositor.drag(on: right.surface, from: Point(x: 110, y: 150), to: Point(x: 110, y: 190), id: 1)
    compositor.loseTouch()
    #expect(
      seen.lines == ["left pan began", "right pan began", "left pan cancelled", "right pan cancelled"]
        || seen.lines == ["left pan began", "right pan began", "right pan cancelled", "left pan cancelled"])
    compositor.drag(on: left.surface, from: Point(x: 110, y: 150), to: Point(x: 190, y: 150))
    compositor.goAway()
    #expect(seen.lines.suffix(2) == ["left pan began", "left pan cancelled"])
  }

  @Test func aWindowClosedMidDragHasItsTouchesCancelledAndGetsNoMore() {
    compositor.drag(on: right.surface, from: Point(x: 110, y: 150), to: Point(x: 190, y: 150))
    compositor.detach(surface: right.surface)
    #expect(seen.lines == ["right pan began", "right pan cancelled"])
    compositor.motion(0, x: 120, y: 150)
    compositor.up(0)
    compositor.frame()
    compositor.tap(on: right.surface, x: 150, y: 150)
    #expect(seen.lines == ["right pan began", "right pan cancelled"])
  }
}
