import DBus
import DBusTestSupport
import EventLoop
import EventTime
import Foundation
import Logging
import Motion
import ResponderClient
import ResponderCore
import SystemCalls
import SystemPackage
import Testing

@testable import IIOInput
@testable import ResponderConfig
@testable import ResponderdKit

// MARK: Beside iio-sensor-proxy: direct reads refused while another program holds the buffer

extension IIOInputDeviceTests {
  @Test(
    "Polled: reads refused with EBUSY (another program holds the buffer) skip samples, on the grid, logged once; samples resume"
  )
  func polledReadsRefusedWhileBusy() throws {
    let bed = try Testbed()
    defer { withExtendedLifetime(bed) {} }
    let loop = try EventLoop()
    let log = LoggedLines()
    var settings = IIOInput.Settings()
    settings.capture = .polled
    settings.samplingRate = 50
    let input = IIOInput(loop: loop, settings: settings, logger: log.logger)
    var samples: [MotionSample] = []
    var changes: [IIOInput.SensorChange] = []
    input.addSampleObserver { samples.append($0) }
    input.addSensorObserver { changes.append($0) }
    // The driver answers EBUSY while `busy` (iio_device_claim_direct_mode).
    var busy = false
    var refused = 0
    input.polledReadFault = {
      guard busy else { return nil }
      refused += 1
      return .resourceBusy
    }
    input.setWanted(true)
    #expect(input.sensor?.mode == "polled" && input.sensor?.rate == 62.5)
    #expect(loop.run(until: { samples.count >= 5 }, timeout: 5))
    let firstTime = try #require(samples.first?.t)
    #expect(changes.count == 1)
    changes.removeAll()

    busy = true
    let beforeBusy = samples.count
    #expect(loop.run(until: { refused >= 15 }, timeout: 5), "reads go on at the sampling rate")
    #expect(samples.count <= beforeBusy + 1, "no sample while reads are refused")
    #expect(input.sensor != nil, "the sensor stays open")
    #expect(changes.isEmpty, "observers are told of no loss")
    let refusedLines = log.matching("direct reads refused")
    #expect(
      refusedLines == [
        "iio: iio:device0: direct reads refused (EBUSY) while another program holds its buffer; retrying at the sampling rate"
      ], "once per busy spell: \(log.lines)")

