import ResponderCore
import Testing
import TouchDispatch

/// Every built-in recognizer's success and failure paths. Logs show recognizer states and actions.
@Suite struct RecognizerTests {
  private func setUp<R: GestureRecognizer>(
    _ recognizer: R, _ name: String = "g", multipleTouch: Bool = false
  ) -> (Harness, R) {
    let h = Harness()
    let view = View(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    view.isMultipleTouchEnabled = multipleTouch
    h.window.addSubview(view)
    h.attach(recognizer, name, to: view)
    return (h, recognizer)
  }

  // MARK: Tap

  @Test func tapRecognizedAtLift() {
    let (h, tap) = setUp(TapGestureRecognizer())
    var location: Point?
    tap.addHandler { location = $0.location(in: nil) }
    h.down(0, 100, 100, at: 1)
    #expect(tap.state == .possible)
    h.move(0, 130, 100, at: 1.05)  // 30 points: within the allowed movement
    h.up(0, at: 1.1)
    #expect(h.log.take() == ["g recognized", "g action"])
    #expect(location == Point(x: 130, y: 100))
    #expect(tap.state == .possible)  // reset after the sequence
  }

  @Test func tapFailsWhenTheFingerMovesTooFar() {
    let (h, _) = setUp(TapGestureRecognizer())
    h.down(0, 100, 100, at: 1)
    h.move(0, 150, 100, at: 1.05)
    #expect(h.log.take() == ["g failed"])
    h.up(0, at: 1.1)
    #expect(h.log.take() == [])
  }

  @Test func tapFailsWhenHeldTooLong() {
    let (h, tap) = setUp(TapGestureRecognizer())
    h.down(0, 100, 100, at: 1)
    h.advance(to: 1.74)
    #expect(tap.state == .possible)
    h.advance(to: 1.75)
    #expect(h.log.take() == ["g failed"])  // by the timer, the finger still down
    h.up(0, at: 2)
    #expect(h.log.take() == [])
  }

  @Test func doubleTapFailsWhenTheSecondTapComesLate() {
    let (h, tap) = setUp(TapGestureRecognizer())
    tap.numberOfTapsRequired = 2
    h.tap(100, 100, at: 1)
    h.advance(to: 1.08 + 0.35)
    #expect(h.log.take() == ["g failed"])
    h.tap(100, 100, at: 1.5)  // a new first tap
    h.tap(100, 100, at: 1.7)
    #expect(h.log.take() == ["g recognized", "g action"])
  }

  @Test func doubleTapFailsWhenTheSecondTapIsFarAway() {
    let (h, tap) = setUp(TapGestureRecognizer())
    tap.numberOfTapsRequired = 2
    h.tap(100, 100, at: 1)
    h.tap(200, 100, at: 1.2)
    #expect(h.log.take() == ["g failed"])
  }

  @Test func twoFingerTap() {
    let (h, tap) = setUp(TapGestureRecognizer())
    tap.numberOfTouchesRequired = 2
    var seen: (Point, Int)?
    tap.addHandler { seen = ($0.location(in: nil), $0.numberOfTouches) }
    h.down(0, 100, 100, at: 1)
    h.down(1, 200, 100, at: 1.03)  // fingers need not land in the same frame
    h.up(0, at: 1.1)
    h.up(1, at: 1.12)
    #expect(h.log.take() == ["g recognized", "g action"])
    #expect(seen?.0 == Point(x: 150, y: 100))
    #expect(seen?.1 == 2)

    h.tap(100, 100, at: 2)  // one finger is not enough
    #expect(h.log.take() == ["g failed"])

    h.down([0: point(100, 100), 1: point(150, 100), 2: point(200, 100)], at: 3)  // three are too many
    #expect(h.log.take() == ["g failed"])
  }

  @Test func tapFailsOnCancelledTouches() {
    let (h, _) = setUp(TapGestureRecognizer())
    h.down(0, 100, 100, at: 1)
    h.cancelAll(at: 1.05)
    #expect(h.log.take() == ["g failed"])
  }

  // MARK: Long press

  @Test func longPressBeginsAfterTheMinimumDuration() {
    let (h, press) = setUp(LongPressGestureRecognizer())
    #expect(press.minimumPressDuration == 0.5 && press.allowableMovement == 10)
    h.down(0, 100, 100, at: 1)
    h.move(0, 108, 100, at: 1.2)  // within 10 points
    h.advance(to: 1.49)
    #expect(h.log.take() == [])
    h.advance(to: 1.5)
    #expect(h.log.take() == ["g began", "g action"])
    h.move(0, 150, 100, at: 1.6)  // moving after it began is a change, whatever the distance
    h.up(0, at: 1.7)
    #expect(h.log.take() == ["g changed", "g action", "g ended", "g action"])
  }

  @Test func longPressFailsWhenLiftedEarlyOrMoved() {
    let (h, _) = setUp(LongPressGestureRecognizer())
    h.down(0, 100, 100, at: 1)
    h.up(0, at: 1.3)
    #expect(h.log.take() == ["g failed"])
    h.down(0, 100, 100, at: 2)
    h.move(0, 111, 100, at: 2.1)
    #expect(h.log.take() == ["g failed"])
    h.advance(to: 3)
    h.up(0, at: 3)
    #expect(h.log.take() == [])
  }

  @Test func longPressWithTwoFingersAndATap() {
    let (h, press) = setUp(LongPressGestureRecognizer())
    press.numberOfTouchesRequired = 2
    h.down(0, 100, 100, at: 1)
    h.advance(to: 1.8)
    #expect(h.log.take() == [])  // one finger: nothing
    h.down(1, 150, 100, at: 1.8)
    h.advance(to: 2.3)
    #expect(h.log.take() == ["g began", "g action"])
    h.up(1, at: 2.4)
    #expect(h.log.take() == ["g ended", "g action"])
    h.up(0, at: 2.5)

    let (h2, tapThenPress) = setUp(LongPressGestureRecognizer())
    tapThenPress.numberOfTapsRequired = 1
    h2.tap(100, 100, at: 1)
    h2.down(0, 100, 100, at: 1.2)
    h2.advance(to: 1.7)
    #expect(h2.log.take() == ["g began", "g action"])
    h2.up(0, at: 1.8)
    #expect(h2.log.take() == ["g ended", "g action"])
    h2.down(0, 100, 100, at: 3)  // no tap first: held like a press during the tap, it fails
    h2.advance(to: 3.5)
    #expect(h2.log.take() == ["g failed"])
    h2.up(0, at: 4)
  }

  // MARK: Pan

  @Test func panTranslationAndVelocity() {
    let (h, pan) = setUp(PanGestureRecognizer())
    var translations: [Point] = []
    pan.addHandler { recognizer in
      translations.append((recognizer as! PanGestureRecognizer).translation(in: nil))
    }
    h.down(0, 100, 100, at: 1)
    h.move(0, 105, 100, at: 1.01)
    #expect(pan.state == .possible)
    h.move(0, 112, 100, at: 1.02)
    #expect(pan.state == .began)
    h.glide(from: 1.02, duration: 0.2, hz: 100) { f in [0: point(112 + 100 * f, 100 + 50 * f)] }
    #expect(pan.translation(in: nil) == Point(x: 112, y: 50))
    let v = pan.velocity(in: nil)
    #expect(abs(v.x - 500) < 1e-6 && abs(v.y - 250) < 1e-6)
    h.up(0, at: 1.22)
    #expect(pan.state == .possible)
    #expect(translations.first == Point(x: 12, y: 0))
    #expect(translations.last == Point(x: 112, y: 50))
  }

  @Test func panTranslationInAViewAndSetTranslation() {
    let h = Harness()
    let view = View(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    view.transform = AffineTransform(scaleX: 2, y: 2)
    h.window.addSubview(view)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    h.down(0, 200, 400, at: 1)
    h.move(0, 240, 400, at: 1.1)
    #expect(pan.translation(in: view) == Point(x: 20, y: 0))  // the view is scaled 2×
    pan.setTranslation(.zero, in: view)
    h.move(0, 260, 420, at: 1.2)
    #expect(pan.translation(in: view) == Point(x: 10, y: 10))
    #expect(pan.translation(in: nil) == Point(x: 20, y: 20))
  }

  @Test func panFailsWithoutMovement() {
    let (h, _) = setUp(PanGestureRecognizer())
    h.down(0, 100, 100, at: 1)
    h.move(0, 105, 104, at: 1.1)  // under 10 points
    h.up(0, at: 1.2)
    #expect(h.log.take() == ["g failed"])
  }

  @Test func panTouchCountLimits() {
    let (h, pan) = setUp(PanGestureRecognizer())
    pan.minimumNumberOfTouches = 2
    h.drag(from: point(100, 100), to: point(200, 100), at: 1, duration: 0.2)  // one finger
    #expect(h.log.take() == ["g failed"])
    h.down([0: point(100, 100), 1: point(150, 100)], at: 2)
    h.move([0: point(120, 100), 1: point(170, 100)], at: 2.1)
    #expect(h.log.take() == ["g began", "g action"])
    h.up(0, at: 2.2)  // fewer than the minimum: ended
    #expect(h.log.take() == ["g ended", "g action"])
    h.up(1, at: 2.3)

    let (h2, single) = setUp(PanGestureRecognizer())
    single.maximumNumberOfTouches = 1
    h2.down([0: point(100, 100), 1: point(150, 100)], at: 1)
    #expect(h2.log.take() == ["g failed"])
  }

  /// A second finger coming down, or one lifting, does not make the translation jump.
  @Test func panTranslationIsContinuousWhenFingersChange() {
    let (h, pan) = setUp(PanGestureRecognizer())
    h.down(0, 100, 100, at: 1)
    h.move(0, 120, 100, at: 1.1)
    #expect(pan.translation(in: nil) == Point(x: 20, y: 0))
    h.down(1, 300, 300, at: 1.2)
    #expect(pan.translation(in: nil) == Point(x: 20, y: 0))
    h.move([0: point(130, 100), 1: point(310, 300)], at: 1.3)
    #expect(pan.translation(in: nil) == Point(x: 30, y: 0))
    h.up(0, at: 1.4)
    #expect(pan.translation(in: nil) == Point(x: 30, y: 0))
    h.move(1, 320, 310, at: 1.5)
    #expect(pan.translation(in: nil) == Point(x: 40, y: 10))
    #expect(pan.state == .changed)
  }

  /// Issue 25: two fingers rest (moving at most 2 points); in the frame where one lifts the other
  /// moves 1 point. The moved touch is delivered before the ended one: the translation must not
  /// jump by half the distance between the fingers, and the pan must not begin.
  @Test func aStillFingerLiftingDoesNotBeginAPan() {
    let (h, pan) = setUp(PanGestureRecognizer(), multipleTouch: true)
    h.down([0: point(50, 400), 1: point(350, 400)], at: 1)
    h.move([0: point(51, 401), 1: point(349, 402)], at: 1.05)
    h.move([0: point(52, 400), 1: point(350, 401)], at: 1.1)
    #expect(pan.touches.count == 2)
    h.move([1: point(351, 401)], lifting: [0], at: 1.15)
    #expect(pan.translation(in: nil).distance(to: .zero) < 2)
    #expect(pan.state == .possible)
    h.up(1, at: 1.2)
    #expect(h.log.take() == ["g failed"])
  }

  /// A two-finger pan under way: one finger lifts in the frame the other moves, then the other
  /// goes on alone. The translation follows the fingers' movement and nothing else.
  @Test func aFingerLiftingDuringATwoFingerPanDoesNotMoveIt() {
    let (h, pan) = setUp(PanGestureRecognizer(), multipleTouch: true)
    var translations: [Point] = []
    pan.addHandler { recognizer in
      translations.append((recognizer as! PanGestureRecognizer).translation(in: nil))
    }
    h.down([0: point(100, 400), 1: point(300, 400)], at: 1)
    h.glide(from: 1, duration: 0.1, hz: 100) { f in
      [0: point(100, 400 + 50 * f), 1: point(300, 400 + 50 * f)]
    }
    #expect(pan.translation(in: nil) == Point(x: 0, y: 50))
    h.move([1: point(300, 454)], lifting: [0], at: 1.11)
    // The frame's movement is the moving finger's, averaged with the lifting one's (none).
    #expect(pan.translation(in: nil) == Point(x: 0, y: 52))
    h.move(1, 300, 464, at: 1.12)
    #expect(pan.translation(in: nil) == Point(x: 0, y: 62))
    // A finger landing far away does not move it either.
    h.down(2, 50, 100, at: 1.13)
    #expect(pan.translation(in: nil) == Point(x: 0, y: 62))
    h.move([1: point(300, 474), 2: point(50, 110)], at: 1.14)
    #expect(pan.translation(in: nil) == Point(x: 0, y: 72))
    h.up(1, 2, at: 1.15)
    #expect(translations.last == Point(x: 0, y: 72))
    let steps = zip(translations, translations.dropFirst()).map { $0.1.distance(to: $0.0) }
    #expect(steps.allSatisfy { $0 <= 10.0001 }, "translation steps \(steps)")
  }

  /// Cancelling a continuous gesture sends its action, so that the action method can throw the
  /// gesture's changes away. Seed 000's rotation sample tests `state == cancelled` in the action
  /// method ("if (([recognizer state] == UIGestureRecognizerStateEnded) || ([recognizer state] ==
  /// UIGestureRecognizerStateCancelled))"); seed 003: "使用 cancelled 状态放弃更改" (use the
  /// cancelled state to discard changes).
  @Test func panCancelledWithTheTouches() {
    let (h, pan) = setUp(PanGestureRecognizer())
    // An app following the samples: a drag moves its content, a cancelled drag puts it back.
    var committed = 0.0
    var shown = 0.0
    pan.addHandler { recognizer in
      let pan = recognizer as! PanGestureRecognizer
      switch pan.state {
      case .began, .changed: shown = committed + pan.translation(in: nil).x
      case .ended: committed = shown
      case .cancelled: shown = committed
      default: break
      }
    }
    h.drag(from: point(100, 100), to: point(200, 100), at: 1, duration: 0.1, lift: false)
    #expect(shown == 100)
    h.log.lines.removeAll()
    h.cancelAll(at: 1.2)
    #expect(h.log.take() == ["g cancelled", "g action"])
    #expect(shown == 0)
    #expect(committed == 0)
  }

  // MARK: Swipe

  @Test func swipeRecognizedBeforeTheFingerLifts() {
    let (h, swipe) = setUp(SwipeGestureRecognizer())
    h.drag(from: point(100, 400), to: point(300, 410), at: 1, duration: 0.15, lift: false)
    #expect(h.log.take() == ["g recognized", "g action"])
    #expect(swipe.state == .recognized)  // the finger is still down: not reset yet
    h.up(0, at: 1.2)
    #expect(swipe.state == .possible)
  }

  @Test func swipeDirections() {
    for (direction, to, recognized) in [
      (SwipeDirection.left, point(0, 400), true), (.up, point(200, 200), true),
      (.down, point(200, 600), true),
      (.right, point(0, 400), false), ([.left, .right], point(0, 400), true), (.up, point(200, 600), false),
    ] {
      let (h, swipe) = setUp(SwipeGestureRecognizer())
      swipe.direction = direction
      h.drag(from: point(200, 400), to: to, at: 1, duration: 0.15)
      #expect(h.log.take().first == (recognized ? "g recognized" : "g failed"), "\(direction)")
    }
  }

  @Test func swipeFailsAsSoonAsItHeadsOffItsDirection() {
    let (h, _) = setUp(SwipeGestureRecognizer())
    h.down(0, 100, 400, at: 1)
    h.move(0, 108, 404, at: 1.01)  // under the slop: not judged yet
    #expect(h.log.take() == [])
    h.move(0, 115, 412, at: 1.02)  // 39° off the right direction
    #expect(h.log.take() == ["g failed"])
  }

  @Test func swipeFailsWhenTooSlowEvenWithoutEvents() {
    let (h, _) = setUp(SwipeGestureRecognizer())
    h.down(0, 100, 400, at: 1)
    h.move(0, 130, 400, at: 1.1)
    h.advance(to: 1.39)
    #expect(h.log.take() == [])
    h.advance(to: 1.4)
    #expect(h.log.take() == ["g failed"])  // the finger is still down
  }

  @Test func swipeFailsWhenLiftedShort() {
    let (h, _) = setUp(SwipeGestureRecognizer())
    h.drag(from: point(100, 400), to: point(140, 400), at: 1, duration: 0.05)
    #expect(h.log.take() == ["g failed"])
  }

  @Test func twoFingerSwipe() {
    let (h, swipe) = setUp(SwipeGestureRecognizer())
    swipe.numberOfTouchesRequired = 2
    swipe.direction = .up
    h.down([0: point(100, 600), 1: point(200, 600)], at: 1)
    h.glide(from: 1, duration: 0.1, hz: 60) { f in
      [0: point(100, 600 - 100 * f), 1: point(200, 600 - 90 * f)]
    }
    #expect(h.log.take() == ["g recognized", "g action"])
    #expect(swipe.recognizedDirection == .up)
    h.up(0, 1, at: 1.2)

    h.drag(from: point(100, 600), to: point(100, 400), at: 2, duration: 0.1)  // one finger
    #expect(h.log.take() == ["g failed"])
  }

  // MARK: Pinch and rotation

  @Test func pinchScaleAndVelocity() {
    let (h, pinch) = setUp(PinchGestureRecognizer())
    h.down([0: point(100, 400), 1: point(200, 400)], at: 1)
    h.glide(from: 1, duration: 0.2, hz: 100) { f in
      [0: point(100 - 50 * f, 400), 1: point(200 + 50 * f, 400)]
    }
    #expect(abs(pinch.scale - 2) < 1e-9)
    #expect(abs(pinch.velocity - 5) < 1e-6)  // +1 per 0.2 s
    let states = h.log.take().filter { $0 != "g action" }
    #expect(states.first == "g began" && states.dropFirst().allSatisfy { $0 == "g changed" })
    h.up(1, at: 1.25)
    #expect(h.log.take() == ["g ended", "g action"])
  }

  @Test func pinchFailsWithOneFinger() {
    let (h, _) = setUp(PinchGestureRecognizer())
    h.drag(from: point(100, 100), to: point(300, 100), at: 1, duration: 0.2)
    #expect(h.log.take() == ["g failed"])
  }

  @Test func pinchIgnoresAThirdFinger() {
    let (h, pinch) = setUp(PinchGestureRecognizer())
    h.down([0: point(100, 400), 1: point(200, 400)], at: 1)
    h.down(2, 300, 300, at: 1.05)
    h.move([0: point(125, 400), 1: point(175, 400), 2: point(390, 300)], at: 1.1)
    #expect(abs(pinch.scale - 0.5) < 1e-9)
    #expect(pinch.numberOfTouches == 2)
  }

  /// A finger of the pair lifting in the frame the other moves: the scale follows the one
  /// movement and does not jump; a third finger landing or lifting changes nothing.
  @Test func pinchScaleDoesNotJumpWhenFingersLandOrLift() {
    let (h, pinch) = setUp(PinchGestureRecognizer(), multipleTouch: true)
    var scales: [Double] = []
    pinch.addHandler { recognizer in scales.append((recognizer as! PinchGestureRecognizer).scale) }
    h.down([0: point(100, 400), 1: point(300, 400)], at: 1)
    h.glide(from: 1, duration: 0.1, hz: 100) { f in
      [0: point(100 - 20 * f, 400), 1: point(300 + 20 * f, 400)]
    }
    #expect(abs(pinch.scale - 1.2) < 1e-9)
    h.down(2, 200, 100, at: 1.11)
    h.move(2, 250, 150, at: 1.12)
    h.up(2, at: 1.13)
    #expect(abs(pinch.scale - 1.2) < 1e-9)
    h.move([1: point(322, 400)], lifting: [0], at: 1.14)
    #expect(abs(scales.last! - 242.0 / 240.0 * 1.2) < 1e-9)
    #expect(h.log.lines.suffix(2) == ["g ended", "g action"])
  }

  /// The same for rotation: the angle changes only by what the fingers turned.
  @Test func rotationAngleDoesNotJumpWhenFingersLandOrLift() {
    let (h, rotation) = setUp(RotationGestureRecognizer(), multipleTouch: true)
    var angles: [Double] = []
    rotation.addHandler { recognizer in angles.append((recognizer as! RotationGestureRecognizer).rotation) }
    h.down([0: point(100, 400), 1: point(300, 400)], at: 1)
    h.glide(from: 1, duration: 0.1, hz: 100) { f in
      [0: point(100, 400 - 40 * f), 1: point(300, 400 + 40 * f)]
    }
    let turned = rotation.rotation
    #expect(abs(turned - arcTangentOf(80, 200)) < 1e-9)
    h.down(2, 200, 100, at: 1.11)
    h.move(2, 250, 150, at: 1.12)
    h.up(2, at: 1.13)
    #expect(rotation.rotation == turned)
    h.move([1: point(300, 441)], lifting: [0], at: 1.14)
    #expect(abs(angles.last! - arcTangentOf(81, 200)) < 1e-9)
    #expect(h.log.lines.suffix(2) == ["g ended", "g action"])
  }

  @Test func rotationAngleAndVelocity() {
    let (h, rotation) = setUp(RotationGestureRecognizer())
    let center = point(200, 400)
    func fingers(_ angle: Double) -> [Int: Point] {
      let c = cosine(angle)
      let s = sine(angle)
      return [
        0: point(center.x - 100 * c, center.y - 100 * s), 1: point(center.x + 100 * c, center.y + 100 * s),
      ]
    }
    h.down(fingers(0), at: 1)
    h.glide(from: 1, duration: 0.5, hz: 120) { f in fingers(Double.pi / 2 * f) }
    #expect(abs(rotation.rotation - Double.pi / 2) < 1e-9)  // clockwise on screen: positive
    #expect(abs(rotation.velocity - Double.pi) < 1e-6)
    h.up(0, 1, at: 1.6)
    #expect(h.log.take().suffix(2) == ["g ended", "g action"])

    h.down(fingers(0), at: 2)
    h.glide(from: 2, duration: 0.5, hz: 120) { f in fingers(-0.05 * f) }  // under the threshold
    h.up(0, 1, at: 2.6)
    #expect(h.log.take() == ["g failed"])
  }
}

func sine(_ x: Double) -> Double {
  // Taylor series around 0 after range reduction: enough for test figures.
  var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
  if r > Double.pi { r -= 2 * Double.pi }
  if r < -Double.pi { r += 2 * Double.pi }
  var term = r
  var sum = r
  for n in 1..<20 {
    term *= -r * r / Double((2 * n) * (2 * n + 1))
    sum += term
  }
  return sum
}

func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }

/// The angle of (x, y) for x > 0 (Newton's method on x·sin a − y·cos a = 0).
func arcTangentOf(_ y: Double, _ x: Double) -> Double {
  var angle = 0.0
  for _ in 0..<30 {
    angle -= (x * sine(angle) - y * cosine(angle)) / (x * cosine(angle) + y * sine(angle))
  }
  return angle
}
