import DBus
import DBusTestSupport
import EventLoop
import Foundation
import ResponderClient
import ShellTestSupport
import SystemCalls
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The GTK 4 example editor (`examples/gtk/editor.py --log`) as a client of a headless desktop:
/// what it showed, from its JSON lines.
private final class EditorWindow {
  let title: String
  let client: DesktopClient

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../examples/gtk/editor.py").standardizedFileURL.path

  /// Starts an editor titled `title`; returns once its window is the active one.
  init(_ desktop: HeadlessDesktop, title: String, arguments: [String]) throws {
    self.title = title
    // GTK's cairo renderer: the headless shell has no GPU, and GL through llvmpipe is slow.
    client = try DesktopClient(
      desktop, ["/usr/bin/python3", Self.script, "--title", title, "--log"] + arguments, name: title,
      environment: ["GSK_RENDERER": "cairo"])
    try waitFor("its window to be active") { $0.isActive }
  }

  /// Its lines, parsed.
  var events: [[String: Any]] {
    client.lines.compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
  }

  /// How many times it said `event` ("question", "undo", "ignored").
  func count(_ event: String) -> Int { events.count { $0["event"] as? String == event } }
  /// Its text as it last said.
  var text: String? { events.last { $0["text"] != nil }?["text"] as? String }
  /// Whether its window is active, as it last said.
  var isActive: Bool { events.last { $0["event"] as? String == "active" }?["active"] as? Bool ?? false }

  func waitFor(_ what: String, timeout: Double = 20, _ condition: (EditorWindow) -> Bool) throws {
    try client.waitFor("\(title): \(what)", timeout: timeout) { _ in condition(self) }
  }

  /// Waits as `waitFor`; should it time out, the error also says what `others` printed last (a
  /// window that took the focus, or got the keys, shows there).
  func waitFor(
    _ what: String, besides others: [EditorWindow], timeout: Double = 20, _ condition: (EditorWindow) -> Bool
  ) throws {
    do {
      try waitFor(what, timeout: timeout, condition)
    } catch {
      let seen = others.map { "\($0.title) printed last: \($0.client.lines.suffix(4))" }
      throw TestSupportError("\(error); \(seen.joined(separator: "; "))")
    }
  }
}

/// responderd (logging its chain) and the desktop `start` makes on its bus, warmed up. The editors
/// answer on a software-rendered desktop of a machine shared by other builds: a responder deadline
/// above the 100 ms default, so that a slow frame does not count as a hung app.
private func editorDesktop(
  _ start: (EventLoop, String) throws -> HeadlessDesktop
) throws -> (DaemonFixture, HeadlessDesktop) {
  let fixture = try DaemonFixture(config: "chain = [\"log\"]\n[responders]\ndeadline = 1\n")
  let desktop = try start(fixture.loop, fixture.bus.address)
  do {
    try desktop.warmUp()
  } catch {
    desktop.stop()
    throw error
  }
  return (fixture, desktop)
}

/// Left, then Right opened over it (the active window once mapped), each with its text typed:
/// "alpha beta" in Left, "gamma delta" in Right.
private func typeIntoTwoEditors(
  _ desktop: HeadlessDesktop, left leftArguments: [String], right rightArguments: [String]
) throws -> (left: EditorWindow, right: EditorWindow) {
  let left = try EditorWindow(desktop, title: "Left", arguments: leftArguments)
  try desktop.type("alpha beta")
  try left.waitFor("the typed text") { $0.text == "alpha beta" }
  let right = try EditorWindow(desktop, title: "Right", arguments: rightArguments)
  try left.waitFor("its window to be inactive") { !$0.isActive }
  try desktop.type("gamma delta")
  try right.waitFor("the typed text", besides: [left]) { $0.text == "gamma delta" }
  #expect(left.text == "alpha beta")
  return (left, right)
}

/// evdev codes of the letters and the space the test types.
private let keyCodes: [Character: UInt16] = [
  "a": 30, "b": 48, "d": 32, "e": 18, "g": 34, "h": 35, "l": 38, "m": 50, "o": 24, "p": 25, "t": 20, " ": 57,
]

