import EventLoop
import EventTime
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// A service let go is gone with everything it made: no reference cycle keeps its application,
/// chain or events (`scripts/test`, under LeakSanitizer, finds the ones these tests do not name).
@Suite struct ServiceTeardownTests {
  func makeService(_ toml: String, scheduler: VirtualScheduler, bus: InMemoryBus? = nil) throws -> Service {
    let config = try ResponderdConfig.parse(toml, file: "test.toml")
    let (logger, _) = recordingLogger()
    let service = Service(config: config, loop: try EventLoop(), scheduler: scheduler, logger: logger)
    if let bus {
      let component = BusComponent(bus: bus.connect(), logger: logger)
      service.add(component)
      service.add(service.responderAPI(bus: component, session: nil, motionInterest: nil))
    }
    return service
  }

  /// The chain's handlers lead back to the application, which starts events at the first of them:
  /// neither owns the other.
  @Test func aStartedServiceWithAChainIsReleased() throws {
    weak var weakService: Service?
    weak var weakApplication: Application?
    weak var weakHandler: Responder?
    do {
      let service = try makeService("chain = [\"command\", \"log\"]\n", scheduler: VirtualScheduler())
      service.start()
      service.application.post(.remoteControl(.remoteControlPlay, timestamp: 1))
      #expect(service.chain.responders.count == 2)
      weakService = service
      weakApplication = service.application
      weakHandler = service.chain.responders.first
    }
    #expect(weakService == nil)
    #expect(weakApplication == nil)
    #expect(weakHandler == nil)
  }

  /// Stopped while a hung application holds an event: the event goes no further (not even at the
  /// call's deadline), and the service, the application and the event are released.
  @Test func aServiceStoppedWhileAnApplicationDecidesIsReleased() throws {
    let time = VirtualScheduler(now: 50)
    let bus = InMemoryBus(scheduler: time)
    let hung = try BusApp(on: bus) { _ in nil }
    var records: [DispatchRecord] = []
    weak var weakService: Service?
    weak var weakApplication: Application?
    weak var weakEvent: Event?
    do {
      let service = try makeService(
        "chain = [\"log\"]\n[log]\nhandles = true\n[responders]\ndeadline = 0.2\n", scheduler: time, bus: bus)
      service.events.addDispatchObserver { records.append($0) }
      service.start()
      time.advance(by: 0)
      let reply = hung.daemonCall("RegisterResponder", [.objectPath(hung.path), ["remoteControl"].dbusValue])
      time.advance(by: 0)
      #expect(try reply()?.get().count == 1)
      let event = Event.remoteControl(.remoteControlPlay, timestamp: time.now, source: "test")
      weakEvent = event
      service.application.post(event)
      time.advance(by: 0)
      #expect(hung.received == ["play"])
      service.stop()
      weakService = service
      weakApplication = service.application
    }
    time.advance(by: 1)
    #expect(records.isEmpty, "nothing is dispatched after the service stopped")
    #expect(weakService == nil)
    #expect(weakApplication == nil)
    #expect(weakEvent == nil)
  }
}
