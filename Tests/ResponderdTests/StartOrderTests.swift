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

  /// Each component hears of every later one's start, in order, before the loop runs: the bus
  /// moves its handshake on there, so that the daemon's name is owned while the others start.
  @Test func eachComponentHearsOfTheLaterOnesStarting() throws {
    final class SharedLog { var lines: [String] = [] }
    struct StartFailed: Error {}
    final class Recorder: ServiceComponent {
      let componentName: String
      let log: SharedLog
      init(_ name: String, _ log: SharedLog) {
        componentName = name
        self.log = log
      }
      var dependencies: [ServiceComponent] { [] }
      func start() throws {
        log.lines.append("\(componentName) starts")
        if componentName == "failing" { throw StartFailed() }
      }
      func stop() {}
      func laterComponentStarted() { log.lines.append("\(componentName) hears") }
    }
    let (logger, _) = recordingLogger()
    let service = Service(
      config: ResponderdConfig(), loop: try EventLoop(), scheduler: VirtualScheduler(), logger: logger)
    let log = SharedLog()
    for name in ["bus", "failing", "keys"] { service.add(Recorder(name, log)) }
    service.start()
    // A component whose start failed is a later one all the same: the bus moves on after it too.
    #expect(
      log.lines == [
        "bus starts", "failing starts", "bus hears", "keys starts", "bus hears", "failing hears",
      ])
  }
}
