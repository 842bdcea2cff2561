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

/// Feeds `duration` seconds of a 3 Hz, 1.8 g shake (then 0.8 s of stillness) as it happens;
/// `during` runs with the seconds since its start before each block.
func feedShake(
  _ bed: Testbed, on loop: EventLoop, duration: Double, during: (Double) -> Void = { _ in }
) {
  let offset = Double(realtimeNanoseconds()) / 1e9 - monotonicNow()
  let start = monotonicNow()
  var next = start
  _ = loop.run(
    until: {
      let now = monotonicNow()
      during(now - start)
      var block: [UInt8] = []
      while next <= now {
        let shaking = next - start < duration
        let dynamic = shaking ? 1.8 * standardGravity * sin(2 * .pi * 3 * (next - start)) : 0
        let rawY = max(-2048, min(2047, Int((dynamic / 0.009582).rounded())))
        block += scan(x: 0, y: rawY, z: 1023, timestamp: Int64((next + offset) * 1e9))
        next += 1 / 62.5
      }
      bed.feed(block)
      return now - start > duration + 0.8
    }, timeout: duration + 3)
}

/// A phone in a pocket (issue 35): the emulated vcnl4040 proximity sensor beside the emulated
/// accelerometer, both through umockdev, with the real libiio and libudev.
extension IIOInputDeviceTests {
  @Test("proximity: near, no shake begins; near during a shake cancels it; read only while shakes are wanted")
  func proximityBlocksShakes() throws {
    let bed = try Testbed()
    try bed.addProximitySensor()
    let loop = try EventLoop()
    let recorder = MotionPhaseRecorder(name: "phase-recorder")
    let time = VirtualScheduler(now: 0)
    let (service, motion) = try motionOnlyService(
      chain: ["log"], loop: loop, handlers: [recorder], keepOpenScheduler: time)
    service.start()

    // Nobody wants shakes: the proximity sensor is not open either.
    #expect(motion.proximity == nil)
    motion.interest.applications = 1
    let proximity = try #require(motion.proximity)
    #expect(proximity.id == "iio:device1" && proximity.name == "vcnl4040" && proximity.nearLevel == 200)
    motion.interest.applications = 0
    // Kept with the accelerometer for a moment after the last want, then closed with it.
    #expect(motion.proximity != nil)
    time.advance(by: MotionComponent.keepOpenAfterLastWant)
    #expect(motion.proximity == nil)
    service.stop()

    // With a responder for motion: far (3), a shake is delivered.
    let (withRecorder, shakes) = try motionOnlyService(
      chain: [recorder.name], loop: loop, handlers: [recorder])
    withRecorder.start()
    #expect(shakes.proximity != nil)
    feedShake(bed, on: loop, duration: 1.2)
    #expect(recorder.phases == [.began, .ended])

    // Near (in a pocket: 900 > 200): the same shake does nothing.
    recorder.phases = []
    bed.setProximity(900)
    feedShake(bed, on: loop, duration: 1.2)
    #expect(recorder.phases == [])
    #expect(shakes.proximity?.near == true)

    // Far again, then near 0.8 s into a shake (it began at about 0.5 s): cancelled.
    bed.setProximity(3)
    feedShake(bed, on: loop, duration: 2.5) { elapsed in
      if elapsed > 0.8 { bed.setProximity(900) }
    }
    #expect(recorder.phases == [.began, .cancelled])
    // Its end is not delivered after the cancel, nor does a new one begin while near.
    shakes.stop()
    #expect(shakes.proximity == nil)
  }
}
