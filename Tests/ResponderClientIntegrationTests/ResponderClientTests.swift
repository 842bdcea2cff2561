import DBus
import DBusTestSupport
import EventLoop
import Foundation
import ResponderClient
import ResponderCore
import Testing

/// A responder of an app's own chain that handles play and records what reaches it.
final class PlayButton: Responder {
  let app: Application
  var seen: [String] = []
  init(app: Application) { self.app = app }
  override var next: Responder? { app }
  override var canBecomeFirstResponder: Bool { true }
  override func remoteControlReceived(with event: Event?) {
    seen.append(event!.subtype.name)
    if event?.subtype != .remoteControlPlay { super.remoteControlReceived(with: event) }
  }
}

/// The client library and the example app against the real daemon on a private bus.
@Suite(.serialized) struct ResponderClientTests {
  static let config = "chain = [\"command\", \"log\"]\n[command]\nnextTrack = [\"true\"]\n"

  func send(_ fixture: DaemonFixture, _ type: String, _ subtype: String, _ phase: String = "") throws
    -> String
  {
    try fixture.connection.callAndWait(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface, method: "SendEvent",
      arguments: [.string(type), .string(subtype), .string(phase)], timeout: 5
    ).first?.string ?? "?"
  }

  func chainNames(_ fixture: DaemonFixture) throws -> [String] {
    let values = try fixture.connection.callAndWait(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: "org.freedesktop.DBus.Properties", method: "Get",
      arguments: [.string(ResponderBusAPI.daemonInterface), "Chain"], timeout: 5)
    return (values.first?.elements ?? []).compactMap { $0.dictionary?["name"]?.string }
  }

