import EventLoop
import EventTime
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import Testing

/// The daemon's components start after those they use, and the inputs after the session that
/// holds them until logind answers.
@Suite struct StartOrderTests {
  let components: StandardComponents

  init() throws {
    let (logger, _) = recordingLogger()
    let service = Service(
      config: ResponderdConfig(), loop: try EventLoop(), scheduler: VirtualScheduler(), logger: logger)
    components = StandardComponents(service: service)
  }

  @Test func theStandardStartOrderStartsEachComponentAfterWhatItUses() {
    #expect(StandardComponents.startOrderProblems(components.startOrder) == [])
    #expect(components.startOrder.count == 11)
  }

  @Test func keysBeforeTheSessionAreFound() {
    var order = components.startOrder
    order.removeAll { $0 === components.keys }
    order.insert(components.keys, at: 1)
    #expect(
      StandardComponents.startOrderProblems(order) == ["evdev starts before session, which it uses"])
  }

  @Test func aComponentBeforeTheBusItServesOnIsFound() {
    var order = components.startOrder
    order.removeAll { $0 === components.mpris }
    order.insert(components.mpris, at: 0)
    #expect(StandardComponents.startOrderProblems(order) == ["mpris starts before bus, which it uses"])
  }

  @Test func aComponentWhoseDependencyDoesNotStartIsFound() {
    let order = components.startOrder.filter { $0 !== components.motion }
    #expect(
      StandardComponents.startOrderProblems(order) == [
        "motion-api uses iio, which does not start", "touch uses iio, which does not start",
        "undo uses iio, which does not start",
      ])
  }
}