extension HeadlessDesktop {
  /// Types `text` on the virtual keyboard, key by key.
  fileprivate func type(_ text: String) throws {
    for character in text {
      guard let code = keyCodes[character] else { throw TestSupportError("no key for '\(character)'") }
      try press(code)
    }
  }
}

/// A property of responderd's Daemon1 interface.
private func daemonProperty(_ fixture: DaemonFixture, _ name: String) throws -> DBusValue {
  try fixture.connection.callAndWait(
    destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
    interface: "org.freedesktop.DBus.Properties", method: "Get",
    arguments: [.string(ResponderBusAPI.daemonInterface), .string(name)], timeout: 5
  ).first?.unwrapped ?? .bool(false)
}

/// Why the GNOME Shell test cannot run here, nil when it can.
private let shellTestMissing: String? = HeadlessDesktop.missing(.gnomeShell) ?? gtk4Missing

/// Why the GTK editor cannot run here, nil when it can.
private let gtk4Missing: String? =
  access("/usr/lib/x86_64-linux-gnu/girepository-1.0/Gtk-4.0.typelib", R_OK) == 0
    || access("/usr/lib/aarch64-linux-gnu/girepository-1.0/Gtk-4.0.typelib", R_OK) == 0
  ? nil : "GTK 4's typelib is not installed (gir1.2-gtk-4.0): the GTK editor cannot run"

/// Shake to undo in a real app (issue 35): the real responderd (a process, on the emulated
/// accelerometer and proximity sensor), the real headless GNOME Shell 43 on its session bus, two
/// instances of the GTK 4 example editor, keys and taps injected as the compositor gets them.
extension IIOInputDeviceTests {
  @Test(
    "GNOME Shell: a shake asks, then undoes, in the focused editor only; with the proximity sensor near, nothing",
    .enabled(if: shellTestMissing == nil, "\(shellTestMissing ?? "")"))
  func shakeToUndoInTheFocusedEditor() throws {
    let bed = try Testbed()
    try bed.addProximitySensor()
    let (fixture, desktop) = try editorDesktop {
      try HeadlessDesktop.gnomeShell(loop: $0, sessionBusAddress: $1)
    }
    defer { desktop.stop() }
    // Left maximized (the whole work area), Right a small window on top.
    let (left, right) = try typeIntoTwoEditors(desktop, left: ["--maximized"], right: ["--size", "400x300"])

    // A tap on Left, far from Right (mutter places a new small window at the top left or in the
    // middle, never in the bottom-right corner of the work area): Left has the focus.
    try desktop.tap(x: Double(desktop.width - 120), y: Double(desktop.height - 80))
    try left.waitFor("its window to be active after the tap") { $0.isActive }
    try right.waitFor("its window to be inactive") { !$0.isActive }
    #expect(try desktop.focusedWindowTitle() == "Left")
    try desktop.type(" omega")
    try left.waitFor("the last edit") { $0.text == "alpha beta omega" }
    // responderd heard it: the first application registered (Left) is the active one and first
    // responder, Right is inactive, and the accelerometer is wanted.
    try fixture.waitFor("responderd to know Left's window is active") {
      let apps = (try? daemonProperty(fixture, "Chain").elements)?.compactMap(\.dictionary)
        .filter { $0["kind"]?.string == "app" }
        .sorted { ($0["id"]?.uint32 ?? 0) < ($1["id"]?.uint32 ?? 0) }
      return apps?.map { $0["focus"]?.string ?? "" } == ["active", "inactive"]
        && apps?.first?["firstResponder"]?.bool == true
        && (try? daemonProperty(fixture, "MotionInterest")) == .bool(true)
    }

    // A shake, written to the emulated accelerometer: the question, in Left only.
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try left.waitFor("the undo question") { $0.count("question") == 1 }
    #expect(right.count("question") == 0)
    let question = try #require(left.events.last { $0["event"] as? String == "question" })
    if let directory = ProcessInfo.processInfo.environment["RESPONDERD_SCREENSHOTS"] {
      try desktop.screenshot(to: directory + "/shake-to-undo-gnome.png")
    }
    // Nothing is undone before the answer; a second shake while it asks does nothing more.
    #expect(left.text == "alpha beta omega" && left.count("undo") == 0)
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try left.waitFor("the second shake to be ignored") { $0.count("ignored") == 1 }
    #expect(left.count("question") == 1 && right.count("question") == 0)

    // Undo tapped (where the editor says its button is; the maximized window fills the screen
    // below the top bar): the last edit is gone, there and nowhere else.
    let undo = try #require(question["undo"] as? [Int])
    let window = try #require(question["window"] as? [Int])
    try desktop.tap(x: Double(undo[0]), y: Double(desktop.height - window[1] + undo[1]))
    try left.waitFor("the undo") { $0.count("undo") == 1 }
    #expect(left.text == "alpha beta")
    #expect(right.text == "gamma delta" && right.count("undo") == 0)

    // In a pocket: the proximity sensor reads near, and a shake does nothing anywhere.
    bed.setProximity(900)
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try fixture.waitFor("responderd to see the shake and not deliver it") {
      fixture.log.contains("a shake began while the proximity sensor reads near (900): not delivered")
    }
    #expect(left.count("question") == 1 && right.count("question") == 0)
    #expect(left.text == "alpha beta" && right.text == "gamma delta")
  }
}

