import EventTime
import InputCodes
import Motion
import ResponderConfig
import ResponderCore
import ResponderdKit
import Testing
import TouchDispatch

/// `[touch] rotation = "auto"`: the config key.
@Suite struct TouchAutoRotationConfigTests {
  private func error(_ text: String) -> ConfigError? {
    do {
      _ = try ResponderdConfig.parse(text, file: "c.toml")
      return nil
    } catch {
      return error as? ConfigError
    }
  }

  @Test func autoFollowsTheDeviceFromTheNaturalOrientation() throws {
    let auto = try ResponderdConfig.parse("[touch]\nrotation = \"auto\"\n", file: "c.toml").touch
    #expect(auto.autoRotate && auto.rotation == .degrees0)
    let fixed = try ResponderdConfig.parse("[touch]\nrotation = 270\n", file: "c.toml").touch
    #expect(!fixed.autoRotate && fixed.rotation == .degrees270)
    #expect(!ResponderdConfig().touch.autoRotate)
  }

  /// Bad values name the file, the line and the key.
  @Test func badValuesNameFileLineAndKey() {
    let mustBe = "'touch.rotation' must be 0, 90, 180, 270 or \"auto\""
    for (text, message) in [
      (
        "[touch]\nenabled = true\nrotation = \"atuo\"\n",
        "c.toml:3: \(mustBe), not 'atuo' (did you mean 'auto'?)"
      ),
      ("[touch]\nrotation = \"90\"\n", "c.toml:2: \(mustBe), not '90'"),
      ("[touch]\nrotation = 45\n", "c.toml:2: \(mustBe), not 45"),
      ("[touch]\nrotation = 90.0\n", "c.toml:2: \(mustBe), not a float"),
      ("[touch]\nrotation = true\n", "c.toml:2: \(mustBe), not a boolean"),
    ] {
      let error = self.error(text)
      #expect(error?.description == message)
      #expect(error?.key == "touch.rotation")
    }
  }
}

/// The rotation from the device orientation, and the screen turning with it, on virtual time:
/// accelerometer readings through the orientation estimator (the one behind Motion1's
/// DeviceOrientation) into `AutoRotation`, the touchscreen input and the whole-screen gestures.
@Suite struct TouchAutoRotationTests {
  @Test func orientationsMapToClockwiseTurnsAndFlatKeepsTheLast() {
    var rotation = AutoRotation()
    #expect(rotation.rotation == .degrees0)
    #expect(rotation.update(.faceUp) == .degrees0)  // nothing upright seen yet: natural
    #expect(rotation.update(.landscapeRight) == .degrees90)
    #expect(rotation.update(.faceUp) == .degrees90)
    #expect(rotation.update(.unknown) == .degrees90)
    #expect(rotation.update(.portraitUpsideDown) == .degrees180)
    #expect(rotation.update(.faceDown) == .degrees180)
    #expect(rotation.update(.landscapeLeft) == .degrees270)
    #expect(rotation.update(.portrait) == .degrees0)
    // [motion] rotation = "left": the orientation is measured against a picture already turned 90°.
    var turned = AutoRotation(motionRotation: .left)
    #expect(turned.rotation == .degrees90)
    #expect(turned.update(.portrait) == .degrees90)
    #expect(turned.update(.landscapeRight) == .degrees180)
    #expect(turned.update(.landscapeLeft) == .degrees0)
  }

  final class Names { var list: [String] = [] }

  /// A 1000 × 2000 panel (its natural orientation portrait), one point per unit; swipes in the
  /// four directions and an edge swipe from the left edge.
  final class Rig {
    let scheduler = VirtualScheduler(now: 10)
    let gestures: ScreenGestures
    let input: TouchscreenInput
    var estimator = OrientationEstimator()
    var rotation = AutoRotation()
    let names = Names()
    private var trackingID: Int32 = 100