    busy = false
    let afterBusy = samples.count
    #expect(loop.run(until: { samples.count >= afterBusy + 5 }, timeout: 5), "samples resume")
    #expect(log.matching("sampling resumed").count == 1, "\(log.lines)")
    // Reads went on at the sampling rate throughout: samples and refused reads together.
    let elapsed = try #require(samples.last?.t) - firstTime
    let reads = Double(samples.count - 1 + refused)
    #expect(
      reads >= 0.8 * elapsed * 62.5 && reads <= 1.05 * elapsed * 62.5 + 2, "\(reads) reads in \(elapsed) s")

    // A second busy spell is logged again, once.
    busy = true
    let refusedBefore = refused
    #expect(loop.run(until: { refused >= refusedBefore + 3 }, timeout: 5))
    busy = false
    let count = samples.count
    #expect(loop.run(until: { samples.count > count }, timeout: 5))
    #expect(log.matching("direct reads refused").count == 2)

    // EAGAIN is as transient; ENODEV (unplugged) closes the sensor as before.
    var fault: Errno? = .resourceTemporarilyUnavailable
    input.polledReadFault = { fault }
    #expect(loop.run(until: { log.matching("(EAGAIN)").count == 1 }, timeout: 5))
    #expect(input.sensor != nil)
    fault = Errno(rawValue: ENODEV)
    #expect(loop.run(until: { input.sensor == nil }, timeout: 5), "an unplugged sensor is closed")
    #expect(changes.count == 1 && { if case .closed = changes[0] { return true } else { return false } }())
    input.setWanted(false)
    #expect(loop.scheduler.pendingCount == 0)
  }

  @Test(
    "motion API beside iio-sensor-proxy on a driver that refuses direct reads: auto falls back to polled, says why, keeps trying, streams when reads are answered"
  )
  func motionStreamBesideSensorProxyRefusingReads() throws {
    let rig = try MotionRig { bed in
      // The buffer cannot be taken (here: buffer/enable is a directory, so writing it fails).
      let enable = bed.root + Testbed.sysPath + "/buffer/enable"
      try FileManager.default.removeItem(atPath: enable)
      try FileManager.default.createDirectory(atPath: enable, withIntermediateDirectories: false)
    }
    var busy = true
    rig.input?.polledReadFault = { busy ? .resourceBusy : nil }
    let client = try rig.connect()
    let stream = try rig.start(client, interval: 0.05)
    defer { close(stream.fd) }
    #expect(rig.input?.sensor?.mode == "polled")
    var records: [AccelerometerRecord] = []
    var start = monotonicNow()
    _ = rig.loop.run(
      until: {
        records += drainRecords(stream.fd).compactMap { AccelerometerRecord(bytes: $0) }
        return monotonicNow() > start + 0.5
      }, timeout: 3)
    #expect(records.isEmpty, "no samples while reads are refused")
    #expect(rig.input?.sensor != nil && rig.api.streamCount == 1, "the sensor and the stream stay")
    #expect(rig.log.matching("buffered capture failed").count == 1, "\(rig.log.lines)")
    #expect(rig.log.matching("falling back to polled capture").count == 1, "\(rig.log.lines)")
    #expect(
      rig.log.matching("direct reads refused (EBUSY) while another program holds its buffer").count == 1,
      "\(rig.log.lines)")
    #expect(rig.log.matching("stopped:").isEmpty, "not taken for a failure: \(rig.log.lines)")

    // iio-sensor-proxy lets go: samples stream.
    busy = false
    start = monotonicNow()
    _ = rig.loop.run(
      until: {
        records += drainRecords(stream.fd).compactMap { AccelerometerRecord(bytes: $0) }
        return monotonicNow() > start + 0.5
      }, timeout: 3)
    #expect((8...12).contains(records.count), "\(records.count) samples in 0.5 s at 0.05 s")
    #expect(rig.log.matching("sampling resumed").count == 1, "\(rig.log.lines)")
    rig.stop()
  }
}

// MARK: Availability properties signalled

extension IIOInputDeviceTests {
  @Test(
    "motion API: an accelerometer plugged in or removed invalidates AccelerometerAvailable, AccelerometerName, AvailableIntervals"
  )
  func motionAvailabilitySignalled() throws {
    let rig = try MotionRig(withDevice: false)
    let client = try rig.connect()
    var invalidations: [[String]] = []
    let subscription = client.onPropertiesChanged(
      path: ResponderBusAPI.daemonPath, interface: MotionBusAPI.interface
    ) { _, _, invalidated in
      if !invalidated.isEmpty { invalidations.append(invalidated) }
    }
    defer { subscription.cancel() }
    #expect(try rig.property(client, "AccelerometerAvailable") == .bool(false))
    #expect(try rig.property(client, "AccelerometerName") == .string(""))
    #expect(rig.input?.isWanted == false, "nobody wants samples")

    try rig.bed.addDevice()
    #expect(rig.loop.run(until: { !invalidations.isEmpty }, timeout: 3), "no signal when the sensor came")
    let expected: Set = ["AccelerometerAvailable", "AccelerometerName", "AvailableIntervals"]
    #expect(expected.isSubset(of: Set(invalidations.first ?? [])), "\(invalidations)")
    #expect(try rig.property(client, "AccelerometerAvailable") == .bool(true))
    #expect(try rig.property(client, "AccelerometerName") == .string("bmc150_accel"))
    #expect(rig.input?.sensor == nil, "the sensor is not opened for it")

    // A stream opens the sensor and closes it again: nothing a client read changed, no signal.
    let stream = try rig.start(client, interval: 0.05)
    _ = try rig.call(client, "StopUpdates", [.uint32(stream.id)])
    close(stream.fd)
    _ = rig.loop.run(until: { false }, timeout: 0.2)
    #expect(invalidations.count == 1, "\(invalidations)")

    rig.bed.removeDevice()
    #expect(rig.loop.run(until: { invalidations.count >= 2 }, timeout: 3), "no signal when the sensor went")
    #expect(expected.isSubset(of: Set(invalidations.last ?? [])))
    #expect(try rig.property(client, "AccelerometerAvailable") == .bool(false))
    #expect(try rig.property(client, "AvailableIntervals") == .array(elementSignature: "d", []))
    rig.stop()
  }
}