/// Why the phosh test cannot run here, nil when it can.
private let phoshTestMissing: String? = HeadlessDesktop.missing(.phosh) ?? gtk4Missing

/// Shake to undo on a phone: the real responderd on the emulated accelerometer, the real phoc 0.24
/// and phosh 0.24 (headless) on its session bus, two GTK 4 example editors (phoc maximizes each
/// between phosh's bars), keys typed through `zwp_virtual_keyboard_v1` (as squeekboard types).
extension IIOInputDeviceTests {
  @Test(
    "phosh: a shake goes to the editor phoc activates, and to the one behind once it closes",
    .enabled(if: phoshTestMissing == nil, "\(phoshTestMissing ?? "")"))
  func shakeToUndoOnPhosh() throws {
    let bed = try Testbed()
    let (fixture, desktop) = try editorDesktop { try HeadlessDesktop.phosh(loop: $0, sessionBusAddress: $1) }
    defer { desktop.stop() }
    // Right opens over Left: phoc activates it.
    let (left, right) = try typeIntoTwoEditors(desktop, left: [], right: [])
    func appFocus() -> [String]? {
      (try? daemonProperty(fixture, "Chain").elements)?.compactMap(\.dictionary)
        .filter { $0["kind"]?.string == "app" }
        .sorted { ($0["id"]?.uint32 ?? 0) < ($1["id"]?.uint32 ?? 0) }
        .map { $0["focus"]?.string ?? "" }
    }
    try fixture.waitFor("responderd to know Right's window is the active one") {
      appFocus() == ["inactive", "active"] && (try? daemonProperty(fixture, "MotionInterest")) == .bool(true)
    }

    // A shake: the question, in Right only; Undo tapped where the editor says its button is (the
    // window is at y = 32 points, 2 pixels a point).
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try right.waitFor("the undo question") { $0.count("question") == 1 }
    #expect(left.count("question") == 0)
    if let directory = ProcessInfo.processInfo.environment["RESPONDERD_SCREENSHOTS"] {
      try desktop.screenshot(to: directory + "/shake-to-undo-phosh.png")
    }
    let question = try #require(right.events.last { $0["event"] as? String == "question" })
    let undo = try #require(question["undo"] as? [Int])
    try desktop.tap(x: Double(undo[0] * 2), y: Double((32 + undo[1]) * 2))
    try right.waitFor("the undo") { $0.count("undo") == 1 }
    let undone = right.text ?? ""
    #expect(undone != "gamma delta" && "gamma delta".hasPrefix(undone), "\(undone)")
    #expect(left.text == "alpha beta" && left.count("undo") == 0)

    // Right closes: phoc activates Left, responderd follows, and the next shake is Left's.
    right.client.process.terminate(grace: 5)
    try left.waitFor("its window to be active again") { $0.isActive }
    try fixture.waitFor("responderd to know Left's window is the active one") { appFocus() == ["active"] }
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try left.waitFor("the undo question") { $0.count("question") == 1 }
    #expect(right.count("question") == 1)
  }
}
