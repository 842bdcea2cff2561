import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import EventTime
import Foundation
import InputCodes
import SystemCalls
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's gsd-media-keys and Xvfb, the parts of a GNOME session this test runs.
private let gsdMediaKeys = "/usr/libexec/gsd-media-keys"
private let gnomeMissing: String? = {
  if access(gsdMediaKeys, X_OK) != 0 {
    return
      "\(gsdMediaKeys) is not installed (apt-get install gnome-settings-daemon): the GNOME test is skipped"
  }
  if access("/usr/bin/Xvfb", X_OK) != 0 {
    return "Xvfb is not installed (apt-get install xvfb): the GNOME test is skipped"
  }
  return nil
}()

extension EvdevInputDeviceTests {
  /// One press, one action with the desktop users run (docs/design.md#one-press-one-action):
  /// Debian's real gsd-media-keys under Xvfb on the test's private bus, a stand-in for the GNOME Shell's
  /// accelerator API that delivers a key only when no program grabbed its device (as the
  /// compositor gets nothing from a grabbed device), a real mpv with two tracks, and the real
  /// responderd on an emulated USB headset (owned) and a keyboard's Consumer Control device
  /// (shared). The Player calls mpv receives are counted with dbus-monitor.
  @Suite(
    "GNOME: real gsd-media-keys, a stand-in shell, mpv and responderd (umockdev)",
    .enabled(if: gnomeMissing == nil, Comment(rawValue: gnomeMissing ?? "")))
  final class GNOMEDesktopDeviceTests {
    @Test(
      "each press acts once: headset play/pause, a KEY_MEDIA double click, the keyboard's play/pause, a first responder"
    )
    func onePressOneAction() throws {
      let tb = try Testbed()
      let headsetHandler = try tb.handler("headset")
      let keyboardHandler = try tb.handler("keyboard-consumer")
      let headset = try tb.add("headset", handler: headsetHandler)
      let keyboard = try tb.add("keyboard-consumer", handler: keyboardHandler)
      let fixture = try DaemonFixture(config: "chain = [\"mpris\"]\n")
      let session = try GNOMESession(bus: fixture.bus, loop: fixture.loop)
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
        return devices.contains("desktop: GNOME (gsd-media-keys) handles media keys")
      }
      let lines = devices.split(separator: "\n").map(String.init)
      #expect(
        lines.first
          == "desktop: GNOME (gsd-media-keys) handles media keys: shared devices (keyboards, remotes, devices another program holds) are left to it, so that one press makes one action; owned devices stay responderd's",
        "\(devices)")
      #expect(
        lines.contains(
          "left alone /dev/input/event4  Microsoft Wired Keyboard 600 Consumer Control (0003:045e:07f8, usb-0000:00:14.0-1/input1)"
        ))
      #expect(
        lines.contains(
          "           shared with the desktop, which handles media keys itself (GNOME (gsd-media-keys)): not read, its keys are the desktop's (not a headset-class device)"
        ), "\(devices)")
      #expect(
        lines.contains(
          "owned      /dev/input/event7  Logitech USB Headset H340 Consumer Control (0003:046d:0a38, usb-0000:00:14.0-2/input3)"
        ))
      let status = try fixture.run([responderctl, "status"]).output
      #expect(status.contains("\ndesktop: GNOME (gsd-media-keys) handles media keys"), "\(status)")

      /// A key as the kernel delivers it: to responderd through the device, and to the compositor
      /// (the stand-in, then gsd) only while no program holds the device.
      func press(
        _ device: EmulatedDevice, _ handler: EvdevIoctlHandler, _ code: UInt16, _ accelerator: String,
        at time: Double
      ) throws {
        try tb.key(device, code, 1, at: time)
        if !handler.isGrabbed { try session.shell.press(accelerator, node: device.devnode) }
        try tb.key(device, code, 0, at: time + 0.08)
      }

      // 1. Ten single presses of the headset's play/pause: ten toggles, one call each.
      var expected = "Paused"
      for index in 1...10 {
        try press(headset, headsetHandler, KEY_PLAYPAUSE, "XF86AudioPlay", at: monotonicNow())
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
      #expect(session.shell.activated.isEmpty, "the compositor never saw the owned headset's key")

      // 2. A KEY_MEDIA double click: one Next, and the music application is not launched.
      let click = monotonicNow()
      try press(headset, headsetHandler, KEY_MEDIA, "XF86AudioMedia", at: click)
      try press(headset, headsetHandler, KEY_MEDIA, "XF86AudioMedia", at: click + 0.2)
      try fixture.waitFor("the Next call; calls: \(calls.summary)", timeout: 10) {
        calls.to(mpv.uniqueName).count >= 11
      }
      #expect(calls.to(mpv.uniqueName).map(\.member).last == "Next")
      #expect(session.shell.activated.isEmpty)

      // 3. The keyboard's play/pause: exactly one toggle, whoever performs it (gsd here).
      try press(keyboard, keyboardHandler, KEY_PLAYPAUSE, "XF86AudioPlay", at: monotonicNow())
      try fixture.waitFor("the keyboard's toggle; calls: \(calls.summary)", timeout: 10) {
        calls.to(mpv.uniqueName).count >= 12
      }
      #expect(session.shell.activated == ["XF86AudioPlay"])

      // 4. A first responder application gets each press once.
      let received = session.directory + "/app.txt"
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
      for index in 1...3 {
        try press(headset, headsetHandler, KEY_PLAYPAUSE, "XF86AudioPlay", at: monotonicNow())
        try fixture.waitFor("the application's event \(index)", timeout: 10) { appLines().count >= index }
      }
      let callsBefore = calls.to(mpv.uniqueName).count
      try press(keyboard, keyboardHandler, KEY_PLAYPAUSE, "XF86AudioPlay", at: monotonicNow())
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
      try press(headset, headsetHandler, KEY_MEDIA, "XF86AudioMedia", at: monotonicNow())
      try fixture.waitFor("gsd to launch the music application", timeout: 15) { session.launched }
    }

    @Test(
      "desktop-handles-media-keys = \"no\": gsd's call on the proxy player for a press responderd acted on is a duplicate"
    )
    func proxyPlayerNeverDoublesAPress() throws {
      let tb = try Testbed()
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
        try tb.key(keyboard, KEY_PLAYPAUSE, 1, at: time)
        try session.shell.press("XF86AudioPlay", node: keyboard.devnode)  // not grabbed: the desktop's too
        try tb.key(keyboard, KEY_PLAYPAUSE, 0, at: time + 0.08)
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

/// The stand-in for org.gnome.Shell (Tests/Fixtures/gnome/shell-standin.py).
final class ShellStandIn {
  let process: ChildProcess
  let fifo: String
  /// The accelerators it emitted AcceleratorActivated for.
  private(set) var activated: [String] = []
  private(set) var grabbed: [String] = []

  init(directory: String, environment: [String: String]) throws {
    fifo = directory + "/shell.in"
    guard mkfifo(fifo, 0o600) == 0 else { throw TestSupportError("mkfifo \(fifo): errno \(errno)") }
    process = try ChildProcess(
      ["/usr/bin/python3", fixturePath("gnome", "shell-standin.py"), fifo], environment: environment,
      inheritEnvironment: false, stdout: .capture, stderr: .capture)
    try expect("ready", timeout: 60)
  }

  /// Reads its lines until one is `line`.
  func expect(_ line: String, timeout: Double = 15) throws {
    let deadline = monotonicNow() + timeout
    var seen: [String] = []
    while monotonicNow() < deadline {
      guard let next = try process.readLine(timeout: deadline - monotonicNow()) else { break }
      if next.hasPrefix("grab ") { grabbed.append(next) }
      if next == line || next.hasPrefix(line + " ") { return }
      seen.append(next)
    }
    if let error = try? process.readLine(timeout: 0.1) { seen.append(error) }
    throw TestSupportError("the shell stand-in did not say '\(line)' within \(timeout) s; it said: \(seen)")
  }

  /// Reads its lines until gsd grabbed every accelerator of `accelerators` (in any order).
  func waitForGrabs(_ accelerators: [String], timeout: Double) throws {
    let deadline = monotonicNow() + timeout
    while !accelerators.allSatisfy({ name in grabbed.contains { $0.hasPrefix("grab \(name) ") } }) {
      guard monotonicNow() < deadline, let next = try process.readLine(timeout: deadline - monotonicNow())
      else {
        throw TestSupportError("gsd grabbed only \(grabbed) within \(timeout) s")
      }
      if next.hasPrefix("grab ") { grabbed.append(next) }
    }
  }

  /// The compositor saw `accelerator`: AcceleratorActivated is emitted for gsd.
  func press(_ accelerator: String, node: String) throws {
    let descriptor = open(fifo, O_WRONLY)
    guard descriptor >= 0 else { throw TestSupportError("open \(fifo): errno \(errno)") }
    let line = Array("press \(accelerator) \(node)\n".utf8)
    _ = line.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    try expect("activated \(accelerator)")
    activated.append(accelerator)
  }
}

/// Xvfb, the shell stand-in and gsd-media-keys on the test's private bus, with their own
/// compiled GSettings schemas (memory backend) and a marker music application as the default for
/// audio; mpv and dbus-monitor on the same bus.
final class GNOMESession {
  let directory: String
  let environment: [String: String]
  let shell: ShellStandIn
  private var children: [ChildProcess] = []
  private var sources: [IOSource] = []
  private let loop: EventLoop
  private let address: String

  init(bus: PrivateBus, loop: EventLoop) throws {
    self.loop = loop
    address = bus.address
    directory = bus.directory + "/gnome"
    for folder in ["", "/schemas", "/data", "/data/applications", "/config", "/home"] {
      mkdir(directory + folder, 0o700)
    }
    let compiled = try ChildProcess.run(
      ["glib-compile-schemas", "--targetdir=\(directory)/schemas", "/usr/share/glib-2.0/schemas"], loop: loop)
    guard compiled.exitCode == 0 else { throw TestSupportError("glib-compile-schemas: \(compiled)") }
    try writeTextFile(
      directory + "/data/applications/marker-music.desktop",
      "[Desktop Entry]\nType=Application\nName=Marker Music\nExec=touch \(directory)/launched\nMimeType=audio/x-vorbis+ogg;\n"
    )
    try writeTextFile(
      directory + "/config/mimeapps.list", "[Default Applications]\naudio/x-vorbis+ogg=marker-music.desktop\n"
    )
    // Not under umockdev (its preload is for responderd): a plain environment.
    var base = [
      "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": directory + "/home",
      "DBUS_SESSION_BUS_ADDRESS": bus.address,
      "XDG_DATA_HOME": directory + "/data", "XDG_CONFIG_HOME": directory + "/config",
      "XDG_DATA_DIRS": "/usr/share", "GSETTINGS_SCHEMA_DIR": directory + "/schemas",
      "GSETTINGS_BACKEND": "memory",
    ]
    let xvfb = try ChildProcess(
      ["Xvfb", "-displayfd", "1", "-nolisten", "tcp"], environment: base, inheritEnvironment: false,
      stdout: .capture, stderr: .null)
    children.append(xvfb)
    guard let display = try xvfb.readLine(timeout: 15), !display.isEmpty else {
      throw TestSupportError("Xvfb did not say its display number")
    }
    base["DISPLAY"] = ":" + display
    environment = base
    shell = try ShellStandIn(directory: directory, environment: base)
    children.append(shell.process)
    let gsd = try ChildProcess(
      [gsdMediaKeys],
      environment: base.merging(
        ["LD_LIBRARY_PATH": "/usr/lib/gnome-settings-daemon-43", "G_MESSAGES_DEBUG": "all"]) { $1 },
      inheritEnvironment: false, stdout: .file(directory + "/gsd.log"), stderr: .file(directory + "/gsd.err"))
    children.append(gsd)
    do {
      try shell.waitForGrabs(["XF86AudioMedia", "XF86AudioPlay"], timeout: 60)
    } catch {
      let log = (try? readTextFile(directory + "/gsd.err")) ?? ""
      throw TestSupportError(
        "gsd-media-keys did not grab the media keys: \(error)\ngsd-media-keys said:\n\(log)")
    }
  }

  /// What gsd-media-keys logged (G_MESSAGES_DEBUG=all) so far.
  var gsdLog: String { (try? readTextFile(directory + "/gsd.log")) ?? "" }

  /// Whether the marker music application ran.
  var launched: Bool { access(directory + "/launched", F_OK) == 0 }

  /// dbus-monitor for the Player calls of the bus.
  func startMonitor() throws -> PlayerCalls {
    let calls = PlayerCalls()
    let monitor = try ChildProcess(
      ["dbus-monitor", "--address", address, "type='method_call',interface='org.mpris.MediaPlayer2.Player'"],
      environment: environment, inheritEnvironment: false, stdout: .capture, stderr: .null)
    children.append(monitor)
    // Its first line (the monitor's own NameAcquired signal) says it listens.
    _ = try monitor.readLine(timeout: 10)
    sources.append(
      try loop.register(fd: monitor.outputDescriptor, events: .readable) { _ in
        _ = monitor.readAvailable()
        calls.feed(monitor.takeBufferedOutput())
      })
    return calls
  }

  /// mpv with two tracks, paused, on the bus; returns once it owns its MPRIS name.
  func startPlayer(connection: DBusConnection) throws -> Player {
    for (name, pitch) in [("one", 440), ("two", 660)] {
      // Long enough that neither ends during the test (a track change is a signal of its own).
      let sox = try ChildProcess(
        [
          "sox", "-n", "-r", "8000", "-c", "1", "\(directory)/\(name).ogg", "synth", "300", "sine",
          "\(pitch)", "vol", "0.2",
        ],
        environment: environment, inheritEnvironment: false, stdout: .null, stderr: .null)
      guard ChildProcess.exitedSuccessfully(try sox.waitForExit(timeout: 60)) else {
        throw TestSupportError("sox could not write \(name).ogg")
      }
    }
    let mpv = try ChildProcess(
      [
        "mpv", "--no-config", "--idle=yes", "--ao=null", "--vo=null", "--script=/usr/lib/mpv-mpris/mpris.so",
        "--no-terminal", "--pause", "\(directory)/one.ogg", "\(directory)/two.ogg",
      ], environment: environment, inheritEnvironment: false, stdout: .null, stderr: .null)
    children.append(mpv)
    var owner: String?
    let watch = connection.watchNameOwner("org.mpris.MediaPlayer2.mpv") { owner = $0 }
    defer { watch.cancel() }
    guard loop.run(until: { owner != nil }, timeout: 15), let owner else {
      throw TestSupportError("mpv did not appear on the bus as org.mpris.MediaPlayer2.mpv within 15 s")
    }
    return Player(uniqueName: owner)
  }

  func stop() {
    for source in sources { source.remove() }
    sources.removeAll()
    for child in children.reversed() { child.terminate() }
    children.removeAll()
  }

  deinit { stop() }
}