// MARK: A rate change is not a loss

extension IIOInputDeviceTests {
  @Test("motion API: a shake under way goes on when a stream makes the sensor run faster (not cancelled)")
  func shakeGoesOnThroughRateChange() throws {
    let shakes = MotionPhaseRecorder(name: "shake-phases")
    let rig = try MotionRig(chain: [shakes.name], handlers: [shakes])
    var changes: [IIOInput.SensorChange] = []
    rig.input?.addSensorObserver { changes.append($0) }
    #expect(rig.input?.sensor?.rate == 62.5 && rig.input?.sensor?.blockSamples == 6)
    let client = try rig.connect()
    var stream: (fd: Int32, id: UInt32)?
    defer { if let stream { close(stream.fd) } }
    var rate = 62.5
    // 1.6 s of shaking (3 Hz, 1.8 g along the screen's x axis), then still; a fast stream starts
    // once the shake began.
    let shakeEnd = 1.6
    var startError: (any Error)?
    rig.feed(
      rate: { _ in rate }, timeout: 8,
      raw: { t in
        let dynamic = t < shakeEnd ? 1.8 * standardGravity * sin(2 * .pi * 3 * t) : 0
        return (0, max(-2048, min(2047, Int((dynamic / 0.009582).rounded()))), 1023)
      },
      each: { _ in
        guard stream == nil, shakes.phases == [.began] else { return }
        do {
          stream = try rig.start(client, interval: 0.01)
        } catch {
          startError = error
        }
        rate = 125
      },
      until: { t in t > shakeEnd + 1.2 || shakes.phases.count >= 2 })
    #expect(startError == nil)
    #expect(stream != nil, "the shake never began")
    #expect(rig.input?.sensor?.rate == 125 && rig.input?.sensor?.blockSamples == 1)
    #expect(changes.count == 1, "\(changes)")
    if case .reconfigured(let sensor) = changes.first {
      #expect(sensor.rate == 125)
    } else {
      Issue.record("observers were told \(changes), not of a reconfiguration")
    }
    _ = rig.loop.run(until: { shakes.phases.count >= 2 }, timeout: 2)
    #expect(shakes.phases == [.began, .ended])
    rig.stop()
  }

  @Test(
    "motion API: a device-motion client's gravity goes on when another client makes the sensor run faster")
  func gravityGoesOnThroughRateChange() throws {
    let rig = try MotionRig()
    let first = try rig.connect()
    let second = try rig.connect()
    let motion = try rig.start(first, "StartDeviceMotionUpdates", interval: 0.02)
    defer { close(motion.fd) }
    #expect(rig.input?.sensor?.rate == 62.5)
    var records: [DeviceMotionRecord] = []
    var other: (fd: Int32, id: UInt32)?
    defer { if let other { close(other.fd) } }
    var changedAt: Double?
    var rate = 62.5
    // Face up and still for 1 s, then pushed along the screen's x axis (0.59 g, raw y 600) for
    // 0.2 s; 0.1 s into the push the other client asks for samples every 10 ms.
    rig.feed(
      rate: { _ in rate }, timeout: 6,
      raw: { t in (0, t >= 1 && t < 1.2 ? 600 : 0, 1023) },
      each: { t in
        records += drainRecords(motion.fd).compactMap { DeviceMotionRecord(bytes: $0) }
        guard other == nil, t >= 1.1 else { return }
        other = try? rig.start(second, interval: 0.01)
        changedAt = monotonicNow()
        rate = 125
      },
      until: { t in t > 1.4 })
    records += drainRecords(motion.fd).compactMap { DeviceMotionRecord(bytes: $0) }
    #expect(other != nil && rig.input?.sensor?.rate == 125)
    let changed = try #require(changedAt)
    let after = records.filter { $0.seconds > changed - 0.02 }
    #expect(after.count >= 5, "\(after.count) records after the rate change")
    // The gravity estimate (time constant 0.3 s) moved a little toward the push, not all the way:
    // it was not started afresh from the pushed sample.
    let push = 600 * 0.009582 / standardGravity
    let worst = after.map { abs($0.gravity.x) }.max() ?? 0
    #expect(worst < 0.6 * push, "gravity x reached \(worst) g of a \(push) g push")
    if let firstAfter = after.first {
      #expect(
        abs(firstAfter.userAcceleration.x) > 0.3 * push, "user acceleration \(firstAfter.userAcceleration)")
    }
    rig.stop()
  }
}

