import DBus
import DBusTestSupport
import EventLoop
import Foundation
import ShellTestSupport
import SystemCalls
import TestConditions
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The config of the daemon under test: the built-in undo at the end of the chain, a deadline
/// for registered apps above the 100 ms default (a software-rendered desktop on a shared machine).
private let undoConfig = "chain = [\"log\", \"undo\"]\n[responders]\ndeadline = 1\n"

/// Why the GNOME Shell test cannot run here, nil when it can.
private let gnomeMissing: String? =
  HeadlessDesktop.gnomeAppsMissing
  ?? (access("/usr/bin/dbus-monitor", X_OK) == 0 ? nil : "dbus-monitor is not installed (dbus-bin)")

/// What the daemon says on the session bus to the compositor's key API and to the notification
/// server, from `dbus-monitor` on that bus: every method call it makes there.
private final class DaemonCalls {
  let monitor: DesktopClient
  let daemon: String

  init(_ desktop: HeadlessDesktop, daemon: String) throws {
    self.daemon = daemon
    monitor = try DesktopClient(
      desktop,
      [
        "/usr/bin/dbus-monitor", "--session", "type='method_call',sender='\(daemon)'",
      ], name: "dbus-monitor")
    // dbus-monitor says it is monitoring once its match rules are in.
    try monitor.waitFor("dbus-monitor to start", timeout: 20) { $0.contains { $0.contains("NameAcquired") } }
  }

  /// The members the daemon called on `interface` so far, in order.
  func calls(_ interface: String) -> [String] {
    monitor.lines.compactMap { line in
      guard line.hasPrefix("method call"), line.contains("interface=\(interface);") else { return nil }
      return line.split(separator: " ").first { $0.hasPrefix("member=") }.map { String($0.dropFirst(7)) }
    }
  }

  /// Keys sent through GNOME's RemoteDesktop.
  var keys: [String] {
    calls("org.gnome.Mutter.RemoteDesktop.Session").filter { $0.hasPrefix("NotifyKeyboard") }
  }
  /// Notifications shown.
  var notifications: Int { calls("org.freedesktop.Notifications").count { $0 == "Notify" } }
}

extension HeadlessDesktop {
  /// Ctrl+Z from the test's own virtual keyboard, as a person presses it.
  fileprivate func pressUndo() throws {
    try key(29, pressed: true)
    try press(44)
    try key(29, pressed: false)
  }
}

