import ResponderCore
import Testing
import TouchDispatch

@Suite struct ControlTests {
  @discardableResult
  private func button(_ h: Harness, in parent: View? = nil) -> Button {
    h.add(Button(frame: Rect(x: 100, y: 100, width: 100, height: 40)), "B", to: parent)
  }

  @Test func tapSendsTouchDownThenTouchUpInsideAndPrimaryAction() {
    let h = Harness()
    let b = button(h)
    h.down(0, 150, 120, at: 1)
    #expect(b.isTracking && b.isHighlighted)
    h.up(0, at: 1.1)
    #expect(h.log.take() == ["B touchDown", "B touchUpInside", "B primaryActionTriggered"])
    #expect(!b.isTracking && !b.isHighlighted)
  }

  /// Dragging out past the margin and back: exit, outside, enter, inside; lifting outside is
  /// touchUpOutside.
  @Test func dragEventsAcrossTheEdge() {
    let h = Harness()
    let b = button(h)
    #expect(b.touchMargin == 70)
    h.down(0, 150, 120, at: 1)
    h.move(0, 160, 125, at: 1.05)
    h.move(0, 150, 300, at: 1.1)  // 160 points below: outside even with the margin
    h.move(0, 150, 310, at: 1.15)
    h.move(0, 150, 130, at: 1.2)
    h.move(0, 150, 400, at: 1.25)
    h.up(0, at: 1.3)
    #expect(
      h.log.take() == [
        "B touchDown", "B touchDragInside", "B touchDragOutside", "B touchDragExit", "B touchDragOutside",
        "B touchDragInside", "B touchDragEnter", "B touchDragOutside", "B touchDragExit", "B touchUpOutside",
      ])
  }

  /// A second quick tap: touchDownRepeat (the touch's tapCount is 2).
  @Test func touchDownRepeat() {
    let h = Harness()
    button(h)
    h.tap(150, 120, at: 1)
    h.log.lines.removeAll()
    h.tap(152, 121, at: 1.2)
    #expect(
      h.log.take() == ["B touchDown", "B touchDownRepeat", "B touchUpInside", "B primaryActionTriggered"])
  }

  /// A switch toggles on touch up inside and reports valueChanged.
  @Test func switchValueChanged() {
    let h = Harness()
    let toggle = h.add(Switch(frame: Rect(x: 10, y: 10, width: 60, height: 30)), "S")
    h.tap(20, 20, at: 1)
    #expect(toggle.isOn)
    #expect(h.log.take() == ["S touchDown", "S touchUpInside", "S valueChanged", "S primaryActionTriggered"])
    h.tap(20, 20, at: 2)
    #expect(!toggle.isOn)
  }

  /// Target-action: a given target gets the action; a nil target sends it up the responder chain
  /// from the first responder (seed 003 "Target-Action in UIKit").
  @Test func targetAction() {
    final class Editor: View {
      override var canBecomeFirstResponder: Bool { true }
    }
    let h = Harness()
    let controller = ViewController()
    h.window.rootViewController = controller
    let b = button(h, in: controller.view)
    var direct: [String] = []
    let target = Responder()
    target.registerAction("save") { sender, _ in
      direct.append("save from \((sender as? View)?.identifier ?? "?")")
    }
    b.addTarget(target, action: "save", for: .touchUpInside)

    var chained: [String] = []
    controller.registerAction("copy") { _, _ in chained.append("copy by controller") }
    b.addTarget(nil, action: "copy", for: .touchUpInside)

    h.tap(150, 120, at: 1)
    #expect(direct == ["save from B"])
    #expect(chained == ["copy by controller"])  // no first responder: from the sender up the chain

    let editor = Editor(frame: Rect(x: 0, y: 600, width: 100, height: 30))
    controller.view.addSubview(editor)
    #expect(editor.becomeFirstResponder())
    editor.registerAction("copy") { _, _ in chained.append("copy by editor") }
    h.tap(150, 120, at: 2)
    #expect(chained == ["copy by controller", "copy by editor"])

    #expect(direct == ["save from B", "save from B"])
    b.removeTarget(target, action: "save", for: .touchUpInside)
    h.tap(150, 120, at: 3)
    #expect(direct.count == 2)
  }

  /// Seed 000 "Interacting with Other UI Controls" (iOS 6 and later): a single tap on a button
  /// inside a view with a single-tap recognizer triggers the button's action, not the recognizer.
  @Test func controlKeepsItsDefaultActionAgainstASuperviewTap() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: container)
    let b = button(h, in: container)
    _ = b

    h.tap(150, 120, at: 1)
    #expect(h.log.take() == ["B touchDown", "tap failed", "B touchUpInside", "B primaryActionTriggered"])

    h.tap(300, 500, at: 2)  // elsewhere in the view: the recognizer's tap
    #expect(h.log.take() == ["V touchesBegan 0", "tap recognized", "V touchesCancelled 0", "tap action"])
    #expect(tap.state == .possible)
  }

  /// Attached to the control itself, the recognizer gets the touches first and wins: the button's
  /// tracking is cancelled.
  @Test func recognizerOnTheControlItselfWins() {
    let h = Harness()
    let b = button(h)
    h.attach(TapGestureRecognizer(), "tap", to: b)
    h.tap(150, 120, at: 1)
    #expect(h.log.take() == ["B touchDown", "tap recognized", "B touchCancel", "tap action"])
  }

  /// Only gestures overlapping the default action give way: a double tap on the superview still
  /// recognizes over the button (and the button's single tap waits for it to fail).
  @Test func nonOverlappingGesturesAreNotAffected() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    let double = h.attach(TapGestureRecognizer(), "double", to: container)
    double.numberOfTapsRequired = 2
    button(h, in: container)

    h.tap(150, 120, at: 1)
    #expect(h.log.take() == ["B touchDown"])
    h.advance(to: 1.5)
    #expect(h.log.take() == ["double failed", "B touchUpInside", "B primaryActionTriggered"])

    h.tap(150, 120, at: 3)
    h.tap(150, 121, at: 3.2)
    #expect(
      h.log.take() == [
        "B touchDown", "B touchDown", "B touchDownRepeat", "double recognized", "B touchCancel",
        "double action",
      ])
  }

  /// A disabled control sends nothing and passes its touches up the chain.
  @Test func disabledControl() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    let b = button(h, in: container)
    b.isEnabled = false
    h.tap(150, 120, at: 1)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesEnded 0"])
  }

  /// A pan on the superview that begins cancels the button's tracking (touchCancel).
  @Test func panOnSuperviewCancelsTracking() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    h.attach(PanGestureRecognizer(), "pan", to: container)
    button(h, in: container)
    h.drag(from: point(150, 120), to: point(150, 300), at: 1, duration: 0.5)  // 6 points a frame
    let lines = h.log.take().filter { !$0.hasPrefix("pan changed") && $0 != "pan action" }
    #expect(lines.prefix(4) == ["B touchDown", "B touchDragInside", "pan began", "B touchCancel"])
    #expect(lines.last == "pan ended")
  }

  // MARK: The iOS 6 rule for a switch's knob and a slider's knob (seed 000)

  private func toggle(_ h: Harness, in parent: View) -> Switch {
    h.add(Switch(frame: Rect(x: 100, y: 100, width: 60, height: 30)), "S", to: parent)
  }

  /// Seed 000: "A single finger pan gesture on the knob of a UISwitch, in a direction parallel to
  /// the switch" is the switch's default action: the pan on the superview fails, the switch
  /// tracks the drag and flips.
  @Test func aPanAlongASwitchsKnobGivesWayToTheSwitch() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    h.attach(PanGestureRecognizer(), "pan", to: container)
    let s = toggle(h, in: container)
    h.drag(from: point(110, 115), to: point(150, 115), at: 1, duration: 0.1)
    let lines = h.log.take().filter { $0 != "S touchDragInside" }
    #expect(
      lines == ["S touchDown", "pan failed", "S touchUpInside", "S valueChanged", "S primaryActionTriggered"])
    #expect(s.isOn)
  }

  /// Across the switch, or starting off the knob, the pan is no default action of the switch: it
  /// takes the touch.
  @Test func aPanAcrossASwitchOrOffItsKnobTakesTheTouch() {
    for (from, to) in [(point(110, 105), point(110, 205)), (point(150, 115), point(250, 115))] {
      let h = Harness()
      let container = h.addView("V", 0, 0, 400, 800)
      h.attach(PanGestureRecognizer(), "pan", to: container)
      let s = toggle(h, in: container)
      h.drag(from: from, to: to, at: 1, duration: 0.1)
      let lines = h.log.take().filter {
        !$0.hasPrefix("S touchDrag") && !$0.hasPrefix("pan changed") && $0 != "pan action"
      }
      #expect(lines == ["S touchDown", "pan began", "S touchCancel", "pan ended"], "\(from)")
      #expect(!s.isOn)
    }
  }

  private func slider(_ h: Harness, in parent: View) -> Slider {
    h.add(Slider(frame: Rect(x: 100, y: 100, width: 220, height: 20)), "L", to: parent)
  }

  /// Dragging the knob moves the value by as much as the finger moves along the track (200 points
  /// of travel for 0…1) and sends valueChanged as it changes; a touch off the knob is not tracked.
  @Test func sliderTracksItsKnob() {
    let h = Harness()
    let l = slider(h, in: h.window)
    #expect(l.knobRect == Rect(x: 0, y: 0, width: 20, height: 20))
    h.down(0, 110, 110, at: 1)
    h.move(0, 160, 112, at: 1.05)
    #expect(abs(l.value - 0.25) < 1e-9)
    h.move(0, 260, 112, at: 1.1)
    h.up(0, at: 1.15)
    #expect(abs(l.value - 0.75) < 1e-9)
    #expect(
      h.log.take() == [
        "L touchDown", "L valueChanged", "L touchDragInside", "L valueChanged", "L touchDragInside",
        "L touchUpInside", "L primaryActionTriggered",
      ])
    // Past the end of the track: held at the maximum.
    h.drag(from: point(265, 110), to: point(400, 110), at: 2, duration: 0.05)
    #expect(l.value == 1)
    h.log.lines.removeAll()
    // Off the knob: nothing.
    h.tap(120, 110, at: 3)
    #expect(h.log.take() == [])
    #expect(l.value == 1)
    // Not continuous: one valueChanged, at the lift.
    l.isContinuous = false
    h.drag(from: point(310, 110), to: point(210, 110), at: 4, duration: 0.05)
    #expect(abs(l.value - 0.5) < 1e-9)
    #expect(h.log.take().filter { $0 == "L valueChanged" }.count == 1)
  }

  /// Seed 000 "Interacting with Other UI Controls": the controls whose default action is a single
  /// tap (a switch among them, as a button) keep it against a single-tap recognizer of their
  /// superview: the switch toggles, the tap fails. A slider is not in that list (its default
  /// action is dragging its knob): a tap on its knob is the superview recognizer's, and the
  /// slider's tracking is cancelled.
  @Test func aSuperviewTapGivesWayToASwitchNotToASlider() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    h.attach(TapGestureRecognizer(), "tap", to: container)
    let toggle = h.add(Switch(frame: Rect(x: 10, y: 10, width: 60, height: 30)), "S", to: container)
    h.tap(20, 20, at: 1)
    #expect(toggle.isOn)
    #expect(
      h.log.take() == [
        "S touchDown", "tap failed", "S touchUpInside", "S valueChanged", "S primaryActionTriggered",
      ])

    let l = slider(h, in: container)
    h.tap(110, 110, at: 2)  // on the knob
    #expect(h.log.take() == ["L touchDown", "tap recognized", "L touchCancel", "tap action"])
    #expect(l.value == 0)
  }

  /// Seed 000: "A single finger swipe on the knob of a UISlider, in a direction parallel to the
  /// slider" is the slider's default action: the swipe on the superview fails and the slider
  /// moves. Started off the knob, the swipe is recognized.
  @Test func aSwipeAlongASlidersKnobGivesWayToTheSlider() {
    let h = Harness()
    let container = h.addView("V", 0, 0, 400, 800)
    let swipe = h.attach(SwipeGestureRecognizer(), "swipe", to: container)
    swipe.direction = [.left, .right]
    let l = slider(h, in: container)
    h.drag(from: point(110, 110), to: point(210, 110), at: 1, duration: 0.1)
    let lines = h.log.take().filter { $0 != "L touchDragInside" && $0 != "L valueChanged" }
    #expect(lines == ["L touchDown", "swipe failed", "L touchUpInside", "L primaryActionTriggered"])
    #expect(abs(l.value - 0.5) < 1e-9)

    h.drag(from: point(110, 300), to: point(210, 300), at: 2, duration: 0.1)
    #expect(
      h.log.take().filter { $0 != "V touchesMoved 0" } == [
        "V touchesBegan 0", "swipe recognized", "V touchesCancelled 0", "swipe action",
      ])
  }
}
