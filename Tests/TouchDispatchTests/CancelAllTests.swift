import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// `TouchInput` is the contract every toolkit feeds (the Wayland adapter, a GTK, SDL or Qt app):
/// frames of contacts in window points through `process(_:at:)`, the system taking the touches
/// through `cancelAll(at:)`. A cancel ends every touch as UIKit's does.
@Suite struct CancelAllTests {
  /// Three fingers: one on a view whose pan is under way, one on a view whose tap is still
  /// possible, one tracking a button; the compositor takes them all.
  @Test func cancelEndsEveryTouchRecognizerAndControl() {
    let h = Harness()
    let panned = h.addView("P", 0, 0, 200, 300, multipleTouch: true)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: panned)
    pan.cancelsTouchesInView = false  // P keeps its touches while the pan runs
    let tapped = h.addView("T", 200, 0, 200, 300)
    h.attach(TapGestureRecognizer(), "tap", to: tapped)
    let button = h.add(Button(frame: Rect(x: 100, y: 400, width: 200, height: 100)), "B")

    h.down(0, 100, 100, at: 1)
    h.glide(from: 1, duration: 0.2, hz: 60) { f in [0: point(100, 100 + 60 * f)] }
    #expect(pan.state == .changed)
    h.down(1, 300, 100, at: 1.3)
    h.down(2, 200, 450, at: 1.35)
    _ = h.log.take()

    h.cancelAll(at: 1.4)
    #expect(
      h.log.take().sorted() == [
        "B touchCancel", "P touchesCancelled 0", "T touchesCancelled 1", "pan action", "pan cancelled",
        "tap failed",
      ])
    #expect(h.input.activeTouches.isEmpty)
    #expect(button.isTracking == false)

    // Nothing of the cancelled sequence lingers: the next touch is a new sequence's, and taps.
    h.tap(300, 100, at: 2)
    #expect(h.log.take() == ["T touchesBegan 0", "tap recognized", "T touchesCancelled 0", "tap action"])
  }

  /// A cancel with no touch on the surface does nothing.
  @Test func cancelWithoutTouchesSendsNothing() {
    let h = Harness()
    h.addView("V", 0, 0, 400, 800)
    h.cancelAll(at: 1)
    h.tap(100, 100, at: 2)
    h.cancelAll(at: 2.5)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesEnded 0"])
  }
}
