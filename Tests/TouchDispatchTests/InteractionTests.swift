import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// A delegate answering every question from closures.
final class Delegate: GestureRecognizerDelegate {
  var shouldBegin: (GestureRecognizer) -> Bool = { _ in true }
  var shouldReceive: (GestureRecognizer, Touch) -> Bool = { _, _ in true }
  var simultaneous: (GestureRecognizer, GestureRecognizer) -> Bool = { _, _ in false }
  var requireFailure: (GestureRecognizer, GestureRecognizer) -> Bool = { _, _ in false }
  var beRequiredToFail: (GestureRecognizer, GestureRecognizer) -> Bool = { _, _ in false }

  func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
    shouldBegin(gestureRecognizer)
  }
  func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
    shouldReceive(gestureRecognizer, touch)
  }
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRecognizeSimultaneouslyWith other: GestureRecognizer
  ) -> Bool { simultaneous(gestureRecognizer, other) }
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf other: GestureRecognizer
  )
    -> Bool
  { requireFailure(gestureRecognizer, other) }
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldBeRequiredToFailBy other: GestureRecognizer
  ) -> Bool { beRequiredToFail(gestureRecognizer, other) }
}

/// Seed 000: "use rotation's canPreventGestureRecognizer: returning NO for the pinch".
final class RotationThatLetsPinchesBe: RotationGestureRecognizer {
  override func canPrevent(_ preventedGestureRecognizer: GestureRecognizer) -> Bool {
    !(preventedGestureRecognizer is PinchGestureRecognizer)
  }
}

final class PinchThatRotationCannotStop: PinchGestureRecognizer {
  override func canBePrevented(by preventingGestureRecognizer: GestureRecognizer) -> Bool {
    !(preventingGestureRecognizer is RotationGestureRecognizer)
  }
}

/// A custom recognizer that ignores touches landing in the left half of its view.
final class RightHalfTap: TapGestureRecognizer {
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    for touch in touches where touch.location(in: view).x < 200 { ignore(touch, for: event) }
    let kept = touches.filter { $0.location(in: view).x >= 200 }
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}

/// Two fingers turning and spreading at once (pinch to 1.5×, rotation to 0.6 rad).
private func pinchAndTurn(_ h: Harness, at start: Seconds, hz: Double = 60) {
  func fingers(_ f: Double) -> [Int: Point] {
    let angle = 0.6 * f
    let radius = 50 * (1 + 0.5 * f)
    let c = cosine(angle)
    let s = sine(angle)
    return [0: point(200 - radius * c, 400 - radius * s), 1: point(200 + radius * c, 400 + radius * s)]
  }
  h.down(fingers(0), at: start)
  h.glide(from: start, duration: 0.3, hz: hz, fingers)
  h.up(0, 1, at: start + 0.35)
}

