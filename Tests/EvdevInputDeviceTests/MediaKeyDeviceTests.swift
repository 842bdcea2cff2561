import EventLoop
import EventTime
import InputCodes
import RemoteControl
import ResponderCore
import Testing

@testable import EvdevInput

#if canImport(Glibc)
  import Glibc
#endif

let KEY_PLAYPAUSE: UInt16 = 164
let KEY_MEDIA: UInt16 = 226
let KEY_NEXTSONG: UInt16 = 163
let KEY_PLAYCD: UInt16 = 200
let KEY_FASTFORWARD: UInt16 = 208
let KEY_STOPCD: UInt16 = 166
let KEY_VOLUMEUP: UInt16 = 115
let KEY_MICMUTE: UInt16 = 248
let EV_MSC: UInt16 = 4
let EV_LED: UInt16 = 0x11
let EV_SW: UInt16 = 5

extension EvdevInputDeviceTests {
  @Suite("Media keys from emulated evdev devices (umockdev)")
  struct MediaKeyDeviceTests {
    @Test("USB headset: opened for its mapped keys; play/pause at once, KEY_MEDIA with the click grammar")
    func usbHeadset() throws {
      let tb = try Testbed()
      let headset = try tb.add("headset")
      let p = try KeyPipeline.started()
      let opened = try #require(p.input.openDevices.first)
      #expect(p.openPaths == ["/dev/input/event7"])
      #expect(opened.identity.name == "Logitech USB Headset H340 Consumer Control")
      #expect(opened.identity.vendor == 0x046d && opened.identity.product == 0x0a38)
      #expect(opened.keys == [KEY_NEXTSONG, KEY_PLAYPAUSE, 165, KEY_MEDIA])
      #expect(!opened.clockIsMonotonic)  // the emulated device refuses EVIOCSCLOCKID: tolerated

      try tb.click(headset, KEY_PLAYPAUSE, at: 100.0, duration: 0.05)
      for (time, value) in [(101.0, 1), (101.1, 0), (101.3, 1), (101.4, 0)] {
        try tb.key(headset, KEY_MEDIA, Int32(value), at: time)
      }
      try tb.click(headset, KEY_VOLUMEUP, at: 102.0)
      try tb.click(headset, KEY_MEDIA, at: 103.0, duration: 0.6)
      try p.waitForKeys(8)
      // The release at 103.6 came after the hold threshold (103.5): the timers due by then fired
      // before it was interpreted.
      p.scheduler.advance(to: 110)
      #expect(p.player.received == ["togglePlayPause@100.0", "nextTrack@101.8", "togglePlayPause@103.6"])
      #expect(p.keysRead.count == 8)  // VOLUMEUP never read
      #expect(p.records.allSatisfy { $0.handledBy == "player" && $0.source == "evdev:/dev/input/event7" })
    }

    @Test("jack device: KEY_PLAYPAUSE is the one-button headset key; switches and volume keys unread")
    func jackHeadset() throws {
      let tb = try Testbed()
      let jack = try tb.add("jack")
      let p = try KeyPipeline.started()
      #expect(p.input.openDevices.map(\.keys) == [[KEY_PLAYPAUSE]])
      try tb.write(jack, [RawInputEvent(time: 9.9, type: EV_SW, code: 2, value: 1)])
      for (time, value) in [(10.0, 1), (10.1, 0), (10.3, 1), (10.4, 0), (10.6, 1), (10.7, 0)] {
        try tb.key(jack, KEY_PLAYPAUSE, Int32(value), at: time)
      }
      try tb.click(jack, KEY_VOLUMEUP, at: 11.0)
      for (time, value) in [(12.0, 1), (12.1, 0), (12.3, 1)] {
        try tb.key(jack, KEY_PLAYPAUSE, Int32(value), at: time)
      }
      try p.waitForKeys(9)
      p.scheduler.advance(to: 13.0)
      try tb.key(jack, KEY_PLAYPAUSE, 0, at: 13.0)
      try p.waitForKeys(10)
      p.scheduler.runUntilIdle()
      #expect(
        p.player.received == [
          "previousTrack@11.1", "beginSeekingForward@12.8", "endSeekingForward@13.0",
        ])
      #expect(p.keysRead.count == 10)
    }

