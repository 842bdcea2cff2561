import DBusTestSupport
import DeviceTestSupport
import Foundation
import SystemCalls
import Testing

extension EvdevInputDeviceTests {
  /// The real daemon on emulated devices and a private bus, asked with the real responderctl.
  @Suite("responderctl devices, status and monitor with the real daemon (umockdev)")
  struct DevicesCommandDeviceTests {
    @Test(
      "devices explains each device; status counts them; an owned device's other key is shown and runs its command"
    )
    func devicesStatusAndMonitor() throws {
      let tb = try Testbed()
      let (headsetDevice, headset) = try tb.addLive("headset")
      let jack = try tb.addLive("jack").handler
      try tb.add("keyboard")
      try tb.add("touchscreen")
      let out = tb.root + "/micmute.txt"
      let fixture = try DaemonFixture(
        config: """
          chain = ["log"]
          [command]
          KEY_MICMUTE = ["sh", "-c", "echo \\"$RESPONDERD_KEY $RESPONDERD_DEVICE\\" > \(out)"]
          """)
      try fixture.waitFor("the headset and the jack to be grabbed") { headset.isGrabbed && jack.isGrabbed }
      let responderctl = try BuiltProducts.path(of: "responderctl")

      let devices = try fixture.run([responderctl, "devices"])
      #expect(devices.exitCode == 0)
      #expect(
        devices.output.split(separator: "\n").map(String.init) == [
          "desktop: none handles media keys (GNOME, Phosh and KDE Plasma are detected on the session bus; say desktop-handles-media-keys = \"yes\" for sway or Hyprland key bindings): responderd reads the media keys of shared devices",
          "undo: off (the chain does not name the undo handler)",
          "shared     /dev/input/event3  Microsoft Wired Keyboard 600 (0003:045e:07f8, usb-0000:00:14.0-1/input0)",
          "           a keyboard (the desktop's)",
          "           keys: KEY_NEXTSONG, KEY_PLAYPAUSE, KEY_PREVIOUSSONG, KEY_STOPCD, KEY_REWIND, KEY_PLAYCD, KEY_PAUSECD, KEY_FASTFORWARD, KEY_MEDIA",
          "owned      /dev/input/event5  HDA Intel PCH Headphone Mic (0000:0000:0000, ALSA)",
          "           headset class: the sound card's jack input",
          "           keys: KEY_VOLUMEDOWN, KEY_VOLUMEUP, KEY_PLAYPAUSE, KEY_VOICECOMMAND",
          "owned      /dev/input/event7  Logitech USB Headset H340 Consumer Control (0003:046d:0a38, usb-0000:00:14.0-2/input3)",
          "           headset class: a key device of a USB audio device",
          "           keys: KEY_MUTE, KEY_VOLUMEDOWN, KEY_VOLUMEUP, KEY_NEXTSONG, KEY_PLAYPAUSE, KEY_PREVIOUSSONG, KEY_MEDIA, KEY_MICMUTE",
          "left alone /dev/input/event9  Goodix Capacitive TouchScreen (0018:0416:038f, input/ts)",
          "           no media or headset key",
          "4 devices: 2 owned, 1 shared, 1 left alone",
        ], "\(devices.output)")

      let json = try fixture.run([responderctl, "devices", "--json"])
      let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
      #expect(
        object?["owned"] as? Int == 2 && object?["shared"] as? Int == 1 && object?["leftAlone"] as? Int == 1)
      let entries = object?["devices"] as? [[String: Any]] ?? []
      #expect(
        entries.map { $0["reasonCode"] as? String } == [
          "keyboard", "headset-class", "headset-class", "no-media-key",
        ])
      #expect(entries.map { $0["state"] as? String } == ["shared", "owned", "owned", "left alone"])

      let status = try fixture.run([responderctl, "status"])
      #expect(
        status.output.contains(
          "\ninput devices: 2 owned, 1 shared, 1 left alone (responderctl devices says why)\n"),
        "\(status.output)")

      // The headset's microphone key: neither a media nor a volume key; the monitor shows it.
      let monitor = try ChildProcess(
        [responderctl, "monitor", "--json", "--count", "1"], environment: fixture.bus.environment,
        stdout: .capture,
        stderr: .capture)
      defer { monitor.terminate() }
      var announced = ""
      while !announced.contains("following events") {
        guard let line = try monitor.readLine(timeout: 10) else { break }
        announced += line
      }
      try tb.key(headsetDevice, KEY_MICMUTE, 1, at: 10.0)
      try tb.key(headsetDevice, KEY_MICMUTE, 0, at: 10.1)
      let line = try #require(try monitor.readLine(timeout: 10))
      let shown = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(shown?["type"] as? String == "key" && shown?["key"] as? String == "KEY_MICMUTE")
      #expect(shown?["device"] as? String == "Logitech USB Headset H340 Consumer Control")
      #expect(shown?["action"] as? String == "command sh")
      try fixture.waitFor("the KEY_MICMUTE command") {
        (try? readTextFile(out)) == "KEY_MICMUTE Logitech USB Headset H340 Consumer Control\n"
      }
      try fixture.stopDaemon()
      #expect(!headset.isGrabbed && !jack.isGrabbed)  // released on the way out
    }
  }
}
