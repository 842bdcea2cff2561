import EvdevInput
import EventLoop
import EventTime
import InputCodes
import ResponderCore
import ResponderdKit
import Testing
import TouchDispatch

/// A view that logs its touches: method, slots and window positions.
final class LoggingView: View {
  var log: [String] = []
  init(_ name: String, frame: Rect) {
    super.init(frame: frame)
    identifier = name
    isMultipleTouchEnabled = true
  }
  private func note(_ method: String, _ touches: Set<Touch>) {
    let parts = touches.sorted { $0.identifier < $1.identifier }.map {
      "\($0.identifier)@\(Int($0.locationInWindow.x)),\(Int($0.locationInWindow.y))"
    }
    log.append("\(identifier!) \(method) \(parts.joined(separator: " "))")
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { note("began", touches) }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) { note("moved", touches) }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { note("ended", touches) }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) { note("cancelled", touches) }
}

private func abs(_ code: UInt16, _ value: Int32, at time: Seconds) -> RawInputEvent {
  RawInputEvent(time: time, type: InputCode.EV_ABS, code: code, value: value)
}
private func syn(at time: Seconds, dropped: Bool = false) -> RawInputEvent {
  RawInputEvent(
    time: time, type: InputCode.EV_SYN, code: dropped ? InputCode.SYN_DROPPED : InputCode.SYN_REPORT, value: 0
  )
}
private func finger(_ slot: Int32, id: Int32, x: Int32, y: Int32, at time: Seconds) -> [RawInputEvent] {
  [
    abs(InputCode.ABS_MT_SLOT, slot, at: time), abs(InputCode.ABS_MT_TRACKING_ID, id, at: time),
    abs(InputCode.ABS_MT_POSITION_X, x, at: time), abs(InputCode.ABS_MT_POSITION_Y, y, at: time),
  ]
}

/// The real libevdev path: an emulated Goodix touchscreen (umockdev), read on an event loop into a
/// window. Run with `umockdev-wrapper swift test --filter TouchDispatchDeviceTests`.
extension TouchDispatchDeviceTests {
  @Suite("Touchscreen reader") struct TouchscreenDeviceTests {
    /// A window of 540 × 1170 points (the panel's 1080 × 2340 units, halved) on a real loop.
    final class Rig {
      let testbed: TouchscreenTestbed
      let loop: EventLoop
      let window: Window
      let left = LoggingView("left", frame: Rect(x: 0, y: 0, width: 270, height: 1170))
      let right = LoggingView("right", frame: Rect(x: 270, y: 0, width: 270, height: 1170))
      let source: TouchscreenSource
      /// The loop's own descriptor (its wake-up), before the device's.
      let baseline: Int
      var actions: [String] = []

      init() throws {
        testbed = try TouchscreenTestbed()
        loop = try EventLoop()
        window = Window(frame: Rect(x: 0, y: 0, width: 540, height: 1170), scheduler: loop.scheduler)
        window.addSubview(left)
        window.addSubview(right)
        baseline = loop.registeredCount
        source = try TouchscreenSource(path: testbed.devnode, window: window, loop: loop)
      }

      /// Lifts the fingers of `slots` and runs the loop until `condition` holds. A touch under way
      /// holds its window, as in UIKit, until it ends: a test leaves no finger down.
      func liftEveryFinger(slots: [Int32], at time: Seconds, until condition: () -> Bool) throws {
        let lifts = slots.flatMap {
          [abs(InputCode.ABS_MT_SLOT, $0, at: time), abs(InputCode.ABS_MT_TRACKING_ID, -1, at: time)]
        }
        #expect(try send(lifts + [syn(at: time)], until: condition))
      }

      /// Writes events, then runs the loop until `condition` holds (at most 2 s).
      func send(_ events: [RawInputEvent], until condition: () -> Bool) throws -> Bool {
        try testbed.write(events)
        return loop.run(until: condition, timeout: 2)
      }
    }

    @Test func opensTheTouchscreen() throws {
      let testbed = try TouchscreenTestbed()
      let device = try TouchscreenDevice(path: testbed.devnode)
      #expect(device.identity.name == "Goodix Capacitive TouchScreen")
      #expect(device.identity.bustype == 0x18 && device.identity.vendor == 0x0416)
      #expect(device.xRange == 0...1079 && device.yRange == 0...2339)
      #expect(device.slotCount == 10)
      #expect(device.pressureRange == nil)
      let calibration = device.calibration(screen: Size(width: 540, height: 1170))
      #expect(calibration.point(x: 540, y: 1170) == Point(x: 270, y: 585))
    }

