import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// A custom discrete recognizer (seed 000, "Creating a Custom Gesture Recognizer"): two fingers
/// that spread apart by `spread` points or more before both lift. It decides at the last lift.
final class TwoFingerSpreadRecognizer: GestureRecognizer {
  var spread: Double = 40
  private var startDistance: Double?
  override var isDiscrete: Bool { true }

  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    if self.touches.count > 2 { state = .failed }
    if self.touches.count == 2 {
      startDistance = self.touches[0].locationInWindow.distance(to: self.touches[1].locationInWindow)
    }
  }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    guard activeTouches.isEmpty else { return }
    guard let startDistance, self.touches.count == 2 else {
      state = .failed
      return
    }
    let distance = self.touches[0].locationInWindow.distance(to: self.touches[1].locationInWindow)
    state = distance - startDistance >= spread ? .recognized : .failed
  }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event) { state = .failed }
  override func reset() { startDistance = nil }
}

/// The sequences the seeds narrate, step by step.
@Suite struct SeedSequenceTests {
  /// Seed 000, "Gesture Recognizers Get the First Opportunity to Recognize a Touch", steps 1–4:
  /// a discrete recognizer needing two fingers (a two-finger tap).
  @Test func twoFingerDiscreteGestureRecognized() {
    let h = Harness()
    // The view takes both fingers (UIKit's default: one).
    let view = h.addView("V", 0, 0, 400, 800, multipleTouch: true)
    let tap = h.attach(TapGestureRecognizer(), "tap2", to: view)
    tap.numberOfTouchesRequired = 2

    // 1. Two touches begin: the recognizer is possible, the view gets them.
    h.down([0: point(100, 100), 1: point(200, 100)], at: 1.0)
    #expect(tap.state == .possible)
    #expect(h.log.take() == ["V touchesBegan 0,1"])
    // 2. Both move: still possible, the view gets them.
    h.move([0: point(102, 101), 1: point(201, 102)], at: 1.03)
    #expect(tap.state == .possible)
    #expect(h.log.take() == ["V touchesMoved 0,1"])
    // 3. One ends: not enough for the gesture, and the window withholds it from the view.
    h.up(0, at: 1.06)
    #expect(tap.state == .possible)
    #expect(h.log.take() == [])
    // 4. The other ends: recognized; just before the action the view's touches are cancelled,
    //    the ended ones included.
    h.up(1, at: 1.09)
    #expect(h.log.take() == ["tap2 recognized", "V touchesCancelled 0,1", "tap2 action"])
  }

