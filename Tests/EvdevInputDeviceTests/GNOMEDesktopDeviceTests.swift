import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import EventTime
import Foundation
import InputCodes
import ShellTestSupport
import SystemCalls
import TestConditions
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's GNOME Shell (headless) and gsd-media-keys, the parts of a GNOME session this test runs.
private let gsdMediaKeys = "/usr/libexec/gsd-media-keys"
private let gnomeMissing: String? = {
  if access(gsdMediaKeys, X_OK) != 0 {
    return
      "\(gsdMediaKeys) is not installed (apt-get install gnome-settings-daemon): the GNOME test is skipped"
  }
  return HeadlessDesktop.missing(.gnomeShell)
}()
private let phoshMissing: String? = {
  if access(gsdMediaKeys, X_OK) != 0 {
    return
      "\(gsdMediaKeys) is not installed (apt-get install gnome-settings-daemon): the phosh test is skipped"
  }
  return HeadlessDesktop.missing(.phosh)
}()

extension EvdevInputDeviceTests {
  /// One press, one action with the desktop users run (docs/design.md#one-press-one-action): a
  /// real headless GNOME Shell 43 and Debian's gsd-media-keys on the test's private bus, a real mpv
  /// with two tracks, and the real responderd on an emulated USB headset (owned) and a keyboard's
  /// Consumer Control device (shared). A key reaches the shell (through RemoteDesktop) only when no
  /// program grabbed its device, as the compositor gets nothing from a grabbed device. The Player
  /// calls mpv receives are counted with dbus-monitor.
  @Suite(
    "GNOME: real GNOME Shell, gsd-media-keys, mpv and responderd (umockdev)",
    .enabledUnless(missing: gnomeMissing))
  final class GNOMEDesktopDeviceTests {
    @Test(
      "each press acts once: headset play/pause, a KEY_MEDIA double click, the keyboard's play/pause, a first responder"
    )
    func onePressOneAction() throws {
      try onePressOneAction(on: .gnomeShell, desktopName: "GNOME (gsd-media-keys)")
    }

    /// The same on Phosh: phoc 0.24 and phosh 0.24, which takes no media key itself and grabs them
    /// for gsd-media-keys (`org.gnome.Shell`'s `GrabAccelerators`); responderd finds phosh by its
    /// `ShellVersion`, not as GNOME Shell. Keys reach phoc through its virtual keyboard.
    @Test(
      "phosh: each press acts once beside phosh and gsd-media-keys",
      .enabledUnless(missing: phoshMissing))
    func onePressOneActionOnPhosh() throws {
      try onePressOneAction(on: .phosh, desktopName: "Phosh (gsd-media-keys)")
    }

