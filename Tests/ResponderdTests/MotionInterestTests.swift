import DBus
import DBusTestSupport
import EventLoop
import ResponderClient
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import Testing

/// `Service.motionInterest` and `addMotionInterestObserver`, with the responder API in this process on
/// a private bus.
@Suite(.serialized) struct MotionInterestTests {
  func service(_ toml: String, bus: PrivateBus, loop: EventLoop) throws -> Service {
    let (logger, _) = recordingLogger()
    let service = Service(
      config: try ResponderdConfig.parse(toml, file: "test.toml"), loop: loop, logger: logger)
    let busComponent = BusComponent(address: bus.address)
    service.bus = busComponent
    service.add(busComponent)
    service.add(ResponderAPI())
    return service
  }

  @Test func handlersAskForMotionOnlyWithAShakeCommand() throws {
    let bus = try PrivateBus(start: false)
    let loop = try EventLoop()
    let logOnly = try service(
      "chain = [\"command\", \"log\"]\n[command]\nnextTrack = [\"true\"]\n", bus: bus, loop: loop)
    logOnly.start()
    #expect(!logOnly.motionInterest, "log takes motion events but does not ask for them")
    let shake = try service(
      "chain = [\"command\", \"log\"]\n[command]\nshakeBegan = [\"true\"]\n", bus: bus, loop: loop)
    shake.start()
    #expect(shake.motionInterest)
  }

  @Test func applicationsRegisteredForMotionTurnItOnAndLeavingTurnsItOff() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()
    let service = try service("chain = [\"log\"]\n", bus: bus, loop: loop)
    var changes: [Bool] = []
    service.addMotionInterestObserver { changes.append($0) }
    service.start()
    #expect(!service.motionInterest)

    let remote = try bus.connect(loop: loop)
    var owner: String?
    remote.watchNameOwner(ResponderBusAPI.daemonName) { owner = $0 }
    #expect(loop.run(until: { owner != nil }, timeout: 5), "the service owns its name")
    _ = try daemonCall(remote, "RegisterResponder", [.objectPath("/r"), ["remoteControl"].dbusValue]).get()
    #expect(!service.motionInterest && changes.isEmpty)

    let shaker = try bus.connect(loop: loop)
    let id = try daemonCall(shaker, "RegisterResponder", [.objectPath("/s"), ["motion"].dbusValue]).get()[0]
    #expect(service.motionInterest && changes == [true])
    _ = try daemonCall(shaker, "UnregisterResponder", [id]).get()
    #expect(!service.motionInterest && changes == [true, false])

    let second = try bus.connect(loop: loop)
    _ = try daemonCall(
      second, "RegisterResponder", [.objectPath("/s"), ["motion", "remoteControl"].dbusValue]
    ).get()
    #expect(changes == [true, false, true])
    second.close()
    #expect(loop.run(until: { changes == [true, false, true, false] }, timeout: 5), "\(changes)")
    #expect(!service.motionInterest)
    for component in service.components.reversed() { component.stop() }
  }
}
