import DeviceTestSupport
import EventLoop
import EventTime
import InputCodes
import RemoteControl
import ResponderCore
import Testing

@testable import EvdevInput

extension EvdevInputDeviceTests {
  /// Owned devices on emulated hardware whose ioctl handler models EVIOCGRAB and the live key state
  /// (EVIOCGKEY) as the kernel does: a grabbed device's keys never reach the desktop.
  @Suite("Owned devices: the grab (umockdev, live ioctl handler)")
  struct GrabDeviceTests {
    @Test(
      "USB headset: grabbed at start, what was queued before is dropped, each press reaches the chain once")
    func headsetGrabbed() throws {
      let tb = try Testbed()
      let (headset, handler) = try tb.addLive("headset")
      // Queued before responderd opens and grabs it: the desktop had this press.
      try tb.click(headset, KEY_PLAYPAUSE, at: 50.0)
      let p = try KeyPipeline()
      var volume: [MediaKeyInput.VolumeKeyEvent] = []
      var other: [MediaKeyInput.OwnedKeyEvent] = []
      p.input.addVolumeKeyObserver { volume.append($0) }
      p.input.addOwnedKeyObserver { other.append($0) }
      try p.start()
      #expect(handler.isGrabbed)
      let status = try #require(p.input.deviceStatuses.first)
      #expect(status.state == .owned)
      #expect(status.reason == "headset class: a key device of a USB audio device")
      #expect(p.input.openDevices.first?.isOwned == true)

      for second in 0..<5 {
        let time = 60.0 + Seconds(second)
        try tb.click(headset, KEY_PLAYPAUSE, at: time)
      }
      try tb.key(headset, KEY_VOLUMEUP, 1, at: 70.0)
      try tb.key(headset, KEY_VOLUMEUP, 2, at: 70.3)
      try tb.key(headset, KEY_VOLUMEUP, 0, at: 70.4)
      try tb.click(headset, KEY_MICMUTE, at: 71.0)
      try p.wait("the volume and microphone keys") { other.count == 2 }
      p.scheduler.advance(to: 80)
      #expect(p.player.received == (0..<5).map { "togglePlayPause@\(60 + $0).0" })
      #expect(p.records.count == 5)
      #expect(volume.map(\.value) == [1, 2, 0] && volume.allSatisfy { $0.code == KEY_VOLUMEUP })
      #expect(volume.first?.identity.name == "Logitech USB Headset H340 Consumer Control")
      #expect(volume.first?.syspath.hasSuffix("/1-2/1-2:1.3/0003:046D:0A38.0004/input/input7/event7") == true)
      #expect(other.map(\.code) == [KEY_MICMUTE, KEY_MICMUTE] && other.map(\.value) == [1, 0])
      #expect(handler.isGrabbed)

      tb.unplug(headset)
      try p.wait("the headset to be closed") { p.openPaths.isEmpty }
      #expect(!handler.isGrabbed)  // released before closing: nothing is left held
      #expect(p.input.deviceStatuses.isEmpty)
    }

    @Test("a key down when the device appears: shared until every key is up, then grabbed")
    func grabWaitsForKeysUp() throws {
      let tb = try Testbed()
      let handler = try tb.handler("headset")
      handler.setKey(KEY_PLAYPAUSE, down: true)
      let headset = try tb.add("headset", handler: handler)
      let p = try KeyPipeline.started()
      #expect(!handler.isGrabbed)
      #expect(p.input.deviceStatuses.map(\.reasonCode) == ["key-down"])
      #expect(p.input.deviceStatuses.map(\.state) == [.shared])

      // The key comes up: its release is read (the desktop gets it too), then the device is taken.
      handler.setKey(KEY_PLAYPAUSE, down: false)
      try tb.key(headset, KEY_PLAYPAUSE, 0, at: 10.0)
      try p.wait("the grab") { handler.isGrabbed }
      #expect(p.input.deviceStatuses.map(\.state) == [.owned])
      try tb.click(headset, KEY_PLAYPAUSE, at: 11.0)
      try p.waitForKeys(3)
      #expect(p.player.received == ["togglePlayPause@11.0"])
      #expect(handler.grabCount == 1)
    }