/// Shake to undo in unmodified apps, end to end: the real responderd (a process, the emulated
/// accelerometer), the real headless desktop with its accessibility bus, real apps; keys typed and
/// the question's buttons tapped through the compositor; the text read back as a screen reader
/// reads it.
extension IIOInputDeviceTests {
  @Test(
    "GNOME Shell: a shake asks over GNOME Text Editor; Undo undoes the last typing, Cancel nothing; kgx gets no question and no key; the registered GTK example gets its own shake",
    .enabledUnless(missing: gnomeMissing), .timeLimit(.minutes(8)))
  func builtInUndoInGNOMETextEditor() throws {
    let bed = try Testbed()
    let fixture = try DaemonFixture(config: undoConfig)
    let desktop = try HeadlessDesktop.gnomeShell(
      loop: fixture.loop, sessionBusAddress: fixture.bus.address, options: .init(accessibility: true))
    defer { desktop.stop() }
    try desktop.warmUp()
    try desktop.waitForNotificationServer()
    // The daemon as the session starts it: once the shell (and the accessibility bus) runs.
    try fixture.stopDaemon()
    try fixture.startDaemonAgain()
    let calls = try DaemonCalls(desktop, daemon: fixture.daemonName)
    let reader = try AccessibilityReader(desktop)

    try desktop.launch(.textEditor)
    try reader.waitForFocus("GNOME Text Editor's text") {
      $0.application == "gnome-text-editor" && $0.editable
    }
    let undone = try typeThenUndoByHand("hello world", desktop, reader)
    #expect(calls.keys.isEmpty && calls.notifications == 0, "nothing before a shake: \(calls.monitor.lines)")

    // A shake: the question, over the editor; nothing is sent before the answer; a second shake
    // while it asks does nothing more.
    feedShake(bed, on: fixture.loop, duration: 1.2)
    let undo = try question(fixture) { try reader.waitForButton("Undo", in: "gnome-shell") }
    _ = try #require(try reader.button("Cancel", in: "gnome-shell"))
    if let directory = ProcessInfo.processInfo.environment["RESPONDERD_SCREENSHOTS"] {
      try desktop.screenshot(to: directory + "/shake-to-undo-gnome-text-editor.png")
    }
    feedShake(bed, on: fixture.loop, duration: 1.2)
    #expect(calls.notifications == 1 && calls.keys.isEmpty, "\(calls.monitor.lines)")
    #expect(try reader.focus()?.text == "hello world")

    // Undo, tapped through the shell: the last typing is gone, as with Ctrl+Z.
    try desktop.tap(x: undo.centerX, y: undo.centerY)
    let after = try reader.waitForFocus("the undo") {
      $0.application == "gnome-text-editor" && $0.text == undone
    }
    #expect(after.editable)
    // Ctrl tapped alone first (mutter makes its virtual keyboard on the first key), then Ctrl
    // and Z pressed and released (the releases may follow the undo).
    try calls.monitor.waitFor("the chord's last key") { _ in calls.keys.count >= 6 }
    #expect(calls.keys.count == 6, "Ctrl tapped, then Ctrl and Z pressed and released: \(calls.keys)")

    // The next question: Cancel tapped, nothing changes, no key.
    feedShake(bed, on: fixture.loop, duration: 1.2)
    let cancel = try reader.waitForButton("Cancel", in: "gnome-shell")
    try desktop.tap(x: cancel.centerX, y: cancel.centerY)
    try reader.waitForNoButton("Cancel", in: "gnome-shell")
    try fixture.waitFor("the daemon to hear the Cancel", timeout: 10) {
      fixture.log.contains(": Cancel: nothing sent")
    }
    // The notification closing may leave the shell's focus for a moment: read once it is back.
    let focus = try reader.waitForFocus("the editor after the Cancel") {
      $0.application == "gnome-text-editor"
    }
    #expect(focus.text == undone, "\(focus)")
    #expect(calls.keys.count == 6 && calls.notifications == 2, "\(calls.keys)")

    // kgx, a terminal, focused: a shake asks nothing and sends nothing.
    try desktop.launch(.console)
    try reader.waitForFocus("kgx's terminal") { $0.application == "kgx" }
    let said = fixture.log.count
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try fixture.waitFor("the daemon to refuse the terminal", timeout: 10) {
      fixture.log.dropFirst(said).contains("undo: no question")
    }
    #expect(try reader.button("Undo", in: "gnome-shell") == nil)
    #expect(calls.keys.count == 6 && calls.notifications == 2, "\(calls.monitor.lines.suffix(10))")

    // The registered GTK 4 example editor, focused: it gets the shake and asks itself; the
    // built-in undo stays silent.
    let example = try DesktopClient(
      desktop,
      [
        "/usr/bin/python3", exampleEditor, "--title", "Registered", "--log", "--size", "500x400",
      ], name: "editor", environment: ["GSK_RENDERER": "cairo"])
    try example.waitFor("the example to be active", timeout: 30) {
      $0.contains { $0.contains("\"active\": true") }
    }
    try desktop.type("abc")
    try example.waitFor("its text") { $0.contains { $0.contains("\"text\": \"abc\"") } }
    feedShake(bed, on: fixture.loop, duration: 1.2)
    try example.waitFor("its own question", timeout: 20) {
      $0.contains { $0.contains("\"event\": \"question\"") }
    }
    #expect(calls.notifications == 2 && calls.keys.count == 6, "\(calls.monitor.lines.suffix(10))")
    #expect(try reader.button("Undo", in: "gnome-shell") == nil)
  }

  @Test(
    "KWin, its permission check on: the package's desktop file grants fake input; a shake asks over KWrite, Undo undoes the last typing",
    .enabledUnless(missing: HeadlessDesktop.kdeAppsMissing), .timeLimit(.minutes(8)))
  func builtInUndoInKWrite() throws {
    let bed = try Testbed()
    let fixture = try DaemonFixture(config: undoConfig)
    let daemonPath = try realPath(BuiltProducts.path(of: "responderd"))
    let desktop = try HeadlessDesktop.kwin(
      loop: fixture.loop, sessionBusAddress: fixture.bus.address,
      options: .init(
        accessibility: true, permissionChecks: true,
        applications: ["responderd.desktop": try packagedDesktopFile(exec: daemonPath)]))
    defer { desktop.stop() }
    try desktop.warmUp()
    try desktop.startPlasmaShell()
    // The daemon as the session starts it: on the desktop's Wayland display.
    try fixture.stopDaemon()
    try fixture.startDaemonAgain(environment: [
      "WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": desktop.directory + "/xdg",
      "XDG_CURRENT_DESKTOP": "KDE",
    ])
    let reader = try AccessibilityReader(desktop)

    try desktop.launch(.kwrite(file: desktop.directory + "/notes.txt"))
    try reader.waitForFocus("KWrite's text") { $0.application == "kwrite" && $0.editable }
    let undone = try typeThenUndoByHand("hello world", desktop, reader)

    feedShake(bed, on: fixture.loop, duration: 1.2)
    let undo = try question(fixture) { try reader.waitForButton("Undo", in: "plasmashell") }
    #expect(try reader.focus()?.text == "hello world", "nothing before the answer")
    try desktop.tap(x: undo.centerX, y: undo.centerY)
    _ = try question(fixture) {
      try reader.waitForFocus("the undo") { $0.application == "kwrite" && $0.text == undone }
    }
    #expect(!fixture.log.contains("fake input refused"), "\(fixture.log)")
  }
}