// MARK: A slow client

extension IIOInputDeviceTests {
  @Test(
    "motion API: a client that stops reading loses samples, not the others; when it reads again its samples are current"
  )
  func motionSlowClientLosesSamplesNotOthers() throws {
    let rig = try MotionRig()
    let reading = try rig.connect()
    let stalled = try rig.connect()
    let reader = try rig.start(reading, interval: 0.01)
    let slow = try rig.start(stalled, interval: 0.01)
    defer {
      close(reader.fd)
      close(slow.fd)
    }
    #expect(rig.input?.sensor?.rate == 125)
    var read: [AccelerometerRecord] = []
    // 2 s at 125 Hz: the slow client reads nothing for the first 1.5 s, then reads as it comes.
    var late: [(record: AccelerometerRecord, readAt: Double)] = []
    var waiting: [AccelerometerRecord] = []
    let stallEnd = 1.5
    let start = rig.feed(
      rate: { _ in 125 }, timeout: 6, raw: { t in (0, Int(t * 100), 1023) },
      each: { t in
        read += drainRecords(reader.fd).compactMap { AccelerometerRecord(bytes: $0) }
        guard t >= stallEnd else { return }
        let now = monotonicNow()
        let records = drainRecords(slow.fd).compactMap { AccelerometerRecord(bytes: $0) }
        if waiting.isEmpty && late.isEmpty {
          waiting = records
        } else {
          late += records.map { ($0, now) }
        }
      },
      until: { t in t > 2 })
    read += drainRecords(reader.fd).compactMap { AccelerometerRecord(bytes: $0) }

    // The reader got every sample: 100 a second, none missing.
    #expect((185...205).contains(read.count), "\(read.count) samples in 2 s at 0.01 s")
    let gaps = zip(read.dropFirst(), read).map { $0.seconds - $1.seconds }
    #expect(gaps.allSatisfy { $0 < 0.0165 }, "the reader missed samples: gaps up to \(gaps.max() ?? 0) s")

    // What waited for the slow one is a short stretch (about 0.5 s of samples), not 1.5 s of them.
    #expect((1...60).contains(waiting.count), "\(waiting.count) samples waiting after 1.5 s unread")
    // After those, each sample it reads is current.
    #expect(late.count >= 30, "\(late.count) samples after it read again")
    let ages = late.map { $0.readAt - $0.record.seconds }
    #expect(ages.allSatisfy { $0 < 0.2 }, "samples up to \(ages.max() ?? 0) s old")
    #expect((late.first?.record.seconds ?? 0) > start + stallEnd - 0.2, "the first after those is recent")

    // The daemon says so, once per spell, and counts what was dropped.
    let said = rig.log.matching("stream \(slow.id) ")
    #expect(
      said.first?.contains("is not read fast enough: samples dropped until it reads again") == true, "\(said)"
    )
    let dropped = said.dropFirst().first.flatMap { line in
      line.contains("reads again (")
        ? Int(line.split(separator: "(").last?.split(separator: " ").first ?? "") : nil
    }
    #expect((dropped ?? 0) > 60, "\(said)")
    #expect(rig.log.matching("stream \(reader.id) ").filter { $0.contains("dropped") }.isEmpty)
    _ = try rig.call(stalled, "StopUpdates", [.uint32(slow.id)])
    let ended = rig.log.matching("stream \(slow.id) of").last ?? ""
    #expect(ended.contains("dropped (client too slow)"), "\(ended)")
    rig.stop()
  }
}