/// The rules between recognizers, pairwise, and the window's other touch rules.
@Suite struct InteractionTests {
  private func plainView(_ h: Harness) -> View {
    let view = View(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    h.window.addSubview(view)
    return view
  }

  private func compact(_ lines: [String]) -> [String] {
    var out: [String] = []
    for line in lines where !(line.hasSuffix(" action") || line.hasSuffix(" changed")) { out.append(line) }
    return out
  }

  /// The states (no actions, no changes) of `recognizers`, attached in this order by their names to
  /// one view, as two fingers pinch and turn at once on it.
  private func statesInAPinchAndTurn(_ recognizers: KeyValuePairs<String, GestureRecognizer>) -> [String] {
    let h = Harness()
    let view = plainView(h)
    for (name, recognizer) in recognizers { h.attach(recognizer, name, to: view) }
    pinchAndTurn(h, at: 1)
    return compact(h.log.take())
  }

  /// By default two recognizers do not recognize at once: the first to begin makes the other fail.
  @Test func pinchAndRotationPreventEachOtherByDefault() {
    let states = statesInAPinchAndTurn([
      "pinch": PinchGestureRecognizer(), "rotation": RotationGestureRecognizer(),
    ])
    #expect(states == ["pinch began", "rotation failed", "pinch ended"])
  }

  /// The delegate lets them recognize simultaneously (one delegate saying yes is enough).
  @Test func simultaneousRecognition() {
    let pinch = PinchGestureRecognizer()
    let delegate = Delegate()
    delegate.simultaneous = { _, _ in true }
    pinch.delegate = delegate
    let states = withExtendedLifetime(delegate) {
      statesInAPinchAndTurn(["pinch": pinch, "rotation": RotationGestureRecognizer()])
    }
    #expect(states == ["pinch began", "rotation began", "pinch ended", "rotation ended"])
  }

  /// One-way relations: a rotation that cannot prevent pinches; the pinch beginning first still
  /// prevents the rotation.
  @Test func canPreventIsOneWay() {
    let rotation = RotationThatLetsPinchesBe()
    rotation.hysteresis = 0.01  // it begins first
    // (The pinch, which can prevent the rotation but not the other way round, is served first.)
    #expect(
      statesInAPinchAndTurn(["rotation": rotation, "pinch": PinchGestureRecognizer()])
        == ["rotation began", "pinch began", "pinch ended", "rotation ended"])

    let pinch = PinchGestureRecognizer()
    pinch.hysteresis = 1  // it begins first
    #expect(
      statesInAPinchAndTurn(["rotation": RotationThatLetsPinchesBe(), "pinch": pinch])
        == ["pinch began", "rotation failed", "pinch ended"])
  }

  @Test func canBePreventedIsOneWay() {
    let rotation = RotationGestureRecognizer()
    rotation.hysteresis = 0.01
    #expect(
      statesInAPinchAndTurn(["rotation": rotation, "pinch": PinchThatRotationCannotStop()])
        == ["rotation began", "pinch began", "rotation ended", "pinch ended"])
  }

  /// The delegate's shouldRequireFailureOf and shouldBeRequiredToFailBy act as require(toFail:).
  /// A tap whose view hears of it only when a timer decides (the single tap waits for the double
  /// tap to fail): once that is over, the window keeps nothing of the touch, and a window let go
  /// is released (a touch holds its window).
  @Test func aWindowKeepsNoTouchDecidedByATimer() {
    weak var weakWindow: Window?
    weak var weakTouch: Touch?
    do {
      let h = Harness()
      h.singleAndDoubleTaps()
      h.window.addDeliveryObserver { delivery in weakTouch = delivery.touches.first }
      h.tap(100, 100, at: 1)
      h.advance(to: 2)
      #expect(
        h.log.take() == [
          "V touchesBegan 0", "double failed", "single recognized", "V touchesCancelled 0", "single action",
        ])
      #expect(h.input.activeTouches.isEmpty)
      weakWindow = h.window
    }
    #expect(weakTouch == nil)
    #expect(weakWindow == nil)
  }

  @Test func delegateRequirements() {
    for useSecond in [false, true] {
      let h = Harness()
      let view = plainView(h)
      let single = h.attach(TapGestureRecognizer(), "single", to: view)
      let double = h.attach(TapGestureRecognizer(), "double", to: view)
      double.numberOfTapsRequired = 2
      let delegate = Delegate()
      if useSecond {
        delegate.beRequiredToFail = { me, other in me === double && other === single }
        double.delegate = delegate
      } else {
        delegate.requireFailure = { me, other in me === single && other === double }
        single.delegate = delegate
      }
      h.tap(100, 100, at: 1)
      #expect(h.log.take() == [])
      h.advance(to: 2)
      #expect(h.log.take() == ["double failed", "single recognized", "single action"])
    }
  }

  /// shouldBegin false: the recognizer fails when it would begin; the view keeps its touches.
  @Test func delegateShouldBegin() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: view)
    let delegate = Delegate()
    delegate.shouldBegin = { _ in false }
    tap.delegate = delegate
    h.tap(100, 100, at: 1)
    #expect(h.log.take() == ["V touchesBegan 0", "tap failed", "V touchesEnded 0"])
  }

  /// The view's gestureRecognizerShouldBegin answers for recognizers attached to it.
  @Test func viewShouldBegin() {
    final class Picky: View {
      override func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
        !(gestureRecognizer is PanGestureRecognizer)
      }
    }
    let h = Harness()
    let view = Picky(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    h.window.addSubview(view)
    h.attach(PanGestureRecognizer(), "pan", to: view)
    h.attach(LongPressGestureRecognizer(), "press", to: view)
    h.drag(from: point(100, 100), to: point(200, 100), at: 1, duration: 0.2)
    #expect(compact(h.log.take()) == ["pan failed", "press failed"])
  }

  /// shouldReceive false: the recognizer never sees the touch, and does not delay the view.
  @Test func delegateShouldReceive() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: view)
    let delegate = Delegate()
    delegate.shouldReceive = { _, touch in touch.locationInWindow.y > 400 }
    tap.delegate = delegate
    h.tap(100, 100, at: 1)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesEnded 0"])
    #expect(tap.state == .possible)
    h.tap(100, 500, at: 2)
    #expect(h.log.take() == ["V touchesBegan 0", "tap recognized", "V touchesCancelled 0", "tap action"])
  }

  /// A delegate asked whether its recognizer receives a new touch sees the touch's recognizers
  /// found before it on the way up, and the touch ends
  /// up with every recognizer that took it, nearest view first.
  @Test func delegateSeesTheRecognizersFoundSoFar() {
    let h = Harness()
    let outer = h.addView("O", 0, 0, 400, 800)
    let inner = View(frame: Rect(x: 0, y: 0, width: 200, height: 400))
    outer.addSubview(inner)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: inner)
    let press = h.attach(LongPressGestureRecognizer(), "press", to: inner)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: outer)
    let delegate = Delegate()
    var seen: [[ObjectIdentifier]] = []
    var touch: Touch?
    delegate.shouldReceive = { _, received in
      seen.append(received.gestureRecognizers.map { ObjectIdentifier($0) })
      touch = received
      return true
    }
    pan.delegate = delegate
    h.down(0, 100, 100, at: 1)
    #expect(seen == [[ObjectIdentifier(tap), ObjectIdentifier(press)]])
    #expect(
      touch?.gestureRecognizers.map { ObjectIdentifier($0) }
        == [ObjectIdentifier(tap), ObjectIdentifier(press), ObjectIdentifier(pan)])
    h.up(0, at: 1.05)
  }

  /// ignore(_:for:): the ignored touch goes to the view as if the recognizer were not there.
  @Test func ignoredTouchesGoStraightToTheView() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800, multipleTouch: true)
    let tap = h.attach(RightHalfTap(), "tap", to: view)
    h.tap(100, 100, at: 1)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesEnded 0"])
    h.down(0, 100, 100, at: 2)
    h.down(1, 300, 100, at: 2.01)
    #expect(tap.touches.count == 1)
    h.up(0, at: 2.05)  // ignored: delivered at once
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesBegan 1", "V touchesEnded 0"])
    h.up(1, at: 2.08)
    #expect(h.log.take() == ["tap recognized", "V touchesCancelled 1", "tap action"])
  }

  /// cancelsTouchesInView false: the view keeps getting the touches while the gesture runs.
  @Test func recognizerThatDoesNotCancelTouches() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    pan.cancelsTouchesInView = false
    h.drag(from: point(100, 100), to: point(140, 100), at: 1, duration: 0.2, hz: 10, lift: false)
    h.up(0, at: 1.3)
    #expect(
      h.log.take() == [
        "V touchesBegan 0", "pan began", "pan action", "V touchesMoved 0", "pan changed", "pan action",
        "V touchesMoved 0", "pan ended", "pan action", "V touchesEnded 0",
      ])
  }

  /// A recognizer disabled or removed in the middle of its gesture is cancelled; a disabled one
  /// gets no touches.
  @Test func disablingAndRemovingCancel() {
    let h = Harness()
    let view = plainView(h)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    h.drag(from: point(100, 100), to: point(150, 100), at: 1, duration: 0.1, lift: false)
    h.log.lines.removeAll()
    pan.isEnabled = false
    #expect(h.log.take() == ["pan cancelled", "pan action"])
    h.up(0, at: 1.2)
    h.drag(from: point(100, 100), to: point(150, 100), at: 2, duration: 0.1)
    #expect(h.log.take() == [])
    pan.isEnabled = true
    h.drag(from: point(100, 100), to: point(150, 100), at: 3, duration: 0.1, lift: false)
    h.log.lines.removeAll()
    view.removeGestureRecognizer(pan)
    #expect(h.log.take() == ["pan cancelled", "pan action"])
    #expect(pan.view == nil)
  }

  /// Recognizers on a view and its superview compete for the same touch: the deeper one gets it
  /// first and wins; the outer one fails.
  @Test func nestedTapsTheInnerWins() {
    let h = Harness()
    let outer = plainView(h)
    let inner = View(frame: Rect(x: 50, y: 50, width: 100, height: 100))
    outer.addSubview(inner)
    h.attach(TapGestureRecognizer(), "outer", to: outer)
    h.attach(TapGestureRecognizer(), "inner", to: inner)
    h.tap(100, 100, at: 1)
    #expect(h.log.take() == ["inner recognized", "outer failed", "inner action"])
    h.tap(300, 300, at: 2)
    #expect(h.log.take() == ["outer recognized", "outer action"])
  }

  /// Different fingers on different views: their recognizers do not share touches and both run.
  @Test func separateFingersSeparateGestures() {
    let h = Harness()
    let left = View(frame: Rect(x: 0, y: 0, width: 200, height: 800))
    let right = View(frame: Rect(x: 200, y: 0, width: 200, height: 800))
    h.window.addSubview(left)
    h.window.addSubview(right)
    h.attach(PanGestureRecognizer(), "left", to: left)
    h.attach(PanGestureRecognizer(), "right", to: right)
    h.down([0: point(100, 100), 1: point(300, 100)], at: 1)
    h.move([0: point(100, 130), 1: point(300, 130)], at: 1.1)
    #expect(compact(h.log.take()) == ["left began", "right began"])
  }

  /// A tap and a long press on one view: a short tap is a tap (the press fails at the lift); a
  /// hold is a press (the tap, still possible, is prevented when the press begins).
  @Test func tapVersusLongPress() {
    let h = Harness()
    let view = plainView(h)
    h.attach(TapGestureRecognizer(), "tap", to: view)
    h.attach(LongPressGestureRecognizer(), "press", to: view)
    h.tap(100, 100, at: 1)
    #expect(h.log.take() == ["tap recognized", "press failed", "tap action"])
    h.down(0, 100, 100, at: 2)
    h.advance(to: 2.5)
    #expect(h.log.take() == ["press began", "tap failed", "press action"])
    h.up(0, at: 2.6)
    #expect(h.log.take() == ["press ended", "press action"])
  }

  /// A recognizer on the window sees every touch of the window.
  @Test func windowRecognizer() {
    let h = Harness()
    h.addView("V", 0, 0, 100, 100)
    h.attach(TapGestureRecognizer(), "global", to: h.window)
    h.tap(50, 50, at: 1)
    #expect(
      h.log.take() == ["V touchesBegan 0", "global recognized", "V touchesCancelled 0", "global action"])
  }
}