  @Test func shakeToUndoPopsItsUndoStackOnShake() throws {
    let fixture = try DaemonFixture(config: Self.config)
    let example = try ChildProcess(
      [try BuiltProducts.path(of: "shake-to-undo"), "typed hello", "made it bold"],
      environment: fixture.bus.environment, stdout: .capture, stderr: .capture)
    var output = ""
    let source = try fixture.loop.register(fd: example.outputDescriptor, events: .readable) { _ in
      _ = example.readAvailable()
      output += example.takeBufferedOutput()
    }
    defer { source.remove() }
    try fixture.waitFor("the example to be first responder") {
      output.contains("first responder: shake to undo")
    }
    #expect(output.hasPrefix("undo stack: typed hello, made it bold\n"))
    #expect(output.contains("registered with responderd as responder 1\n"))

    let responderctl = try BuiltProducts.path(of: "responderctl")
    let shake = try fixture.run([responderctl, "send", "motion", "began"])
    #expect(shake.output == "motion motionShake began: handled by shake-to-undo#1\n")
    try fixture.waitFor("the undo") { output.contains("undo: made it bold (1 left)\n") }
    #expect(
      try fixture.run([responderctl, "send", "motion", "ended"]).output.hasSuffix(
        "handled by shake-to-undo#1\n"))
    _ = try fixture.run([responderctl, "send", "motion", "began"])
    _ = try fixture.run([responderctl, "send", "motion", "began"])
    try fixture.waitFor("the stack to be empty") { output.contains("nothing to undo\n") }
    #expect(
      output.split(separator: "\n").suffix(4) == [
        "undo: made it bold (1 left)", "shake ended", "undo: typed hello (0 left)", "nothing to undo",
      ])
    // Remote-control events are not its business.
    #expect(
      try fixture.run([responderctl, "send", "remote-control", "nextTrack"]).output.hasSuffix("command\n"))

    example.signal(SIGTERM)
    try fixture.waitFor("the example to exit") { !example.isRunning }
    #expect(ChildProcess.exitedSuccessfully(try example.waitForExit(timeout: 1)))
    _ = example.readAvailable()
    output += example.takeBufferedOutput()
    #expect(output.hasSuffix("bye\n"))
    #expect(try chainNames(fixture) == ["command", "log"])
    #expect(fixture.log.contains("shake-to-undo#1 (") && fixture.log.contains("removed: unregistered"))
  }

  @Test func closuresReceiveTheEventsAndDecide() throws {
    let fixture = try DaemonFixture(config: Self.config)
    let client = try ResponderClient(
      connection: try fixture.bus.connect(loop: fixture.loop), eventTypes: [.remoteControl, .motion])
    var received: [ResponderEvent] = []
    client.onEvent = { event in
      received.append(event)
      return event.subtype == .remoteControlPlay || event.phase == .began
    }
    var registered: UInt32?
    client.register(becomeFirstResponder: true) { registered = try? $0.get() }
    try fixture.waitFor("first responder") { client.isFirstResponder }
    let name = try #require(try chainNames(fixture).first)
    #expect(name.hasSuffix("#\(registered ?? 0)") && client.id == registered)

    #expect(try send(fixture, "remoteControl", "play") == name)
    #expect(try send(fixture, "remoteControl", "nextTrack") == "command")
    #expect(try send(fixture, "motion", "motionShake", "began") == name)
    #expect(try send(fixture, "motion", "motionShake", "cancelled") == "")
    #expect(
      received.map(\.description) == [
        "remoteControl/play", "remoteControl/nextTrack", "motion/motionShake/began",
        "motion/motionShake/cancelled",
      ])
    #expect(received.allSatisfy { $0.timestamp > 0 })

    var resigned: Bool?
    client.resignFirstResponder { resigned = try? $0.get() }
    try fixture.waitFor("the resignation") { resigned != nil }
    #expect(resigned == true && !client.isFirstResponder)
    var unregistered = false
    client.unregister { _ in unregistered = true }
    try fixture.waitFor("unregistration") { unregistered }
    #expect(try chainNames(fixture) == ["command", "log"])
  }

  @Test func anApplicationsOwnChainDecidesWithTheApplicationRoute() throws {
    let fixture = try DaemonFixture(config: Self.config)
    let app = Application(scheduler: fixture.loop.scheduler)
    let button = PlayButton(app: app)
    #expect(button.becomeFirstResponder())
    let client = try ResponderClient(
      connection: try fixture.bus.connect(loop: fixture.loop), eventTypes: [.remoteControl])
    client.application = app
    client.register(becomeFirstResponder: true)
    try fixture.waitFor("first responder") { client.isFirstResponder }
    let name = try #require(try chainNames(fixture).first)

    // Like UIKit: nothing until the app begins receiving remote-control events.
    #expect(try send(fixture, "remoteControl", "play") == "")
    app.beginReceivingRemoteControlEvents()
    #expect(try send(fixture, "remoteControl", "play") == name)
    #expect(try send(fixture, "remoteControl", "pause") == "")
    #expect(button.seen == ["play", "pause"])
  }

  @Test func theClientRegistersAgainWhenResponderdRestarts() throws {
    let fixture = try DaemonFixture(config: Self.config)
    let client = try ResponderClient(
      connection: try fixture.bus.connect(loop: fixture.loop), eventTypes: [.remoteControl])
    client.onEvent = { _ in true }
    var lost = 0
    var registrations: [UInt32] = []
    client.addObserver { event in
      switch event {
      case .daemonLost: lost += 1
      case .registered(let id): registrations.append(id)
      case .firstResponderChanged: break
      }
    }
    client.register(becomeFirstResponder: true)
    try fixture.waitFor("first responder") { client.isFirstResponder }

    #expect(try fixture.stopDaemon() == 0)
    try fixture.waitFor("the client to notice") { lost == 1 }
    #expect(client.id == nil && !client.isFirstResponder)
    try fixture.startDaemonAgain()
    try fixture.waitFor("the client to register again and become first responder") {
      registrations.count == 2 && client.isFirstResponder
    }
    let name = try #require(try chainNames(fixture).first)
    #expect(try send(fixture, "remoteControl", "stop") == name)
  }

  @Test func shakesFollowTheWindowThatSaidActiveLastAlsoAfterARestart() throws {
    let fixture = try DaemonFixture(config: Self.config)
    func editor(_ path: String) throws -> (ResponderClient, () -> Int) {
      let client = try ResponderClient(
        connection: try fixture.bus.connect(loop: fixture.loop), path: path, eventTypes: [.motion])
      var shakes = 0
      client.onEvent = { event in
        if event.phase == .began { shakes += 1 }
        return true
      }
      return (client, { shakes })
    }
    let (first, firstShakes) = try editor("/org/example/First")
    let (second, secondShakes) = try editor("/org/example/Second")
    // Said before registering: told at registration.
    first.setActive(true)
    first.register()
    second.register()
    try fixture.waitFor("the first window to be first responder") { first.isFirstResponder }
    #expect(try send(fixture, "motion", "motionShake", "began").hasSuffix("#\(first.id ?? 0)"))

    // The focus moves: the second says active before the first says inactive.
    var accepted: Bool?
    second.setActive(true) { accepted = try? $0.get() }
    try fixture.waitFor("the second window to take over") { accepted != nil && !first.isFirstResponder }
    #expect(accepted == true && second.isFirstResponder && second.isActive == true)
    first.setActive(false)
    #expect(try send(fixture, "motion", "motionShake", "began").hasSuffix("#\(second.id ?? 0)"))
    #expect(firstShakes() == 1 && secondShakes() == 1)

    // A restarted responderd is told again which window is active.
    #expect(try fixture.stopDaemon() == 0)
    try fixture.startDaemonAgain()
    try fixture.waitFor("both registered again, the second first responder") {
      first.id != nil && second.id != nil && second.isFirstResponder
    }
    #expect(try send(fixture, "motion", "motionShake", "began").hasSuffix("#\(second.id ?? 0)"))
    #expect(firstShakes() == 1 && secondShakes() == 2)
  }

  @Test func eventsAreOnlyAcceptedFromResponderd() throws {
    let fixture = try DaemonFixture(config: Self.config)
    let connection = try fixture.bus.connect(loop: fixture.loop)
    let client = try ResponderClient(connection: connection, eventTypes: [.remoteControl])
    var called = false
    client.onEvent = { _ in
      called = true
      return true
    }
    var registered = false
    client.register { _ in registered = true }
    try fixture.waitFor("registration") { registered }
    let intruder = try fixture.bus.connect(loop: fixture.loop)
    #expect(throws: DBusError.self) {
      try intruder.callAndWait(
        destination: connection.uniqueName!, path: client.path, interface: ResponderBusAPI.responderInterface,
        method: "RemoteControlReceived", arguments: ["play", .double(1)], timeout: 5)
    }
    #expect(!called)
  }
}
