import EventTime
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// docs/design.md#events-and-responders-respondercore: the config holds the chain of handlers in
/// order; an event goes to the first handler that takes its type, a handler that does not handle
/// it passes it on to the next, and one that reaches the end unhandled is dropped, with who handled
/// it (or that nobody did) recorded. On the in-memory service and virtual time.
@Suite struct HandlerChainOrderTests {
  /// A handler of the given types that answers `handles`, later when `delay` is set.
  final class Scripted: Handler {
    let name: String
    let eventTypes: Set<EventType>
    let handles: Bool
    let delay: Seconds?
    let scheduler: any Scheduler
    let asked: Recorded<String>

    init(
      _ name: String, _ types: Set<EventType>, handles: Bool, delay: Seconds? = nil, scheduler: any Scheduler,
      asked: Recorded<String>
    ) {
      self.name = name
      eventTypes = types
      self.handles = handles
      self.delay = delay
      self.scheduler = scheduler
      self.asked = asked
    }

    func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
      asked.values.append("\(name) \(event.subtype.name)")
      guard let delay else { return decide(handles) }
      _ = scheduler.schedule(at: scheduler.now + delay) { [handles] in decide(handles) }
    }
  }

  let asked = Recorded<String>()

  /// A service whose chain is `chain`, from the handlers: `pass` (remote control and motion, never
  /// handles), `slow` (remote control, passes after 1 s), `motion` (motion, handles), `take`
  /// (remote control, handles).
  func service(chain: [String]) throws -> InMemoryService {
    var handlers = HandlerRegistry.builtIn
    let asked = asked
    handlers.register("pass") { context in
      Scripted("pass", [.remoteControl, .motion], handles: false, scheduler: context.scheduler, asked: asked)
    }
    handlers.register("slow") { context in
      Scripted("slow", [.remoteControl], handles: false, delay: 1, scheduler: context.scheduler, asked: asked)
    }
    handlers.register("motion") { context in
      Scripted("motion", [.motion], handles: true, scheduler: context.scheduler, asked: asked)
    }
    handlers.register("take") { context in
      Scripted("take", [.remoteControl], handles: true, scheduler: context.scheduler, asked: asked)
    }
    var config = ResponderdConfig()
    config.chain = chain
    let harness = try InMemoryService(config: config, handlers: handlers)
    harness.start()
    return harness
  }

  func post(_ harness: InMemoryService, _ subtype: EventSubtype) {
    harness.service.application.post(.remoteControl(subtype, timestamp: harness.time.now, source: "test"))
    harness.settle()
  }

  @Test func anEventGoesDownTheChainInConfigOrderToTheFirstHandlerThatHandlesIt() throws {
    let harness = try service(chain: ["pass", "motion", "take", "log"])
    #expect(harness.service.chain.responders.map(\.responderName) == ["pass", "motion", "take", "log"])
    post(harness, .remoteControlNextTrack)
    // `motion` does not take remote-control events: the event passes it (as a responder's default
    // forwards to next), it is not asked; `log` after the handler never sees it.
    #expect(asked.values == ["pass nextTrack", "take nextTrack"])
    #expect(harness.records.last?.handledBy == "take")
    #expect(harness.records.last?.receivedBy == ["pass", "motion", "take"])

    harness.service.application.post(
      .motion(.motionShake, timestamp: harness.time.now, source: "test"), phase: .began)
    harness.settle()
    #expect(asked.values.suffix(2) == ["pass motionShake", "motion motionShake"])
    #expect(harness.records.last?.handledBy == "motion")
  }

  @Test func theOrderIsTheConfigsNotTheRegistrys() throws {
    let harness = try service(chain: ["take", "pass"])
    post(harness, .remoteControlPlay)
    #expect(asked.values == ["take play"])
    #expect(harness.records.last?.receivedBy == ["take"])
  }

  @Test func anEventNobodyHandlesIsDroppedAtTheEndAndRecordedSo() throws {
    let harness = try service(chain: ["pass", "motion"])
    post(harness, .remoteControlStop)
    #expect(asked.values == ["pass stop"])
    #expect(harness.records.last?.handledBy == nil)
    #expect(harness.records.last?.wasDropped == true)
  }

  /// A handler that decides later holds the events behind it, in order; the one it passes on
  /// then goes on to the next handler.
  @Test func aHandlerDecidingLaterPassesItOnThenAndLaterEventsKeepTheirOrder() throws {
    let harness = try service(chain: ["slow", "take"])
    post(harness, .remoteControlPlay)
    post(harness, .remoteControlPause)
    #expect(asked.values == ["slow play"])
    #expect(harness.records.isEmpty)
    harness.time.advance(by: 1)
    #expect(asked.values == ["slow play", "take play", "slow pause"])
    #expect(harness.records.map(\.subtype) == [.remoteControlPlay])
    harness.time.advance(by: 1)
    #expect(harness.records.map(\.subtype) == [.remoteControlPlay, .remoteControlPause])
    #expect(harness.records.map(\.handledBy) == ["take", "take"])
    #expect(harness.records.last?.receivedBy == ["slow", "take"])
  }
}