    func onePressOneAction(on compositor: HeadlessDesktop.Compositor, desktopName: String) throws {
      let tb = try Testbed()
      let (headset, headsetHandler) = try tb.addLive("headset")
      let (keyboard, keyboardHandler) = try tb.addLive("keyboard-consumer")
      let fixture = try DaemonFixture(config: "chain = [\"mpris\"]\n")
      let session = try GNOMESession(compositor, bus: fixture.bus, loop: fixture.loop)
      defer { session.stop() }
      let calls = try session.startMonitor()
      let mpv = try session.startPlayer(connection: fixture.connection)
      let responderctl = try BuiltProducts.path(of: "responderctl")

      // responderd controls mpv (its proxy player is not a candidate).
      try waitForSelection(of: mpv, fixture)

      // responderd owns the headset and found GNOME: the keyboard's media keys are the desktop's.
      try fixture.waitFor("the headset to be grabbed", timeout: 10) { headsetHandler.isGrabbed }
      var devices = ""
      try fixture.waitFor("responderd to find gsd-media-keys", timeout: 10) {
        devices = (try? fixture.run([responderctl, "devices"]).output) ?? ""
        return devices.contains("desktop: \(desktopName) handles media keys")
      }
      let lines = devices.split(separator: "\n").map(String.init)
      #expect(
        lines.first
          == "desktop: \(desktopName) handles media keys: shared devices (keyboards, remotes, devices another program holds) are left to it, so that one press makes one action; owned devices stay responderd's",
        "\(devices)")
      #expect(
        lines.contains(
          "left alone /dev/input/event4  Microsoft Wired Keyboard 600 Consumer Control (0003:045e:07f8, usb-0000:00:14.0-1/input1)"
        ))
      #expect(
        lines.contains(
          "           shared with the desktop, which handles media keys itself (\(desktopName)): not read, its keys are the desktop's (not a headset-class device)"
        ), "\(devices)")
      #expect(
        lines.contains(
          "owned      /dev/input/event7  Logitech USB Headset H340 Consumer Control (0003:046d:0a38, usb-0000:00:14.0-2/input3)"
        ))
      let status = try fixture.run([responderctl, "status"]).output
      #expect(status.contains("\ndesktop: \(desktopName) handles media keys"), "\(status)")

      /// A key as the kernel delivers it: to responderd through the device, and to the compositor
      /// (the shell, then gsd) only while no program holds the device.
      func press(_ device: EmulatedDevice, _ handler: EvdevIoctlHandler, _ code: UInt16, at time: Double)
        throws
      {
        let shared = !handler.isGrabbed
        try tb.key(device, code, 1, at: time)
        if shared { try session.desktop.key(code, pressed: true) }
        try tb.key(device, code, 0, at: time + 0.08)
        if shared { try session.desktop.key(code, pressed: false) }
      }

      // 1. Ten single presses of the headset's play/pause: ten toggles, one call each.
      var expected = "Paused"
      for index in 1...10 {
        try press(headset, headsetHandler, KEY_PLAYPAUSE, at: monotonicNow())
        expected = expected == "Paused" ? "Playing" : "Paused"
        try fixture.waitFor("PlayPause call \(index) to mpv; calls: \(calls.summary)", timeout: 10) {
          calls.to(mpv.uniqueName).count >= index
        }
        try fixture.waitFor("mpv to be \(expected) after press \(index)", timeout: 10) {
          (try? mpv.status(fixture.connection)) == expected
        }
        #expect(calls.to(mpv.uniqueName).count == index, "\(calls.summary)")
      }
      #expect(
        calls.to(mpv.uniqueName).allSatisfy { $0.member == "PlayPause" && $0.sender == fixture.daemonName })
      #expect(session.activations == 0, "the compositor never saw the owned headset's key")

      // 2. A KEY_MEDIA double click: one Next, and the music application is not launched.
      let click = monotonicNow()
      try press(headset, headsetHandler, KEY_MEDIA, at: click)
      try press(headset, headsetHandler, KEY_MEDIA, at: click + 0.2)
      try fixture.waitFor("the Next call; calls: \(calls.summary)", timeout: 10) {
        calls.to(mpv.uniqueName).count >= 11
      }
      #expect(calls.to(mpv.uniqueName).map(\.member).last == "Next")
      #expect(session.activations == 0)

      // 3. The keyboard's play/pause: exactly one toggle, whoever performs it (gsd here).
      try press(keyboard, keyboardHandler, KEY_PLAYPAUSE, at: monotonicNow())
      try fixture.waitFor("the keyboard's toggle; calls: \(calls.summary)", timeout: 10) {
        calls.to(mpv.uniqueName).count >= 12
      }
      // The shell's signal and gsd's call are seen by two monitors: the call's line can be read
      // first.
      try fixture.waitFor("the shell to take the keyboard's key for gsd-media-keys", timeout: 5) {
        session.activations >= 1
      }
      #expect(session.activations == 1, "the shell took the keyboard's key for gsd-media-keys")

      // 4. A first responder application gets each press once.
      let app = try FirstResponderApp(fixture, directory: session.directory)
      func appLines() -> [String] { app.lines }
      for index in 1...3 {
        try press(headset, headsetHandler, KEY_PLAYPAUSE, at: monotonicNow())
        try fixture.waitFor("the application's event \(index)", timeout: 10) { appLines().count >= index }
      }
      let callsBefore = calls.to(mpv.uniqueName).count
      try press(keyboard, keyboardHandler, KEY_PLAYPAUSE, at: monotonicNow())
      try fixture.waitFor("the keyboard's press to act", timeout: 10) {
        appLines().count + calls.to(mpv.uniqueName).count - callsBefore >= 4
      }
      app.terminate()
      try fixture.stopDaemon()  // every call responderd made is on the bus now
      #expect(
        appLines().count + calls.to(mpv.uniqueName).count - callsBefore == 4, "\(appLines()) \(calls.summary)"
      )
      #expect(Array(appLines().prefix(3)) == ["togglePlayPause", "togglePlayPause", "togglePlayPause"])
      #expect(calls.to(mpv.uniqueName).count <= 13, "\(calls.summary)")
      #expect(
        calls.to(mpv.uniqueName).prefix(12).map(\.member) == Array(repeating: "PlayPause", count: 10) + [
          "Next", "PlayPause",
        ],
        "\(calls.summary)")
      #expect(!session.launched, "gsd never launched the music application")

      // Without responderd the headset is the desktop's again: gsd launches the music application
      // at KEY_MEDIA (what responderd's grab prevents; this also proves the harness sees it).
      #expect(!headsetHandler.isGrabbed)
      try press(headset, headsetHandler, KEY_MEDIA, at: monotonicNow())
      try fixture.waitFor("gsd to launch the music application", timeout: 15) { session.launched }
    }

    @Test(
      "desktop-handles-media-keys = \"no\": gsd's call on the proxy player for a press responderd acted on is a duplicate"
    )
    func proxyPlayerNeverDoublesAPress() throws {
      let tb = try Testbed()
      // The handler answers the device's ioctls while it lives.
      let keyboardHandler = try tb.handler("keyboard-consumer")
      let keyboard = try tb.add("keyboard-consumer", handler: keyboardHandler)
      let fixture = try DaemonFixture(
        config: "chain = [\"mpris\"]\n[keys]\ndesktop-handles-media-keys = \"no\"\n")
      let session = try GNOMESession(bus: fixture.bus, loop: fixture.loop)
      defer { session.stop() }
      let calls = try session.startMonitor()
      let mpv = try session.startPlayer(connection: fixture.connection)
      let responderctl = try BuiltProducts.path(of: "responderctl")
      // responderd starting again makes its proxy player the newest: gsd switches to it.
      try fixture.stopDaemon()
      try fixture.startDaemonAgain()
      try fixture.waitFor("gsd-media-keys to switch to responderd's proxy player", timeout: 15) {
        session.gsdLog.contains("Switching to MPRIS client org.mpris.MediaPlayer2.responderd")
      }
      try waitForSelection(of: mpv, fixture)
      try fixture.waitFor("responderd to read the keyboard", timeout: 10) {
        (try? fixture.run([responderctl, "devices"]).output.contains("shared     /dev/input/event4")) == true
      }

      // Its notice on stderr (the same pipe) says when responderd sends it the events (WatchEvents
      // answered); only then is a press certain to be shown.
      let monitor = try ChildProcess(
        [responderctl, "monitor", "--json"], environment: fixture.bus.environment, stdout: .capture,
        stderr: .capture)
      defer { monitor.terminate() }
      var output = ""
      var lines: [String] {  // the complete JSON lines
        guard let end = output.lastIndex(of: "\n") else { return [] }
        return output[..<end].split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init)
      }
      let source = try fixture.loop.register(fd: monitor.outputDescriptor, events: .readable) { _ in
        _ = monitor.readAvailable()
        output += monitor.takeBufferedOutput()
      }
      defer { source.remove() }
      try fixture.waitFor("the monitor to follow the events; it said: \(output)", timeout: 10) {
        output.contains("following events dispatched by responderd")
      }

      let proxy = Player(uniqueName: "org.mpris.MediaPlayer2.responderd")  // addressed by its name
      var status = (try? mpv.status(fixture.connection)) ?? ""

      var delays: [Int] = []
      for index in 1...5 {
        let time = monotonicNow()
        // Not grabbed: the desktop's too.
        try tb.key(keyboard, KEY_PLAYPAUSE, 1, at: time)
        try session.desktop.key(KEY_PLAYPAUSE, pressed: true)
        try tb.key(keyboard, KEY_PLAYPAUSE, 0, at: time + 0.08)
        try session.desktop.key(KEY_PLAYPAUSE, pressed: false)
        try fixture.waitFor("press \(index): the event and gsd's call in the monitor; \(lines)", timeout: 10)
        {
          lines.count >= 2 * index
        }
        let events = lines.suffix(2).compactMap {
          try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // One is dispatched, the other is its duplicate (usually gsd's call, which comes second).
        let handled = events.filter { $0["handledBy"] as? String == "mpris" }
        let dropped = events.filter { $0["handledBy"] is NSNull }
        #expect(handled.count == 1 && dropped.count == 1, "\(lines.suffix(2))")
        #expect(
          Set(events.compactMap { $0["source"] as? String }) == ["evdev:/dev/input/event4", "mpris-proxy"])
        let reason = dropped.first?["dropReason"] as? String ?? ""
        #expect(reason.hasPrefix("duplicate of the togglePlayPause "), "\(reason)")
        if let range = reason.range(of: #"\d+ ms earlier"#, options: .regularExpression) {
          delays.append(Int(reason[range].split(separator: " ")[0]) ?? -1)
        }
        try fixture.waitFor("mpv's call \(index)", timeout: 10) { calls.to(mpv.uniqueName).count >= index }
        // Each press lets mpv and the proxy player settle, as a person's presses do (far apart,
        // for the bus): gsd-media-keys switches to a player that starts playing while the one it
        // calls is not, and would then call mpv directly, a second action for the same press.
        status = status == "Playing" ? "Paused" : "Playing"
        try fixture.waitFor(
          "mpv and responderd's proxy player to say \(status) after press \(index)", timeout: 10
        ) {
          (try? mpv.status(fixture.connection)) == status && (try? proxy.status(fixture.connection)) == status
        }
      }
      try fixture.stopDaemon()
      #expect(calls.to(mpv.uniqueName).count == 5, "\(calls.summary)")
      #expect(calls.to(mpv.uniqueName).allSatisfy { $0.member == "PlayPause" })
      // gsd called the proxy player once per press: the calls it made were all taken as duplicates.
      #expect(calls.calls.filter { $0.destination != mpv.uniqueName && $0.member == "PlayPause" }.count == 5)
      print("proxy player: the device event and gsd-media-keys's call of each press came \(delays) ms apart")
    }
  }
}