/// The window's rules for views: one touch at a time unless multipleTouchEnabled, exclusive touch,
/// views removed during a touch.
@Suite struct ViewTouchRuleTests {
  @Test func oneTouchAtATimeByDefault() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    #expect(!view.isMultipleTouchEnabled)
    h.down(0, 100, 100, at: 1)
    h.down(1, 200, 100, at: 1.1)
    h.move([0: point(110, 100), 1: point(210, 100)], at: 1.2)
    h.up(0, at: 1.3)
    h.move(1, 220, 100, at: 1.4)
    h.up(1, at: 1.5)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesMoved 0", "V touchesEnded 0"])

    view.isMultipleTouchEnabled = true
    h.down(0, 100, 100, at: 2)
    h.down(1, 200, 100, at: 2.1)
    h.up(0, 1, at: 2.2)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesBegan 1", "V touchesEnded 0,1"])
  }

  /// An exclusive view tracks touches only while no other view does, and blocks other views while
  /// it does.
  @Test func exclusiveTouch() {
    let h = Harness()
    let exclusive = h.addView("X", 0, 0, 200, 800)
    exclusive.isExclusiveTouch = true
    h.addView("Y", 200, 0, 200, 800)
    h.down(0, 100, 100, at: 1)
    h.down(1, 300, 100, at: 1.1)
    h.up(0, 1, at: 1.2)
    #expect(h.log.take() == ["X touchesBegan 0", "X touchesEnded 0"])
    #expect(h.input.activeTouches.isEmpty)

    h.down(0, 300, 100, at: 2)
    h.down(1, 100, 100, at: 2.1)
    h.up(0, 1, at: 2.2)
    #expect(h.log.take() == ["Y touchesBegan 0", "Y touchesEnded 0"])
  }

  /// A view removed from the window while it tracks a touch gets touchesCancelled.
  @Test func removedViewGetsCancelled() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    h.down(0, 100, 100, at: 1)
    view.removeFromSuperview()
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesCancelled 0"])
    h.up(0, at: 1.1)
    #expect(h.log.take() == [])
  }
}

