import KeySender
import ShellTestSupport
import TestConditions
import Testing

/// Why the phosh test cannot run here, nil when it can.
private let phoshMissing: String? =
  HeadlessDesktop.missing(.phosh) ?? AccessibilityReader.missing ?? DesktopApp.textEditor.missing

/// The daemon's wlroots key sender (`VirtualKeyboardSender`, the undo chords through
/// `zwp_virtual_keyboard_v1`) against the real phoc 0.24 under phosh 0.24, with the unmodified GNOME
/// Text Editor: its own undo and redo, read back over the accessibility bus.
@Suite("The wlroots virtual keyboard sender under the real phoc")
struct VirtualKeyboardSenderTests {
  @Test(
    "phosh: Ctrl+Z and Ctrl+Shift+Z from the sender undo and redo the typing in GNOME Text Editor; gone with phoc",
    .enabledUnless(missing: phoshMissing), .timeLimit(.minutes(3)))
  func undoAndRedoUnderPhosh() throws {
    let desktop = try HeadlessDesktop.phosh(options: .init(accessibility: true))
    var stopped = false
    defer { if !stopped { desktop.stop() } }
    // The seat's keyboard first (the test kit's own virtual keyboard): phoc gives a window the
    // keyboard focus only on a seat that has one.
    try desktop.warmUp()
    let reader = try AccessibilityReader(desktop)
    try desktop.launch(.textEditor)
    _ = try reader.waitForFocus("GNOME Text Editor's text field", timeout: 60) {
      $0.application == "gnome-text-editor" && $0.editable
    }
    try desktop.type("hello world")
    try reader.waitForFocus("the typed text") { $0.text == "hello world" }

    let sender = VirtualKeyboardSender(
      display: desktop.directory + "/xdg/wayland-0", scheduler: desktop.loop.scheduler)
    #expect(sender.state == .ready(api: "zwp_virtual_keyboard_v1 (wlroots: phosh, sway, Hyprland)"))
    func send(_ chord: EditChord) throws {
      var result: Result<Void, KeySendError>?
      sender.send(chord) { result = $0 }
      #expect(desktop.loop.run(until: { result != nil }, timeout: 5), "\(chord): no answer")
      if case .failure(let error) = result { Issue.record("\(chord): \(error)") }
    }
    // The app's own undo: the last typing goes (its undo groups it), then its redo brings it back.
    try send(.undo)
    let undone = try reader.waitForFocus("Ctrl+Z from the virtual keyboard") { $0.text != "hello world" }
    let left = try #require(undone.text)
    #expect(left.count < 11 && "hello world".hasPrefix(left), "\(undone)")
    try send(.redo)
    try reader.waitForFocus("Ctrl+Shift+Z from the virtual keyboard") { $0.text == "hello world" }
    // The keyboard existed only while each chord was sent: the person's typing goes on as before.
    try desktop.type(" again")
    try reader.waitForFocus("more typing") { $0.text == "hello world again" }

    // phoc gone: the sender says so, and a chord fails with the reason instead of waiting.
    desktop.stop()
    stopped = true
    sender.refresh()
    #expect(sender.state == .unavailable(reason: "no Wayland compositor to connect to"), "\(sender.state)")
    var result: Result<Void, KeySendError>?
    sender.send(.undo) { result = $0 }
    #expect(desktop.loop.run(until: { result != nil }, timeout: 5))
    guard case .failure(let error) = result else {
      Issue.record("a chord with no compositor: \(String(describing: result))")
      return
    }
    #expect(error == KeySendError("the virtual keyboard: none: no Wayland compositor to connect to"))
  }
}