  /// The same sequence when the recognizer decides at the last step that it is not its gesture:
  /// the view then gets both touches in the ended phase in one touchesEnded.
  @Test func twoFingerDiscreteGestureFailedAtTheEnd() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800, multipleTouch: true)
    h.attach(TwoFingerSpreadRecognizer(), "spread", to: view)

    h.down([0: point(100, 100), 1: point(200, 100)], at: 1.0)
    h.move([0: point(99, 100), 1: point(203, 100)], at: 1.03)
    h.up(0, at: 1.06)
    #expect(h.log.take() == ["V touchesBegan 0,1", "V touchesMoved 0,1"])
    h.up(1, at: 1.09)
    #expect(h.log.take() == ["spread failed", "V touchesEnded 0,1"])

    // And the custom recognizer recognizing: same as a built-in.
    h.down([0: point(100, 100), 1: point(200, 100)], at: 2.0)
    h.move([0: point(80, 100), 1: point(240, 100)], at: 2.05)
    h.up(0, at: 2.08)
    h.up(1, at: 2.1)
    #expect(
      h.log.take() == [
        "V touchesBegan 0,1", "V touchesMoved 0,1", "spread recognized", "V touchesCancelled 0,1",
        "spread action",
      ])
  }

  /// Seed 000, "Affecting the Delivery of Touches to Views", delaysTouchesEnded = YES with a
  /// double-tap recognizer: began, began, cancelled, cancelled.
  @Test func doubleTapWithDelaysTouchesEnded() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let doubleTap = h.attach(TapGestureRecognizer(), "doubleTap", to: view)
    doubleTap.numberOfTapsRequired = 2
    #expect(doubleTap.delaysTouchesEnded)

    h.tap(100, 100, at: 1.0)
    h.tap(102, 101, at: 1.2)
    #expect(
      h.log.take() == [
        "V touchesBegan 0", "V touchesBegan 0", "doubleTap recognized", "V touchesCancelled 0",
        "V touchesCancelled 0", "doubleTap action",
      ])
  }

  /// delaysTouchesEnded = NO: began, ended, began, cancelled — and in the second touchesBegan the
  /// view can see the double tap (tapCount 2).
  @Test func doubleTapWithoutDelaysTouchesEnded() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    view.showsTapCount = true
    let doubleTap = h.attach(TapGestureRecognizer(), "doubleTap", to: view)
    doubleTap.numberOfTapsRequired = 2
    doubleTap.delaysTouchesEnded = false

    h.tap(100, 100, at: 1.0)
    h.tap(102, 101, at: 1.2)
    #expect(
      h.log.take() == [
        "V touchesBegan 0 tapCount 1", "V touchesEnded 0", "V touchesBegan 0 tapCount 2",
        "doubleTap recognized", "V touchesCancelled 0", "doubleTap action",
      ])
  }

  /// delaysTouchesBegan = YES: when the recognizer recognizes, no part of the touches reached the
  /// view; when it fails, the view gets the began phase late.
  @Test func delaysTouchesBegan() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    pan.delaysTouchesBegan = true

    h.drag(from: point(100, 100), to: point(200, 100), at: 1.0, duration: 0.2)
    #expect(h.log.take().filter { $0.hasPrefix("V") } == [])

    h.down(0, 100, 100, at: 2.0)
    #expect(h.log.take() == [])
    h.up(0, at: 2.1)
    #expect(h.log.take() == ["pan failed", "V touchesBegan 0", "V touchesEnded 0"])
  }

  /// A continuous recognizer: the view gets the touches until the gesture begins, then a
  /// touchesCancelled, then nothing more of the sequence; the recognizer gets all of it.
  @Test func continuousGestureTakesTheRestOfTheSequence() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    h.attach(PanGestureRecognizer(), "pan", to: view)

    h.down(0, 100, 100, at: 1.0)
    h.move(0, 104, 100, at: 1.02)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesMoved 0"])
    h.move(0, 112, 100, at: 1.04)
    #expect(h.log.take() == ["pan began", "V touchesCancelled 0", "pan action"])
    h.move(0, 130, 100, at: 1.06)
    h.up(0, at: 1.08)
    #expect(h.log.take() == ["pan changed", "pan action", "pan ended", "pan action"])
  }

  /// A view "V" with a swipe and a pan that requires the swipe to fail.
  func panRequiringASwipeToFail() -> (Harness, RecordingView, PanGestureRecognizer) {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let swipe = h.attach(SwipeGestureRecognizer(), "swipe", to: view)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    pan.require(toFail: swipe)
    return (h, view, pan)
  }

  /// Seed 000, "Declaring a Specific Order for Two Gesture Recognizers": pan requires the swipe
  /// to fail. A quick flick is a swipe (the pan, waiting in possible, fails).
  @Test func swipeWinsOverPanThatRequiresItToFail() {
    let (h, _, pan) = panRequiringASwipeToFail()

    h.down(0, 50, 400, at: 1.0)
    h.move(0, 70, 400, at: 1.016)  // past the pan's 10 points: it waits, still possible
    #expect(pan.state == .possible)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesMoved 0"])
    h.move(0, 110, 400, at: 1.033)  // 60 points: a swipe
    #expect(h.log.take() == ["swipe recognized", "pan failed", "V touchesCancelled 0", "swipe action"])
    h.move(0, 150, 400, at: 1.05)
    h.up(0, at: 1.066)
    #expect(h.log.take() == [])
  }

  /// The same pair on a slow drag: the swipe fails as soon as it cannot be a swipe any more (its
  /// time is up, before the finger lifts), and the waiting pan begins at that moment.
  @Test func slowDragFailsTheSwipeAndThePanBegins() {
    let (h, view, pan) = panRequiringASwipeToFail()
    var began: Seconds?
    pan.addHandler { [scheduler = h.scheduler] recognizer in
      if recognizer.state == .began { began = scheduler.now }
    }

    h.drag(from: point(50, 400), to: point(150, 400), at: 1.0, duration: 1.0, lift: false)
    let states = h.log.take().filter {
      !$0.hasPrefix("V touchesMoved") && $0 != "pan changed" && $0 != "pan action"
    }
    #expect(states == ["V touchesBegan 0", "swipe failed", "pan began", "V touchesCancelled 0"])
    #expect(began == 1.4)
    #expect(pan.translation(in: view).x > 99)
    h.up(0, at: 2.02)
    #expect(h.log.take() == ["pan ended", "pan action"])
  }

  /// Without the requirement, a swipe attempt is recognized as a pan: the pan's conditions are met
  /// first, and it prevents the swipe.
  @Test func withoutRequirementThePanTakesTheSwipe() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    h.attach(SwipeGestureRecognizer(), "swipe", to: view)
    h.attach(PanGestureRecognizer(), "pan", to: view)

    h.drag(from: point(50, 400), to: point(250, 400), at: 1.0, duration: 0.1)
    let lines = h.log.take().filter {
      !$0.hasPrefix("V touchesMoved") && $0 != "pan changed" && $0 != "pan action"
    }
    #expect(lines == ["V touchesBegan 0", "pan began", "swipe failed", "V touchesCancelled 0", "pan ended"])
  }

  /// Seed 000, note on single and double taps: without a requirement a double tap sends the single
  /// tap's action first, then the double tap's.
  @Test func singleAndDoubleTapWithoutRequirement() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    h.attach(TapGestureRecognizer(), "single", to: view)
    let double = h.attach(TapGestureRecognizer(), "double", to: view)
    double.numberOfTapsRequired = 2

    h.tap(100, 100, at: 1.0)
    #expect(
      h.log.take() == ["V touchesBegan 0", "single recognized", "V touchesCancelled 0", "single action"])
    h.tap(101, 100, at: 1.2)
    #expect(
      h.log.take() == [
        "V touchesBegan 0", "double recognized", "single failed", "V touchesCancelled 0", "double action",
      ])
  }

  /// With single.require(toFail: double) they exclude each other: a single tap is recognized only
  /// once the double tap failed (a slight delay); a double tap sends only the double's action.
  @Test func singleTapRequiresDoubleTapToFail() {
    let h = Harness()
    let (single, _) = h.singleAndDoubleTaps()
    var singleAt: Seconds?
    // The scheduler, not h: its views keep this handler.
    single.addHandler { [scheduler = h.scheduler] _ in singleAt = scheduler.now }

    h.tap(100, 100, at: 1.0)
    #expect(single.state == .possible)
    #expect(h.log.take() == ["V touchesBegan 0"])
    h.advance(to: 2.0)
    #expect(h.log.take() == ["double failed", "single recognized", "V touchesCancelled 0", "single action"])
    #expect(singleAt == 1.0 + 0.08 + 0.35)

    h.tap(100, 100, at: 3.0)
    h.tap(101, 100, at: 3.2)
    #expect(
      h.log.take() == [
        "V touchesBegan 0", "V touchesBegan 0", "double recognized", "single failed", "V touchesCancelled 0",
        "V touchesCancelled 0", "double action",
      ])
  }
}