/// A view that handles motion events, and can be first responder.
final class ShakeField: View {
  var got: [String] = []
  override var canBecomeFirstResponder: Bool { true }
  override func motionBegan(_ motion: EventSubtype, with event: Event?) { got.append("motionBegan") }
  override func motionEnded(_ motion: EventSubtype, with event: Event?) { got.append("motionEnded") }
  override func motionCancelled(_ motion: EventSubtype, with event: Event?) {
    got.append("motionCancelled")
  }
}

@Suite struct RemovedResponderTests {
  /// Seed 003, motionCancelled: UIKit calls it on an interruption, "导致处理运动事件的 view 从其 window 中
  /// 移除的任何内容" (anything that removes the view handling the motion event from its window), as
  /// touchesCancelled for touches. The first responder that got motionBegan gets motionCancelled
  /// when it (here its superview) is removed from the window, and the end of that shake goes to
  /// nobody: a responder gets motionEnded or motionCancelled, not both. A view out of the window
  /// is not first responder any more (seed 003: a view outside the active view hierarchy must not
  /// be made first responder).
  @Test func aFirstResponderRemovedDuringAShakeGetsMotionCancelled() {
    let h = Harness()
    var records: [DispatchRecord] = []
    h.app.addDispatchObserver { records.append($0) }
    let container = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
    h.window.addSubview(container)
    let field = ShakeField(frame: Rect(x: 0, y: 0, width: 400, height: 100))
    field.identifier = "field"
    container.addSubview(field)
    #expect(field.becomeFirstResponder())

    h.app.post(.motion(timestamp: 1))
    #expect(field.got == ["motionBegan"])
    container.removeFromSuperview()
    #expect(field.got == ["motionBegan", "motionCancelled"])
    #expect(records.last?.motionPhase == .cancelled)
    #expect(records.last?.handledBy == "field")
    #expect(h.app.firstResponder == nil)

    h.app.post(.motion(timestamp: 2), phase: .ended)
    #expect(field.got == ["motionBegan", "motionCancelled"])
    #expect(records.last?.wasDropped == true)

    // Back in the window and first responder again, it gets the next shake whole, even moved to
    // another superview of the same window meanwhile; removing a view while no shake is under way
    // cancels nothing.
    h.window.addSubview(container)
    #expect(field.becomeFirstResponder())
    h.app.post(.motion(timestamp: 3))
    let other = View(frame: Rect(x: 0, y: 400, width: 400, height: 400))
    h.window.addSubview(other)
    other.addSubview(field)
    #expect(h.app.firstResponder === field)
    h.app.post(.motion(timestamp: 4), phase: .ended)
    other.removeFromSuperview()
    #expect(field.got == ["motionBegan", "motionCancelled", "motionBegan", "motionEnded"])
    #expect(h.app.firstResponder == nil)
  }
}

