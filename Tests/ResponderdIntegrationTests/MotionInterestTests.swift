import DBus
import DBusTestSupport
import EventLoop
import ResponderClient
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import Testing

/// `MotionInterest`: what the chain asks for, and the applications the responder API counts in
/// it, with the responder API in this process on a private bus.
@Suite(.serialized) struct MotionInterestTests {
  func service(_ toml: String, bus: PrivateBus, loop: EventLoop) throws -> (LoopService, MotionInterest) {
    let harness = try LoopService(
      config: try ResponderdConfig.parse(toml, file: "test.toml"), loop: loop, logger: recordingLogger().0,
      busAddress: bus.address)
    let interest = MotionInterest(chain: harness.service.chain, logger: harness.service.logger)
    harness.add(harness.service.responderAPI(bus: harness.bus, session: nil, motionInterest: interest))
    return (harness, interest)
  }

  @Test func handlersAskForMotionOnlyWithAShakeCommand() throws {
    let bus = try PrivateBus(start: false)
    let loop = try EventLoop()
    let (logOnly, logOnlyInterest) = try service(
      "chain = [\"command\", \"log\"]\n[command]\nnextTrack = [\"true\"]\n", bus: bus, loop: loop)
    logOnly.start()
    #expect(!logOnlyInterest.isWanted, "log takes motion events but does not ask for them")
    let (shake, shakeInterest) = try service(
      "chain = [\"command\", \"log\"]\n[command]\nmotionBegan = [\"true\"]\n", bus: bus, loop: loop)
    shake.start()
    #expect(shakeInterest.isWanted)
  }

  @Test func applicationsRegisteredForMotionTurnItOnAndLeavingTurnsItOff() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()
    let (service, interest) = try service("chain = [\"log\"]\n", bus: bus, loop: loop)
    var changes: [Bool] = []
    interest.addObserver { changes.append($0) }
    service.start()
    #expect(!interest.isWanted)

    let remote = try bus.connect(loop: loop)
    var owner: String?
    remote.watchNameOwner(ResponderBusAPI.daemonName) { owner = $0 }
    #expect(loop.run(until: { owner != nil }, timeout: 5), "the service owns its name")
    _ = try daemonCall(remote, "RegisterResponder", [.objectPath("/r"), ["remoteControl"].dbusValue]).get()
    #expect(!interest.isWanted && changes.isEmpty)

    let shaker = try bus.connect(loop: loop)
    let id = try daemonCall(shaker, "RegisterResponder", [.objectPath("/s"), ["motion"].dbusValue]).get()[0]
    #expect(interest.isWanted && changes == [true])
    _ = try daemonCall(shaker, "UnregisterResponder", [id]).get()
    #expect(!interest.isWanted && changes == [true, false])

    let second = try bus.connect(loop: loop)
    _ = try daemonCall(
      second, "RegisterResponder", [.objectPath("/s"), ["motion", "remoteControl"].dbusValue]
    ).get()
    #expect(changes == [true, false, true])
    second.close()
    #expect(loop.run(until: { changes == [true, false, true, false] }, timeout: 5), "\(changes)")
    #expect(!interest.isWanted)
    service.stop()
  }
}
