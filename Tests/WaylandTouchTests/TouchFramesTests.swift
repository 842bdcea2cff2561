import EventTime
import ResponderCore
import Testing
import TouchDispatch
import WaylandTouch

/// wl_touch events gathered into TouchDispatch frames, without a compositor.
@Suite struct TouchFramesTests {
  private func locations(_ frame: (contacts: [ContactSample], time: Seconds)) -> [Int: Point] {
    Dictionary(uniqueKeysWithValues: frame.contacts.map { ($0.slot, $0.location) })
  }

  /// Frames with wl_touch id 1 down at (5, 6), at 100 ms.
  private func oneFingerDown() -> TouchFrames {
    var frames = TouchFrames(clock: TouchClock())
    frames.down(id: 1, x: 5, y: 6, time: 100)
    return frames
  }

  /// Expects two frames: the one finger at `point` (slot 0), then none.
  private func expectTouchedThenLifted(
    _ out: [(contacts: [ContactSample], time: Seconds)], at point: Point,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(out.count == 2, sourceLocation: sourceLocation)
    #expect(out.first.map(locations) == [0: point], sourceLocation: sourceLocation)
    #expect(out.last?.contacts.isEmpty == true, sourceLocation: sourceLocation)
  }

  @Test func oneFramePerWlTouchFrameWithEveryFingerDown() {
    var frames = TouchFrames(clock: TouchClock())
    frames.down(id: 7, x: 10.5, y: 20.25, time: 1000)
    var out = frames.frame(now: 50)
    #expect(out.count == 1)
    #expect(locations(out[0]) == [0: Point(x: 10.5, y: 20.25)])

    frames.down(id: 3, x: 100, y: 200, time: 1010)
    frames.motion(id: 7, x: 12, y: 22, time: 1010)
    out = frames.frame(now: 50.01)
    #expect(locations(out[0]) == [0: Point(x: 12, y: 22), 1: Point(x: 100, y: 200)])

    frames.up(id: 7, time: 1020)
    out = frames.frame(now: 50.02)
    #expect(locations(out[0]) == [1: Point(x: 100, y: 200)])
    // The next finger takes the lowest free slot, with a tracking id of its own.
    frames.down(id: 9, x: 1, y: 1, time: 1030)
    out = frames.frame(now: 50.03)
    #expect(out[0].contacts.map(\.slot).sorted() == [0, 1])
    let trackingIDs = out[0].contacts.map(\.trackingID)
    #expect(Set(trackingIDs).count == 2 && !trackingIDs.contains(0))
  }

  /// A finger down and up within one frame is still a touch: delivered, then lifted.
  @Test func downAndUpInOneFrameMakeTwoFrames() {
    var frames = oneFingerDown()
    frames.up(id: 1, time: 100)
    expectTouchedThenLifted(frames.frame(now: 1), at: Point(x: 5, y: 6))
  }

  /// The last motion and the up in one frame (mutter 43 sends no frame after the up): the finger
  /// lifts where that motion took it.
  @Test func aFingerLiftsWhereItsLastMotionTookIt() {
    var frames = oneFingerDown()
    _ = frames.frame(now: 1)
    frames.motion(id: 1, x: 50, y: 60, time: 116)
    frames.up(id: 1, time: 116)
    expectTouchedThenLifted(frames.frame(now: 1.2), at: Point(x: 50, y: 60))
  }

  @Test func shapeGivesTheMajorRadius() {
    var frames = oneFingerDown()
    frames.shape(id: 1, major: 12, minor: 8)
    #expect(frames.frame(now: 1)[0].contacts[0].majorRadius == 6)
  }

  @Test func cancelForgetsEveryFinger() {
    var frames = oneFingerDown()
    frames.down(id: 2, x: 50, y: 6, time: 100)
    _ = frames.frame(now: 1)
    frames.cancel()
    #expect(frames.downIDs.isEmpty)
    // Events for the cancelled ids are ignored; a new sequence starts at slot 0.
    frames.motion(id: 1, x: 9, y: 9, time: 110)
    frames.down(id: 4, x: 7, y: 7, time: 120)
    #expect(locations(frames.frame(now: 1.1)[0]) == [0: Point(x: 7, y: 7)])
  }

  /// Frames through TouchInput: a tap at the surface's point reaches the recognizer there.
  @Test func framesDriveTouchInput() {
    let scheduler = VirtualScheduler(now: 10)
    let window = Window(frame: Rect(x: 0, y: 0, width: 400, height: 300), scheduler: scheduler)
    let view = View(frame: Rect(x: 100, y: 100, width: 100, height: 100))
    window.addSubview(view)
    let tap = TapGestureRecognizer()
    var tapped: Point?
    // Weakly: the view holds the recognizer, which holds this handler.
    tap.addHandler { [weak view] in tapped = $0.location(in: view) }
    view.addGestureRecognizer(tap)
    let input = TouchInput(window: window)
    var frames = TouchFrames(clock: TouchClock())
    frames.down(id: 0, x: 150.5, y: 120, time: 5000)
    for frame in frames.frame(now: 10) { input.process(frame.contacts, at: frame.time) }
    scheduler.advance(to: 10.08)
    frames.up(id: 0, time: 5080)
    for frame in frames.frame(now: 10.08) { input.process(frame.contacts, at: frame.time) }
    #expect(tapped == Point(x: 50.5, y: 20))
  }
}

/// wl_touch's millisecond times on the loop's clock.
@Suite struct TouchClockTests {
  @Test func timesKeepTheirSpacingOnTheLoopsClock() {
    var clock = TouchClock()
    // Read 2 ms after it happened, then at once.
    #expect(clock.time(ofMilliseconds: 1000, now: 500.002) == 500.002)
    let second = clock.time(ofMilliseconds: 1016, now: 500.017)
    #expect(abs(second - 500.017) < 1e-9)
    // Read late (the app was busy): the event keeps its own time, 16 ms after the last.
    let third = clock.time(ofMilliseconds: 1032, now: 500.090)
    #expect(abs(third - 500.033) < 1e-9)
  }

  @Test func neverLaterThanNowNorEarlierThanTheLast() {
    var clock = TouchClock()
    _ = clock.time(ofMilliseconds: 1000, now: 10)
    // A time that went back (another device's clock): the last time.
    #expect(clock.time(ofMilliseconds: 900, now: 10.01) == 10)
    #expect(clock.time(ofMilliseconds: 5000, now: 10.02) == 10.02)
  }

  @Test func millisecondsWrapAfter49Days() {
    var clock = TouchClock()
    _ = clock.time(ofMilliseconds: UInt32.max - 5, now: 100)
    let after = clock.time(ofMilliseconds: 10, now: 100.016)
    #expect(abs(after - 100.016) < 1e-9)
  }
}
