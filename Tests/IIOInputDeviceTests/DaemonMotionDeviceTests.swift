import EventLoop
import EventTime
import Foundation
import IIOInput
import Logging
import Motion
import ResponderCore
import ResponderTools
import ResponderdTestKit
import Testing
import TouchScenes

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

// The testbed is process-wide: these run in the one serialized suite.
extension IIOInputDeviceTests {
  @Test("daemon: a shake reaches the responder chain as motionBegan then motionEnded")
  func daemonShake() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let recorder = ShakeRecorder()
    let (service, motion) = try motionOnlyService(chain: [recorder.name], loop: loop, handlers: [recorder])
    service.start()
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
    let motionRecords = service.records.filter { $0.type == .motion }
    #expect(motionRecords.map(\.motionPhase) == [.began, .ended])
    #expect(motionRecords.allSatisfy { $0.handledBy == recorder.name && $0.source == "iio:iio:device0" })
    motion.stop()
  }

  @Test("daemon: a real recording (walking, then a shake) gives the events `motion analyze` gives")
  func daemonRealRecording() throws {
    let bed = try Testbed()
    // The ±8 g range (as a device set up for hard motion reads it): heel strikes and shakes fit.
    let scale = 0.038326
    bed.setAttribute("in_accel_scale", String(scale))
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/Motion/real/shake-hapt-u07-waist-50hz.csv").path
    // Walking from 1 s, a shake from 4 s to 5.5 s, walking on to 7 s; at the sensor's 62.5 Hz.
    let recording = MotionTrace.resampled(
      try MotionTrace.parse(try String(contentsOfFile: path, encoding: .utf8), file: path), rate: 62.5
    ).filter { $0.t >= 1 && $0.t < 7 }
    let loop = try EventLoop()
    let recorder = ShakeRecorder()
    let (service, motion) = try motionOnlyService(chain: [recorder.name], loop: loop, handlers: [recorder])
    service.start()
    #expect(motion.shake?.input.sensor?.mode == "buffered")

    // Fed as it happens; what was fed (raw values × scale, at their times) is analyzed offline.
    let offset = Double(realtimeNanoseconds()) / 1e9 - monotonicNow()
    let start = monotonicNow() - recording[0].t
    var fed: [MotionSample] = []
    var index = 0
    _ = loop.run(
      until: {
        var block: [UInt8] = []
        while index < recording.count, start + recording[index].t <= monotonicNow() {
          let sample = recording[index]
          let raw = [sample.x, sample.y, sample.z].map { max(-2048, min(2047, Int(($0 / scale).rounded()))) }
          let t = start + sample.t
          block += scan(x: raw[0], y: raw[1], z: raw[2], timestamp: Int64((t + offset) * 1e9))
          fed.append(
            MotionSample(
              t: t, x: Double(raw[0]) * scale, y: Double(raw[1]) * scale, z: Double(raw[2]) * scale))
          index += 1
        }
        if !block.isEmpty { bed.feed(block) }
        return index >= recording.count && monotonicNow() > start + recording[recording.count - 1].t + 0.6
      }, timeout: 10)
    let offline = MotionAnalysis(samples: fed).events
    #expect(offline.map(\.phase) == [.began, .ended], "the recording's shake, offline")
    #expect(recorder.received.map(\.0) == offline.map(\.phase))
    for (live, expected) in zip(recorder.received, offline) {
      #expect(abs(live.1 - expected.time) < 0.02, "live \(live.0) at \(live.1 - start), offline \(expected)")
    }
    motion.stop()
  }

  @Test("daemon: with no responder for motion the sensor stays closed; an interest opens it")
  func daemonSamplesOnlyWhileWanted() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let time = VirtualScheduler(now: 0)
    let (service, motion) = try motionOnlyService(chain: ["log"], loop: loop, keepOpenScheduler: time)
    let baseline = loop.registeredCount
    service.start()
    let input = try #require(motion.shake?.input)
    #expect(motion.wantedBy == nil)
    #expect(!input.isWanted)
    #expect(input.sensor == nil)
    #expect(loop.registeredCount == baseline)

    // What the responder API does when an application registers for motion, then leaves.
    motion.interest.applications = 1
    #expect(input.sensor != nil)
    #expect(motion.wantedBy == "1 registered application")
    motion.interest.applications = 0
    // Kept open for a moment after the last want (a focus that flaps), then closed.
    #expect(input.isKeptOpen)
    time.advance(by: MotionComponent.keepOpenAfterLastWant)
    #expect(input.sensor == nil)
    #expect(loop.registeredCount == baseline)
    #expect(bed.attribute("buffer/enable") == "0")
  }
}
