import DBus
import DBusTestSupport
import EventLoop
import Foundation
import ResponderClient
import ResponderdKit
import Testing

/// responderctl as a user runs it, against the real daemon on a private bus.
@Suite(.serialized) struct ResponderctlTests {
  func responderctl() throws -> String { try BuiltProducts.path(of: "responderctl") }

  @Test func sendPrintsWhoHandledTheEvent() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    // The spelling of everything else (remoteControl, togglePlayPause), and the others.
    for (type, subtype) in [
      ("remoteControl", "nextTrack"), ("remote-control", "next-track"),
      ("remoteControl", "remoteControlNextTrack"),
    ] {
      let next = try fixture.run([try responderctl(), "send", type, subtype])
      #expect(next.exitCode == 0, "\(type) \(subtype)")
      #expect(next.output == "remoteControl nextTrack: handled by command\n")
    }
    // Nobody handled it: exit 1, as playerctl when no player acted.
    let pause = try fixture.run([try responderctl(), "send", "remoteControl", "pause", "--json"])
    #expect(pause.exitCode == 1)
    #expect(pause.output == "{\"type\": \"remoteControl\", \"subtype\": \"pause\", \"handledBy\": null}\n")
    let shake = try fixture.run([try responderctl(), "send", "motion", "began"])
    #expect(shake.exitCode == 1)
    #expect(shake.output == "motion motionShake began: dropped (no responder handled it)\n")