extension IIOInputDeviceTests {
  @Test(
    "KWin, its permission check on, no desktop file for the daemon: no fake input; status says why and the accelerometer is not opened for the undo",
    .enabledUnless(missing: HeadlessDesktop.kdeAppsMissing), .timeLimit(.minutes(4)))
  func builtInUndoInKWinWithoutItsGrant() throws {
    let fixture = try DaemonFixture(config: undoConfig)
    let desktop = try HeadlessDesktop.kwin(
      loop: fixture.loop, sessionBusAddress: fixture.bus.address,
      options: .init(accessibility: true, permissionChecks: true))
    defer { desktop.stop() }
    try fixture.stopDaemon()
    try fixture.startDaemonAgain(environment: [
      "WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": desktop.directory + "/xdg",
      "XDG_CURRENT_DESKTOP": "KDE",
    ])
    try fixture.waitFor("the daemon to ask KWin", timeout: 20) {
      fixture.log.contains("does not offer org_kde_kwin_fake_input")
    }
    let status = try fixture.run([BuiltProducts.path(of: "responderctl"), "status"])
    #expect(
      status.output.contains("keys: none:")
        && status.output.contains("does not offer org_kde_kwin_fake_input to this program"),
      "\(status.output)")
    // With no way to send keys the undo wants no shake: the accelerometer is not opened for it.
    #expect(!fixture.log.contains("motion wanted by undo"), "\(fixture.log)")
  }
}

/// Types `text` in the focused editor, undoes it with the test's own Ctrl+Z (as a person would)
/// and types again what that undid: returns the text Ctrl+Z left, which the daemon's Undo must
/// leave too.
private func typeThenUndoByHand(
  _ text: String, _ desktop: HeadlessDesktop, _ reader: AccessibilityReader
) throws -> String {
  try desktop.type(text)
  try reader.waitForFocus("the typed text") { $0.text == text }
  try desktop.pressUndo()
  let undone = try #require(try reader.waitForFocus("the test's own Ctrl+Z") { $0.text != text }.text)
  try desktop.type(text.dropFirst(undone.count).description)
  try reader.waitForFocus("the text typed again") { $0.text == text }
  return undone
}

/// What `find` finds (the question's button, the undone text); when it fails, the error quotes
/// what the daemon said about undo.
private func question<Found>(_ fixture: DaemonFixture, _ find: () throws -> Found) throws -> Found {
  do {
    return try find()
  } catch {
    let said = fixture.log.split(separator: "\n").suffix(30)
    throw TestSupportError("\(error); responderd said:\n\(said.joined(separator: "\n"))")
  }
}

/// The GTK 4 example editor (`examples/gtk/editor.py`).
private let exampleEditor = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("../examples/gtk/editor.py").standardizedFileURL.path

/// The package's desktop file (what grants KWin's fake input), its `Exec` made `exec`: the
/// built daemon, not the installed one.
private func packagedDesktopFile(exec: String) throws -> String {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let path = root.appendingPathComponent("packaging/responderd.desktop").path
  let text = try readTextFile(path)
  guard text.contains("X-KDE-Wayland-Interfaces=") else {
    throw TestSupportError("\(path) names no X-KDE-Wayland-Interfaces")
  }
  return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
    line.hasPrefix("Exec=") ? "Exec=" + exec : String(line)
  }.joined(separator: "\n")
}

/// `path` with every symbolic link resolved (KWin compares a client's executable so).
private func realPath(_ path: String) throws -> String {
  guard let resolved = realpath(path, nil) else { throw TestSupportError("realpath \(path): errno \(errno)") }
  defer { free(resolved) }
  return String(cString: resolved)
}
