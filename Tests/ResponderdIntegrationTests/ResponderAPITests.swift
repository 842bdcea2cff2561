import DBus
import DBusTestSupport
import EventLoop
import Foundation
import ResponderClient
import ResponderCore
import Testing

/// The name the daemon gives to an application of this test process: `process#id`.
func appName(_ id: UInt32) -> String {
  let comm = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)) ?? "app"
  let name = String(comm.split(separator: "\n").first ?? "app").map { $0 == " " || $0 == "#" ? "-" : $0 }
  return String(name) + "#\(id)"
}

let commandAndLog = """
  chain = ["command", "log"]
  [command]
  nextTrack = ["true"]

  """

/// The D-Bus responder API against the real daemon on a private bus, with applications on their
/// own connections (and real processes where a process must stop or die).
@Suite(.serialized) struct ResponderAPITests {
  @Test func chainOrderFirstResponderChangesHandledStopsUnhandledFallsThrough() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let watcher = try DaemonWatcher(fixture)
    let a = try TestApp(fixture, path: "/test/A") {
      $0.subtype == .remoteControlPlay ? .handled : .notHandled
    }
    let b = try TestApp(fixture, path: "/test/B") {
      $0.subtype == .remoteControlStop ? .handled : .notHandled
    }
    let aID = try a.register(["remoteControl"])
    let bID = try b.register(["remoteControl", "motion"])
    #expect(aID != bID)
    let (nameA, nameB) = (appName(aID), appName(bID))

    // No first responder: the most recently registered application first, then the handlers.
    #expect(try fixture.chainNames() == [nameB, nameA, "command", "log"])
    #expect(try fixture.send("remoteControl", "pause") == "")
    try watcher.waitForEvents(1)
    #expect(watcher.events[0].receivedBy == [nameB, nameA, "command", "log"])
    #expect(watcher.events[0].dropReason == "no responder handled it")
    #expect(a.received == ["RemoteControlReceived pause"] && b.received == ["RemoteControlReceived pause"])
    try fixture.waitFor("the log handler's line") { fixture.log.contains("event remoteControl/pause") }

    // Unhandled by the applications: the command handler takes it.
    #expect(try fixture.send("remoteControl", "nextTrack") == "command")
    // Handled by an application: it stops there.
    #expect(try fixture.send("remoteControl", "play") == nameA)
    try watcher.waitForEvents(3)
    #expect(watcher.events[1].receivedBy == [nameB, nameA, "command"])
    #expect(watcher.events[2].receivedBy == [nameB, nameA])

    // A becomes first responder: it sees events first.
    #expect(try a.becomeFirstResponder())
    #expect(try fixture.property("FirstResponder") == .uint32(aID))
    #expect(try fixture.chainNames() == [nameA, nameB, "command", "log"])
    #expect(try fixture.send("remoteControl", "stop") == nameB)
    #expect(try fixture.send("remoteControl", "play") == nameA)
    try watcher.waitForEvents(5)
    #expect(watcher.events[3].receivedBy == [nameA, nameB])
    #expect(watcher.events[4].receivedBy == [nameA])
    #expect(b.received.count == 4, "B is not asked about an event A handled: \(b.received)")

    // B takes over (A has no CanResignFirstResponder: UIKit's default, true).
    #expect(try b.becomeFirstResponder())
    #expect(try fixture.chainNames() == [nameB, nameA, "command", "log"])
    #expect(try fixture.send("remoteControl", "play") == nameA)
    try watcher.waitForEvents(6)
    #expect(watcher.events[5].receivedBy == [nameB, nameA])

    // Motion events skip A (remote control only) and reach B, first.
    #expect(try fixture.send("motion", "motionShake", phase: "ended") == "")
    try watcher.waitForEvents(7)
    #expect(watcher.events[6].phase == "ended")
    #expect(b.received.last == "MotionEnded motionShake")
    #expect(!a.received.contains { $0.hasPrefix("Motion") })

