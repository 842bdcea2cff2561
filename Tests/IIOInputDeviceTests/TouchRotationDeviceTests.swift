import DeviceTestSupport
import EventLoop
import Foundation
import InputCodes
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// `[touch] rotation = "auto"` in the service, on the emulated accelerometer and touchscreen in one
/// testbed: the open touchscreen wants the accelerometer (one capture), the device turned on its
/// side turns the swipes, and letting go of the touchscreen closes the sensor.
extension IIOInputDeviceTests {
  @Test(
    "touch rotation = auto: the swipe turns with the emulated accelerometer; the sensor open only with the touchscreen"
  )
  func touchFollowsTheDeviceOrientation() throws {
    let bed = try Testbed()
    let evdev = bed.testbed
    let touchscreen = try evdev.addEvdevDevice(
      ioctlPath: fixturePath("Touchscreen", "touchscreen.ioctl"),
      sysfsPath: fixturePath("Touchscreen", "touchscreen.umockdev"), name: "touchscreen")
    let config = try ResponderdConfig.parse(
      """
      chain = ["log"]
      [touch]
      rotation = "auto"
      [[touch.gesture]]
      name = "right"
      gesture = "swipe"
      direction = "right"
      event = "nextTrack"
      [[touch.gesture]]
      name = "down"
      gesture = "swipe"
      direction = "down"
      event = "previousTrack"
      """, file: "test.toml")
    let loop = try EventLoop()
    let (harness, motion, motionAPI, touch) = try rotationService(config, loop: loop, logger: testLogger)
    var handled: [String] = []
    harness.service.events.addDispatchObserver { record in
      if let name = record.source.split(separator: ":").last, record.source.hasPrefix("touch:") {
        handled.append(String(name))
      }
    }
    harness.start()
    #expect(touch.source?.device.path == touchscreen.devnode)
    #expect(motion.interest.touchFollowsOrientation && motion.interest.isWanted)
    #expect(motion.wantedBy == "touch rotation")
    let sensor = try #require(
      motion.shake?.input.sensor, "the accelerometer opened for the rotation")
    #expect(sensor.rate == 15.63, "orientation alone: the lowest rate it offers at or above 10 Hz")
    #expect(touch.gestures?.window.bounds.size == Size(width: 1080, height: 2340))

    // The device held upright (the reading points up: the top edge; through the mount matrix, raw
    // x = -1023), then on its side with its left edge up (raw y = -1023).
    func hold(raw: (Int, Int, Int), seconds: Double) {
      bed.feed(
        on: loop, rate: { _ in 10 }, timeout: seconds + 5, raw: { _ in raw }, feedingFor: seconds,
        until: { $0 > seconds })
    }
    // One finger 500 units toward the panel's right edge (+x) in 0.15 s.
    var trackingID: Int32 = 10
    func stroke() throws {
      trackingID += 1
      let t = monotonicNow()
      var events: [RawInputEvent] = []
      func abs(_ code: UInt16, _ value: Int32, _ time: Double) {
        events.append(RawInputEvent(time: time, type: InputCode.EV_ABS, code: code, value: value))
      }
      func syn(_ time: Double) {
        events.append(RawInputEvent(time: time, type: InputCode.EV_SYN, code: InputCode.SYN_REPORT, value: 0))
      }
      abs(InputCode.ABS_MT_SLOT, 0, t)
      abs(InputCode.ABS_MT_TRACKING_ID, trackingID, t)
      abs(InputCode.ABS_MT_POSITION_X, 300, t)
      abs(InputCode.ABS_MT_POSITION_Y, 1170, t)
      syn(t)
      for k in 1...9 {
        abs(InputCode.ABS_MT_POSITION_X, Int32(300 + 55 * k), t + Double(k) / 60)
        syn(t + Double(k) / 60)
      }
      abs(InputCode.ABS_MT_TRACKING_ID, -1, t + 0.17)
      syn(t + 0.17)
      try evdev.write(events, to: touchscreen.devnode)
      let before = handled.count
      #expect(loop.run(until: { handled.count > before }, timeout: 3), "a gesture from the stroke")
    }

