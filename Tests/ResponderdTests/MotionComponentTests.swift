import EventLoop
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

private final class MotionHandler: Handler {
  let name = "motion-handler"
  let eventTypes: Set<EventType> = [.motion]
  func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) { decide(true) }
}

private final class ObservingHandler: Handler {
  let name = "observer"
  let eventTypes: Set<EventType> = [.motion, .remoteControl]
  let wantedEventTypes: Set<EventType> = [.remoteControl]
  func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) { decide(false) }
}

@Suite("Motion wiring: who wants motion")
struct MotionComponentTests {
  let logger = Logger(label: "test")

  @Test("log only observes; command wants motion only with a shake command")
  func builtInHandlers() throws {
    let loop = try EventLoop()
    let config = ResponderdConfig()
    let log = EventLogHandler(settings: config.log, logger: logger)
    #expect(!log.wantedEventTypes.contains(.motion))
    let children = ChildProcesses(loop: loop)
    func command(_ commands: [String: [String]]) -> CommandHandler {
      CommandHandler(settings: CommandSettings(commands: commands), children: children, logger: logger)
    }
    #expect(!command([:]).wantedEventTypes.contains(.motion))
    #expect(!command(["nextTrack": ["mpc", "next"]]).wantedEventTypes.contains(.motion))
    #expect(command(["motionBegan": ["notify-send", "shake"]]).wantedEventTypes.contains(.motion))
  }

  @Test("Other handlers: by their event types, or by saying so")
  func otherHandlers() {
    let config = ResponderdConfig()
    _ = config
    #expect(MotionHandler().wantedEventTypes.contains(.motion))
    #expect(!ObservingHandler().wantedEventTypes.contains(.motion))
  }

  @Test("The default chain wants no motion: the accelerometer is never opened")
  func defaultChain() throws {
    let loop = try EventLoop()
    let harness = try LoopService(config: ResponderdConfig(), loop: loop, logger: logger)
    let motion = harness.service.motionComponent()
    harness.add(motion)
    let before = loop.registeredCount
    harness.start()
    #expect(motion.wantedBy == nil)
    #expect(motion.shake?.input.isWanted == false)
    #expect(motion.shake?.input.sensor == nil)
    #expect(loop.registeredCount == before)
    #expect(loop.scheduler.pendingCount == 0)
  }

  @Test("[motion] enabled = false: no accelerometer at all")
  func disabled() throws {
    var config = ResponderdConfig()
    config.motion.enabled = false
    let harness = try LoopService(config: config, logger: logger)
    let motion = harness.service.motionComponent()
    harness.add(motion)
    harness.start()
    #expect(motion.shake == nil)
  }
}
