import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import InputCodes
import ShellTestSupport
import SystemCalls
import TestConditions
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
  /// One press, one action with KDE Plasma (docs/design.md#one-press-one-action): a real headless
  /// KWin 5.27 on the test's private bus (its in-process kglobalaccel), the real media controller of Plasma 5.27
  /// (`plasmawindowed org.kde.plasma.mediacontroller`, offscreen: the applet and the mpris2 data
  /// engine plasmashell loads, which register the `mediacontrol` component and call the player), a
  /// real mpv, and the real responderd on an emulated USB headset (owned) and a keyboard's Consumer
  /// Control device (shared: its keys are injected into KWin, as the kernel would give them to it).
  /// The Player calls are counted with dbus-monitor.
  @Suite(
    "KDE Plasma: real KWin, kglobalaccel and Plasma's media controller, mpv and responderd (umockdev)",
    .enabledUnless(missing: kdeMissing))
  final class KDEDesktopDeviceTests {
    @Test(
      "each press acts once: ten headset presses, the keyboard's play/pause through KWin and Plasma (Play and Pause), a first responder"
    )
    func onePressOneAction() throws {
      let session = try KDESession(config: "chain = [\"mpris\"]\n")
      defer { session.stop() }
      let (fixture, desktop, calls, mpv) = (session.fixture, session.desktop, session.calls, session.mpv)
      let ((headset, headsetHandler), (keyboard, keyboardHandler)) = (session.headset, session.keyboard)
      let responderctl = session.responderctl
      let proxy = Player(uniqueName: "org.mpris.MediaPlayer2.responderd")

      // The test runs under umockdev; the desktop's processes do not (they see no emulated device).
      let underUmockdev = desktop.livingProcesses.filter { pid in
        let environ = String(decoding: (try? readFile("/proc/\(pid)/environ")) ?? [], as: UTF8.self)
        return environ.contains("UMOCKDEV_DIR=") || environ.contains("libumockdev-preload")
      }
      #expect(!desktop.livingProcesses.isEmpty && underUmockdev.isEmpty, "\(underUmockdev)")

      // responderd controls mpv; it owns the headset, and found KDE Plasma through the real
      // kglobalaccel: the keyboard's media keys are the desktop's.
      try session.waitForMpvAndTheHeadset()
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

      func press(_ device: EmulatedDevice, _ handler: EvdevIoctlHandler, _ code: UInt16) throws {
        try session.press(device, handler, code)
      }
      func mpvCalls() -> [PlayerCalls.Call] { session.mpvCalls() }
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
      let app = try FirstResponderApp(fixture, directory: desktop.directory)
      func appLines() -> [String] { app.lines }
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

    @Test(
      "without responderd's proxy player ([players] proxy = false) Plasma calls mpv itself: still one action per press"
    )
    func plasmaCallingThePlayerActsOnce() throws {
      let session = try KDESession(config: "chain = [\"mpris\"]\n[players]\nproxy = false\n")
      defer { session.stop() }
      let (fixture, calls, mpv) = (session.fixture, session.calls, session.mpv)
      let ((headset, headsetHandler), (keyboard, keyboardHandler)) = (session.headset, session.keyboard)
      let responderctl = session.responderctl
      try session.waitForMpvAndTheHeadset()
      try fixture.waitFor("responderd to find KDE Plasma's mediacontrol", timeout: 20) {
        (try? fixture.run([responderctl, "status"]).output.contains("\ndesktop: KDE Plasma")) == true
      }

      // The headset and the keyboard in turn, each press once mpv settled: one call to mpv each,
      // responderd's PlayPause for the headset, Plasma's Play or Pause for the keyboard. Which of
      // the two Plasma sends is its own choice, from its view of mpv's state (that view may lag a
      // headset press by a moment): the press acts once, and mpv ends as that call says.
      var state = "Paused"
      for index in 1...6 {
        let headsetTurn = index % 2 == 1
        let before = session.mpvCalls().count
        if headsetTurn {
          try session.press(headset, headsetHandler, KEY_PLAYPAUSE)
        } else {
          try session.press(keyboard, keyboardHandler, KEY_PLAYPAUSE)
        }
        try fixture.waitFor("press \(index) to reach mpv; calls: \(calls.summary)", timeout: 10) {
          session.mpvCalls().count > before
        }
        let call = session.mpvCalls().last
        if headsetTurn {
          #expect(call?.sender == fixture.daemonName && call?.member == "PlayPause", "\(calls.summary)")
          state = state == "Paused" ? "Playing" : "Paused"
        } else {
          #expect(call?.sender != fixture.daemonName, "Plasma called mpv: \(calls.summary)")
          #expect(call?.member == "Play" || call?.member == "Pause", "\(calls.summary)")
          state = call?.member == "Play" ? "Playing" : "Paused"
        }
        try fixture.waitFor(
          "mpv to say \(state) after press \(index); calls: \(calls.summary)", timeout: 15
        ) {
          (try? mpv.status(fixture.connection)) == state
        }
        #expect(session.mpvCalls().count == before + 1, "\(calls.summary)")
      }
      try fixture.stopDaemon()
      #expect(calls.calls.count == 6, "\(calls.summary)")
    }
  }
}