    init() throws {
      let swipes = ["right", "left", "up", "down"].map {
        "[[touch.gesture]]\nname = \"\($0)\"\ngesture = \"swipe\"\ndirection = \"\($0)\"\nevent = \"play\"\n"
      }
      let config = try ResponderdConfig.parse(
        "[touch]\nrotation = \"auto\"\nedge-width = 40\n" + swipes.joined()
          + "[[touch.gesture]]\nname = \"drawer\"\ngesture = \"edge-swipe\"\nedge = \"left\"\nevent = \"stop\"\n",
        file: "c.toml"
      ).touch
      let natural = Size(width: 1000, height: 2000)
      let names = self.names
      gestures = ScreenGestures(
        bindings: config.gestures, screen: natural, edgeWidth: config.edgeWidth, scheduler: scheduler
      ) { binding, _ in names.list.append(binding.name) }
      input = TouchscreenInput(
        window: gestures.window,
        calibration: TouchCalibration(xRange: 0...999, yRange: 0...1999, screen: natural))
      input.rotationObserver = { [gestures] calibration in gestures.resize(to: calibration.screen) }
    }

    /// One accelerometer reading (in g, the device frame: y toward the top edge, z out of the
    /// screen; the reading points up) through the estimator into the touchscreen's rotation.
    func device(reads reading: Vector3) {
      input.rotate(to: rotation.update(estimator.update(gravity: reading * standardGravity)))
    }

    /// The device held still reading `reading`, sampled at 10 Hz for half a second.
    func hold(_ reading: Vector3) {
      for _ in 0..<5 {
        scheduler.advance(by: 0.1)
        device(reads: reading)
      }
    }

    private func send(_ events: [(UInt16, Int32)]) {
      for (code, value) in events {
        input.handle(RawInputEvent(time: scheduler.now, type: InputCode.EV_ABS, code: code, value: value))
      }
      input.handle(
        RawInputEvent(time: scheduler.now, type: InputCode.EV_SYN, code: InputCode.SYN_REPORT, value: 0))
    }

    /// One finger from `start` to `end` in panel units over 0.15 s at 60 frames a second, then
    /// lifted; `during(k)` runs before frame k.
    func stroke(_ start: (x: Int32, y: Int32), _ end: (x: Int32, y: Int32), during: (Int) -> Void = { _ in })
    {
      scheduler.advance(by: 1)
      trackingID += 1
      send([
        (InputCode.ABS_MT_SLOT, 0), (InputCode.ABS_MT_TRACKING_ID, trackingID),
        (InputCode.ABS_MT_POSITION_X, start.x), (InputCode.ABS_MT_POSITION_Y, start.y),
      ])
      for k in 1...9 {
        during(k)
        scheduler.advance(by: 1.0 / 60)
        let f = Double(k) / 9
        send([
          (InputCode.ABS_MT_POSITION_X, start.x + Int32((Double(end.x - start.x) * f).rounded())),
          (InputCode.ABS_MT_POSITION_Y, start.y + Int32((Double(end.y - start.y) * f).rounded())),
        ])
      }
      scheduler.advance(by: 0.02)
      send([(InputCode.ABS_MT_TRACKING_ID, -1)])
      scheduler.advance(by: 1)
    }

    /// The same physical stroke each time: 400 units toward the device's right edge, mid-panel.
    func strokeTowardTheRightEdge(during: (Int) -> Void = { _ in }) {
      stroke((300, 1000), (700, 1000), during: during)
    }

    var screen: Size { gestures.window.bounds.size }
  }

