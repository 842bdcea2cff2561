import DBus
import DBusTestSupport
import EventLoop
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

  /// The Python app of the apps page, as a user runs it from a checkout: register, become first
  /// responder, print each event.
  static let appScript = """
    import sys; sys.path.insert(0, "\(package)")
    from responderd_client import GLib, Responder, run_until_signalled
    app = Responder("/org/example/App", ["remoteControl"], lambda event: print("event", event, flush=True) or True)
    app.on_registered = lambda id: print("registered", id, flush=True)
    print("register:", app.register(), flush=True)
    app.become_first_responder()
    print("ready:", flush=True)
    run_until_signalled(GLib.MainLoop(), app.close)
    """

  /// The pid of the owner of responderd's name on `bus` (nil when there is none).
  /// Sends remoteControl `subtype` through the daemon on `bus`: the app, its first responder,
  /// handles it (prints it), then stops cleanly.
  func expectAppHandles(
    _ subtype: String, on bus: PrivateBus, app: ChildProcess,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let connection = try bus.connect(loop: try EventLoop())
    let handled =
      try daemonCall(connection, "SendEvent", [.string("remoteControl"), .string(subtype), .string("")])
      .get().first?.string ?? ""
    #expect(handled.hasSuffix("#1"), "\(handled)", sourceLocation: sourceLocation)
    #expect(try app.readLine(timeout: 5) == "event remoteControl/\(subtype)", sourceLocation: sourceLocation)
    #expect(ChildProcess.exitedSuccessfully(try stop(app)), sourceLocation: sourceLocation)
  }

  func daemonPID(on bus: PrivateBus) throws -> pid_t? {
    let reply = try ChildProcess.runSeparately(
      [
        "dbus-send", "--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
        "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
        "string:\(ResponderBusAPI.daemonName)",
      ])
    return reply.stdout.split(separator: " ").last.flatMap {
      pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
  }

  /// `register()` with responderd not running starts it through the package's activation file
  /// (GetNameOwner alone never activates: it raised NameHasNoOwner).
  @Test func registerStartsTheDaemonByDBusActivation() throws {
    let bus = try PrivateBus(start: false)
    defer { bus.stop() }
    let config = bus.directory + "/config.toml"
    try "chain = [\"log\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
    // The package's file, its Exec= at the built daemon (with this test's config).
    let packaged = try String(
      contentsOfFile: "\(Self.package)/../packaging/dbus/org.responderd.Daemon1.service", encoding: .utf8)
    #expect(packaged.contains("\nExec=/usr/bin/responderd\n"))
    let exec = ([builtExecutable("responderd").path, "--config", config] + asRoot).joined(separator: " ")
    try FileManager.default.createDirectory(atPath: bus.servicesDirectory, withIntermediateDirectories: true)
    try packaged.replacingOccurrences(of: "\nExec=/usr/bin/responderd\n", with: "\nExec=\(exec)\n").write(
      toFile: bus.servicesDirectory + "/org.responderd.Daemon1.service", atomically: true, encoding: .utf8)
    try bus.start()
    #expect(try daemonPID(on: bus) == nil, "not running before the app")

    let app = try ChildProcess(
      ["/usr/bin/python3", "-c", Self.appScript], environment: bus.environment, stdout: .capture,
      stderr: .capture)
    var pid: pid_t?
    defer {
      // The activated daemon is the bus's child: stop it and wait until it is gone.
      if let pid = pid ?? (try? daemonPID(on: bus)) {
        kill(pid, SIGTERM)
        let deadline = monotonicNow() + 10
        while kill(pid, 0) == 0 && monotonicNow() < deadline { usleep(10_000) }  // bounded polling
      }
    }
    #expect(try app.readLine(timeout: 20) == "registered 1")
    #expect(try app.readLine(timeout: 5) == "register: 1")
    #expect(try app.readLine(timeout: 5) == "ready:")
    pid = try daemonPID(on: bus)
    #expect(pid != nil, "register() started responderd")
    try expectAppHandles("pause", on: bus, app: app)
  }

  /// No activation file (a source checkout) and no daemon: `register()` says so in one line and
  /// the app registers, and becomes first responder, once responderd starts.
  @Test func registerWaitsForADaemonThatCannotBeActivated() throws {
    let bus = try PrivateBus()
    defer { bus.stop() }
    let app = try ChildProcess(
      ["/usr/bin/python3", "-c", Self.appScript], environment: bus.environment, stdout: .capture,
      stderr: .capture)
    // Its stderr (one line) comes first: stdout and stderr share the pipe.
    #expect(
      try app.readLine(timeout: 10)?.hasPrefix(
        "responder: responderd is not running on the session bus and cannot be started by D-Bus activation")
        == true)
    #expect(try app.readLine(timeout: 5) == "register: None")
    #expect(try app.readLine(timeout: 5) == "ready:")
    var environment = ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": "/nonexistent", "HOME": "/nonexistent"]
    environment.merge(bus.environment) { $1 }
    let daemon = try DaemonProcess(builtExecutable("responderd"), asRoot, environment: environment)
    #expect(try app.readLine(timeout: 10) == "registered 1")
    try daemon.waitForOutput(timeout: 10) { $0.contains("is first responder") }
    try expectAppHandles("play", on: bus, app: app)
    try daemon.expectCleanStop()
  }

  /// The apps page's `shake.py`, copied from the page as written and run as the page says for a
  /// clone (`PYTHONPATH=python /usr/bin/python3 shake.py` at the top of the clone).
  @Test func theAppsPagesSnippetRunsAsWrittenFromACheckout() throws {
    let page = try String(contentsOfFile: "\(Self.package)/../docs/apps.md", encoding: .utf8)
    let start = try #require(page.range(of: "`shake.py`:\n\n```python\n"))
    let end = try #require(page.range(of: "```\n", range: start.upperBound..<page.endIndex))
    let snippet = String(page[start.upperBound..<end.lowerBound])
    #expect(page.contains("`PYTHONPATH=python /usr/bin/python3 shake.py` from the top of the clone"))
    let fixture = try DaemonFixture()
    let file = fixture.bus.directory + "/shake.py"
    try snippet.write(toFile: file, atomically: true, encoding: .utf8)
    let root = URL(fileURLWithPath: Self.package).deletingLastPathComponent().path
    var environment = fixture.bus.environment
    environment["PYTHONPATH"] = "python"
    let app = try ChildProcess(
      ["/bin/sh", "-c", "cd \"$1\" && exec /usr/bin/python3 \"$2\"", "sh", root, file],
      environment: environment, stdout: .capture, stderr: .capture)
    #expect(try app.readLine(timeout: 10) == "ready: shake the device")
    #expect(try send(fixture, "motion", "motionShake", "began").hasPrefix("shake#"))
    #expect(try app.readLine(timeout: 5) == "shake began")
    #expect(try send(fixture, "motion", "motionShake", "ended").hasPrefix("shake#"))
    #expect(try app.readLine(timeout: 5) == "shake ended")
    #expect(ChildProcess.exitedSuccessfully(try stop(app)))
    try fixture.waitFor("shake.py to unregister") { fixture.log.contains("removed: unregistered") }
  }

  func firstResponder(_ fixture: DaemonFixture) throws -> UInt32 {
    try fixture.connection.callAndWait(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: "org.freedesktop.DBus.Properties", method: "Get",
      arguments: [.string(ResponderBusAPI.daemonInterface), .string("FirstResponder")], timeout: 5
    ).first?.unwrapped.uint32 ?? 99
  }
}
