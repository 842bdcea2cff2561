import EventLoop
import EventTime
import Foundation
import IIOInput
import Logging
import Motion
import ResponderCore
import ResponderdTestKit
import Testing

@testable import ResponderConfig
@testable import ResponderdKit

/// A motion-only service on a loop of its own, its chain a phase recorder and its log kept; started.
private func recordedMotionService() throws -> (
  LoopService, MotionComponent, LoggedLines, MotionPhaseRecorder
) {
  let log = LoggedLines()
  let recorder = MotionPhaseRecorder(name: "phases")
  let (service, motion) = try motionOnlyService(
    chain: [recorder.name], loop: try EventLoop(), handlers: [recorder], logger: log.logger)
  service.start()
  return (service, motion, log, recorder)
}

/// The accelerometer and the proximity sensor when wants come and go fast, sensors come and go,
/// and the session pauses shakes: the emulated bmc150 and vcnl4040 under umockdev, the keep-open
/// timer on virtual time.
extension IIOInputDeviceTests {
  @Test("motion: a want that flaps keeps the accelerometer open; closed 2 s (virtual) after the last")
  func aWantThatFlapsKeepsTheSensorOpen() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let time = VirtualScheduler(now: 0)
    let log = LoggedLines()
    var logger = log.logger
    logger.logLevel = .info
    let (service, motion) = try motionOnlyService(
      chain: ["log"], loop: loop, logger: logger, keepOpenScheduler: time)
    service.start()
    defer { service.stop() }
    let input = try #require(motion.shake?.input)

    // 1000 wants and releases, 100 a second (what SetActive(true/false) of a flapping window does).
    for _ in 0..<500 {
      motion.interest.applications = 1
      time.advance(by: 0.01)
      motion.interest.applications = 0
      time.advance(by: 0.01)
    }
    // Opened once, never reopened; a bounded log (5 lines of each kind a minute).
    #expect(log.matching("iio: sampling iio:device0").count == 1, "\(log.lines)")
    #expect(log.lines.count <= 15, "\(log.lines.count) lines: \(log.lines)")
    #expect(input.isKeptOpen)
    #expect(motion.interest.accelerometer.hasPrefix("kept open"))
    _ = bed

    // The last want went 0.01 s ago: open until 2 s after it, then closed.
    time.advance(by: 1.9)
    #expect(input.sensor != nil)
    time.advance(by: 0.2)
    #expect(input.sensor == nil)
    #expect(motion.interest.accelerometer == "closed: nobody wants motion")
    #expect(bed.attribute("buffer/enable") == "0")
  }

  @Test("motion: status says closed while shakes are paused, as the log does")
  func theAccelerometerStateFollowsThePause() throws {
    let bed = try Testbed()
    defer { withExtendedLifetime(bed) {} }
    let (service, motion, log, _) = try recordedMotionService()
    defer { service.stop() }
    #expect(motion.interest.isWanted)
    #expect(motion.interest.accelerometer.hasPrefix("sampled (iio:device0 (bmc150_accel), buffered"))
    motion.pauseShakes("the screen is locked")
    #expect(log.matching("iio: shakes paused (the screen is locked): accelerometer closed").count == 1)
    #expect(motion.shake?.input.sensor == nil)
    #expect(motion.interest.isWanted)
    #expect(motion.interest.accelerometer == "closed: shakes are paused (the screen is locked)")
    motion.pauseShakes(nil)
    #expect(motion.interest.accelerometer.hasPrefix("sampled ("))
  }

  @Test("motion: scans left in the device from before it was opened give no shake")
  func staleScansGiveNoShake() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let recorder = MotionPhaseRecorder(name: "phases")
    let (service, motion) = try motionOnlyService(chain: ["log"], loop: loop, handlers: [recorder])
    service.start()
    defer { service.stop() }
    let input = try #require(motion.shake?.input)
    // A vigorous shake, stamped 2.5 to 0.5 s ago, waiting in the device while nobody reads it.
    let offset = Double(realtimeNanoseconds()) / 1e9 - monotonicNow()
    let start = monotonicNow() - 2.5
    var stale: [UInt8] = []
    var t = start
    while t < start + 2 {
      let dynamic = 1.8 * standardGravity * sin(2 * .pi * 3 * (t - start))
      let rawY = max(-2048, min(2047, Int((dynamic / 0.009582).rounded())))
      stale += scan(x: 0, y: rawY, z: 1023, timestamp: Int64((t + offset) * 1e9))
      t += 1 / 62.5
    }
    bed.feed(stale)
    #expect(try bed.waitUntilReadable(timeout: 2))

    // The chain comes to want shakes (a responder for motion): the sensor opens and reads them.
    var fresh = 0
    let opened = monotonicNow()
    input.addSampleObserver { sample in if sample.t >= opened { fresh += 1 } }
    service.service.chain.setHandlers([recorder])
    #expect(input.sensor != nil)
    // Then still scans, stamped now: once one is delivered, every stale scan before it was read.
    _ = loop.run(
      until: {
        bed.feed(scan(x: 0, y: 0, z: 1023, timestamp: Int64((monotonicNow() + offset) * 1e9)))
        return fresh >= 5
      }, timeout: 5)
    #expect(fresh >= 5)
    #expect(recorder.phases == [])
  }

  @Test("proximity: unplugged, said once and shakes go on without it")
  func anUnpluggedProximitySensorIsLetGo() throws {
    let bed = try Testbed()
    try bed.addProximitySensor()
    let (service, motion, log, recorder) = try recordedMotionService()
    let loop = service.loop
    defer { service.stop() }
    #expect(motion.proximity?.id == "iio:device1")

    // Unplugged: shakes go on without it, with one line, not a failed read every 0.2 s.
    bed.testbed.remove(Testbed.proximityPath)
    for _ in 0..<2 {
      feedShake(bed, on: loop, duration: 1.2)
    }
    #expect(recorder.phases == [.began, .ended, .began, .ended])
    #expect(motion.proximity == nil)
    #expect(log.matching("could not be read").count <= 1, "\(log.matching("proximity"))")
    #expect(log.matching("iio: proximity sensor iio:device1").count == 2, "\(log.matching("proximity"))")
  }

  @Test("proximity: plugged in while shakes are wanted, used at once (the accelerometer as it is)")
  func aProximitySensorPluggedInIsUsedAtOnce() throws {
    let bed = try Testbed()
    let (service, motion, log, recorder) = try recordedMotionService()
    let loop = service.loop
    defer { service.stop() }
    #expect(motion.proximity == nil)

    // Plugged in, reading near: used at once.
    try bed.addProximitySensor()
    bed.setProximity(900)
    #expect(loop.run(until: { motion.proximity != nil }, timeout: 5))
    feedShake(bed, on: loop, duration: 1.2)
    #expect(recorder.phases == [])
    #expect(log.matching("iio: sampling iio:device0").count == 1)
  }
}