/// A recognizer that logs each touches message it gets as "name touchesBegan 0", and fails once
/// its touches have all lifted.
final class LoggingRecognizer: GestureRecognizer {
  let log: Log
  init(log: Log) {
    self.log = log
    super.init()
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    log.add("\(name!) touchesBegan \(ids(touches))")
  }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    log.add("\(name!) touchesMoved \(ids(touches))")
  }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    log.add("\(name!) touchesEnded \(ids(touches))")
    if activeTouches.isEmpty { state = .failed }
  }
}

@Suite struct RecognizersFirstTests {
  /// Seed 000 "Regulating the Delivery of Touches to Views": the window sends touches to the
  /// recognizers of the view where they occurred, and of its superviews, before the view itself
  /// ("gesture recognizer 比 view 先收到消息"; seed 004: recognizers receive touches before the
  /// view). In every phase both recognizers hear of the touch first (which of the two goes first
  /// is not specified); the view's touchesEnded comes once the recognizer holding it back failed.
  @Test func recognizersGetEachTouchBeforeTheView() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 200, 200)
    h.attach(LoggingRecognizer(log: h.log), "R", to: view)
    h.attach(LoggingRecognizer(log: h.log), "W", to: h.window)

    h.down(0, 50, 50, at: 1)
    var lines = h.log.take()
    #expect(Set(lines.prefix(2)) == ["R touchesBegan 0", "W touchesBegan 0"])
    #expect(lines.dropFirst(2) == ["V touchesBegan 0"])

    h.move(0, 60, 50, at: 1.05)
    lines = h.log.take()
    #expect(Set(lines.prefix(2)) == ["R touchesMoved 0", "W touchesMoved 0"])
    #expect(lines.dropFirst(2) == ["V touchesMoved 0"])

    h.up(0, at: 1.1)
    lines = h.log.take()
    #expect(lines.last == "V touchesEnded 0")
    #expect(
      Set(lines.dropLast()) == ["R touchesEnded 0", "R failed", "W touchesEnded 0", "W failed"])
  }
}