    let bad = try fixture.run([try responderctl(), "send", "remoteControl", "louder"])
    #expect(bad.exitCode == 64)
    #expect(bad.output.contains("unknown remoteControl subtype 'louder'; one of: play, pause, stop"))
    let typo = try fixture.run([try responderctl(), "send", "remoteControll", "pause"])
    #expect(typo.exitCode == 64)
    #expect(
      typo.output.contains(
        "responderctl: unknown command 'send remoteControll' (did you mean 'remoteControl'?); one of: remoteControl, motion"
      ), "\(typo.output)")
    let badPhase = try fixture.run([try responderctl(), "send", "motion", "sideways"])
    #expect(badPhase.exitCode == 64)
    #expect(badPhase.output.contains("unknown motion phase 'sideways'; one of: began, ended, cancelled"))
  }

  @Test func chainAndStatusShowTheChainAndTheFirstResponder() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let app = try TestApp(fixture, path: "/test/Chain")
    let id = try app.register(["motion", "remoteControl"])
    #expect(try app.becomeFirstResponder())
    let other = try TestApp(fixture, path: "/test/Other")
    let otherID = try other.register(["remoteControl"])
    let (name, otherName) = (appName(id), appName(otherID))
    let width = name.count + 2

    let chain = try fixture.run([try responderctl(), "chain"])
    #expect(chain.exitCode == 0)
    func pad(_ text: String, _ count: Int) -> String {
      text.padding(toLength: count, withPad: " ", startingAt: 0)
    }
    let eventsWidth = "motion, remoteControl, presses".count + 2
    #expect(
      chain.output.split(separator: "\n").map(String.init) == [
        "  " + pad("NAME", width) + pad("KIND", 9) + pad("EVENTS", eventsWidth) + "OWNER",
        "* " + pad(name, width) + pad("app", 9) + pad("motion, remoteControl", eventsWidth)
          + "\(app.connection.uniqueName!) /test/Chain",
        "  " + pad(otherName, width) + pad("app", 9) + pad("remoteControl", eventsWidth)
          + "\(other.connection.uniqueName!) /test/Other",
        "  " + pad("command", width) + pad("handler", 9) + "remoteControl",
        "  " + pad("log", width) + pad("handler", 9) + "motion, remoteControl, presses",
        "  (end of chain: dropped)",
        "* first responder",
      ], "\(chain.output)")

    let json = try fixture.run([try responderctl(), "chain", "--json"])
    let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
    #expect(object?["firstResponder"] as? Int == Int(id))
    let entries = object?["chain"] as? [[String: Any]] ?? []
    #expect(entries.map { $0["name"] as? String } == [name, otherName, "command", "log"])
    #expect(entries[0]["firstResponder"] as? Bool == true)
    #expect(entries[0]["path"] as? String == "/test/Chain")
    #expect(entries[1]["eventTypes"] as? [String] == ["remoteControl"])

    let status = try fixture.run([try responderctl(), "status"])
    #expect(status.exitCode == 0)
    let lines = status.output.split(separator: "\n").map(String.init)
    #expect(
      lines.first
        == "responderd \(responderdVersion) is running on the session bus as \(fixture.daemonName) (pid \(fixture.daemon.pid))"
    )
    #expect(
      Array(lines.dropFirst()) == [
        "config: \(fixture.configPath)",
        "deadline for applications: 100 ms",
        "first responder: \(name) (id \(id))",
        "applications: 2 registered",
        "chain: \(name) → \(otherName) → command → log → dropped",
        "session: active (no logind session followed: taken as active and unlocked)",
        "motion: wanted; the accelerometer is not there (waiting for one to appear)",
        "input devices: 0 owned, 0 shared, 0 left alone (responderctl devices says why)",
        "desktop: none handles media keys (GNOME, Phosh and KDE Plasma are detected on the session bus; say desktop-handles-media-keys = \"yes\" for sway or Hyprland key bindings): responderd reads the media keys of shared devices",
        "undo: off (the chain does not name the undo handler)",
      ])
    let statusJSON = try fixture.run([try responderctl(), "status", "--json"])
    let fields = try JSONSerialization.jsonObject(with: Data(statusJSON.output.utf8)) as? [String: Any]
    #expect(fields?["running"] as? Bool == true)
    #expect(fields?["pid"] as? Int == Int(fixture.daemon.pid))
    #expect((fields?["firstResponder"] as? [String: Any])?["name"] as? String == name)
    #expect(fields?["chain"] as? [String] == [name, otherName, "command", "log"])
    #expect(fields?["motionInterest"] as? Bool == true)
    #expect((fields?["devices"] as? [String: Any])?["owned"] as? Int == 0)

    // An application that follows its window's focus shows it.
    #expect(try other.setActive(true))
    let focused = try fixture.run([try responderctl(), "chain"]).output.split(separator: "\n")
    #expect(
      focused.contains { $0.hasPrefix("* \(otherName)") && $0.hasSuffix("/test/Other (window active)") })
    #expect(focused.contains { $0.hasPrefix("  \(name)") && $0.hasSuffix("/test/Chain") })
    let focusJSON = try fixture.run([try responderctl(), "chain", "--json"])
    let focusEntries =
      (try JSONSerialization.jsonObject(with: Data(focusJSON.output.utf8)) as? [String: Any])?["chain"]
      as? [[String: Any]] ?? []
    #expect(focusEntries.map { $0["focus"] as? String } == ["active", nil, nil, nil])
  }

  /// A `command` handler with no command takes no event: the EVENTS column says "none".
  @Test func chainSaysNoneForAHandlerThatTakesNoEvent() throws {
    let fixture = try DaemonFixture(config: "chain = [\"command\", \"log\"]\n")
    let chain = try fixture.run([try responderctl(), "chain"]).output.split(separator: "\n")
    #expect(
      chain.contains { $0.hasPrefix("  command ") && $0.contains(" handler ") && $0.hasSuffix(" none") },
      "\(chain)")
  }

  @Test func monitorJSONPrintsOneObjectPerDispatchedEvent() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let shaker = try TestApp(fixture, path: "/test/Shaker") { $0.phase == .began ? .handled : .notHandled }
    let shakerID = try shaker.register(["motion"])
    let monitor = try RunningCommand([try responderctl(), "monitor", "--json"], fixture: fixture)
    try monitor.waitForOutput("the monitor to start") {
      $0.contains("following events dispatched by responderd")
    }

    #expect(try fixture.send("remoteControl", "nextTrack") == "command")
    #expect(try fixture.send("remoteControl", "pause") == "")
    #expect(try fixture.send("motion", "motionShake", phase: "began") == appName(shakerID))
    #expect(try fixture.send("motion", "", phase: "cancelled") == "")
    try monitor.waitForOutput("four JSON lines") { text in
      text.split(separator: "\n").filter { $0.hasPrefix("{") }.count == 4
    }
    let objects = try monitor.lines.filter { $0.hasPrefix("{") }.map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
    #expect(objects.map { $0["type"] as? String } == ["remoteControl", "remoteControl", "motion", "motion"])
    #expect(objects.map { $0["subtype"] as? String } == ["nextTrack", "pause", "motionShake", "motionShake"])
    #expect(objects.map { $0["phase"] as? String } == [nil, nil, "began", "cancelled"])
    #expect(objects[0]["handledBy"] as? String == "command")
    #expect(
      objects[1]["handledBy"] is NSNull && objects[1]["dropReason"] as? String == "no responder handled it")
    #expect(objects[2]["handledBy"] as? String == appName(shakerID))
    #expect(objects[3]["handledBy"] is NSNull)
    // Responders that do not take an event's type pass it on at once (and are listed).
    #expect(objects[1]["receivedBy"] as? [String] == [appName(shakerID), "command", "log"])
    #expect(objects[3]["receivedBy"] as? [String] == [appName(shakerID), "command", "log"])
    let timestamps = objects.compactMap { $0["timestamp"] as? Double }
    #expect(timestamps.count == 4 && timestamps == timestamps.sorted())
    #expect(abs(timestamps[0] - monotonicNow()) < 10, "seconds since boot, like the daemon's clock")
    for object in objects {
      let time = object["time"] as? String ?? ""
      #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
      #expect((object["source"] as? String ?? "").hasPrefix("dbus :1."))
    }
    monitor.process.signal(SIGTERM)
    #expect(try monitor.waitForExit() == 0)
  }

  @Test func monitorTextPrintsTimeTypeSubtypeAndWhoHandledIt() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let monitor = try RunningCommand([try responderctl(), "monitor", "--count", "2"], fixture: fixture)
    try monitor.waitForOutput("the monitor to start") { $0.contains("following events") }
    _ = try fixture.send("remoteControl", "nextTrack")
    _ = try fixture.send("motion", "motionShake", phase: "ended")
    #expect(try monitor.waitForExit() == 0)
    let events = monitor.lines.filter { !$0.hasPrefix("responderctl") }
    #expect(events.count == 2)
    #expect(
      events[0].wholeMatch(of: /\d\d:\d\d:\d\d\.\d{3}  remoteControl nextTrack +handled by command/) != nil)
    #expect(
      events[1].wholeMatch(
        of: /\d\d:\d\d:\d\d\.\d{3}  motion +motionShake ended +dropped \(no responder handled it\)/)
        != nil)
  }

  @Test func respondRunsTheCommandForEachEventAndUnregistersOnSIGINT() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let out = fixture.bus.directory + "/respond.txt"
    let respond = try RunningCommand(
      [
        try responderctl(), "respond", "--events", "motion", "--", "sh", "-c",
        "echo \"$RESPONDERD_EVENT_TYPE $RESPONDERD_EVENT_SUBTYPE $RESPONDERD_EVENT_PHASE\" >> \(out)",
      ], fixture: fixture)
    try respond.waitForOutput("registration") { $0.contains("is the first responder") }
    let name = try #require(try fixture.chainNames().first)
    #expect(name.hasPrefix("responderctl#"))
    #expect(try fixture.send("motion", "motionShake", phase: "began") == name)
    #expect(try fixture.send("motion", "motionShake", phase: "ended") == name)
    #expect(try fixture.send("remoteControl", "nextTrack") == "command", "it took motion only")
    try fixture.waitFor("the two commands to write") {
      ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").count == 2
    }
    // One run per event, with its phase; the two commands run side by side, so in either order.
    #expect(
      try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").sorted()
        == ["motion motionShake began", "motion motionShake ended"])

    respond.process.signal(SIGINT)
    #expect(try respond.waitForExit() == 0)
    #expect(respond.output.contains("unregistered; bye"))
    #expect(try fixture.chainNames() == ["command", "log"])
    #expect(fixture.log.contains("\(name) (") && fixture.log.contains("removed: unregistered"))
  }

  /// Issue 38: a command still running when respond is stopped with Ctrl-C was left behind (its
  /// own process group missed the terminal's SIGINT). Killed (SIGKILL: no code of its own runs),
  /// respond leaves none behind either: the kernel sends each its parent-death signal.
  @Test(arguments: [SIGINT, SIGKILL])
  func respondEndsTheCommandsStillRunningWhenItIsStopped(_ signal: Int32) throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let respond = try RunningCommand(
      [try responderctl(), "respond", "--events", "motion", "--", "sleep", "60"], fixture: fixture)
    try respond.waitForOutput("registration") { $0.contains("is the first responder") }
    _ = try fixture.send("motion", "motionShake", phase: "began")
    try respond.waitForOutput("the command's pid") { $0.contains("→ sleep (pid ") }
    let pid = try #require(
      respond.output.firstMatch(of: /→ sleep \(pid (\d+)\)/).flatMap { Int32($0.1) })
    #expect(processIsRunning(pid))

    respond.process.signal(signal)
    let status = try respond.waitForExit()
    if signal == SIGINT { #expect(status == 0) }
    try fixture.waitFor("sleep (pid \(pid)) to end with respond (signal \(signal))") {
      !processIsRunning(pid)
    }
  }

  /// Issue 38: a `[command]` still running when the daemon stopped was left behind.
  @Test func aCommandStillRunningWhenTheDaemonStopsEndsWithIt() throws {
    let pidFile = NSTemporaryDirectory() + "/responderd-command-\(UUID().uuidString).pid"
    defer { unlink(pidFile) }
    let fixture = try DaemonFixture(
      config: """
        chain = ["command"]
        [command]
        play = ["sh", "-c", "echo $$ > \\"$PID_FILE\\"; exec sleep 60"]

        """, environment: ["PID_FILE": pidFile])
    #expect(try fixture.send("remoteControl", "play") == "command")
    try fixture.waitFor("the command to start") {
      (try? String(contentsOfFile: pidFile, encoding: .utf8))?.hasSuffix("\n") == true
    }
    let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).dropLast()))
    #expect(processIsRunning(pid))
    _ = try fixture.stopDaemon()
    try fixture.waitFor("sleep (pid \(pid)) to end with the daemon") { !processIsRunning(pid) }
  }

  /// The daemon killed (SIGKILL) while a `[command]` runs: the command ends too (its parent-death
  /// signal). Stopped with SIGTERM while a command that left a program in a session of its own
  /// (`setsid`) runs: that program ends too (the daemon took it in as subreaper).
  @Test(arguments: [SIGKILL, SIGTERM])
  func commandsEndHoweverTheDaemonEnds(_ signal: Int32) throws {
    let pidFile = NSTemporaryDirectory() + "/responderd-command-\(UUID().uuidString).pid"
    defer { unlink(pidFile) }
    // SIGKILL: the command itself; SIGTERM: a program it leaves in a session of its own, whose
    // parent (setsid's fork) is gone at once.
    let command =
      signal == SIGKILL
      ? #"["sh", "-c", "echo $$ > \"$PID_FILE\"; exec sleep 60"]"#
      : #"["setsid", "-f", "sh", "-c", "echo $$ > \"$PID_FILE\"; exec sleep 60"]"#
    let fixture = try DaemonFixture(
      config: """
        chain = ["command"]
        [command]
        play = \(command)

        """, environment: ["PID_FILE": pidFile])
    #expect(try fixture.send("remoteControl", "play") == "command")
    try fixture.waitFor("the command to start") {
      (try? String(contentsOfFile: pidFile, encoding: .utf8))?.hasSuffix("\n") == true
    }
    let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).dropLast()))
    #expect(processIsRunning(pid))
    if signal == SIGTERM {
      // Its own session: the daemon's process group signal cannot reach it.
      #expect(getsid(pid) == pid)
    }
    fixture.daemon.signal(signal)
    try fixture.waitFor("responderd to exit", timeout: 10) { !fixture.daemon.isRunning }
    try fixture.waitFor("sleep (pid \(pid)) to end with the daemon") { !processIsRunning(pid) }
  }

  @Test func aClearMessageWhenTheDaemonIsNotRunning() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()
    for arguments in [
      ["status"], ["chain"], ["monitor"], ["send", "motion", "began"], ["respond", "--", "true"],
    ] {
      let result = try ChildProcess.run(
        [try responderctl()] + arguments, environment: bus.environment, loop: loop)
      #expect(result.exitCode == 69, "\(arguments): \(result)")
      #expect(
        result.output
          == "responderctl: responderd is not running on the session bus (org.responderd.Daemon1 has no owner on \(bus.address))\n",
        "\(arguments)")
    }
    let json = try ChildProcess.run(
      [try responderctl(), "status", "--json"], environment: bus.environment, loop: loop)
    #expect(
      json.output.hasPrefix("{\"running\": false, \"error\": \"responderd is not running on the session bus"))

    let noBus = try ChildProcess.run(
      [try responderctl(), "status"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"],
      loop: loop)
    #expect(noBus.exitCode == 69)
    #expect(
      noBus.output.hasPrefix(
        "responderctl: responderd is not running on the session bus (cannot connect to unix:path=/nonexistent/bus:"
      ))
  }
}
