import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import InputCodes
import ShellTestSupport
import SystemCalls
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The parts of KDE Plasma this test runs: KWin (kglobalaccel runs inside it) and Plasma's media
/// controller applet, alone in plasmawindowed.
private let kdeMissing: String? =
  HeadlessDesktop.missing(.kwin)
  ?? (access("/usr/bin/plasmawindowed", X_OK) != 0
    ? "plasmawindowed is not installed (apt-get install plasma-workspace): the KDE test is skipped" : nil)

extension EvdevInputDeviceTests {
  /// One press, one action with KDE Plasma (DESIGN.md section 3a): a real headless KWin 5.27 on the
  /// test's private bus (its in-process kglobalaccel), the real media controller of Plasma 5.27
  /// (`plasmawindowed org.kde.plasma.mediacontroller`, offscreen: the applet and the mpris2 data
  /// engine plasmashell loads, which register the `mediacontrol` component and call the player), a
  /// real mpv, and the real responderd on an emulated USB headset (owned) and a keyboard's Consumer
  /// Control device (shared: its keys are injected into KWin, as the kernel would give them to it).
  /// The Player calls are counted with dbus-monitor.
  @Suite(
    "KDE Plasma: real KWin, kglobalaccel and Plasma's media controller, mpv and responderd (umockdev)",
    .enabled(if: kdeMissing == nil, Comment(rawValue: kdeMissing ?? "")))
  final class KDEDesktopDeviceTests {
    @Test(
      "each press acts once: ten headset presses, the keyboard's play/pause through KWin and Plasma (Play and Pause), a first responder"
    )
    func onePressOneAction() throws {
      let tb = try Testbed()
      let headsetHandler = try tb.handler("headset")
      let keyboardHandler = try tb.handler("keyboard-consumer")
      let headset = try tb.add("headset", handler: headsetHandler)
      let keyboard = try tb.add("keyboard-consumer", handler: keyboardHandler)
      let fixture = try DaemonFixture(config: "chain = [\"mpris\"]\n")
      let desktop = try HeadlessDesktop.kwin(loop: fixture.loop, sessionBusAddress: fixture.bus.address)
      defer { desktop.stop() }
      print("KWin ready for input in \(desktop.startSeconds) s")
      let players = PlayerHarness(
        directory: desktop.directory, environment: desktop.environment, busAddress: fixture.bus.address,
        loop: fixture.loop)
      defer { players.stop() }
      let calls = try players.startMonitor()
      let mpv = try players.startPlayer(connection: fixture.connection)
      _ = try desktop.start(
        ["plasmawindowed", "org.kde.plasma.mediacontroller"],
        environment: [
          "QT_QPA_PLATFORM": "offscreen", "QT_QUICK_BACKEND": "software", "LIBGL_ALWAYS_SOFTWARE": "1",
        ],
        stdout: .file(desktop.directory + "/plasmawindowed.log"),
        stderr: .file(desktop.directory + "/plasmawindowed.err"))
      let responderctl = try BuiltProducts.path(of: "responderctl")
      let proxy = Player(uniqueName: "org.mpris.MediaPlayer2.responderd")

      // responderd controls mpv; it owns the headset, and found KDE Plasma through the real
      // kglobalaccel: the keyboard's media keys are the desktop's.
      try waitForSelection(of: mpv, fixture)
      try fixture.waitFor("the headset to be grabbed", timeout: 10) { headsetHandler.isGrabbed }
      var devices = ""
      try fixture.waitFor("responderd to find KDE Plasma's mediacontrol", timeout: 20) {
        devices = (try? fixture.run([responderctl, "devices"]).output) ?? ""
        return devices.contains(
          "desktop: KDE Plasma (kglobalaccel's mediacontrol component) handles media keys")
      }
      let lines = devices.split(separator: "\n").map(String.init)
      #expect(
        lines.first
          == "desktop: KDE Plasma (kglobalaccel's mediacontrol component) handles media keys: shared devices (keyboards, remotes, devices another program holds) are left to it, so that one press makes one action; owned devices stay responderd's",
        "\(devices)")
      #expect(
        lines.contains(
          "left alone /dev/input/event4  Microsoft Wired Keyboard 600 Consumer Control (0003:045e:07f8, usb-0000:00:14.0-1/input1)"
        ), "\(devices)")
      #expect(
        lines.contains(
          "owned      /dev/input/event7  Logitech USB Headset H340 Consumer Control (0003:046d:0a38, usb-0000:00:14.0-2/input3)"
        ), "\(devices)")
      let status = try fixture.run([responderctl, "status"]).output
      #expect(
        status.contains("\ndesktop: KDE Plasma (kglobalaccel's mediacontrol component) handles media keys"),
        "\(status)")

      /// A key as the kernel delivers it: to responderd through the device, and to KWin only while
      /// no program holds the device (a grabbed device's events reach no one else).
      func press(_ device: EmulatedDevice, _ handler: EvdevIoctlHandler, _ code: UInt16) throws {
        let time = monotonicNow()
        try tb.key(device, code, 1, at: time)
        if !handler.isGrabbed { try desktop.key(code, pressed: true) }
        try tb.key(device, code, 0, at: time + 0.08)
        if !handler.isGrabbed { try desktop.key(code, pressed: false) }
      }
      /// The calls that reached mpv, by its unique name or either of its well-known names.
      func mpvCalls() -> [PlayerCalls.Call] {
        calls.calls.filter {
          $0.destination == mpv.uniqueName || $0.destination.hasPrefix("org.mpris.MediaPlayer2.mpv")
        }
      }
      /// Waits until mpv says `expected` and responderd's proxy player says the same (settled).
      func settle(_ expected: String, _ what: String) throws {
        try fixture.waitFor(
          "mpv and the proxy player to say \(expected) after \(what); calls: \(calls.summary)", timeout: 15
        ) {
          (try? mpv.status(fixture.connection)) == expected
            && (try? proxy.status(fixture.connection)) == expected
        }
      }

      // 1. Ten presses of the headset's play/pause: ten toggles, one call each, KWin sees none.
      var expected = "Paused"
      for index in 1...10 {
        try press(headset, headsetHandler, KEY_PLAYPAUSE)
        expected = expected == "Paused" ? "Playing" : "Paused"
        try fixture.waitFor("PlayPause call \(index) to mpv; calls: \(calls.summary)", timeout: 10) {
          mpvCalls().count >= index
        }
        try settle(expected, "headset press \(index)")
        #expect(mpvCalls().count == index, "\(calls.summary)")
      }
      #expect(mpvCalls().allSatisfy { $0.member == "PlayPause" && $0.sender == fixture.daemonName })
      #expect(calls.calls.count == 10, "only responderd called a player: \(calls.summary)")

      // 2. The keyboard's play/pause through KWin, kglobalaccel and Plasma, spaced as a person's
      // presses are (each waits until mpv and the proxy settled): one toggle and one call to mpv
      // each, whether Plasma called the proxy player (responderd then calls mpv) or mpv itself.
      for index in 1...4 {
        let before = mpvCalls().count
        try press(keyboard, keyboardHandler, KEY_PLAYPAUSE)
        expected = expected == "Paused" ? "Playing" : "Paused"
        try fixture.waitFor("keyboard press \(index) to reach mpv; calls: \(calls.summary)", timeout: 10) {
          mpvCalls().count > before
        }
        try settle(expected, "keyboard press \(index)")
        #expect(mpvCalls().count == before + 1, "\(calls.summary)")
      }
      let plasmaCalls = calls.calls.filter { $0.sender != fixture.daemonName }
      #expect(plasmaCalls.count == 4, "one call from Plasma per keyboard press: \(calls.summary)")
      #expect(plasmaCalls.allSatisfy { $0.member == "Play" || $0.member == "Pause" }, "\(calls.summary)")
      print(
        "Plasma's calls for the keyboard's presses: \(plasmaCalls.map { "\($0.destination) \($0.member)" })")

      // 3. A first responder application gets each headset press once.
      let received = desktop.directory + "/app.txt"
      let app = try ChildProcess(
        [
          responderctl, "respond", "--events", "remote-control", "--", "sh", "-c",
          "echo \"$RESPONDERD_EVENT_SUBTYPE\" >> \(received)",
        ],
        environment: fixture.bus.environment, stdout: .null, stderr: .null)
      defer { app.terminate() }
      try fixture.waitFor("the application to be first responder", timeout: 10) {
        (try? fixture.run([responderctl, "status"]).output.contains("first responder: none")) == false
      }
      func appLines() -> [String] {
        ((try? readTextFile(received)) ?? "").split(separator: "\n").map(String.init)
      }
      let callsBefore = calls.calls.count
      for index in 1...3 {
        try press(headset, headsetHandler, KEY_PLAYPAUSE)
        try fixture.waitFor("the application's event \(index)", timeout: 10) { appLines().count >= index }
      }
      app.terminate()
      try fixture.stopDaemon()  // every call responderd made is on the bus now
      #expect(appLines() == ["togglePlayPause", "togglePlayPause", "togglePlayPause"])
      #expect(calls.calls.count == callsBefore, "no player was called: \(calls.summary)")
    }
  }
}