/// The emulated USB headset and keyboard, responderd, then KWin (its kglobalaccel), Plasma's media
/// controller (plasmawindowed, offscreen), mpv and a monitor of the Player calls, all on the bus of
/// `fixture` (where responderd runs).
final class KDESession {
  let tb: Testbed
  /// The headset (responderd owns it) and the keyboard's Consumer Control device (shared).
  let headset: (device: EmulatedDevice, handler: EvdevIoctlHandler)
  let keyboard: (device: EmulatedDevice, handler: EvdevIoctlHandler)
  let fixture: DaemonFixture
  let responderctl: String
  let desktop: HeadlessDesktop
  let players: PlayerHarness
  let calls: PlayerCalls
  let mpv: Player

  /// Starts responderd with `config` on the emulated devices, then the desktop beside it.
  init(config: String) throws {
    tb = try Testbed()
    headset = try tb.addLive("headset")
    keyboard = try tb.addLive("keyboard-consumer")
    fixture = try DaemonFixture(config: config)
    responderctl = try BuiltProducts.path(of: "responderctl")
    desktop = try HeadlessDesktop.kwin(loop: fixture.loop, sessionBusAddress: fixture.bus.address)
    print("KWin ready for input in \(desktop.startSeconds) s")
    players = PlayerHarness(
      directory: desktop.directory, environment: desktop.environment, busAddress: fixture.bus.address,
      loop: fixture.loop)
    calls = try players.startMonitor()
    mpv = try players.startPlayer(connection: fixture.connection)
    _ = try desktop.start(
      ["plasmawindowed", "org.kde.plasma.mediacontroller"],
      environment: [
        "QT_QPA_PLATFORM": "offscreen", "QT_QUICK_BACKEND": "software", "LIBGL_ALWAYS_SOFTWARE": "1",
      ],
      stdout: .file(desktop.directory + "/plasmawindowed.log"),
      stderr: .file(desktop.directory + "/plasmawindowed.err"))
  }

  /// Waits until responderd selected mpv and grabbed the headset.
  func waitForMpvAndTheHeadset() throws {
    try waitForSelection(of: mpv, fixture)
    try fixture.waitFor("the headset to be grabbed", timeout: 10) { self.headset.handler.isGrabbed }
  }

  /// A key as the kernel delivers it: to responderd through the device, and to KWin only while no
  /// program holds the device (a grabbed device's events reach no one else).
  func press(_ device: EmulatedDevice, _ handler: EvdevIoctlHandler, _ code: UInt16) throws {
    let shared = !handler.isGrabbed
    let time = monotonicNow()
    try tb.key(device, code, 1, at: time)
    if shared { try desktop.key(code, pressed: true) }
    try tb.key(device, code, 0, at: time + 0.08)
    if shared { try desktop.key(code, pressed: false) }
  }

  /// The calls that reached mpv, by its unique name or either of its well-known names.
  func mpvCalls() -> [PlayerCalls.Call] {
    calls.calls.filter {
      $0.destination == mpv.uniqueName || $0.destination.hasPrefix("org.mpris.MediaPlayer2.mpv")
    }
  }

  func stop() {
    players.stop()
    desktop.stop()
  }

  deinit { stop() }
}
