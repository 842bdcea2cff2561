import DeviceTestSupport
import EventLoop
import EventTime
import InputCodes
import RemoteControl
import ResponderCore
import Testing

@testable import EvdevInput

extension EvdevInputDeviceTests {
  /// Shared devices yield to a desktop that handles media keys
  /// (docs/design.md#one-press-one-action): while one runs, a keyboard, a device another program holds and a `grab = "never"` device are not read;
  /// owned devices stay responderd's. When the desktop goes away they are read again.
  @Suite("Shared devices yield to the desktop (umockdev)")
  struct DesktopYieldDeviceTests {
    @Test("with a desktop, the keyboard is closed and its keys are not read; the headset stays owned")
    func keyboardYields() throws {
      let tb = try Testbed()
      let (headset, headsetHandler) = try tb.addLive("headset")
      let (keyboard, keyboardHandler) = try tb.addLive("keyboard")
      let p = try KeyPipeline()
      p.input.setDesktop("GNOME (gsd-media-keys)")
      try p.start()
      #expect(headsetHandler.isGrabbed && !keyboardHandler.isGrabbed)
      #expect(p.openPaths == ["/dev/input/event7"])
      let report = p.input.deviceStatuses.map {
        "\($0.path) \($0.state.rawValue) \($0.reasonCode): \($0.reason)"
      }
      #expect(
        report == [
          "/dev/input/event3 left alone desktop: shared with the desktop, which handles media keys itself (GNOME (gsd-media-keys)): not read, its keys are the desktop's (a keyboard (the desktop's))",
          "/dev/input/event7 owned headset-class: headset class: a key device of a USB audio device",
        ])

      try tb.key(keyboard, KEY_PLAYPAUSE, 1, at: 5.0)  // the desktop's press
      try tb.key(keyboard, KEY_PLAYPAUSE, 0, at: 5.1)
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: 6.0)
      try tb.key(headset, KEY_PLAYPAUSE, 0, at: 6.1)
      try p.waitForKeys(2)
      p.scheduler.advance(to: 10)
      #expect(p.player.received == ["togglePlayPause@6.0"])

      // The desktop leaves: the keyboard's media keys are responderd's again.
      p.input.setDesktop(nil)
      #expect(p.openPaths == ["/dev/input/event3", "/dev/input/event7"])
      #expect(p.input.deviceStatuses.map(\.state) == [.shared, .owned])
      try tb.key(keyboard, KEY_PLAYPAUSE, 1, at: 12.0)
      try tb.key(keyboard, KEY_PLAYPAUSE, 0, at: 12.1)
      try p.waitForKeys(4)
      p.scheduler.advance(to: 20)
      #expect(p.player.received == ["togglePlayPause@6.0", "togglePlayPause@12.0"])

      // And it comes back: the shared keyboard is closed while it runs.
      p.input.setDesktop("KDE Plasma (kglobalaccel's mediacontrol component)")
      #expect(p.openPaths == ["/dev/input/event7"])
      #expect(p.input.deviceStatuses.map(\.reasonCode) == ["desktop", "headset-class"])
    }

    @Test("a device another program holds and a grab = \"never\" headset yield too")
    func busyAndNeverYield() throws {
      let tb = try Testbed()
      let headsetHandler = try tb.handler("headset")
      headsetHandler.setGrabbedElsewhere(true)
      try tb.add("headset", handler: headsetHandler)
      let jackHandler = try tb.addLive("jack").handler
      let p = try KeyPipeline()
      p.input.setDesktop("GNOME (gsd-media-keys)")
      try p.start()
      #expect(p.openPaths == ["/dev/input/event5"])
      #expect(jackHandler.isGrabbed)
      #expect(p.input.deviceStatuses.map(\.reasonCode) == ["headset-class", "desktop"])
      #expect(
        p.input.deviceStatuses.last?.reason.hasSuffix("(another program holds it (EVIOCGRAB: busy))") == true)
      // The program holding the grab gets every event: the log line says responderd gets none.
      let busy = p.logs.all.filter { $0.contains("is held by another program") }
      #expect(busy.count == 1)
      #expect(
        busy.first?.contains("every key of the device goes to that program alone and responderd gets none")
          == true, "\(busy)")

      var settings = KeySettings.standard
      settings.deviceRules.append(DeviceRule(match: DeviceMatch.id("0003:046d:0a38")!, grab: .never))
      let q = try KeyPipeline(settings: settings)
      q.input.setDesktop("GNOME (gsd-media-keys)")
      headsetHandler.setGrabbedElsewhere(false)
      try q.start()
      #expect(!headsetHandler.isGrabbed)
      #expect(q.input.deviceStatuses.map(\.reasonCode).last == "desktop")
    }
  }
}
