import DeviceTestSupport
import EventLoop
import Foundation
import IIOInput
import Motion
import ResponderCore
import SystemCalls
import Testing

/// in_accel_scale of the fixture.
private let scale = 0.009582

private func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-6) -> Bool { abs(a - b) <= tolerance }

@Suite(
  "IIO accelerometer through libiio under umockdev", .serialized, .enabled(if: underUmockdev, skipMessage))
struct IIOInputDeviceTests {
  @Test("Polled: the raw attributes, read at the configured rate, in screen m/s²")
  func polled() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let input = polledInput(on: loop, rate: 50)
    var samples: [MotionSample] = []
    input.addSampleObserver { samples.append($0) }
    let start = monotonicNow()
    input.setWanted(true)
    #expect(input.sensor?.mode == "polled")
    // The lowest available rate at or above 50 Hz, written to the device.
    #expect(input.sensor?.rate == 62.5)
    #expect(bed.attribute("sampling_frequency") == "62.5")
    #expect(loop.run(until: { samples.count >= 3 }, timeout: 5))
    // raw (12, -987, 51) × scale, then the mount matrix "0, 1, 0; -1, 0, 0; 0, 0, 1".
    let first = try #require(samples.first)
    #expect(
      close(first.x, -987 * scale) && close(first.y, -12 * scale) && close(first.z, 51 * scale), "\(first)")

    bed.setAttribute("in_accel_x_raw", "-500")
    bed.setAttribute("in_accel_y_raw", "3")
    let changedAt = samples.count
    #expect(loop.run(until: { samples.count >= changedAt + 3 }, timeout: 5))
    let last = try #require(samples.last)
    #expect(close(last.x, 3 * scale) && close(last.y, 500 * scale) && close(last.z, 51 * scale), "\(last)")

    // CLOCK_MONOTONIC timestamps, one period apart.
    let end = monotonicNow()
    #expect(samples.allSatisfy { $0.t >= start && $0.t <= end })
    let gaps = zip(samples, samples.dropFirst()).map { $1.t - $0.t }.sorted()
    #expect(close(gaps[gaps.count / 2], 1 / 62.5, 0.004), "median gap \(gaps[gaps.count / 2])")

    input.setWanted(false)
    #expect(input.sensor == nil)
    #expect(loop.scheduler.pendingCount == 0)
  }

  @Test("Buffered: libiio enables the scan elements, the trigger and the buffer; blocks are decoded")
  func buffered() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let input = IIOInput(loop: loop, settings: IIOInput.Settings(), logger: testLogger)
    var samples: [MotionSample] = []
    input.addSampleObserver { samples.append($0) }
    input.setWanted(true)
    let sensor = try #require(input.sensor)
    #expect(sensor.mode == "buffered")
    #expect(sensor.rate == 62.5)
    #expect(sensor.blockSamples == 6)
    for element in ["in_accel_x_en", "in_accel_y_en", "in_accel_z_en", "in_timestamp_en"] {
      #expect(bed.attribute("scan_elements/\(element)") == "1", "\(element)")
    }
    #expect(bed.attribute("trigger/current_trigger") == "bmc150_accel-dev0")
    #expect(bed.attribute("buffer/watermark") == "6")
    #expect(bed.attribute("buffer/enable") == "1")

    // One block with realtime timestamps 16 ms apart, the last one now.
    let nowNs = realtimeNanoseconds()
    let nowMonotonic = monotonicNow()
    var block: [UInt8] = []
    for i in 0..<6 {
      block += scan(x: 10 * i, y: -987, z: 51 + i, timestamp: nowNs - Int64(5 - i) * 16_000_000)
    }
    bed.feed(block)
    #expect(loop.run(until: { samples.count >= 6 }, timeout: 5))
    #expect(samples.count == 6)
    for (i, sample) in samples.enumerated() {
      #expect(
        close(sample.x, -987 * scale) && close(sample.y, Double(-10 * i) * scale)
          && close(sample.z, Double(51 + i) * scale), "\(i): \(sample)")
      // The scan's timestamp, moved to CLOCK_MONOTONIC.
      #expect(close(sample.t, nowMonotonic - Double(5 - i) * 0.016, 0.02), "\(i): t \(sample.t)")
    }

    // Negative values at the ends of the 12-bit range.
    samples.removeAll()
    bed.feed(scan(x: -2048, y: 2047, z: -1, timestamp: realtimeNanoseconds()))
    #expect(loop.run(until: { !samples.isEmpty }, timeout: 5))
    if let sample = samples.first {
      #expect(close(sample.x, 2047 * scale) && close(sample.y, 2048 * scale) && close(sample.z, -scale))
    }

    input.setWanted(false)
    #expect(bed.attribute("buffer/enable") == "0")
    #expect(bed.attribute("scan_elements/in_accel_x_en") == "0")
  }

  @Test("Auto: a buffer that cannot be enabled (read-only sysfs under the unit) falls back to polled")
  func autoFallsBackToPolled() throws {
    let bed = try Testbed()
    // Writing buffer/enable fails, even for root, when it is a directory.
    let enable = bed.root + Testbed.sysPath + "/buffer/enable"
    try FileManager.default.removeItem(atPath: enable)
    try FileManager.default.createDirectory(atPath: enable, withIntermediateDirectories: false)
    let loop = try EventLoop()
    let input = IIOInput(loop: loop, settings: IIOInput.Settings(), logger: testLogger)
    var samples: [MotionSample] = []
    input.addSampleObserver { samples.append($0) }
    input.setWanted(true)
    #expect(input.sensor?.mode == "polled")
    #expect(loop.run(until: { samples.count >= 2 }, timeout: 5))
    input.setWanted(false)
    #expect(input.sensor == nil)

    var strict = IIOInput.Settings()
    strict.capture = .buffered
    let insisting = IIOInput(loop: loop, settings: strict, logger: testLogger)
    insisting.setWanted(true)
    #expect(insisting.sensor == nil)
    insisting.setWanted(false)
  }

  @Test("Buffered: a recorded script through the device node (timestamps off the clock: arrival times)")
  func bufferedScript() throws {
    let bed = try Testbed()
    try bed.loadScript(fixture("iio-accel-buffer.script"))
    let loop = try EventLoop()
    let input = IIOInput(loop: loop, settings: IIOInput.Settings(), logger: testLogger)
    var samples: [MotionSample] = []
    input.addSampleObserver { samples.append($0) }
    let start = monotonicNow()
    input.setWanted(true)
    #expect(loop.run(until: { samples.count >= 8 }, timeout: 5))
    #expect(samples.count == 8)
    // First block: x = 10 i, y = -987, z = 51 + i; second: x = -5, y = 1000 + i, z = -2048 + i.
    for (i, sample) in samples.prefix(4).enumerated() {
      #expect(close(sample.x, -987 * scale) && close(sample.y, Double(-10 * i) * scale), "\(sample)")
      #expect(close(sample.z, Double(51 + i) * scale))
    }
    for (i, sample) in samples.dropFirst(4).enumerated() {
      #expect(close(sample.x, Double(1000 + i) * scale) && close(sample.y, 5 * scale), "\(sample)")
      #expect(close(sample.z, Double(-2048 + i) * scale))
    }
    let end = monotonicNow()
    #expect(samples.allSatisfy { $0.t >= start - 0.2 && $0.t <= end })
    #expect(zip(samples, samples.dropFirst()).allSatisfy { $1.t >= $0.t })
    input.setWanted(false)
  }

  @Test("Sensor removed mid-shake: the shake is cancelled and the sensor closed")
  func removedMidShake() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    var events: [ShakeEvent] = []
    let shake = ShakeInput(
      loop: loop, settings: IIOInput.Settings(), shake: ShakeSettings(), logger: testLogger
    ) { events.append($0) }
    shake.setWanted(true)
    #expect(shake.input.sensor?.mode == "buffered")

    // Shake along the screen's x axis (the sensor's y axis with this mount matrix), 3 Hz, 1.8 g,
    // fed as it happens, in small blocks.
    let offset = Double(realtimeNanoseconds()) / 1e9 - monotonicNow()
    let shakeStart = monotonicNow()
    var next = shakeStart
    func feedUntilNow() {
      var block: [UInt8] = []
      let now = monotonicNow()
      while next <= now {
        let dynamic = 1.8 * standardGravity * sin(2 * .pi * 3 * (next - shakeStart))
        let rawY = Int((dynamic / scale).rounded())
        let rawZ = Int((standardGravity / scale).rounded())
        block += scan(x: 0, y: max(-2048, min(2047, rawY)), z: rawZ, timestamp: Int64((next + offset) * 1e9))
        next += 1 / 62.5
      }
      bed.feed(block)
    }
    let began = loop.run(
      until: {
        feedUntilNow()
        return !events.isEmpty
      }, timeout: 3)
    #expect(began, "no shake detected")
    #expect(events.map(\.phase) == [.began])
    bed.removeDevice()
    #expect(loop.run(until: { events.count >= 2 }, timeout: 3))
    #expect(events.map(\.phase) == [.began, .cancelled])
    #expect(shake.input.sensor == nil)
    if events.count == 2 { #expect(events[1].time - shakeStart < 2) }
  }

  @Test("Not wanted: the sensor is never opened, nothing is read, nothing wakes up")
  func notWanted() throws {
    let bed = try Testbed()
    let loop = try EventLoop()
    let baseline = loop.registeredCount
    let watch = try AccessWatch([bed.root + Testbed.sysPath, bed.root + "/dev"])
    var settings = IIOInput.Settings()
    settings.capture = .polled
    var samples = 0
    let shake = ShakeInput(loop: loop, settings: settings, shake: ShakeSettings(), logger: testLogger) { _ in
    }
    shake.input.addSampleObserver { _ in samples += 1 }
    var wakeups = 0
    loop.addWakeupObserver { _ in wakeups += 1 }
    _ = watch.drain()
    loop.run(until: { false }, timeout: 0.5)
    // No libiio context either: it would have read the sensor's sysfs files.
    #expect(watch.drain() == 0, "the sensor's files were opened or read")
    #expect(wakeups <= 6, "the loop woke up \(wakeups) times")
    #expect(loop.registeredCount == baseline)
    #expect(loop.scheduler.pendingCount == 0)
    #expect(samples == 0)

    // Wanted: it is opened and read (so the watch above would have seen it).
    shake.setWanted(true)
    #expect(loop.run(until: { samples >= 3 }, timeout: 5))
    #expect(watch.drain() > 0)
    #expect(loop.registeredCount > baseline)

    // Not wanted any more: closed, and quiet again.
    shake.setWanted(false)
    #expect(shake.input.sensor == nil)
    _ = watch.drain()
    let count = samples
    loop.run(until: { false }, timeout: 0.3)
    #expect(watch.drain() == 0)
    #expect(samples == count)
    #expect(loop.registeredCount == baseline)
    #expect(loop.scheduler.pendingCount == 0)
  }

  @Test("A sensor plugged in while wanted is opened")
  func hotplugAdd() throws {
    let bed = try Testbed(withDevice: false)
    let loop = try EventLoop()
    let input = polledInput(on: loop)
    var samples = 0
    input.addSampleObserver { _ in samples += 1 }
    input.setWanted(true)
    #expect(input.sensor == nil)
    try bed.addDevice()
    #expect(loop.run(until: { samples > 0 }, timeout: 3))
    #expect(input.sensor?.id == "iio:device0")
    input.setWanted(false)
  }
}
