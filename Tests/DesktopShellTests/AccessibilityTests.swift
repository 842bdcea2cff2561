import DBus
import DBusTestSupport
import ShellTestSupport
import SystemCalls
import TestConditions
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// evdev codes of the keys the tests press themselves.
private let leftControl: UInt16 = 29
private let keyZ: UInt16 = 44

/// The test kit's accessibility bus against the real desktops and unmodified apps: what is typed
/// through the compositor is read back as a screen reader reads it, the focused widget's role says
/// a text field from a terminal, and a notification's buttons are found on the bus and tapped
/// through the shell.
@Suite("Real headless desktops: the accessibility bus, real apps, notifications", .serialized)
struct AccessibilityTests {
  /// Ctrl+Z, the chord a person presses, after "hello world" was typed in the focused field:
  /// some of it goes. Returns what is left.
  @discardableResult
  private func expectCtrlZUndoesTheTyping(
    _ desktop: HeadlessDesktop, _ reader: AccessibilityReader,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    try desktop.key(leftControl, pressed: true)
    try desktop.press(keyZ)
    try desktop.key(leftControl, pressed: false)
    let undone = try reader.waitForFocus("Ctrl+Z to undo") { $0.text != "hello world" }
    let left = try #require(undone.text, sourceLocation: sourceLocation)
    #expect(left.count < 11 && "hello world".hasPrefix(left), "\(undone)", sourceLocation: sourceLocation)
    return left
  }

  @Test(
    "GNOME Shell: text typed in GNOME Text Editor read back, Ctrl+Z undoes it; kgx is a terminal, not editable; a notification's Undo tapped through the shell",
    .enabledUnless(missing: HeadlessDesktop.gnomeAppsMissing), .timeLimit(.minutes(5)))
  func gnomeShell() throws {
    let desktop = try HeadlessDesktop.gnomeShell(options: .init(accessibility: true))
    defer { desktop.stop() }
    try desktop.warmUp()
    #expect(try desktop.waitForNotificationServer() == "gnome-shell")
    let reader = try AccessibilityReader(desktop)

    // GNOME Text Editor: a new draft, the focus in its text.
    try desktop.launch(.textEditor)
    let field = try reader.waitForFocus("GNOME Text Editor's text field", timeout: 60) {
      $0.application == "gnome-text-editor" && $0.editable
    }
    #expect(field.role == "text" && field.text == "", "\(field)")
    try desktop.type("hello world")
    try reader.waitForFocus("the typed text") { $0.text == "hello world" }
    // Its own undo: the last typing goes (its undo groups it).
    let left = try expectCtrlZUndoesTheTyping(desktop, reader)
    try desktop.type(" again")
    let typed = try reader.waitForFocus("more typing") { $0.text == left + " again" }

    // A notification with actions, from a client of the session bus: its buttons are the shell's
    // on the accessibility bus, with their places on the screen (a banner at the top); a tap on
    // Undo answers ActionInvoked.
    let undo = try tapUndoInANotification(desktop, reader, server: "gnome-shell")
    #expect(undo.y < desktop.height / 2, "a banner at the top: \(undo)")
    // The notification took no focus and typed nothing: the editor still has it, as it was.
    #expect(
      try reader.waitForFocus("the editor's focus after the tap") { $0.application == "gnome-text-editor" }
        == typed)