    hold(raw: (-1023, 0, 0), seconds: 0.6)
    #expect(motionAPI.deviceOrientation == .portrait)
    try stroke()
    #expect(handled == ["right"])

    hold(raw: (0, -1023, 0), seconds: 0.6)
    #expect(motionAPI.deviceOrientation == .landscapeRight)
    #expect(touch.source?.input.calibration.rotation == .degrees90)
    #expect(touch.gestures?.window.bounds.size == Size(width: 2340, height: 1080))
    try stroke()
    #expect(handled == ["right", "down"])

    // Unplugged: nobody wants the accelerometer any more, and it is closed.
    evdev.hangUp(touchscreen.devnode)
    #expect(loop.run(until: { touch.source == nil }, timeout: 2))
    #expect(!motion.interest.touchFollowsOrientation && !motion.interest.isWanted)
    #expect(motion.shake?.input.sensor == nil)
  }
}

extension IIOInputDeviceTests {
  /// `"auto"` without an accelerometer to follow: the service starts anyway, says why in one line,
  /// and the touchscreen keeps its natural orientation.
  @Test(
    "touch rotation = auto without an accelerometer: starts, one clear log line, natural orientation",
    arguments: [false, true])
  func touchAutoRotationWithoutAccelerometer(motionDisabled: Bool) throws {
    let bed = try Testbed(withDevice: false)
    let evdev = bed.testbed
    let touchscreen = try evdev.addEvdevDevice(
      ioctlPath: fixturePath("Touchscreen", "touchscreen.ioctl"),
      sysfsPath: fixturePath("Touchscreen", "touchscreen.umockdev"), name: "touchscreen")
    let config = try ResponderdConfig.parse(
      """
      [motion]
      enabled = \(!motionDisabled)
      [touch]
      rotation = "auto"
      [[touch.gesture]]
      gesture = "tap"
      event = "play"
      """, file: "test.toml")
    let lines = LoggedLines()
    let (harness, motion, _, touch) = try rotationService(config, loop: try EventLoop(), logger: lines.logger)
    harness.start()
    #expect(touch.source?.device.path == touchscreen.devnode, "started anyway")
    #expect(touch.source?.input.calibration.rotation == .degrees0)
    #expect(touch.gestures?.window.bounds.size == Size(width: 1080, height: 2340))
    let said = lines.lines.filter { $0.hasPrefix("touch: rotation") }
    if motionDisabled {
      #expect(
        said == [
          "touch: rotation = \"auto\" needs the accelerometer, and motion is disabled ([motion] enabled = false): the touchscreen keeps its natural orientation"
        ])
      #expect(!motion.interest.isWanted && touch.autoRotation == nil)
    } else {
      #expect(
        said == [
          "touch: rotation = \"auto\" but no accelerometer is found: the touchscreen keeps its natural orientation until one appears"
        ])
      // Still wanted: an accelerometer plugged in later is followed.
      #expect(motion.interest.touchFollowsOrientation && motion.shake?.input.sensor == nil)
    }
  }
}

/// A service with the motion component, the motion API and touch gestures that may follow the
/// orientation, wired as the daemon wires them (not started).
private func rotationService(_ config: ResponderdConfig, loop: EventLoop, logger: Logger) throws -> (
  LoopService, MotionComponent, MotionAPI, TouchGesturesComponent
) {
  let harness = try LoopService(config: config, loop: loop, logger: logger)
  // Closed at the last want (keeping it open a moment: FlappingMotionDeviceTests).
  let motion = harness.service.motionComponent(keepOpen: 0)
  let motionAPI = harness.service.motionAPI(motion: motion, bus: nil)
  let touch = harness.service.touchGesturesComponent(desktop: nil, motion: motion, motionAPI: motionAPI)
  for component: ServiceComponent in [motion, motionAPI, touch] { harness.add(component) }
  return (harness, motion, motionAPI, touch)
}
