import DBusTestSupport
import DeviceTestSupport
import EventLoop
import EventTime
import InputCodes
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import SoundServer
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension EvdevInputDeviceTests {
  /// The volume keys of an owned USB headset (umockdev, its USB device and sound card in sysfs)
  /// against a real PulseAudio whose sinks carry the cards' properties, read back with pactl.
  @Suite("Owned devices: volume keys through the sound server (umockdev, PulseAudio)")
  struct VolumeDeviceTests {
    static let usbDevice = "/devices/pci0000:00/0000:00:14.0/usb1/1-2"

    func realtimeNow() -> Seconds {
      var realtime = timespec()
      clock_gettime(CLOCK_REALTIME, &realtime)
      return Seconds(realtime.tv_sec) + Seconds(realtime.tv_nsec / 1000) / 1e6
    }

    @Test(
      "the USB headset's volume keys move its own card's sink by the configured step, not the default sink")
    func headsetVolumeKeys() throws {
      let tb = try Testbed()
      // The headset's USB device (046d:0a38) and its sound card, card 2, beside its key device.
      try tb.addSysfs(
        "P: \(Self.usbDevice)\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nA: idVendor=046d\nA: idProduct=0a38\n"
      )
      try tb.addSysfs("P: \(Self.usbDevice)/1-2:1.0/sound/card2\nE: SUBSYSTEM=sound\nA: number=2\n")
      let (headset, handler) = try tb.addLive("headset")

      let loop = try EventLoop()
      let server = try SoundServerFixture(
        sinks: [
          .init("speakers"),
          .init(
            "usb_headset",
            properties: ["sysfs.path": "\(Self.usbDevice)/1-2:1.0/sound/card2", "device.bus": "usb"]),
        ], loop: loop)
      try server.start()
      try server.pactlChecked(["set-sink-volume", "speakers", "50%"])
      try server.pactlChecked(["set-sink-volume", "usb_headset", "50%"])

      let store = LogStore()
      let logger = Logger(label: "responderd") { _ in RecordingLogHandler(store: store) }
      let config = try ResponderdConfig.parse("[volume]\nstep = 10\n", file: "test.toml")
      let harness = try LoopService(config: config, loop: loop, logger: logger)
      let keys = harness.service.keysComponent(bus: nil)
      harness.add(keys)
      harness.add(harness.service.volumeComponent(keys: keys, server: server.address))
      var actions: [KeyActionRecord] = []
      harness.service.events.addKeyActionObserver { actions.append($0) }
      var dispatches: [DispatchRecord] { harness.records }
      harness.start()
      func wait(_ what: String, _ condition: () -> Bool) throws {
        guard loop.run(until: condition, timeout: 10) else {
          throw TestbedError(
            description: "timed out waiting for \(what); log:\n\(store.all.joined(separator: "\n"))")
        }
      }
      try wait("the headset to be owned") { handler.isGrabbed }

      try tb.key(headset, KEY_VOLUMEUP, 1, at: realtimeNow())
      try tb.key(headset, KEY_VOLUMEUP, 0, at: realtimeNow())
      try wait("volume up") { actions.count == 1 }
      #expect(try server.level(of: "usb_headset") == (60, false))
      #expect(try server.level(of: "speakers") == (50, false))
      #expect(actions.first?.key == "KEY_VOLUMEUP")
      #expect(actions.first?.path == headset.devnode)
      #expect(actions.first?.device == "Logitech USB Headset H340 Consumer Control")
      #expect(
        actions.first?.action
          == "headset sink 'usb_headset' (sysfs.path \(Self.usbDevice)/1-2:1.0/sound/card2) 50% → 60%")

      // Held down: the press and each auto-repeat step down; the release does nothing.
      let held = realtimeNow()
      for value: Int32 in [1, 2, 2, 0] { try tb.key(headset, InputCode.KEY_VOLUMEDOWN, value, at: held) }
      try wait("three steps down") { actions.count == 4 }
      #expect(try server.level(of: "usb_headset") == (30, false))

      try tb.key(headset, InputCode.KEY_MUTE, 1, at: realtimeNow())
      try tb.key(headset, InputCode.KEY_MUTE, 0, at: realtimeNow())
      try wait("mute") { actions.count == 5 }
      #expect(try server.level(of: "usb_headset") == (30, true))
      #expect(try server.level(of: "speakers") == (50, false))
      // Volume keys are not events of the chain.
      #expect(dispatches.isEmpty)
    }
  }
}

extension EvdevInputDeviceTests.VolumeDeviceTests {
  @Test("responderctl monitor shows the owned headset's volume key and what it did (responderd, PulseAudio)")
  func monitorShowsTheVolumeKey() throws {
    let tb = try Testbed()
    try tb.addSysfs(
      "P: \(Self.usbDevice)\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nA: idVendor=046d\nA: idProduct=0a38\n")
    try tb.addSysfs("P: \(Self.usbDevice)/1-2:1.0/sound/card2\nE: SUBSYSTEM=sound\nA: number=2\n")
    let (headset, handler) = try tb.addLive("headset")
    let soundLoop = try EventLoop()
    let server = try SoundServerFixture(
      sinks: [.init("speakers"), .init("usb_headset", properties: ["alsa.card": "2"])], loop: soundLoop)
    try server.start()
    try server.pactlChecked(["set-sink-volume", "usb_headset", "50%"])

    // The daemon (a child of this process: it sees the emulated devices) finds the server as a
    // user session's responderd does, from the environment.
    setenv("PULSE_SERVER", server.address, 1)
    defer { unsetenv("PULSE_SERVER") }
    let fixture = try DaemonFixture(config: "[volume]\nstep = 10\n")
    try fixture.waitFor("the headset to be owned", timeout: 10) { handler.isGrabbed }
    let monitor = try ChildProcess(
      [try BuiltProducts.path(of: "responderctl"), "monitor", "--count", "1"],
      environment: fixture.bus.environment,
      stdout: .capture, stderr: .capture)
    let started = try monitor.readLine(timeout: 10)
    #expect(started?.contains("following events dispatched by responderd") == true)

    try tb.key(headset, KEY_VOLUMEUP, 1, at: realtimeNow())
    try tb.key(headset, KEY_VOLUMEUP, 0, at: realtimeNow())
    let line = try monitor.readLine(timeout: 10) ?? ""
    #expect(
      line.wholeMatch(
        of:
          /\d\d:\d\d:\d\d\.\d{3}  key +KEY_VOLUMEUP +on 'Logitech USB Headset H340 Consumer Control' \(owned\): headset sink 'usb_headset' \(alsa.card 2\) 50% → 60%/
      ) != nil,
      "\(line)\n\(fixture.log)")
    #expect(try monitor.waitForExit(timeout: 10) == 0)
    #expect(try server.level(of: "usb_headset") == (60, false))
    #expect(try server.level(of: "speakers") == (100, false))
  }
}
