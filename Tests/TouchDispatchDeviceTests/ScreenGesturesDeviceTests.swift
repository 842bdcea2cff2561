import EventLoop
import InputCodes
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// The daemon's whole-screen gestures on the emulated touchscreen: the service finds it through
/// udev, reads it on its loop, and a three-finger swipe left posts `nextTrack`.
extension TouchDispatchDeviceTests {
  @Suite("Whole-screen gestures in the service") struct ScreenGesturesDeviceTests {
    @Test func threeFingerSwipeBecomesNextTrack() throws {
      let testbed = try TouchscreenTestbed()
      let config = try ResponderdConfig.parse(
        """
        chain = ["log"]
        [touch]
        width = 540
        height = 1170
        \(swipeRule("next", fingers: 3, "left", "nextTrack"))
        """, file: "test.toml")
      let harness = try LoopService(config: config)
      let component = harness.service.touchGesturesComponent(desktop: nil, motion: nil, motionAPI: nil)
      harness.add(component)
      harness.start()
      let loop = harness.loop
      #expect(component.source?.device.path == testbed.devnode)
      #expect(component.gestures?.window.bounds.size.width == 540)

      // Three fingers from x = 900 to x = 300 (device units: 450 → 150 points) in 0.15 s.
      var events: [RawInputEvent] = []
      func abs(_ code: UInt16, _ value: Int32, _ t: Double) {
        events.append(RawInputEvent(time: t, type: InputCode.EV_ABS, code: code, value: value))
      }
      func syn(_ t: Double) {
        events.append(RawInputEvent(time: t, type: InputCode.EV_SYN, code: 0, value: 0))
      }
      for slot in 0..<3 {
        abs(InputCode.ABS_MT_SLOT, Int32(slot), 1)
        abs(InputCode.ABS_MT_TRACKING_ID, Int32(40 + slot), 1)
        abs(InputCode.ABS_MT_POSITION_X, 900, 1)
        abs(InputCode.ABS_MT_POSITION_Y, Int32(800 + 300 * slot), 1)
      }
      syn(1)
      for k in 1...9 {
        let t = 1 + Double(k) / 60
        for slot in 0..<3 {
          abs(InputCode.ABS_MT_SLOT, Int32(slot), t)
          abs(InputCode.ABS_MT_POSITION_X, Int32(900 - 66 * k), t)
        }
        syn(t)
      }
      for slot in 0..<3 {
        abs(InputCode.ABS_MT_SLOT, Int32(slot), 1.2)
        abs(InputCode.ABS_MT_TRACKING_ID, -1, 1.2)
      }
      syn(1.2)
      try testbed.write(events)
      let arrived = loop.run(
        until: { harness.records.contains { $0.subtype == .remoteControlNextTrack } }, timeout: 2)
      #expect(arrived)
      let record = harness.records.first { $0.subtype == .remoteControlNextTrack }
      #expect(record?.source == "touch:next")
      #expect(record?.handledBy == nil || record?.handledBy == "log")

      // Unplugged: the component lets go of the device.
      testbed.hangUp()
      #expect(loop.run(until: { component.source == nil }, timeout: 2))
    }
  }
}