@Suite struct RequiredContinuousGestureTests {
  /// The states of a tap and a pan on one view, allowed to recognize simultaneously, as a finger
  /// goes down, moves `distance` points and lifts; the tap requires the pan to fail when `requires`.
  private func states(requires: Bool, distance: Double) -> (during: [String], atLift: [String]) {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: view)
    let delegate = Delegate()
    delegate.simultaneous = { _, _ in true }
    tap.delegate = delegate
    if requires { tap.require(toFail: pan) }
    func states(_ lines: [String]) -> [String] {
      lines.filter { !$0.hasPrefix("V ") && !$0.hasSuffix(" action") && !$0.hasSuffix(" changed") }
    }
    return withExtendedLifetime(delegate) {
      h.down(0, 100, 100, at: 1)
      h.move(0, 100 + distance, 100, at: 1.05)
      let during = states(h.log.take())
      h.up(0, at: 1.1)
      return (during, states(h.log.take()))
    }
  }

  /// Seed 000 "Declaring a Specific Order for Two Gesture Recognizers": the recognizer that
  /// requires another to fail goes to failed when that one is recognized *or begins* ("若
  /// swipeRecognizer 变成了 Recognized 或 Began 状态，则 panRecognizer 过渡到 Failed 状态"). A pan
  /// beginning (a continuous gesture) fails the tap waiting for it at once, though the move is
  /// within the tap's allowed movement; a pan that fails lets the waiting tap be recognized.
  @Test func aRecognizerFailsWhenTheContinuousOneItRequiresBegins() {
    let waiting = states(requires: true, distance: 20)
    #expect(waiting.during == ["pan began", "tap failed"])
    #expect(waiting.atLift == ["pan ended"])

    let released = states(requires: true, distance: 0)
    #expect(released.during == [])
    #expect(released.atLift == ["pan failed", "tap recognized"])

    // Without the requirement the two recognize side by side.
    let free = states(requires: false, distance: 20)
    #expect(free.during == ["pan began"])
    #expect(free.atLift.sorted() == ["pan ended", "tap recognized"])
  }
}