/// Waits until responderd (the fixture's) controls `player`.
func waitForSelection(of player: Player, _ fixture: DaemonFixture) throws {
  // The latest signal wins over the property read: the signal may arrive while the read's reply,
  // from before the selection, is being waited for.
  var signalled: String?
  let selection = fixture.connection.onSignal(
    path: "/org/responderd/Daemon1/Players", interface: "org.responderd.Players1", member: "SelectionChanged"
  ) { message in signalled = message.arguments.first?.string ?? "" }
  defer { selection.cancel() }
  // SelectionChanged goes to the connections that called WatchEvents (unicast, the user's only).
  _ = try fixture.connection.callAndWait(
    destination: "org.responderd.Daemon1", path: "/org/responderd/Daemon1",
    interface: "org.responderd.Daemon1",
    method: "WatchEvents", timeout: 5)
  let read =
    (try? fixture.connection.callAndWait(
      destination: "org.responderd.Daemon1", path: "/org/responderd/Daemon1/Players",
      interface: "org.freedesktop.DBus.Properties", method: "Get",
      arguments: ["org.responderd.Players1", "Selected"], timeout: 5))?.first?.string ?? ""
  var selected: String { signalled ?? read }
  try fixture.waitFor("responderd to select mpv (\(player.uniqueName)); selected: \(selected)", timeout: 15) {
    selected == player.uniqueName
  }
}

