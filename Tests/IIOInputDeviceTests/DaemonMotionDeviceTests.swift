import EventLoop
import EventTime
import Foundation
import IIOInput
import Logging
import Motion
import ResponderCore
import Testing

@testable import ResponderConfig
@testable import ResponderdKit

/// A handler that takes motion events and remembers them.
private final class ShakeRecorder: Handler {
  let name = "shake-recorder"
  let eventTypes: Set<EventType> = [.motion]
  var received: [(MotionPhase, Seconds)] = []
  func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
    received.append((phase ?? .began, event.timestamp))
    decide(true)
  }
}

private func service(chain: [String], loop: EventLoop, recorder: ShakeRecorder? = nil) -> Service {
  var config = ResponderdConfig()
  config.chain = chain
  let service = Service(config: config, loop: loop, logger: testLogger)
  if let recorder { service.handlerFactories[recorder.name] = { _ in recorder } }
  service.add(MotionComponent())
  return service
}

// The testbed is process-wide: these run in the one serialized suite.
extension IIOInputDeviceTests {
  @Test("daemon: a shake reaches the responder chain as motionBegan then motionEnded")
  func daemonShake() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let recorder = ShakeRecorder()
    let service = service(chain: [recorder.name], loop: loop, recorder: recorder)
    var records: [DispatchRecord] = []
    service.onDispatch { records.append($0) }
    service.start()
    let motion = try #require(service.motion)
    #expect(motion.wantedBy == recorder.name)
    #expect(motion.shake?.input.sensor?.mode == "buffered")

    // 1.2 s of shaking (3 Hz, 1.8 g along the screen's x axis), fed as it happens.
    let offset = Double(realtimeNanoseconds()) / 1e9 - monotonicNow()
    let start = monotonicNow()
    var next = start
    _ = loop.run(
      until: {
        var block: [UInt8] = []
        let now = monotonicNow()
        while next <= now {
          let shaking = next - start < 1.2
          let dynamic = shaking ? 1.8 * standardGravity * sin(2 * .pi * 3 * (next - start)) : 0
          let rawY = max(-2048, min(2047, Int((dynamic / 0.009582).rounded())))
          block += scan(x: 0, y: rawY, z: 1023, timestamp: Int64((next + offset) * 1e9))
          next += 1 / 62.5
        }
        bed.feed(block)
        return recorder.received.count >= 2
      }, timeout: 4)
    #expect(recorder.received.map(\.0) == [.began, .ended])
    if recorder.received.count == 2 {
      #expect(recorder.received[0].1 - start > 0.3 && recorder.received[0].1 - start < 0.7)
      #expect(recorder.received[1].1 - (start + 1.2) > 0 && recorder.received[1].1 - (start + 1.2) < 0.6)
    }
    let motionRecords = records.filter { $0.type == .motion }
    #expect(motionRecords.map(\.motionPhase) == [.began, .ended])
    #expect(motionRecords.allSatisfy { $0.handledBy == recorder.name && $0.source == "iio:iio:device0" })
    service.motion?.stop()
  }

  @Test("daemon: with no responder for motion the sensor stays closed; an interest opens it")
  func daemonSamplesOnlyWhileWanted() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let service = service(chain: ["log"], loop: loop)
    let baseline = loop.registeredCount
    service.start()
    let motion = try #require(service.motion)
    let input = try #require(motion.shake?.input)
    #expect(motion.wantedBy == nil)
    #expect(!input.isWanted)
    #expect(input.contextCount == 0)
    #expect(loop.registeredCount == baseline)

    // What the responder API does when an application registers for motion, then leaves.
    service.motionApplications = 1
    #expect(input.sensor != nil)
    #expect(motion.wantedBy == "1 registered application")
    service.motionApplications = 0
    #expect(input.sensor == nil)
    #expect(loop.registeredCount == baseline)
    #expect(bed.attribute("buffer/enable") == "0")
  }
}