  @Test func theSwipeDirectionAndTheScreenTurnWithTheDevice() throws {
    let rig = try Rig()
    rig.hold(Vector3(0, 1, 0))  // upright
    rig.strokeTowardTheRightEdge()
    #expect(rig.names.list == ["right"])
    #expect(rig.screen == Size(width: 1000, height: 2000))

    // On its side, the left edge up (landscapeRight): the device's right edge is now down.
    rig.hold(Vector3(-1, 0, 0))
    #expect(rig.input.calibration.rotation == .degrees90)
    #expect(rig.screen == Size(width: 2000, height: 1000))
    rig.strokeTowardTheRightEdge()
    #expect(rig.names.list.last == "down")

    // The right edge up (landscapeLeft): the same stroke goes up the screen.
    rig.hold(Vector3(1, 0, 0))
    rig.strokeTowardTheRightEdge()
    #expect(rig.names.list.last == "up")
    #expect(rig.screen == Size(width: 2000, height: 1000))

    // Upside down: it goes left.
    rig.hold(Vector3(0, -1, 0))
    rig.strokeTowardTheRightEdge()
    #expect(rig.names.list.last == "left")
    #expect(rig.screen == Size(width: 1000, height: 2000))

    // Laid flat, face up then face down: which edge is up is not known; the screen stays as it was.
    rig.hold(Vector3(0, 0, 1))
    rig.hold(Vector3(0, 0, -1))
    #expect(rig.input.calibration.rotation == .degrees180)
    rig.strokeTowardTheRightEdge()
    #expect(rig.names.list == ["right", "down", "up", "left", "left"])
  }

  /// Touch coordinates turn too: on its side (left edge up), the screen's left edge is the panel's
  /// bottom edge, so a stroke up from the panel's bottom edge is the left-edge swipe, and a point
  /// maps where the user sees it.
  @Test func edgesAndCoordinatesTurn() throws {
    let rig = try Rig()
    rig.hold(Vector3(-1, 0, 0))
    #expect(rig.input.calibration.point(x: 0, y: 1999) == Point(x: 0, y: 0))  // panel bottom-left: top-left
    #expect(rig.input.calibration.point(x: 999, y: 0) == Point(x: 1999, y: 999))
    rig.stroke((500, 1990), (500, 1590))
    #expect(rig.names.list == ["drawer"])
  }

  /// A turn while a finger is down waits for the sequence to end: the sequence keeps the
  /// coordinates it began with, and the next one is turned. The seeds do not speak of interface
  /// rotation; they reserve cancelling for interruptions — "anything that makes the app inactive
  /// or removes the view handling the touches from its window" (seeds/003_d3783573b3416bf1.txt:689,
  /// touchesCancelled:withEvent:) — and a turn is neither, while every touch a responder got in
  /// touchesBegan still gets its touchesEnded or touchesCancelled (003:645). So the sequence is
  /// neither cancelled nor bent halfway: it ends as the gesture it began as.
  @Test func aTurnDuringATouchSequenceWaitsForItsEnd() throws {
    let rig = try Rig()
    rig.hold(Vector3(0, 1, 0))
    var during: [(TouchRotation, TouchRotation?, Size)] = []
    rig.strokeTowardTheRightEdge { k in
      if k == 4 { rig.device(reads: Vector3(-1, 0, 0)) }
      during.append((rig.input.calibration.rotation, rig.input.pendingRotation, rig.screen))
    }
    #expect(during.allSatisfy { $0.0 == .degrees0 && $0.2 == Size(width: 1000, height: 2000) })
    #expect(
      during.map(\.1) == [
        nil, nil, nil, .degrees90, .degrees90, .degrees90, .degrees90, .degrees90, .degrees90,
      ])
    #expect(rig.names.list == ["right"])  // the sequence recognized as it began: not corrupted
    #expect(rig.input.calibration.rotation == .degrees90 && rig.input.pendingRotation == nil)
    #expect(rig.screen == Size(width: 2000, height: 1000))
    rig.strokeTowardTheRightEdge()
    #expect(rig.names.list == ["right", "down"])

    // Turned back and forth while the finger is down: nothing happens to the sequence, and the
    // screen ends where the device ends.
    rig.strokeTowardTheRightEdge { k in
      if k == 2 { rig.device(reads: Vector3(0, 1, 0)) }
      if k == 6 { rig.device(reads: Vector3(-1, 0, 0)) }
    }
    #expect(rig.names.list == ["right", "down", "down"])
    #expect(rig.input.calibration.rotation == .degrees90)
  }
}