/// The Player calls seen on the bus (dbus-monitor's lines), in order.
final class PlayerCalls {
  struct Call {
    var sender: String
    var destination: String
    var member: String
  }
  private(set) var calls: [Call] = []
  private var pending = ""

  func feed(_ text: String) {
    pending += text
    while let newline = pending.firstIndex(of: "\n") {
      let line = String(pending[..<newline])
      pending = String(pending[pending.index(after: newline)...])
      guard line.hasPrefix("method call ") else { continue }
      func field(_ name: String) -> String {
        guard let range = line.range(of: " \(name)=") else { return "" }
        return String(line[range.upperBound...].prefix { $0 != " " && $0 != ";" })
      }
      calls.append(Call(sender: field("sender"), destination: field("destination"), member: field("member")))
    }
  }

  func to(_ destination: String) -> [Call] { calls.filter { $0.destination == destination } }

  var summary: String { calls.map { "\($0.sender)→\($0.destination) \($0.member)" }.joined(separator: ", ") }
}

/// mpv on the bus.
struct Player {
  let uniqueName: String

  func status(_ connection: DBusConnection) throws -> String {
    try connection.callAndWait(
      destination: uniqueName, path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties",
      method: "Get", arguments: ["org.mpris.MediaPlayer2.Player", "PlaybackStatus"], timeout: 5
    ).first?.string ?? ""
  }
}