/// A view that handles presses, and takes focus.
final class PressField: View {
  var got: [String] = []
  override func pressesBegan(_ presses: Set<Press>, with event: Event?) { got.append("pressesBegan") }
  override func pressesChanged(_ presses: Set<Press>, with event: Event?) { got.append("pressesChanged") }
  override func pressesEnded(_ presses: Set<Press>, with event: Event?) { got.append("pressesEnded") }
  override func pressesCancelled(_ presses: Set<Press>, with event: Event?) {
    got.append(
      "pressesCancelled" + (presses.allSatisfy { $0.phase == .cancelled } ? "" : " (not in phase cancelled)"))
  }
}

extension RemovedResponderTests {
  /// Seed 003, pressesCancelled: UIKit calls it on an interruption, anything that "导致处理 press 事件
  /// 的 view 从其 window 中删除" (removes the view handling the press from its window); for each press a
  /// responder gets pressesEnded or pressesCancelled. The focused view that got pressesBegan gets
  /// pressesCancelled (the presses in phase cancelled) when it leaves the window, is no longer
  /// focused, and the rest of those presses goes to nobody.
  @Test func aFocusedViewRemovedDuringAPressGetsPressesCancelled() {
    let h = Harness()
    var records: [DispatchRecord] = []
    h.app.addDispatchObserver { records.append($0) }
    let field = PressField(frame: Rect(x: 0, y: 0, width: 400, height: 100))
    field.identifier = "field"
    h.window.addSubview(field)
    h.app.focusedResponder = field

    let press = Press(type: .select, timestamp: 1)
    h.app.post(Event(type: .presses, timestamp: 1, presses: [press]))
    field.removeFromSuperview()
    #expect(field.got == ["pressesBegan", "pressesCancelled"])
    #expect(records.last?.handledBy == "field")
    #expect(h.app.focusedResponder == nil)
    press.phase = .ended
    h.app.post(Event(type: .presses, timestamp: 2, presses: [press]))
    #expect(field.got.count == 2)
    #expect(records.last?.wasDropped == true)

    // Back, focused: a whole press; removed with no press under way, nothing more.
    h.window.addSubview(field)
    h.app.focusedResponder = field
    let next = Press(type: .select, timestamp: 3)
    h.app.post(Event(type: .presses, timestamp: 3, presses: [next]))
    next.phase = .ended
    h.app.post(Event(type: .presses, timestamp: 4, presses: [next]))
    field.removeFromSuperview()
    #expect(field.got.suffix(2) == ["pressesBegan", "pressesEnded"])
  }
}