    /// Fingers reach the views they landed on, at their calibrated places; a tap recognizer on the
    /// right view recognizes a tap; two fingers at once are delivered together.
    @Test func fingersReachTheViews() throws {
      let rig = try Rig()
      let tap = TapGestureRecognizer { [unowned rig] recognizer in
        rig.actions.append(
          "tap at \(Int(recognizer.location(in: nil).x)),\(Int(recognizer.location(in: nil).y))")
      }
      rig.right.addGestureRecognizer(tap)

      #expect(try rig.send(finger(0, id: 10, x: 200, y: 400, at: 1) + [syn(at: 1)]) { !rig.left.log.isEmpty })
      #expect(
        try rig.send([abs(InputCode.ABS_MT_POSITION_X, 220, at: 1.02), syn(at: 1.02)]) {
          rig.left.log.count == 2
        })
      #expect(
        try rig.send([abs(InputCode.ABS_MT_TRACKING_ID, -1, at: 1.05), syn(at: 1.05)]) {
          rig.left.log.count == 3
        })
      #expect(rig.left.log == ["left began 0@100,200", "left moved 0@110,200", "left ended 0@110,200"])

      #expect(
        try rig.send(finger(1, id: 11, x: 800, y: 1000, at: 2) + [syn(at: 2)]) { !rig.right.log.isEmpty })
      #expect(
        try rig.send([abs(InputCode.ABS_MT_TRACKING_ID, -1, at: 2.05), syn(at: 2.05)]) {
          !rig.actions.isEmpty
        })
      #expect(rig.actions == ["tap at 400,500"])
      #expect(rig.right.log == ["right began 1@400,500", "right cancelled 1@400,500"])

      let both =
        finger(0, id: 12, x: 100, y: 100, at: 3) + finger(1, id: 13, x: 300, y: 100, at: 3) + [syn(at: 3)]
      #expect(try rig.send(both) { rig.left.log.count == 4 })
      #expect(rig.left.log.last == "left began 0@50,50 1@150,50")
      try rig.liftEveryFinger(slots: [0, 1], at: 3.05, until: { rig.left.log.count == 5 })
      #expect(rig.left.log.last == "left ended 0@50,50 1@150,50")
    }

    /// The same recording through the live path (umockdev → libevdev → loop) and through the
    /// offline decoder gives the same deliveries.
    @Test func liveAndOfflinePathsAgree() throws {
      let events = try fixtureEvents("touchscreen.events")
      let rig = try Rig()
      #expect(try rig.send(events) { rig.left.log.count + rig.right.log.count >= 5 })

      let scheduler = VirtualScheduler(now: 5)
      let window = Window(frame: Rect(x: 0, y: 0, width: 540, height: 1170), scheduler: scheduler)
      let left = LoggingView("left", frame: Rect(x: 0, y: 0, width: 270, height: 1170))
      let right = LoggingView("right", frame: Rect(x: 270, y: 0, width: 270, height: 1170))
      window.addSubview(left)
      window.addSubview(right)
      let offline = TouchscreenInput(
        window: window,
        calibration: TouchCalibration(
          xRange: 0...1079, yRange: 0...2339, screen: Size(width: 540, height: 1170)))
      for event in events {
        scheduler.advance(to: event.time)
        offline.handle(event)
      }
      #expect(rig.left.log == left.log)
      #expect(rig.right.log == right.log)
      #expect(
        left.log == ["left began 0@150,300", "left moved 0@155,300", "left ended 0@155,300"])
      #expect(right.log == ["right began 1@350,600", "right moved 1@350,595", "right ended 1@350,595"])
    }

    /// SYN_DROPPED (libevdev resyncs): the touch under way is cancelled; the next touch works.
    @Test func droppedEventsCancelTheTouch() throws {
      let rig = try Rig()
      let events = try fixtureEvents("ts-syndropped.events")
      #expect(try rig.send(events) { rig.left.log.count >= 2 })
      // The resync after the drop cancels the touch.
      #expect(rig.left.log == ["left began 0@250,450", "left cancelled 0@250,450"])

      #expect(
        try rig.send(finger(0, id: 300, x: 100, y: 100, at: 7) + [syn(at: 7)]) { rig.left.log.count == 3 })
      #expect(rig.left.log.last == "left began 0@50,50")
      try rig.liftEveryFinger(slots: [0], at: 7.05, until: { rig.left.log.count == 4 })
      #expect(rig.left.log.last == "left ended 0@50,50")
    }

    /// Unplugged with a finger down: the touch is cancelled and the source reports the device gone.
    @Test func unplugCancelsTheTouch() throws {
      let rig = try Rig()
      var gone = false
      rig.source.addGoneObserver { gone = true }
      #expect(try rig.send(finger(0, id: 20, x: 200, y: 400, at: 1) + [syn(at: 1)]) { !rig.left.log.isEmpty })
      #expect(rig.loop.registeredCount == rig.baseline + 1)
      rig.testbed.hangUp()
      #expect(rig.loop.run(until: { gone }, timeout: 2))
      #expect(rig.left.log == ["left began 0@100,200", "left cancelled 0@100,200"])
      #expect(!rig.source.device.isOpen)
      #expect(rig.loop.registeredCount == rig.baseline)  // the device's descriptor left the loop
    }
  }
}