/// A custom continuous recognizer: a one-finger horizontal drag. It begins once the finger moved
/// 10 points sideways, and cancels itself when the finger wanders 30 points off the line: the
/// gesture no longer fits. Counts its resets.
final class HorizontalDragRecognizer: GestureRecognizer {
  private var start: Point?
  var resets = 0

  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    if start == nil { start = touches.first?.locationInWindow }
  }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    guard let start, let location = touches.first?.locationInWindow else { return }
    let offLine = abs(location.y - start.y) > 30
    switch state {
    case .possible:
      if offLine {
        state = .failed
      } else if abs(location.x - start.x) >= 10 {
        state = .began
      }
    case .began, .changed:
      state = offLine ? .cancelled : .changed
    default:
      break
    }
  }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    switch state {
    case .possible: state = .failed
    case .began, .changed: state = .ended
    default: break
    }
  }
  override func reset() {
    start = nil
    resets += 1
  }
}

@Suite struct CustomContinuousRecognizerTests {
  /// Seed 000 "Gesture Recognizers Operate in a Finite State Machine": a continuous recognizer can
  /// go from changed to cancelled when it decides the gesture no longer fits the expected pattern.
  /// The action method hears of the cancel (seed 003: use the cancelled state to discard changes),
  /// the view, whose touches were cancelled when the gesture began, gets nothing more of the
  /// sequence, and once the finger lifts the recognizer is reset to possible: `reset()` is called
  /// once and no action is sent for it (seed 000: "这个状态转变不会触发 action 消息"; seed 001:
  /// subclasses implement reset).
  @Test func aContinuousRecognizerCancelsAGestureThatNoLongerFits() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let drag = h.attach(HorizontalDragRecognizer(), "drag", to: view)

    h.down(0, 100, 100, at: 1)
    h.move(0, 120, 100, at: 1.05)
    #expect(h.log.take() == ["V touchesBegan 0", "drag began", "V touchesCancelled 0", "drag action"])
    h.move(0, 140, 110, at: 1.1)
    #expect(h.log.take() == ["drag changed", "drag action"])
    h.move(0, 150, 150, at: 1.15)
    #expect(h.log.take() == ["drag cancelled", "drag action"])
    #expect(drag.state == .cancelled)
    h.move(0, 200, 150, at: 1.2)
    #expect(h.log.take() == [])
    #expect(drag.resets == 0)

    h.logResets = true
    h.up(0, at: 1.25)
    #expect(h.log.take() == ["drag possible"])
    #expect(drag.state == .possible)
    #expect(drag.resets == 1)

    // The next sequence starts afresh, and ends normally.
    h.logResets = false
    h.drag(from: point(100, 300), to: point(200, 300), at: 2, duration: 0.1, hz: 20)
    let states = h.log.take().filter { $0.hasPrefix("drag") && !$0.hasSuffix("action") }
    #expect(states.first == "drag began" && states.last == "drag ended")
    #expect(drag.resets == 2)
  }
}

