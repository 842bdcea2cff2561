import DBus
import DBusTestSupport
import Foundation
import ResponderClient
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The Python examples (`examples/python`, Debian's python3-gi) against the real daemon on a
/// private bus: events sent through responderd reach them, and what they print is what they did.
@Suite struct PythonExampleTests {
  static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../examples/python").standardizedFileURL.path
  /// The `responderd_client` package of the source tree.
  static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../python").standardizedFileURL.path

  /// Starts an example with the fixture's bus as its session bus; returns once it printed "ready".
  func start(_ script: String, _ arguments: [String] = [], on fixture: DaemonFixture) throws -> ChildProcess {
    let app = try ChildProcess(
      ["/usr/bin/python3", "\(Self.examples)/\(script)"] + arguments, environment: fixture.bus.environment,
      stdout: .capture, stderr: .capture)
    var said: [String] = []
    while let line = try app.readLine(timeout: 10), said.count < 5 {
      if line.hasPrefix("ready: ") { return app }
      said.append(line)
    }
    throw TestSupportError("\(script) did not say ready: \(said)")
  }

  /// Sends an event through the daemon (as a device would produce it); returns who handled it.
  func send(_ fixture: DaemonFixture, _ type: String, _ subtype: String, _ phase: String = "") throws
    -> String
  {
    try daemonCall(fixture.connection, "SendEvent", [.string(type), .string(subtype), .string(phase)]).get()
      .first?.string ?? ""
  }

  func stop(_ app: ChildProcess) throws -> Int32 {
    app.signal(SIGTERM)
    return try app.waitForExit(timeout: 10)
  }

  @Test func shakeToUndoPopsItsUndoStackOnEachShake() throws {
    let fixture = try DaemonFixture()
    let app = try start("shake_to_undo.py", ["hello", "brave", "world"], on: fixture)
    #expect(try send(fixture, "motion", "motionShake", "began").hasPrefix("shake-to-undo#"))
    #expect(try app.readLine(timeout: 5) == "undo: world (edits: hello brave)")
    #expect(try send(fixture, "motion", "motionShake", "ended").hasPrefix("shake-to-undo#"))
    #expect(try send(fixture, "motion", "motionShake", "began").hasPrefix("shake-to-undo#"))
    #expect(try app.readLine(timeout: 5) == "undo: brave (edits: hello)")
    #expect(try send(fixture, "motion", "motionShake", "began").hasPrefix("shake-to-undo#"))
    #expect(try app.readLine(timeout: 5) == "undo: hello (edits: )")
    // Nothing left to undo: the shake goes on up the chain.
    #expect(try send(fixture, "motion", "motionShake", "began") == "")
    #expect(try app.readLine(timeout: 5) == "undo: nothing to undo")
    #expect(ChildProcess.exitedSuccessfully(try stop(app)))
    // It resigned and unregistered on SIGTERM.
    try fixture.waitFor("shake-to-undo to unregister") { fixture.log.contains("removed: unregistered") }
    #expect(try firstResponder(fixture) == 0)
  }

  @Test func aResponderRegistersAgainWithARestartedDaemon() throws {
    let fixture = try DaemonFixture()
    let app = try start("shake_to_undo.py", ["one", "two"], on: fixture)
    #expect(try send(fixture, "motion", "motionShake", "began").hasPrefix("shake-to-undo#"))
    #expect(try app.readLine(timeout: 5) == "undo: two (edits: one)")
    try fixture.stopDaemon()
    try fixture.startDaemonAgain()
    try fixture.waitFor("shake-to-undo to be first responder again") {
      fixture.log.contains("registered") && fixture.log.contains("is first responder")
    }
    #expect(try send(fixture, "motion", "motionShake", "began").hasPrefix("shake-to-undo#"))
    #expect(try app.readLine(timeout: 5) == "undo: one (edits: )")
    #expect(ChildProcess.exitedSuccessfully(try stop(app)))
  }

  @Test func aRingingCallTakesTheHeadsetButtonAndGivesItBack() throws {
    let fixture = try DaemonFixture()
    let app = try start("calls.py", on: fixture)
    // Idle: the click is not the app's; it goes on (to the media player; here nobody takes it).
    #expect(try send(fixture, "remoteControl", "togglePlayPause") == "")
    app.signal(SIGUSR1)
    #expect(try app.readLine(timeout: 5) == "ringing")
    #expect(try firstResponder(fixture) != 0)
    #expect(try send(fixture, "remoteControl", "togglePlayPause").hasPrefix("calls#"))
    #expect(try app.readLine(timeout: 5) == "answered")
    // Other buttons are not the call's.
    #expect(try send(fixture, "remoteControl", "nextTrack") == "")
    #expect(try send(fixture, "remoteControl", "togglePlayPause").hasPrefix("calls#"))
    #expect(try app.readLine(timeout: 5) == "hung up")
    #expect(try app.readLine(timeout: 5) == "idle: the player has the button")
    #expect(try send(fixture, "remoteControl", "togglePlayPause") == "")
    #expect(try firstResponder(fixture) == 0)
    #expect(ChildProcess.exitedSuccessfully(try stop(app)))
  }

  /// A handler that never replies, and one that raises: the module answers "not handled" itself,
  /// before the daemon's deadline, so the event goes on and the daemon never waits it out.
  @Test func theModuleAnswersNotHandledForAHandlerThatIsLateOrBroken() throws {
    let fixture = try DaemonFixture(config: "chain = [\"command\", \"log\"]\n[responders]\ndeadline = 0.5\n")
    let script = """
      import sys; sys.path.insert(0, "\(Self.package)")
      from responderd_client import GLib, Responder, run_until_signalled
      def on_event(event):
          if event.subtype == "nextTrack":
              return None  # "I will reply later", and never does
          raise RuntimeError("broken handler")
      app = Responder("/org/example/Slow", ["remoteControl"], on_event, name="slow-app")
      app.register(); app.become_first_responder()
      print("ready:", app.id, flush=True)
      run_until_signalled(GLib.MainLoop(), app.close)
      """
    let app = try ChildProcess(
      ["/usr/bin/python3", "-c", script], environment: fixture.bus.environment, stdout: .capture,
      stderr: .capture)
    #expect(try app.readLine(timeout: 10)?.hasPrefix("ready:") == true)
    #expect(try send(fixture, "remoteControl", "nextTrack") == "")
    #expect(
      try app.readLine(timeout: 5)?.contains("no answer to remoteControl/nextTrack before the deadline")
        == true)
    #expect(try send(fixture, "remoteControl", "togglePlayPause") == "")
    #expect(try app.readLine(timeout: 5)?.contains("the handler failed") == true)
    #expect(!fixture.log.contains("no answer to RemoteControlReceived"))
    #expect(ChildProcess.exitedSuccessfully(try stop(app)))
  }

  /// `follow_focus` on two windows (GObjects with GTK's `is-active` property, so that no display
  /// is needed): the shake goes to the one whose window became active last, never to the other.
  @Test func followFocusSendsTheShakeToTheActiveWindowOnly() throws {
    let fixture = try DaemonFixture()
    let script = """
      import sys; sys.path.insert(0, "\(Self.package)")
      from gi.repository import GObject
      from responderd_client import GLib, Responder, run_until_signalled
      class Window(GObject.Object):
          is_active = GObject.Property(type=bool, default=False)
      windows, apps = {}, []
      for name in ("one", "two"):
          windows[name] = Window()
          app = Responder(f"/org/example/{name}", ["motion"],
                          lambda event, name=name: print("shake", name, event.phase, flush=True) or True)
          app.register()
          app.follow_focus(windows[name])
          apps.append(app)
      # Each SIGUSR1 is the next focus change, as the compositor would make it.
      steps = [("one", True), ("two", True), ("one", False), ("two", False)]
      def next_step():
          name, active = steps.pop(0)
          windows[name].set_property("is-active", active)
          print("focus", name, int(active), flush=True)
          return GLib.SOURCE_CONTINUE
      GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 10, next_step)
      print("ready:", apps[0].id, apps[1].id, flush=True)
      run_until_signalled(GLib.MainLoop(), lambda: [app.close() for app in apps])
      """
    let app = try ChildProcess(
      ["/usr/bin/python3", "-c", script], environment: fixture.bus.environment, stdout: .capture,
      stderr: .capture)
    let ready = try #require(try app.readLine(timeout: 10))
    let ids = ready.split(separator: " ").dropFirst().map { String($0) }
    #expect(ids.count == 2)
    func focus(_ name: String, _ active: Bool) throws {
      app.signal(SIGUSR1)
      #expect(try app.readLine(timeout: 5) == "focus \(name) \(active ? 1 : 0)")
      try fixture.waitFor("the daemon to hear of \(name)'s window") {
        (try? fixture.property("Chain").elements?.contains {
          $0.dictionary?["path"]?.objectPath == "/org/example/\(name)"
            && $0.dictionary?["focus"]?.string == (active ? "active" : "inactive")
        }) == true
      }
    }
    try focus("one", true)
    #expect(try send(fixture, "motion", "motionShake", "began").hasSuffix("#\(ids[0])"))
    #expect(try app.readLine(timeout: 5) == "shake one began")
    // Focus moves to two; one's "inactive" comes after two's "active".
    try focus("two", true)
    try focus("one", false)
    #expect(try send(fixture, "motion", "motionShake", "began").hasSuffix("#\(ids[1])"))
    #expect(try app.readLine(timeout: 5) == "shake two began")
    // Focus leaves both (another application's window): the shake is nobody's.
    try focus("two", false)
    #expect(try send(fixture, "motion", "motionShake", "began") == "")
    #expect(ChildProcess.exitedSuccessfully(try stop(app)))
    #expect(try app.readLine(timeout: 5) == nil, "no other shake was received")
  }

  func firstResponder(_ fixture: DaemonFixture) throws -> UInt32 {
    try fixture.connection.callAndWait(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: "org.freedesktop.DBus.Properties", method: "Get",
      arguments: [.string(ResponderBusAPI.daemonInterface), .string("FirstResponder")], timeout: 5
    ).first?.unwrapped.uint32 ?? 99
  }
}