/// A second finger landing while a pan is under way goes to the pan, not to the view.
@Suite struct LateTouchTests {
  @Test func secondFingerDuringAPan() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800, multipleTouch: true)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    h.drag(from: point(100, 100), to: point(150, 100), at: 1, duration: 0.1, lift: false)
    h.log.lines.removeAll()
    h.down(1, 300, 300, at: 1.2)
    h.move([0: point(160, 100), 1: point(310, 300)], at: 1.3)
    h.up(0, 1, at: 1.4)
    #expect(h.log.take() == ["pan changed", "pan action", "pan ended", "pan action"])
    #expect(pan.state == .possible)
  }

  /// The same for a long press once it has begun (seed 000: once a continuous recognizer has
  /// begun, later touches go to it, not to the view). The press ends when its own finger lifts.
  @Test func secondFingerDuringALongPress() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800, multipleTouch: true)
    let press = h.attach(LongPressGestureRecognizer(), "press", to: view)
    h.down(0, 100, 100, at: 1.0)
    h.advance(to: 1.5)
    #expect(h.log.take() == ["V touchesBegan 0", "press began", "V touchesCancelled 0", "press action"])
    h.down(1, 300, 300, at: 1.7)
    h.move(1, 320, 300, at: 1.75)
    h.up(1, at: 1.8)
    #expect(h.log.take() == [])
    #expect(press.state == .began)
    h.down(2, 300, 500, at: 1.9)
    h.up(0, at: 2.0)
    #expect(h.log.take() == ["press ended", "press action"])
    h.up(2, at: 2.1)
    #expect(h.log.take() == [])
    #expect(press.state == .possible)
  }

  /// And for a third finger during a pinch that has begun (the pinch goes on with its two).
  @Test func thirdFingerDuringAPinch() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800, multipleTouch: true)
    let pinch = h.attach(PinchGestureRecognizer(), "pinch", to: view)
    h.down([0: point(100, 400), 1: point(200, 400)], at: 1)
    h.move([0: point(80, 400), 1: point(220, 400)], at: 1.05)
    #expect(pinch.state == .began)
    h.log.lines.removeAll()
    h.down(2, 300, 100, at: 1.1)
    h.move([0: point(50, 400), 1: point(250, 400), 2: point(310, 100)], at: 1.15)
    #expect(abs(pinch.scale - 2) < 1e-9)
    h.up(2, at: 1.2)
    #expect(h.log.take() == ["pinch changed", "pinch action"])
    h.up(0, 1, at: 1.3)
    #expect(h.log.take() == ["pinch ended", "pinch action"])
  }
}