    @Test("another program holds the grab (EBUSY): the device stays shared, one log line says so")
    func busyStaysShared() throws {
      let tb = try Testbed()
      let handler = try tb.handler("headset")
      handler.setGrabbedElsewhere(true)
      let headset = try tb.add("headset", handler: handler)
      let p = try KeyPipeline()
      var volume: [MediaKeyInput.VolumeKeyEvent] = []
      p.input.addVolumeKeyObserver { volume.append($0) }
      try p.start()
      #expect(handler.busyCount == 1)
      let status = try #require(p.input.deviceStatuses.first)
      #expect(status.state == .shared && status.reasonCode == "busy")
      let lines = p.logs.all.filter { $0.contains("held by another program") }
      #expect(lines.count == 1)
      #expect(
        lines.first?.hasPrefix(
          "notice: evdev: /dev/input/event7 'Logitech USB Headset H340 Consumer Control'") == true)

      try tb.click(headset, KEY_VOLUMEUP, at: 5.0)
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 6.0)
      try p.waitForKeys(1)
      #expect(p.player.received == ["togglePlayPause@6.0"])
      #expect(volume.isEmpty)  // the other program's
      #expect(p.keysRead.count == 1)
    }

    @Test(
      "hotplug: a headset plugged in later is grabbed (udev's USB interfaces tell its class), released when unplugged"
    )
    func hotplugGrab() throws {
      let tb = try Testbed()
      try tb.add("touchscreen")
      let p = try KeyPipeline.started()
      let (headset, handler) = try tb.addLive("headset")
      try p.wait("the headset to be grabbed") { handler.isGrabbed }
      #expect(p.input.deviceStatuses.map(\.reasonCode) == ["headset-class", "no-media-key"])
      // No sound-server adapter here: the volume keys do nothing, and one line says so.
      for time in [19.0, 19.2] {
        try tb.click(headset, KEY_VOLUMEUP, at: time)
      }
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 20.0)
      try p.waitForKeys(1)
      #expect(p.player.received == ["togglePlayPause@20.0"])
      #expect(p.logs.all.filter { $0.contains("no sound-server adapter takes them") }.count == 1)
      tb.unplug(headset)
      try p.wait("the headset to be closed") { p.openPaths.isEmpty }
      #expect(!handler.isGrabbed)
    }

    @Test("session inactive: released and closed; active again: taken again")
    func sessionSwitch() throws {
      let tb = try Testbed()
      let (headset, handler) = try tb.addLive("headset")
      let p = try KeyPipeline.started()
      #expect(handler.isGrabbed)
      p.input.suspend()
      #expect(!handler.isGrabbed)
      #expect(p.openPaths.isEmpty)
      #expect(p.input.deviceStatuses.map(\.reasonCode) == ["session-inactive"])
      #expect(p.input.deviceStatuses.map(\.state) == [.leftAlone])
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 3.0)  // another user's press
      p.input.resume()
      #expect(handler.isGrabbed)
      #expect(p.input.deviceStatuses.map(\.state) == [.owned])
      try tb.key(headset, KEY_PLAYPAUSE, 0, at: 3.5)
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 4.0)
      try p.waitForKeys(1)
      #expect(p.player.received == ["togglePlayPause@4.0"])
    }

    @Test("grab = \"never\" shares a headset; a keyboard is shared; the jack input is owned")
    func classification() throws {
      let tb = try Testbed()
      let headsetHandler = try tb.addLive("headset").handler
      let jackHandler = try tb.addLive("jack").handler
      let keyboardHandler = try tb.addLive("keyboard").handler
      try tb.add("touchscreen")
      var settings = KeySettings.standard
      settings.deviceRules.append(DeviceRule(match: DeviceMatch.id("0003:046d:0a38")!, grab: .never))
      let p = try KeyPipeline(settings: settings)
      try p.start()
      #expect(!headsetHandler.isGrabbed && jackHandler.isGrabbed && !keyboardHandler.isGrabbed)
      let report = p.input.deviceStatuses.map { "\($0.path) \($0.state.rawValue): \($0.reason)" }
      #expect(
        report == [
          "/dev/input/event3 shared: a keyboard (the desktop's)",
          "/dev/input/event5 owned: headset class: the sound card's jack input",
          "/dev/input/event7 shared: rule (id 0003:046d:0a38): grab = \"never\"",
          "/dev/input/event9 left alone: no media or headset key",
        ])
    }
  }
}
