import AccessibilityWatch
import DBus
import EventTime
import KeySender
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import SessionWatcher
import Testing

/// The built-in `undo` handler on the in-memory buses and virtual time: the real accessibility
/// watch on an accessibility bus in memory, the real notification question with a notification
/// server on the session bus, the chords recorded by a fake compositor API.
@Suite struct ShakeToUndoTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let accessibility: InMemoryAccessibility
  let notifications: InMemoryNotificationServer
  let keys: FakeKeySender
  let watch: AccessibilityWatch
  let undo: UndoComponent
  let editor: InMemoryAccessibility.Application
  let textView: String
  let proximity = Proximity()

  final class Proximity {
    var near = false
  }

  static let config = """
    chain = ["log", "undo"]
    [undo]
    question-timeout = 5
    """

  init(config: String = Self.config, keysState: KeySenderState = .ready(api: "fake compositor API")) throws {
    harness = try InMemoryService(config: config)
    accessibility = try InMemoryAccessibility(sessionBus: harness.bus)
    notifications = try InMemoryNotificationServer(bus: harness.bus)
    keys = FakeKeySender(scheduler: harness.time, state: keysState)
    watch = AccessibilityWatch(sessionBus: harness.bus.connect(), logger: harness.service.logger) {
      [accessibility] address in try accessibility.connect(address)
    }
    let session = harness.service.sessionComponent(
      systemBus: nil, identity: .current(), sessionBus: harness.busComponent)
    undo = harness.service.undoComponent(
      bus: harness.busComponent, session: session, motion: nil, keys: nil,
      focus: watch,
      keySender: keys, proximityNear: { [proximity] in proximity.near })
    harness.add(session)
    harness.add(undo)
    editor = accessibility.application()
    textView = try editor.add(role: AccessibleRole.text, states: [AccessibleState.editable])
    harness.start()
    try editor.focus(textView)
    settle()
  }

  /// A shake as the motion component posts it (began, then ended a moment later).
  func shake(source: String = "iio:iio:device0") {
    service.application.post(Event.motion(.motionShake, timestamp: time.now, source: source), phase: .began)
    time.advance(by: 0.5)
    service.application.post(Event.motion(.motionShake, timestamp: time.now, source: source), phase: .ended)
    time.advance(by: 0.5)
  }

  var lastHandlers: [String?] { records().suffix(2).map(\.handledBy) }

  /// The user taps the question's Undo, and the chord has time to go.
  func tapUndo() throws {
    try notifications.press("undo")
    time.advance(by: 0.1)
  }

  /// The user taps the question's Undo: Ctrl+Z is sent, once.
  func tapUndoSendsCtrlZ(sourceLocation: SourceLocation = #_sourceLocation) throws {
    try tapUndo()
    #expect(keys.sent == [.undo], "\(undo.notes) \(log.text)", sourceLocation: sourceLocation)
  }

  /// The editor's focus moves from its text view to `path` (the signals delivered).
  func moveFocus(to path: String, in app: InMemoryAccessibility.Application? = nil) throws {
    try editor.blur(textView)
    try (app ?? editor).focus(path)
    settle()
  }

  @Test func undoAsksThenSendsCtrlZ() throws {
    #expect(watch.isFollowing)
    #expect(
      accessibility.registeredEvents == [AccessibilityNames.focusEvent, AccessibilityNames.activeEvent])
    shake()
    #expect(lastHandlers == ["undo", "undo"])
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
    #expect(notifications.open.first?.actions == ["cancel", "Cancel", "undo", "Undo"])
    #expect(keys.sent.isEmpty)
    try tapUndoSendsCtrlZ()
    #expect(notifications.open.isEmpty)
    #expect(undo.notes.last?.contains("Undo: sent Ctrl+Z to \(editor.name)") == true)
  }

  @Test func theNextShakeOffersRedo() throws {
    shake()
    try tapUndo()
    shake()
    #expect(notifications.open.map(\.summary) == ["Redo Typing"])
    #expect(notifications.open.first?.actions == ["cancel", "Cancel", "redo", "Redo"])
    try notifications.press("redo")
    time.advance(by: 0.1)
    #expect(keys.sent == [.undo, .redo])
    // After the redo, an undo again.
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
  }

  @Test func redoIsOfferedInTheFieldUndoneOnly() throws {
    shake()
    try tapUndo()
    let other = try editor.add(role: AccessibleRole.entry, states: [AccessibleState.editable])
    try moveFocus(to: other)
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
  }

  @Test func cancelSendsNothing() throws {
    shake()
    try notifications.press("cancel")
    time.advance(by: 0.1)
    #expect(keys.sent.isEmpty)
    #expect(undo.notes.last?.hasSuffix("Cancel: nothing sent") == true)
    // Dismissed (closed without a button) is no answer either.
    shake()
    try notifications.dismiss()
    time.advance(by: 0.1)
    #expect(keys.sent.isEmpty)
    #expect(notifications.notifications.count == 2)
  }

  @Test func theQuestionExpires() throws {
    shake()
    #expect(notifications.open.count == 1)
    time.advance(by: 4)
    #expect(notifications.open.count == 1)
    time.advance(by: 1)
    #expect(notifications.open.isEmpty)
    #expect(undo.notes.last?.contains("expired unanswered after 5 s") == true)
    // A press on a closed question sends nothing.
    try tapUndo()
    #expect(keys.sent.isEmpty)
  }

  @Test func aSecondShakeWhileAskingDoesNothingMore() throws {
    shake()
    shake()
    shake()
    #expect(notifications.notifications.count == 1)
    #expect(lastHandlers == ["undo", "undo"])
    try tapUndoSendsCtrlZ()
  }

  @Test func aCancelledShakeAsksNothing() {
    service.application.post(Event.motion(.motionShake, timestamp: time.now, source: "iio"), phase: .began)
    time.advance(by: 0.5)
    service.application.post(
      Event.motion(.motionShake, timestamp: time.now, source: "iio"), phase: .cancelled)
    time.advance(by: 0.5)
    #expect(notifications.notifications.isEmpty)
  }

  // MARK: Gates

  func expectNoQuestion(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
    shake()
    #expect(notifications.notifications.isEmpty, sourceLocation: sourceLocation)
    #expect(keys.sent.isEmpty, sourceLocation: sourceLocation)
    #expect(records().suffix(2).allSatisfy { $0.handledBy == nil }, sourceLocation: sourceLocation)
    #expect(
      undo.notes.last?.contains(reason) == true, "\(undo.notes) \(log.text)", sourceLocation: sourceLocation)
  }

  /// A focused widget a shake asks nothing in, and the reason the undo notes.
  struct UnaskedFocus: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let role: UInt32
    let states: Set<UInt32>
    let reason: String
  }

  static let unaskedFocuses = [
    UnaskedFocus(
      testDescription: "a terminal", role: AccessibleRole.terminal, states: [],
      reason: "a terminal has the focus"),
    UnaskedFocus(
      testDescription: "a terminal claiming editable text", role: AccessibleRole.terminal,
      states: [AccessibleState.editable], reason: "a terminal has the focus"),
    // kgx (VTE for GTK 4) says role filler, not editable.
    UnaskedFocus(
      testDescription: "a console that is a filler", role: 29, states: [],
      reason: "the focused widget is not text (role 29"),
    UnaskedFocus(
      testDescription: "a password field", role: AccessibleRole.passwordText,
      states: [AccessibleState.editable],
      reason: "a password field has the focus"),
    UnaskedFocus(
      testDescription: "text that is not editable", role: AccessibleRole.text,
      states: [AccessibleState.readOnly],
      reason: "the focused text is not editable"),
    UnaskedFocus(
      testDescription: "a button", role: 43, states: [AccessibleState.editable],
      reason: "the focused widget is not text (role 43"),
  ]

  @Test(arguments: unaskedFocuses)
  func noQuestionWhenFocusedOn(_ widget: UnaskedFocus) throws {
    try moveFocus(to: try editor.add(role: widget.role, states: widget.states))
    expectNoQuestion(widget.reason)
  }

  @Test func qtSaysFocusedForTheAncestorsToo() throws {
    // Qt announces FOCUSED for the focus widget, then for its ancestors and the current tab.
    let kwrite = accessibility.application()
    let view = try kwrite.add(role: AccessibleRole.text, states: [AccessibleState.editable])
    let tab = try kwrite.add(role: 37, states: [])
    let frame = try kwrite.add(role: 29, states: [])
    try editor.blur(textView)
    try kwrite.focus(view)
    try kwrite.focus(tab)
    try kwrite.focus(frame)
    settle()
    #expect(watch.focused?.path == frame)
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
    try tapUndoSendsCtrlZ()
    #expect(undo.notes.last?.contains("sent Ctrl+Z to \(kwrite.name)") == true)
  }

  @Test func notInEditableTextInsideATerminal() throws {
    let terminal = try editor.add(role: AccessibleRole.terminal, states: [])
    let inner = try editor.add(role: AccessibleRole.text, states: [AccessibleState.editable])
    try editor.blur(textView)
    try editor.focus(terminal)
    try editor.focus(inner)
    settle()
    expectNoQuestion("a terminal has the focus")
  }

  @Test func notWithoutAFocus() throws {
    try editor.blur(textView)
    settle()
    expectNoQuestion("no focused widget is known")
  }

  @Test func aWindowThatOpensWithItsTextFocused() throws {
    // GTK 4.8 announces no focus (nor the activation) of a window that opens with its text
    // focused: the active window is found by its state, and searched for its deepest FOCUSED
    // widget through VISIBLE ones (a hidden page's focused terminal is not entered).
    try editor.blur(textView)
    let gtk = accessibility.application()
    let window = try gtk.add(role: 23, states: [AccessibleState.active, AccessibleState.visible])
    let hidden = try gtk.add(role: 39, states: [], parent: window)
    try gtk.add(role: AccessibleRole.terminal, states: [AccessibleState.focused], parent: hidden)
    let box = try gtk.add(role: 39, states: [AccessibleState.visible], parent: window)
    try gtk.add(
      role: AccessibleRole.text,
      states: [AccessibleState.editable, AccessibleState.focused, AccessibleState.visible], parent: box)
    settle()
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"], "\(undo.notes) \(log.text)")
    try tapUndoSendsCtrlZ()
    #expect(undo.notes.last?.contains("sent Ctrl+Z to \(gtk.name)") == true, "\(undo.notes)")
  }

  @Test func aNotificationsButtonTappedWhileTheEditorsWindowIsActive() throws {
    // plasmashell's notification button says it took the focus when tapped; the editor's window
    // says ACTIVE (its activation was before the watch started): the Undo goes to the editor.
    try editor.add(role: 23, states: [AccessibleState.active, AccessibleState.visible])
    shake()
    let shell = accessibility.application()
    let shellWindow = try shell.add(role: 23, states: [AccessibleState.visible])
    let button = try shell.add(role: 43, states: [AccessibleState.visible], parent: shellWindow)
    try shell.focus(button)
    settle()
    #expect(watch.focused?.application == shell.name)
    try tapUndoSendsCtrlZ()
  }

  @Test func anActiveWindowWhoseTextAnnouncedNothing() throws {
    // The editor's text view announced its focus; another application's window then said it
    // became active, its text focused without a word: that window is searched first.
    let gtk = accessibility.application()
    let window = try gtk.add(role: 23, states: [AccessibleState.active, AccessibleState.visible])
    try gtk.add(
      role: AccessibleRole.terminal, states: [AccessibleState.focused, AccessibleState.visible],
      parent: window)
    try gtk.activate(window)
    settle()
    expectNoQuestion("a terminal has the focus")
  }

  @Test func notWhileTheProximitySensorReadsNear() {
    proximity.near = true
    expectNoQuestion("the proximity sensor reads near")
  }

  @Test func notWhileTheScreenIsLocked() throws {
    let saver = try ScreenSaver(bus: bus)
    try saver.setActive(true)
    settle()
    expectNoQuestion("the screen is locked")
    // Nor is the accessibility bus followed while locked.
    #expect(!watch.isFollowing)
    try saver.setActive(false)
    settle()
    #expect(watch.isFollowing)
  }

  @Test func aFocusedApplicationThatNeverAnswers() throws {
    editor.hangs = true
    let before = time.now
    service.application.post(Event.motion(.motionShake, timestamp: time.now, source: "iio"), phase: .began)
    time.advance(by: 0.2)
    #expect(records().isEmpty, "\(log.text)")
    time.advance(by: 0.1)
    // Decided at the deadline (0.3 s): the chain went on, no question.
    #expect(records().map(\.handledBy) == [nil])
    #expect(time.now - before < 0.31)
    #expect(undo.notes.last?.contains("did not say its role and state within 300 ms") == true)
    // Another event is not held up beyond that.
    service.application.post(Event.motion(.motionShake, timestamp: time.now, source: "iio"), phase: .ended)
    settle()
    #expect(records().count == 2)
    #expect(notifications.notifications.isEmpty)
  }

  /// Several applications announced a focus and none answers: the 0.3 s should bound the whole
  /// read, not each application's (three in a row held a shake 0.9 s).
  @Test func severalFocusedApplicationsThatNeverAnswer() throws {
    let others = [accessibility.application(), accessibility.application()]
    for other in others {
      let field = try other.add(role: AccessibleRole.text, states: [AccessibleState.editable])
      try other.focus(field)
    }
    settle()
    for app in others + [editor] { app.hangs = true }
    service.application.post(Event.motion(.motionShake, timestamp: time.now, source: "iio"), phase: .began)
    time.advance(by: 0.29)
    #expect(records().isEmpty, "\(log.text)")
    time.advance(by: 0.02)
    // Decided at the deadline: the applications were asked at once, not one after the other.
    #expect(records().map(\.handledBy) == [nil])
    #expect(undo.notes.last?.contains("did not say its role and state within 300 ms") == true)
    time.advance(by: 5)
    #expect(records().map(\.handledBy) == [nil])
    #expect(notifications.notifications.isEmpty)
  }

  /// A frozen application behind the focused one holds the question for the deadline at most
  /// (the search for the active window waits for it), and the answer is the focused one's.
  @Test func aFrozenApplicationBehindTheFocusedOneHoldsTheQuestionAtMostTheDeadline() throws {
    let other = accessibility.application()
    let field = try other.add(role: AccessibleRole.text, states: [AccessibleState.editable])
    try other.focus(field)
    try editor.focus(textView)
    settle()
    other.hangs = true
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"], "\(log.text)")
  }

  @Test func aRegisteredApplicationGetsItsShakeFirst() throws {
    let api = harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil)
    try api.start()
    settle()
    let app = try BusApp(on: bus)
    let id = app.daemonCall("RegisterResponder", [.objectPath(app.path), ["motion"].dbusValue])
    settle()
    let number = try #require(try id()?.get().first?.uint32)
    _ = app.daemonCall("BecomeFirstResponder", [.uint32(number)])
    settle()
    shake()
    #expect(app.received == ["motionShake", "motionShake"])
    #expect(notifications.notifications.isEmpty)
    // When it does not take it, the undo asks.
    app.answer = { _ in false }
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
  }

  @Test func aSentShakeReachesItAsADetectedOneDoes() throws {
    let api = harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil)
    try api.start()
    settle()
    let tool = try BusApp(on: bus)
    let began = tool.daemonCall("SendEvent", ["motion", "motionShake", "began"])
    time.advance(by: 0.1)
    let ended = tool.daemonCall("SendEvent", ["motion", "motionShake", "ended"])
    time.advance(by: 0.1)
    #expect(try began()?.get() == ["undo"])
    #expect(try ended()?.get() == ["undo"])
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
  }

  @Test func theAccessibilityBusGoesAwayAndComesBack() throws {
    accessibility.quit()
    settle()
    #expect(!watch.isFollowing)
    expectNoQuestion("the accessibility bus is not followed")
    try accessibility.launch()
    settle()
    #expect(watch.isFollowing)
    #expect(accessibility.registeredEvents.count == 4)
    // The applications on the new bus announce their focus again.
    let app = accessibility.application()
    let field = try app.add(role: AccessibleRole.text, states: [AccessibleState.editable])
    try app.focus(field)
    settle()
    shake()
    #expect(notifications.open.map(\.summary) == ["Undo Typing"])
  }

  @Test func theFocusedApplicationQuits() throws {
    editor.connection.leave()
    settle()
    #expect(watch.focused == nil)
    expectNoQuestion("no focused widget is known")
  }

  @Test func theFocusMovesToATerminalBeforeUndo() throws {
    shake()
    let terminal = try editor.add(role: AccessibleRole.terminal, states: [])
    try moveFocus(to: terminal)
    settle()
    try notifications.press("undo")
    // The focus may come back (see below): given up after the timeout.
    time.advance(by: UndoHandler.focusReturnTimeout + 0.1)
    #expect(keys.sent.isEmpty)
    #expect(
      undo.notes.last?.contains("a terminal has the focus (Ctrl+Z would stop its job): nothing sent") == true)
  }

  @Test func aPopupThatTookTheFocusGivesItBack() throws {
    // plasmashell's notification popup takes the focus when tapped and gives it back to the
    // editor as it closes: the chord waits for the field, and goes nowhere else meanwhile.
    shake()
    let shell = accessibility.application()
    let button = try shell.add(role: 43, states: [])
    try moveFocus(to: button, in: shell)
    try notifications.press("undo")
    time.advance(by: 0.5)
    #expect(keys.sent.isEmpty)
    try shell.blur(button)
    try editor.focus(textView)
    time.advance(by: 0.2)
    #expect(keys.sent == [.undo], "\(undo.notes) \(log.text)")
  }

  @Test func tappingTheShellsButtonLeavesTheFocusInTheEditor() throws {
    // GNOME Shell's notification button says it takes the focus when tapped; the editor's window
    // stays active, and its text view focused.
    let window = try editor.add(role: 23, states: [])
    try editor.activate(window)
    shake()
    let shell = accessibility.application()
    let button = try shell.add(role: 43, states: [])
    try shell.focus(button)
    settle()
    #expect(watch.focused?.application == editor.name)
    try tapUndoSendsCtrlZ()
  }

  @Test func anotherApplicationsWindowActivated() throws {
    shake()
    let other = accessibility.application()
    let window = try other.add(role: 23, states: [])
    let field = try other.add(role: AccessibleRole.text, states: [AccessibleState.editable])
    try editor.blur(textView)
    try other.activate(window)
    try other.focus(field)
    settle()
    try notifications.press("undo")
    time.advance(by: UndoHandler.focusReturnTimeout + 0.1)
    #expect(keys.sent.isEmpty)
    #expect(undo.notes.last?.contains("the focus moved to another widget: nothing sent") == true)
  }

  @Test func theKeyAPIRefuses() throws {
    keys.refusal = KeySendError("org.gnome.Mutter.RemoteDesktop refused a session: Access denied")
    shake()
    try tapUndo()
    #expect(keys.sent.isEmpty)
    #expect(
      undo.notes.last?.contains("the keys were not sent: org.gnome.Mutter.RemoteDesktop refused a session")
        == true)
    // Nothing else broke: the next shake asks again.
    keys.refusal = nil
    shake()
    try tapUndoSendsCtrlZ()
  }

  @Test func theKeyAPIGoes() throws {
    keys.state = .unavailable(reason: "GNOME's org.gnome.Mutter.RemoteDesktop is not on the session bus")
    settle()
    #expect(!watch.isFollowing)
    #expect(
      undo.notes.first?.contains(
        "keys: none: GNOME's org.gnome.Mutter.RemoteDesktop is not on the session bus") == true)
    expectNoQuestion("no way to send keys")
    #expect(service.chain.wants(.motion) == false)
    keys.state = .ready(api: "fake compositor API")
    settle()
    #expect(service.chain.wants(.motion))
    #expect(watch.isFollowing)
  }

  @Test func noNotificationServer() throws {
    notifications.connection.leave()
    settle()
    #expect(
      undo.notes.first?.contains("question: none: no notification server owns org.freedesktop.Notifications")
        == true)
    #expect(!watch.isFollowing)
    expectNoQuestion("nowhere to ask")
  }

  @Test func aServerWithoutButtons() throws {
    notifications.connection.leave()
    settle()
    let plain = try InMemoryNotificationServer(bus: bus)
    plain.capabilities = ["body"]
    settle()
    #expect(undo.notes.first?.contains("shows no buttons") == true)
    shake()
    #expect(plain.notifications.isEmpty)
  }

  @Test func theStatusNamesTheWay() {
    let line = undo.notes.first ?? ""
    #expect(line.hasPrefix("undo: on (shake to undo in the focused text field); keys: fake compositor API;"))
    #expect(line.contains("question: org.freedesktop.Notifications (gnome-shell 43.9)"))
    #expect(line.contains("focus: following the focus on the accessibility bus"))
  }

  @Test func turnedOff() throws {
    let off = try ShakeToUndoTests(config: "chain = [\"log\", \"undo\"]\n[undo]\nenabled = false\n")
    #expect(off.undo.notes == ["undo: off ([undo] enabled = false): a shake nobody takes does nothing"])
    #expect(!off.watch.isFollowing)
    #expect(off.service.chain.wants(.motion) == false)
    off.shake()
    #expect(off.notifications.notifications.isEmpty)
    #expect(off.records().allSatisfy { $0.handledBy == nil })
  }

  /// GNOME's screen saver on the session bus.
  final class ScreenSaver {
    let connection: InMemoryBusConnection
    private var active = false
    private var object: DBusExportedObject?

    init(bus: InMemoryBus) throws {
      connection = bus.connect()
      object = try connection.export(
        path: "/org/gnome/ScreenSaver",
        interfaces: [
          DBusInterface(
            "org.gnome.ScreenSaver",
            methods: [DBusMethod("GetActive", out: "b") { [unowned self] _ in [.bool(self.active)] }],
            signals: [DBusSignalInfo("ActiveChanged", signature: "b")])
        ])
      connection.requestName("org.gnome.ScreenSaver")
    }

    func setActive(_ active: Bool) throws {
      self.active = active
      try object?.emit(
        interface: "org.gnome.ScreenSaver", signal: "ActiveChanged", arguments: [.bool(active)])
    }
  }
}