    // B leaves the bus: removed at once, and A is first responder again (a stack).
    b.connection.close()
    try fixture.waitFor("A to be first responder again") { watcher.firstResponders.last == aID }
    #expect(watcher.firstResponders == [aID, bID, aID])
    #expect(try fixture.chainNames() == [nameA, "command", "log"])
    #expect(fixture.log.contains("left the bus"))

    // A resigns: nobody is first responder, A stays in the chain.
    #expect(try a.resignFirstResponder())
    try fixture.waitFor("no first responder") { watcher.firstResponders.last == 0 }
    #expect(try fixture.chainNames() == [nameA, "command", "log"])
    #expect(try daemonCall(a.connection, "UnregisterResponder", [.uint32(aID)]).get() == [])
    #expect(try fixture.chainNames() == ["command", "log"])
  }

  @Test func eventDispatchedHasTheDocumentedFourArguments() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    var plain: [DBusMessage] = []
    let subscription = fixture.connection.onSignal(
      sender: fixture.daemonName, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface,
      member: "EventDispatched"
    ) { plain.append($0) }
    defer { subscription.cancel() }
    _ = try daemonCall(fixture.connection, "WatchEvents").get()
    #expect(try fixture.send("remoteControl", "nextTrack") == "command")
    #expect(try fixture.send("motion", "motionShake", phase: "ended") == "")
    try fixture.waitFor("two EventDispatched signals") { plain.count == 2 }
    #expect(plain.map(\.signature) == ["ssds", "ssds"])
    #expect(
      plain[0].arguments.map(\.unwrapped) == [
        .string("remoteControl"), .string("nextTrack"), plain[0].arguments[2], .string("command"),
      ])
    #expect(plain[1].arguments[0] == .string("motion") && plain[1].arguments[3] == .string(""))
  }

  @Test func firstResponderFollowsUIKitDefaultsAndCanResign() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let watcher = try DaemonWatcher(fixture)
    let silent = try TestApp(fixture, path: "/test/Silent", canBecome: nil)
    let stubborn = try TestApp(fixture, path: "/test/Stubborn", canBecome: true, canResign: false)
    let other = try TestApp(fixture, path: "/test/Other", canBecome: true)
    try silent.register(["remoteControl"])
    let stubbornID = try stubborn.register(["remoteControl"])
    let otherID = try other.register(["remoteControl"])

    // Without a CanBecomeFirstResponder property: refused (UIKit's default is false).
    #expect(try !silent.becomeFirstResponder())
    #expect(try stubborn.becomeFirstResponder())
    // The first responder refuses to resign: the other one cannot take over, nor can it resign.
    #expect(try !other.becomeFirstResponder())
    #expect(try !stubborn.resignFirstResponder())
    #expect(try fixture.property("FirstResponder") == .uint32(stubbornID))
    // Unregistering always works; then the other one can.
    #expect(try daemonCall(stubborn.connection, "UnregisterResponder", [.uint32(stubbornID)]).get() == [])
    #expect(try other.becomeFirstResponder())
    #expect(try other.becomeFirstResponder(), "asking again is fine")
    try fixture.waitFor("the changes") { watcher.firstResponders == [stubbornID, 0, otherID] }
  }

  @Test func onlyTheRegisteringConnectionMayActOnAnIdAndArgumentsAreChecked() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let owner = try TestApp(fixture, path: "/test/Owner")
    let id = try owner.register(["remoteControl"])
    #expect(try owner.becomeFirstResponder())
    let intruder = try fixture.bus.connect(loop: fixture.loop)

    for method in ["ResignFirstResponder", "BecomeFirstResponder", "UnregisterResponder"] {
      let error = try daemonError(intruder, method, [.uint32(id)])
      #expect(error.name == "org.responderd.Daemon1.Error.NotOwner", "\(method): \(error)")
      #expect(error.message.contains("only that connection may act on it"))
    }
    #expect(try fixture.property("FirstResponder") == .uint32(id))
    #expect(try fixture.chainNames().first == appName(id))
    #expect(fixture.log.contains("refused ResignFirstResponder(\(id))"))

    #expect(
      try daemonError(intruder, "UnregisterResponder", [.uint32(999)]).name
        == "org.responderd.Daemon1.Error.UnknownResponder")
    #expect(
      try daemonError(
        owner.connection, "RegisterResponder", [.objectPath("/test/Owner"), ["motion"].dbusValue]
      )
      .name == "org.responderd.Daemon1.Error.AlreadyRegistered")
    let badType = try daemonError(intruder, "RegisterResponder", [.objectPath("/x"), ["touches"].dbusValue])
    #expect(badType.name == DBusError.Name.invalidArgs)
    #expect(badType.message.contains("unknown event type 'touches'"))
    #expect(
      try daemonError(intruder, "RegisterResponder", [.objectPath("/x"), [String]().dbusValue]).name
        == DBusError.Name.invalidArgs)
    let badSubtype = try daemonError(intruder, "SendEvent", ["remoteControl", "louder", ""])
    #expect(badSubtype.message.contains("unknown remoteControl subtype 'louder'; one of: play, pause"))
    #expect(
      try daemonError(intruder, "SendEvent", ["motion", "motionShake", "sideways"]).message.contains(
        "began, ended, cancelled"))
  }

  @Test func anAppThatNeverAnswersOrFailsOnlyCostsItsDeadlineAndOrderIsKept() throws {
    let deadline = 0.2
    let fixture = try DaemonFixture(config: commandAndLog + "[responders]\ndeadline = \(deadline)\n")
    let watcher = try DaemonWatcher(fixture)
    let hung = try TestApp(fixture, path: "/test/Hung") { _ in .never }
    let broken = try TestApp(fixture, path: "/test/Broken") { _ in .error }
    let good = try TestApp(fixture, path: "/test/Good") { _ in .handled }
    let goodID = try good.register(["remoteControl"])
    let brokenID = try broken.register(["remoteControl"])
    let hungID = try hung.register(["remoteControl"])
    #expect(try hung.becomeFirstResponder())

    // Three events at once: each waits for the hung app's deadline, then the broken one's error,
    // then the good one handles it; they come out in order.
    let start = monotonicNow()
    let subtypes = ["play", "pause", "stop"]
    let answers = subtypes.map { fixture.sendLater("remoteControl", $0) }
    try fixture.waitFor("the three answers", timeout: 10) { answers.allSatisfy { $0.handledBy != nil } }
    #expect(answers.map(\.handledBy) == Array(repeating: appName(goodID), count: 3))
    try watcher.waitForEvents(3)
    #expect(watcher.events.map(\.subtype) == subtypes)
    for event in watcher.events {
      #expect(event.receivedBy == [appName(hungID), appName(brokenID), appName(goodID)])
    }
    #expect(good.received == subtypes.map { "RemoteControlReceived \($0)" })
    // An event that reached the hung app waited its deadline there, and not much more. Its
    // connection then counts as hung until it answers a ping (issue 16): this one still answers
    // pings (only its handler hangs), so an event may pass it over while the ping is on its way.
    #expect(hung.received.first == "RemoteControlReceived play")
    var previous = start
    for index in 0..<3 {
      let waited = good.receivedAt[index] - previous
      let reachedHung = hung.received.contains("RemoteControlReceived \(subtypes[index])")
      if reachedHung {
        #expect(waited >= deadline * 0.9 && waited < deadline + 0.4, "event \(index) waited \(waited) s")
      } else {
        #expect(waited < deadline * 0.5, "event \(index) passed the hung app over, yet waited \(waited) s")
      }
      previous = good.receivedAt[index]
    }
    #expect(fixture.log.contains("missed a deadline (\(appName(hungID))): its registration is passed over"))
    #expect(monotonicNow() - start < 3 * deadline + 1)
    // Logged once per series of failures, not for every event.
    #expect(
      fixture.log.components(separatedBy: "no answer to RemoteControlReceived within 200 ms").count == 2)
    #expect(
      fixture.log.contains("RemoteControlReceived failed: org.example.App.Error.Broken: this app is broken"))
  }

  @Test func aStoppedProcessCostsItsDeadlineAndOneThatDiesMidCallIsRemovedAtOnce() throws {
    // A deadline far longer than the test: only the death can move the event on quickly.
    let fixture = try DaemonFixture(config: commandAndLog + "[responders]\ndeadline = 5\n")
    let watcher = try DaemonWatcher(fixture)
    let fallback = try TestApp(fixture, path: "/test/Fallback") { _ in .handled }
    let fallbackID = try fallback.register(["motion"])
    #expect(try fallback.becomeFirstResponder())
    let example = try RunningCommand(
      [try fixture.executable("shake-to-undo"), "only edit"], fixture: fixture)
    try example.waitForOutput("first responder") { $0.contains("first responder: shake to undo") }
    let names = try fixture.chainNames()
    #expect(names.count == 4 && names[0].hasPrefix("shake-to-undo#") && names[1] == appName(fallbackID))
    let monitor = try RunningCommand(
      ["dbus-monitor", "--address", fixture.bus.address, "interface='org.responderd.Responder1'"],
      fixture: fixture)
    try monitor.waitForOutput("dbus-monitor to start") {
      $0.contains("NameAcquired") || $0.contains("member=")
    }

    try example.process.freeze()
    let answer = fixture.sendLater("motion", "motionShake", phase: "began")
    try monitor.waitForOutput("the call to the stopped app") { $0.contains("member=MotionBegan") }
    #expect(answer.handledBy == nil)
    example.process.signal(SIGKILL)
    let killedAt = monotonicNow()
    try fixture.waitFor("the event to move on") { answer.handledBy != nil }
    #expect(answer.handledBy == appName(fallbackID))
    #expect(answer.at - killedAt < 2, "moved on \(answer.at - killedAt) s after the death")
    try watcher.waitForEvents(1)
    #expect(watcher.events[0].receivedBy == [names[0], appName(fallbackID)])
    // Removed, and the first responder before it is first responder again.
    try fixture.waitFor("the fallback to be first responder again") {
      watcher.firstResponders.last == fallbackID
    }
    #expect(try fixture.chainNames() == [appName(fallbackID), "command", "log"])
  }

  @Test func aStoppedRespondProcessIsSkippedAfterTheDeadline() throws {
    let deadline = 0.3
    let fixture = try DaemonFixture(config: commandAndLog + "[responders]\ndeadline = \(deadline)\n")
    let respond = try RunningCommand(
      [try fixture.executable("responderctl"), "respond", "--events", "remote-control", "--", "true"],
      fixture: fixture)
    try respond.waitForOutput("first responder") { $0.contains("is the first responder") }
    #expect(try fixture.send("remoteControl", "nextTrack").hasPrefix("responderctl#"))
    try respond.process.freeze()
    let start = monotonicNow()
    #expect(try fixture.send("remoteControl", "nextTrack") == "command")
    let waited = monotonicNow() - start
    #expect(waited >= deadline * 0.9 && waited < deadline + 0.5, "waited \(waited) s")
    // Passed over while it does not answer: no second deadline (issue 16).
    let again = monotonicNow()
    #expect(try fixture.send("remoteControl", "nextTrack") == "command")
    #expect(monotonicNow() - again < deadline * 0.9)
    respond.process.signal(SIGCONT)
    // Running again, it answers the ping the daemon sent when it missed the deadline.
    try fixture.waitFor("the daemon to hear it again", timeout: 10) {
      // Its late answer to the event or its answer to the ping: either brings it back.
      fixture.log.contains("its registrations take events again")
    }
    let handler = try fixture.send("remoteControl", "nextTrack")
    #expect(handler.hasPrefix("responderctl#"), "\(handler)\n\(fixture.log)")
    respond.process.signal(SIGTERM)
    #expect(try respond.waitForExit() == 0)
    #expect(try fixture.chainNames() == ["command", "log"])
  }

  @Test func shakesGoToTheAppWhoseWindowIsActiveAndTheLatestClaimWins() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let watcher = try DaemonWatcher(fixture)
    // A legacy application that never says anything of its focus, first responder the old way.
    let legacy = try TestApp(fixture, path: "/test/Legacy") { _ in .handled }
    let editorA = try TestApp(fixture, path: "/test/EditorA") { _ in .handled }
    let editorB = try TestApp(fixture, path: "/test/EditorB") { $0.type == .motion ? .handled : .notHandled }
    let legacyID = try legacy.register(["motion"])
    let aID = try editorA.register(["motion", "remoteControl"])
    let bID = try editorB.register(["motion"])
    #expect(try legacy.becomeFirstResponder())
    #expect(
      try fixture.chainFocus() == [
        appName(legacyID): "undeclared", appName(aID): "undeclared",
        appName(bID): "undeclared",
      ])

    // A's window becomes active: A is first responder and gets the shake.
    #expect(try editorA.setActive(true))
    #expect(try fixture.property("FirstResponder") == .uint32(aID))
    #expect(try fixture.send("motion", "motionShake", phase: "began") == appName(aID))

    // B's window becomes active (A's "inactive" has not come yet): the latest claim wins.
    #expect(try editorB.setActive(true))
    #expect(try fixture.chainFocus()[appName(aID)] == "inactive")
    #expect(try fixture.chainFocus()[appName(bID)] == "active")
    editorB.answer = { _ in .notHandled }
    // B does not handle it: it goes on, past A (inactive), to the legacy application.
    #expect(try fixture.send("motion", "motionShake", phase: "began") == appName(legacyID))
    #expect(editorA.received == ["MotionBegan motionShake"])
    #expect(editorB.received == ["MotionBegan motionShake"])
    // No motion event at all for A; remote control does not follow focus.
    #expect(try fixture.send("motion", "motionShake", phase: "ended") == appName(legacyID))
    #expect(editorA.received == ["MotionBegan motionShake"])
    #expect(try fixture.send("remoteControl", "play") == appName(aID))

    // Focus moves to a window of an application that does not take part: both inactive.
    // Still first responder (for what does not follow focus), but no shake begins with it.
    #expect(try editorB.setActive(false))
    editorB.answer = { _ in .handled }
    #expect(try fixture.send("motion", "motionShake", phase: "began") == appName(legacyID))
    #expect(editorB.received.count == 2 && editorA.received.count == 2)

    // Inactive applications do not keep the accelerometer open; an active one does.
    #expect(try daemonCall(legacy.connection, "UnregisterResponder", [.uint32(legacyID)]).get() == [])
    try fixture.waitFor("MotionInterest false with both windows inactive") {
      watcher.motionInterest.last == false
    }
    #expect(try editorA.setActive(true))
    try fixture.waitFor("MotionInterest true again") { watcher.motionInterest.last == true }
    #expect(try fixture.send("motion", "motionShake", phase: "began") == appName(aID))
    #expect(
      fixture.log.contains("\(appName(aID))'s window is inactive: \(appName(bID)) says its window is active"))
    #expect(
      try daemonError(editorA.connection, "SetActive", [.uint32(bID), .bool(true)]).name
        == "org.responderd.Daemon1.Error.NotOwner")
  }

  /// A window whose focus flaps (200 changes as fast as the bus takes them) writes a bounded
  /// number of log lines: its focus lines and the motion interest's, 5 of each kind a minute.
  @Test func aFocusThatFlapsWritesABoundedLog() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let app = try TestApp(fixture, path: "/test/Flapping")
    let id = try app.register(["motion"])
    #expect(try app.setActive(true))
    for _ in 0..<100 {
      _ = try app.setActive(false)
      #expect(try app.setActive(true))
    }
    try fixture.waitFor("the fifth focus line") {
      fixture.log.contains("\(appName(id))'s window is active (more like it within 60 s are not logged)")
    }
    let lines = fixture.log.split(separator: "\n")
    let focusLines = lines.filter { $0.contains("\(appName(id))'s window is") }
    #expect(focusLines.count == 5, "\(focusLines)")
    #expect(focusLines.last?.hasSuffix("(more like it within 60 s are not logged)") == true)
    #expect(lines.count { $0.hasSuffix("motion: wanted") || $0.hasSuffix("motion: no longer wanted") } <= 5)
    #expect(
      lines.count { $0.contains("iio: motion wanted by") || $0.contains("iio: no responder wants") } <= 5)
    #expect(lines.count < 60, "\(lines.count) lines:\n\(lines.joined(separator: "\n"))")
  }

  @Test func motionInterestFollowsRegistrations() throws {
    let fixture = try DaemonFixture(config: commandAndLog)
    let watcher = try DaemonWatcher(fixture)
    #expect(try fixture.property("MotionInterest") == .bool(false))
    let remote = try TestApp(fixture, path: "/test/Remote")
    try remote.register(["remoteControl"])
    #expect(try fixture.property("MotionInterest") == .bool(false))
    let shaker = try TestApp(fixture, path: "/test/Shaker")
    try shaker.register(["motion"])
    try fixture.waitFor("MotionInterest true") { watcher.motionInterest == [true] }
    shaker.connection.close()
    try fixture.waitFor("MotionInterest false") { watcher.motionInterest == [true, false] }
    #expect(fixture.log.contains("motion: wanted"))

    let withShakeCommand = try DaemonFixture(config: commandAndLog + "motionBegan = [\"true\"]\n")
    #expect(try withShakeCommand.property("MotionInterest") == .bool(true))
  }
}