@Suite struct DeliveryPropertyTests {
  /// Seed 000, delaysTouchesBegan: the window keeps the began phase from the view while the
  /// recognizer may still recognize. When the recognizer fails with the finger still down, the view
  /// gets the touch from then on: touchesBegan first (late), then its moves, then its end.
  @Test func delaysTouchesBeganReleasesTheTouchWhenTheRecognizerFailsMidway() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: view)
    tap.delaysTouchesBegan = true

    h.down(0, 100, 100, at: 1)
    h.move(0, 120, 100, at: 1.05)
    #expect(h.log.take() == [])
    h.move(0, 180, 100, at: 1.1)  // beyond the tap's allowed movement: it fails
    #expect(h.log.take() == ["tap failed", "V touchesBegan 0", "V touchesMoved 0"])
    h.move(0, 200, 100, at: 1.15)
    h.up(0, at: 1.2)
    #expect(h.log.take() == ["V touchesMoved 0", "V touchesEnded 0"])
  }

  /// Seed 000, cancelsTouchesInView and delaysTouchesEnded: a recognizer that recognizes cancels
  /// the view's touches only when cancelsTouchesInView is YES (the default). With NO, the end it
  /// held back (delaysTouchesEnded) reaches the view as touchesEnded once it recognized (after its
  /// action), and the view never sees touchesCancelled.
  @Test func aRecognizerThatDoesNotCancelTouchesLetsTheHeldEndThrough() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: view)
    tap.cancelsTouchesInView = false
    #expect(tap.delaysTouchesEnded)

    h.tap(100, 100, at: 1)
    let lines = h.log.take()
    #expect(lines.first == "V touchesBegan 0")
    #expect(lines == ["V touchesBegan 0", "tap recognized", "tap action", "V touchesEnded 0"])

    // A double tap that does not cancel touches: as in the seed's double-tap sequence (began,
    // began, cancelled, cancelled), the first tap's end is held back while the recognizer may
    // still recognize; once it recognizes, both ends reach the view, as touchesEnded.
    tap.numberOfTapsRequired = 2
    h.tap(100, 100, at: 2)
    #expect(h.log.take() == ["V touchesBegan 0"])
    h.tap(100, 100, at: 2.2)
    let second = h.log.take()
    #expect(
      second == [
        "V touchesBegan 0", "tap recognized", "tap action", "V touchesEnded 0", "V touchesEnded 0",
      ])
  }
}

@Suite struct RecognizerTargetActionTests {
  /// Seed 000, "Responding to Events with Gesture Recognizers": a recognizer is made with a target
  /// and an action (typically the view's controller), attached to a view, and sends the action to
  /// the target when it recognizes, the recognizer as sender (the action method asks it for its
  /// location and state). A discrete gesture sends it once; a continuous one at every change of
  /// state (began, changed…, ended). A removed target hears nothing more.
  @Test func recognizersSendTheirActionToTheirTargetWithThemselvesAsSender() {
    let h = Harness()
    let controller = ViewController()
    h.window.rootViewController = controller
    var heard: [String] = []
    // (The controller owns its actions: the action reads its view through an unowned reference.)
    controller.registerAction("respondToTapGesture:") { [unowned controller] sender, _ in
      let recognizer = sender as! TapGestureRecognizer
      heard.append("tap \(recognizer.stateName) at \(recognizer.location(in: controller.view))")
    }
    controller.registerAction("respondToPanGesture:") { sender, _ in
      heard.append("pan \((sender as! PanGestureRecognizer).stateName)")
    }
    let tap = TapGestureRecognizer(target: controller, action: "respondToTapGesture:")
    tap.numberOfTapsRequired = 1
    controller.view.addGestureRecognizer(tap)
    let pan = PanGestureRecognizer(target: controller, action: "respondToPanGesture:")
    controller.view.addGestureRecognizer(pan)

    h.tap(100, 120, at: 1)
    #expect(heard == ["tap recognized at (100.0, 120.0)"])
    heard.removeAll()
    h.drag(from: point(100, 100), to: point(200, 100), at: 2, duration: 0.1, hz: 30)
    #expect(heard.first == "pan began" && heard.last == "pan ended")
    #expect(heard.dropFirst().dropLast().allSatisfy { $0 == "pan changed" } && heard.count > 2)

    heard.removeAll()
    tap.removeTarget(controller, action: "respondToTapGesture:")
    h.tap(100, 120, at: 3)
    #expect(heard.isEmpty)
    #expect(tap.state == .possible)
  }
}