    @Test("a device without mapped keys and a device a rule ignores are not kept open")
    func skippedDevices() throws {
      let tb = try Testbed()
      try tb.add("touchscreen")
      try tb.add("keyboard")
      try tb.add("headset")
      var settings = KeySettings.standard
      settings.deviceRules.append(DeviceRule(match: DeviceMatch.id("0003:045e:07f8")!, ignore: true))
      let p = try KeyPipeline(settings: settings)
      try p.start()
      #expect(p.openPaths == ["/dev/input/event7"])
      let skipped = p.changes.compactMap { change -> String? in
        if case .skipped(let path, let reason) = change { return "\(path): \(reason)" }
        return nil
      }
      #expect(
        skipped.sorted() == [
          "/dev/input/event3: ignored by a device rule", "/dev/input/event9: no mapped key",
        ])
    }

    @Test("hotplug: a headset plugged in is opened, unplugged is closed, replugged is opened again")
    func hotplug() throws {
      let tb = try Testbed()
      try tb.add("touchscreen")
      let p = try KeyPipeline.started()
      #expect(p.input.isMonitoring)
      #expect(p.openPaths == [])

      var headset = try tb.add("headset")
      try p.wait("the headset to be opened") { p.openPaths == ["/dev/input/event7"] }
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 20.0)
      try p.waitForKeys(1)
      #expect(p.player.received == ["togglePlayPause@20.0"])

      tb.unplug(headset)
      try p.wait("the headset to be closed") { p.openPaths.isEmpty }
      #expect(p.loop.registeredCount == 2)  // wake-up, udev monitor: the device is gone

      headset = try tb.add("headset-replugged")
      try p.wait("the headset to be opened again") { p.openPaths == ["/dev/input/event8"] }
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 22.0)
      try p.waitForKeys(2)
      #expect(p.player.received == ["togglePlayPause@20.0", "togglePlayPause@22.0"])
      let closed = p.changes.filter { if case .closed = $0 { return true } else { return false } }
      #expect(closed.count == 1)
    }

    @Test("unplugged while held: the seek ends at the moment of unplug (hang-up, and udev remove)")
    func unplugWhileHeld() throws {
      let tb = try Testbed()
      let keyboard = try tb.add("keyboard")
      let headset = try tb.add("headset")
      let p = try KeyPipeline.started()
      #expect(p.openPaths == ["/dev/input/event3", "/dev/input/event7"])

      // Fast-forward held on the keyboard; the keyboard's end hangs up (EPOLLHUP).
      try tb.key(keyboard, KEY_FASTFORWARD, 1, at: 200.0)
      try p.waitForKeys(1)
      p.scheduler.advance(to: 201.25)
      tb.hangUp(keyboard)
      try p.wait("the keyboard to be closed") { p.openPaths == ["/dev/input/event7"] }

      // Double-click-and-hold on the headset; then only the udev "remove" comes.
      for (time, value) in [(300.0, 1), (300.1, 0), (300.3, 1)] {
        try tb.key(headset, KEY_MEDIA, Int32(value), at: time)
      }
      try p.waitForKeys(4)
      p.scheduler.advance(to: 301.0)
      tb.removeUevent(headset)
      try p.wait("the headset to be closed") { p.openPaths.isEmpty }
      p.scheduler.runUntilIdle()
      #expect(
        p.player.received == [
          "beginSeekingForward@200.0", "endSeekingForward@201.25", "beginSeekingForward@300.8",
          "endSeekingForward@301.0",
        ])
      #expect(p.scheduler.pendingCount == 0)
    }

    @Test("SYN_DROPPED in the middle of a click group: libevdev's resync completes the group")
    func synDropped() throws {
      let tb = try Testbed()
      let headset = try tb.add("headset")
      let p = try KeyPipeline.started()
      // Click, press, then the queue overflows: the release is lost. The device's state (all keys up)
      // makes libevdev synthesize the release: a double click.
      try tb.click(headset, KEY_MEDIA, at: 400.0)
      try tb.key(headset, KEY_MEDIA, 1, at: 400.3)
      try tb.dropEvents(headset, at: 400.35)
      try p.wait("the resync") { p.resyncs == 1 && p.keysRead.count == 4 }
      // Reading goes on normally after the resync.
      try tb.click(headset, KEY_MEDIA, at: 402.0)
      try p.waitForKeys(6)
      // A drop while the key is up changes nothing: the group goes on across it.
      try tb.click(headset, KEY_MEDIA, at: 500.0)
      try tb.dropEvents(headset, at: 500.15)
      try p.wait("the second resync") { p.resyncs == 2 && p.keysRead.count == 8 }
      try tb.click(headset, KEY_MEDIA, at: 500.3)
      try p.waitForKeys(10)
      p.scheduler.runUntilIdle()
      #expect(p.player.received == ["nextTrack@400.75", "togglePlayPause@402.5", "nextTrack@500.8"])
    }

    @Test("timestamps on CLOCK_REALTIME (clock change refused) are converted to CLOCK_MONOTONIC")
    func realtimeConverted() throws {
      let tb = try Testbed()
      let keyboard = try tb.add("keyboard")
      let p = try KeyPipeline(virtualTime: false)
      try p.start()
      var realtime = timespec()
      clock_gettime(CLOCK_REALTIME, &realtime)
      let before = p.loop.scheduler.now
      try tb.key(
        keyboard, KEY_PLAYCD, 1, at: Seconds(realtime.tv_sec) + Seconds(realtime.tv_nsec / 1000) / 1e6)
      try p.waitForKeys(1)
      let after = p.loop.scheduler.now
      let record = try #require(p.records.first)
      #expect(record.subtype == .remoteControlPlay)
      #expect(record.timestamp >= before - 0.01 && record.timestamp <= after)
    }

    @Test("the device wrapper reads any device as frames (a touchscreen)")
    func touchscreenFrames() throws {
      let tb = try Testbed()
      let (screen, device) = try tb.addOpened("touchscreen")
      defer { device.close() }
      #expect(device.identity.name == "Goodix Capacitive TouchScreen")
      #expect(device.has(property: 1))
      #expect(device.slotCount == 10)
      #expect(device.absoluteAxis(InputCode.ABS_MT_POSITION_X)?.maximum == 1079)
      try tb.write(
        screen,
        [
          RawInputEvent(time: 5, type: 3, code: InputCode.ABS_MT_SLOT, value: 0),
          RawInputEvent(time: 5, type: 3, code: InputCode.ABS_MT_TRACKING_ID, value: 7),
          RawInputEvent(time: 5, type: 3, code: InputCode.ABS_MT_POSITION_X, value: 100),
          RawInputEvent(time: 5, type: 3, code: InputCode.ABS_MT_POSITION_Y, value: 200),
          RawInputEvent(time: 5, type: 1, code: InputCode.BTN_TOUCH, value: 1),
          RawInputEvent(time: 5, type: 0, code: InputCode.SYN_REPORT, value: 0),
        ])
      let loop = try EventLoop()
      var frames: [EvdevFrame] = []
      try loop.register(fd: device.fd, events: .readable) { _ in
        _ = device.read { frames.append($0) }
      }
      #expect(loop.run(until: { !frames.isEmpty }, timeout: 5))
      #expect(frames.first?.kind == .reported)
      #expect(frames.first?.time == 5)
      #expect(
        frames.first?.events.map { "\($0.type):\($0.code)=\($0.value)" } == [
          "3:47=0", "3:57=7", "3:53=100", "3:54=200", "1:330=1",
        ])
    }
  }
}