/// The caller check: only processes of the daemon's own user are answered.
@Suite(.serialized) struct CallerCheckTests {
  @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user (setpriv)"))
  func callsFromAnotherUserAreRefused() throws {
    let fixture = try DaemonFixture(config: commandAndLog, busForAllUsers: true)
    // Every interface the daemon exports, its properties and the MPRIS proxy player included:
    // another user could dispatch events through the proxy and read the chain (issue 16).
    let daemon = ["org.responderd.Daemon1", "/org/responderd/Daemon1"]
    let proxy = ["org.mpris.MediaPlayer2.responderd", "/org/mpris/MediaPlayer2"]
    for (object, method, arguments) in [
      (daemon, "org.responderd.Daemon1.SendEvent", ["string:remoteControl", "string:nextTrack", "string:"]),
      (daemon, "org.responderd.Daemon1.RegisterResponder", ["objpath:/x", "array:string:motion"]),
      (daemon, "org.freedesktop.DBus.Properties.Get", ["string:org.responderd.Daemon1", "string:Chain"]),
      (daemon, "org.freedesktop.DBus.Properties.GetAll", ["string:org.responderd.Daemon1"]),
      (daemon, "org.freedesktop.DBus.Introspectable.Introspect", []),
      // Motion1 too: samples and the orientation are the user's (issue 18).
      (daemon, "org.responderd.Motion1.StartAccelerometerUpdates", ["double:0.1"]),
      (daemon, "org.responderd.Motion1.BeginGeneratingDeviceOrientationNotifications", []),
      (
        daemon, "org.freedesktop.DBus.Properties.Get",
        ["string:org.responderd.Motion1", "string:DeviceOrientation"]
      ),
      (proxy, "org.mpris.MediaPlayer2.Player.Next", []),
      (proxy, "org.mpris.MediaPlayer2.Player.PlayPause", []),
      (
        proxy, "org.freedesktop.DBus.Properties.Get",
        ["string:org.mpris.MediaPlayer2.Player", "string:Metadata"]
      ),
    ] {
      let result = try fixture.run(
        [
          "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "dbus-send",
          "--bus=\(fixture.bus.address)", "--print-reply", "--dest=\(object[0])", object[1], method,
        ] + arguments)
      #expect(result.exitCode != 0)
      #expect(
        result.output.contains("org.freedesktop.DBus.Error.AccessDenied")
          && result.output.contains("runs as uid 65534: responderd (uid 0) answers its own user only"),
        "\(method): \(result.output)")
    }
    // Logged once per connection, naming the call; nothing was dispatched.
    #expect(fixture.log.contains("refused org.responderd.Daemon1.SendEvent from :1."))
    #expect(!fixture.log.contains("nextTrack"))
    // Its own user still gets an answer.
    #expect(try fixture.send("remoteControl", "nextTrack") == "command")
  }
}