    // kgx, a terminal: focused, but neither a text field nor editable (GTK 4's VTE says a filler
    // named KgxTerminal, with no Text interface: no "terminal" role either).
    try desktop.launch(.console)
    let terminal = try reader.waitForFocus("kgx's terminal", timeout: 60) { $0.application == "kgx" }
    #expect(
      terminal.role != "text" && !terminal.editable && terminal.text == nil, "\(String(describing: terminal))"
    )
  }

  @Test(
    "KWin with its permission check on: the kit's injector gets fake input from its desktop file, a copy without one does not; text typed in KWrite read back",
    .enabledUnless(missing: HeadlessDesktop.kdeAppsMissing),
    // About every other run (from /work as from /tmp: not the checkout's path), KWrite started
    // before plasmashell never has a focused widget on the accessibility bus (60 s), even after a
    // tap on its window, with or without kactivitymanagerd started first. Off until understood.
    .disabled("KWrite started before plasmashell gets no focus in about half the runs; cause not found yet"),
    .timeLimit(.minutes(5)))
  func kwin() throws {
    let desktop = try HeadlessDesktop.kwin(options: .init(accessibility: true, permissionChecks: true))
    defer { desktop.stop() }
    try desktop.warmUp()

    // The same program under another path has no desktop file: KWin does not offer it the protocol.
    let copy = desktop.directory + "/kwin_fake_input-undeclared"
    let copied = try ChildProcess.runSeparately(["cp", try WaylandHelper.path(of: "kwin_fake_input"), copy])
    #expect(copied.status == 0)
    let refused = try ChildProcess.runSeparately(
      [copy, "/dev/null"], environment: desktop.environment, timeout: 30)
    #expect(refused.status == 2 && refused.stderr.contains("not offered"), "\(refused)")

    let reader = try AccessibilityReader(desktop)
    try desktop.launch(.kwrite(file: desktop.directory + "/notes.txt"))
    let field = try reader.waitForFocus("KWrite's text", timeout: 60) {
      $0.application == "kwrite" && $0.editable
    }
    #expect(field.role == "text" && field.text == "", "\(field)")
    try desktop.type("hello world")
    try reader.waitForFocus("the typed text") { $0.application == "kwrite" && $0.text == "hello world" }
    try expectCtrlZUndoesTheTyping(desktop, reader)

    // Plasma's shell serves the notifications: its popup's buttons are found on the bus (KWrite
    // has an Undo button of its own: the search is in plasmashell) and tapped through KWin.
    try desktop.startPlasmaShell()
    #expect(try desktop.waitForNotificationServer() == "Plasma")
    _ = try tapUndoInANotification(desktop, reader, server: "plasmashell")
  }
}

/// Sends a notification "Undo Typing" with the actions Cancel and Undo, finds its buttons on the
/// accessibility bus in the notification server's application `server`, taps Undo through the
/// compositor and waits for `ActionInvoked(id, "undo")`; returns where Undo was.
private func tapUndoInANotification(
  _ desktop: HeadlessDesktop, _ reader: AccessibilityReader, server: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> AccessibilityReader.Extents {
  var invoked: [(id: UInt32, action: String)] = []
  let subscription = desktop.sessionBus.onSignal(
    interface: "org.freedesktop.Notifications", member: "ActionInvoked"
  ) { message in
    if let id = message.arguments.first?.uint32, let action = message.arguments.last?.string {
      invoked.append((id, action))
    }
  }
  defer { subscription.cancel() }
  let reply = try desktop.sessionBus.callAndWait(
    destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
    interface: "org.freedesktop.Notifications", method: "Notify",
    arguments: [
      .string("responderd-test"), .uint32(0), .string(""), .string("Undo Typing"), .string(""),
      .array(elementSignature: "s", ["cancel", "Cancel", "undo", "Undo"].map(DBusValue.string)),
      .dict(keySignature: "s", valueSignature: "v", [(.string("urgency"), .variant(.byte(2)))]), .int32(0),
    ], timeout: 10)
  let id = try #require(reply.first?.uint32, sourceLocation: sourceLocation)
  let undo = try reader.waitForButton("Undo", in: server)
  if let directory = getenv("RESPONDERD_SCREENSHOTS").map({ String(cString: $0) }) {
    try desktop.screenshot(to: directory + "/undo-typing-notification-\(server).png")
  }
  let cancel = try #require(try reader.button("Cancel", in: server), sourceLocation: sourceLocation)
  #expect(
    undo.y == cancel.y && undo.x > cancel.x, "Cancel left of Undo: \(cancel) \(undo)",
    sourceLocation: sourceLocation)
  try desktop.tap(x: undo.centerX, y: undo.centerY)
  try desktop.waitFor("ActionInvoked(\(id), undo) after the tap on \(undo)", timeout: 20) {
    invoked.contains { $0 == (id, "undo") }
  }
  try reader.waitForNoButton("Undo", in: server)
  return undo
}
