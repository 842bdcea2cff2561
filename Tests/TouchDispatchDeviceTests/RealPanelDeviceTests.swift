import DeviceTestSupport
import EvdevInput
import EventLoop
import EventTime
import InputCodes
import ResponderCore
import ResponderdKit
import SystemCalls
import Testing
import TouchDispatch

/// Real recordings (Tests/Fixtures/TouchReplay/real) played through the live reader: each panel
/// emulated by umockdev from its own description, read by libevdev on an event loop into a
/// window, and the same recording decoded offline as `responderctl touch replay` does. The two
/// must deliver the same touches at the same places.
extension TouchDispatchDeviceTests {
  @Suite("Real panels, live and offline") struct RealPanelDeviceTests {
    static func recording(_ name: String) throws -> EvemuRecording {
      try EvemuRecording(text: try readTextFile(fixturePath("TouchReplay/real", name)))
    }

    /// The deliveries of `recording` through the live path and through the offline decoder, on a
    /// window of `screen` points mapped onto the recording's axes.
    static func bothPaths(panel: String, recording name: String, screen: Size) throws -> (
      live: [String], offline: [String]
    ) {
      let recording = try recording(name)
      let testbed = try TouchscreenTestbed(realPanel: panel)
      let loop = try EventLoop()
      let liveWindow = Window(
        frame: Rect(x: 0, y: 0, width: screen.width, height: screen.height), scheduler: loop.scheduler)
      let liveView = LoggingView("screen", frame: liveWindow.bounds)
      liveWindow.addSubview(liveView)
      let source = try TouchscreenSource(path: testbed.devnode, window: liveWindow, loop: loop)
      defer { source.close() }

      let scheduler = VirtualScheduler(now: recording.events.first?.time ?? 0)
      let window = Window(frame: liveWindow.bounds, scheduler: scheduler)
      let view = LoggingView("screen", frame: window.bounds)
      window.addSubview(view)
      let x = recording.absoluteAxes[InputCode.ABS_MT_POSITION_X]!
      let y = recording.absoluteAxes[InputCode.ABS_MT_POSITION_Y]!
      let offline = TouchscreenInput(
        window: window,
        calibration: TouchCalibration(
          xRange: x.minimum...x.maximum, yRange: y.minimum...y.maximum, screen: screen))
      #expect(source.device.xRange == x.minimum...x.maximum && source.device.yRange == y.minimum...y.maximum)
      // Ten frames at a time (the emulated device's buffer is small): each written, then read
      // until the live window has had what the offline one has.
      var chunk: [RawInputEvent] = []
      var frames = 0
      for (index, event) in recording.events.enumerated() {
        scheduler.advance(to: event.time)
        offline.handle(event)
        chunk.append(event)
        if event.type == InputCode.EV_SYN && event.code == InputCode.SYN_REPORT { frames += 1 }
        guard frames == 10 || index == recording.events.count - 1 else { continue }
        try testbed.write(chunk)
        chunk.removeAll()
        frames = 0
        let expected = view.log.count
        #expect(loop.run(until: { liveView.log.count >= expected }, timeout: 5), "live deliveries")
      }
      return (liveView.log, view.log)
    }

    /// Atmel maXTouch (I2C, 800 × 480): nine quick taps in slot 0. Five of them send only what
    /// changed (the kernel drops values equal to the slot's): each must land where the finger was,
    /// through libevdev as offline.
    @Test func atmelQuickTapsInOneSlot() throws {
      do {
        let testbed = try TouchscreenTestbed(realPanel: "atmel-maxtouch")
        let device = try TouchscreenDevice(path: testbed.devnode)
        #expect(
          device.identity.name == "Atmel maXTouch Touchscreen" && device.slotCount == 10 && device.isDirect)
        device.close()
      }
      let (live, offline) = try Self.bothPaths(
        panel: "atmel-maxtouch", recording: "atmel-maxtouch.fast-taps.evemu",
        screen: Size(width: 800, height: 480))
      #expect(live == offline)
      let began = offline.filter { $0.hasPrefix("screen began") }
      #expect(
        began == [
          "screen began 0@340,242", "screen began 0@354,228", "screen began 0@357,239",
          "screen began 0@364,255",
          "screen began 0@364,251", "screen began 0@345,251", "screen began 0@349,250",
          "screen began 0@349,264",
          "screen began 0@373,252",
        ])
      #expect(offline.filter { $0.hasPrefix("screen ended") }.count == 9)
    }

    /// N-Trig MultiTouch (USB, protocol A: no slots, no tracking ids): the reader opens it and the
    /// decoder tracks its finger, live and offline alike.
    @Test func nTrigProtocolADrag() throws {
      do {
        let testbed = try TouchscreenTestbed(realPanel: "n-trig")
        let device = try TouchscreenDevice(path: testbed.devnode)
        #expect(device.identity.name == "N-Trig MultiTouch" && device.usesProtocolA && device.isDirect)
        device.close()
      }
      let (live, offline) = try Self.bothPaths(
        panel: "n-trig", recording: "n-trig.1-finger-drag-nw-se.evemu", screen: Size(width: 1024, height: 768)
      )
      #expect(live == offline)
      #expect(offline.first?.hasPrefix("screen began 0@") == true)
      #expect(offline.last?.hasPrefix("screen ended 0@") == true)
      #expect(offline.count > 50)
    }
  }
}