/// A real GNOME Shell 43 (headless, ShellTestSupport) on the test's private bus, and Debian's
/// gsd-media-keys beside it (a GTK program of the shell's Wayland session), with a marker music
/// application as the default for audio; mpv and dbus-monitor on the same bus. Keys go into the
/// shell through RemoteDesktop, as the kernel would give them to it.
final class GNOMESession {
  let desktop: HeadlessDesktop
  let directory: String
  let environment: [String: String]
  /// How many AcceleratorActivated the shell emitted (a media key it took for gsd-media-keys).
  private(set) var activations = 0
  private var source: IOSource?
  private let players: PlayerHarness

  init(_ compositor: HeadlessDesktop.Compositor = .gnomeShell, bus: PrivateBus, loop: EventLoop) throws {
    desktop =
      compositor == .phosh
      ? try HeadlessDesktop.phosh(loop: loop, sessionBusAddress: bus.address)
      : try HeadlessDesktop.gnomeShell(loop: loop, sessionBusAddress: bus.address)
    print("\(compositor.rawValue) ready for input in \(desktop.startSeconds) s")
    directory = desktop.directory + "/gnome"
    for folder in ["", "/data", "/data/applications", "/config"] { mkdir(directory + folder, 0o700) }
    try writeTextFile(
      directory + "/data/applications/marker-music.desktop",
      "[Desktop Entry]\nType=Application\nName=Marker Music\nExec=touch \(directory)/launched\nMimeType=audio/x-vorbis+ogg;\n"
    )
    try writeTextFile(
      directory + "/config/mimeapps.list", "[Default Applications]\naudio/x-vorbis+ogg=marker-music.desktop\n"
    )
    environment = desktop.environment.merging([
      "XDG_DATA_HOME": directory + "/data", "XDG_CONFIG_HOME": directory + "/config",
      "XDG_DATA_DIRS": "/usr/share",
    ]) { $1 }
    players = PlayerHarness(
      directory: directory, environment: environment, busAddress: bus.address, loop: loop)
    // The shell sends AcceleratorActivated to the grabbing program alone (a unicast signal):
    // dbus-monitor sees it.
    let monitor = try desktop.start(
      [
        "dbus-monitor", "--address", bus.address,
        "type='signal',interface='org.gnome.Shell',member='AcceleratorActivated'",
      ], stdout: .capture)
    _ = try monitor.readLine(timeout: 10)  // its own NameAcquired: it listens
    source = try loop.register(fd: monitor.outputDescriptor, events: .readable) { [weak self] _ in
      _ = monitor.readAvailable()
      self?.activations +=
        monitor.takeBufferedOutput().split(separator: "\n").filter {
          $0.contains("member=AcceleratorActivated")
        }
        .count
    }
    // The shell's virtual keyboard exists from its first event on.
    try desktop.warmUp()
    _ = try desktop.start(
      [gsdMediaKeys],
      environment: environment.merging([
        "LD_LIBRARY_PATH": "/usr/lib/gnome-settings-daemon-43", "G_MESSAGES_DEBUG": "all",
      ]) { $1 }, stdout: .file(directory + "/gsd.log"), stderr: .file(directory + "/gsd.err"))
    do {
      try desktop.waitFor("gsd-media-keys to grab the media keys from the shell", timeout: 60) {
        gsdLog.contains("Grab call completed!")
      }
    } catch {
      let log = (try? readTextFile(directory + "/gsd.err")) ?? ""
      throw TestSupportError("\(error)\ngsd-media-keys said:\n\(log)")
    }
  }

  /// What gsd-media-keys logged (G_MESSAGES_DEBUG=all) so far.
  var gsdLog: String {
    ((try? readTextFile(directory + "/gsd.log")) ?? "") + ((try? readTextFile(directory + "/gsd.err")) ?? "")
  }

  /// Whether the marker music application ran.
  var launched: Bool { access(directory + "/launched", F_OK) == 0 }

  /// dbus-monitor for the Player calls of the bus.
  func startMonitor() throws -> PlayerCalls { try players.startMonitor() }

  /// mpv with two tracks, paused, on the bus; returns once it owns its MPRIS name.
  func startPlayer(connection: DBusConnection) throws -> Player {
    try players.startPlayer(connection: connection)
  }

  func stop() {
    source?.remove()
    source = nil
    players.stop()
    desktop.stop()
  }

  deinit { stop() }
}
