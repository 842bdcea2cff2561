import DBus
import DBusTestSupport
import EventLoop
import EventTime
import Foundation
import IIOInput
import Motion
import ResponderClient
import ResponderCore
import ResponderTools
import SystemCalls
import Testing
import TouchScenes

@testable import ResponderConfig
@testable import ResponderdKit

/// Whether the other end of a stream's socket was closed: end of file once the records waiting
/// are read.
private func isClosed(_ fd: Int32) -> Bool {
  var buffer = [UInt8](repeating: 0, count: 256)
  while true {
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    if n <= 0 { return n == 0 }
  }
}

extension IIOInputDeviceTests {
  @Test("motion API: accelerometer samples at the interval asked, with the sensor's timestamps, in g")
  func motionStreamInterval() throws {
    let daemon = try MotionRig()
    let client = try daemon.connect()
    #expect(try daemon.property(client, "AccelerometerAvailable") == .bool(true))
    #expect(try daemon.property(client, "AccelerometerName") == .string("bmc150_accel"))
    #expect(try daemon.property(client, "ShortestInterval") == .double(0.005))
    let intervals = try #require([Double](dbusValue: try daemon.property(client, "AvailableIntervals")))
    let expected: [Double] = [125, 62.5, 31.25, 15.63, 7.81].map { 1 / $0 }
    #expect(intervals == expected)
    #expect(daemon.input?.sensor == nil, "properties are read without opening the sensor")

    let (fd, _) = try daemon.start(client, interval: 0.05)
    defer { close(fd) }
    #expect(daemon.input?.sensor?.rate == 31.25, "the lowest rate at or above 20 Hz")
    #expect(daemon.input?.sensor?.blockSamples == 1)
    var records: [AccelerometerRecord] = []
    let start = daemon.feed(
      rate: 100, duration: 1,
      each: {
        records += drainRecords(fd).compactMap { AccelerometerRecord(bytes: $0) }
      }, delivered: { records.count >= 19 })
    #expect((19...21).contains(records.count), "\(records.count) samples in 1 s at 0.05 s")
    let gaps = zip(records.dropFirst(), records).map { $0.seconds - $1.seconds }
    #expect(gaps.allSatisfy { abs($0 - 0.05) < 0.0051 }, "\(gaps)")
    // Timestamps are the scans' (fed every 10 ms from `start`), on CLOCK_MONOTONIC.
    for record in records {
      let k = ((record.seconds - start) * 100).rounded()
      #expect(abs(record.seconds - (start + k / 100)) < 0.0005)
    }
    // Lying face up: Core Motion reads (0, 0, -1).
    let last = try #require(records.last)
    #expect(last.x == 0 && last.y == 0 && abs(last.z - (-1023 * 0.009582 / standardGravity)) < 1e-9)
    daemon.stop()
  }

  @Test("motion API: two clients at different rates share one capture at the faster one")
  func motionTwoClients() throws {
    let daemon = try MotionRig()
    let slow = try daemon.connect()
    let fast = try daemon.connect()
    let a = try daemon.start(slow, interval: 0.1)
    let b = try daemon.start(fast, "StartDeviceMotionUpdates", interval: 0.02)
    defer {
      close(a.fd)
      close(b.fd)
    }
    #expect(daemon.input?.sensor?.rate == 62.5)
    #expect(try daemon.property(slow, "SensorInterval") == .double(0.016))
    #expect(try daemon.property(slow, "Streams") == .uint32(2))
    var slowRecords: [AccelerometerRecord] = []
    var fastRecords: [DeviceMotionRecord] = []
    daemon.feed(
      rate: 62.5, duration: 1,
      each: {
        slowRecords += drainRecords(a.fd).compactMap { AccelerometerRecord(bytes: $0) }
        fastRecords += drainRecords(b.fd).compactMap { DeviceMotionRecord(bytes: $0) }
      }, delivered: { slowRecords.count >= 9 && fastRecords.count >= 48 })
    #expect((9...11).contains(slowRecords.count), "\(slowRecords.count) at 0.1 s")
    #expect((48...52).contains(fastRecords.count), "\(fastRecords.count) at 0.02 s")
    // Still: gravity is the whole reading, no user acceleration.
    let last = try #require(fastRecords.last)
    #expect(abs(last.gravity.z - (-1023 * 0.009582 / standardGravity)) < 1e-6)
    #expect(abs(last.userAcceleration.z) < 1e-6)

    // The fast client stops: the sensor slows down to what the other asks.
    _ = try daemon.call(fast, "StopUpdates", [.uint32(b.id)])
    #expect(isClosed(b.fd))
    #expect(daemon.input?.sensor?.rate == 15.63)
    daemon.stop()
  }

  @Test(
    "motion API: a client that closes its socket or leaves the bus is released; the last closes the sensor")
  func motionClientsLeave() throws {
    let daemon = try MotionRig()
    let first = try daemon.connect()
    let second = try daemon.connect()
    let a = try daemon.start(first, interval: 0.05)
    let b = try daemon.start(second, interval: 0.01)
    defer { close(b.fd) }
    #expect(daemon.api.streamCount == 2)
    #expect(daemon.motion.wantedBy == "2 motion streams")

    // Killed mid-stream: its socket is closed; the daemon sees the hang-up at once.
    daemon.feed(rate: 100, duration: 0.2)
    close(a.fd)
    _ = daemon.loop.run(until: { daemon.api.streamCount == 1 }, timeout: 2)
    #expect(daemon.api.streamCount == 1)
    #expect(daemon.input?.sensor?.rate == 125)

    // Leaving the bus ends its streams: its socket reads end of file.
    second.close()
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 3)
    #expect(daemon.api.streamCount == 0)
    #expect(isClosed(b.fd))
    #expect(daemon.input?.sensor == nil, "the last client gone, the sensor is closed")
    #expect(daemon.motion.wantedBy == nil)
    #expect(!daemon.motion.interest.isWanted)
    #expect(daemon.bed.attribute("buffer/enable") == "0")
    daemon.stop()
  }

  @Test(
    "motion API: the last client found gone by a failed send, mid-delivery: released, the sensor closed and opened again"
  )
  func motionClientGoneFoundBySend() throws {
    let daemon = try MotionRig()
    let client = try daemon.connect()
    var lateSamples = 0
    // (Not the rig itself: the input keeps its observers, and a rig kept alive keeps its bus.)
    let input = daemon.input
    input?.addSampleObserver { [weak input] _ in if input?.sensor == nil { lateSamples += 1 } }
    let first = try daemon.start(client, interval: 0.01)
    // Scans wait on the device before the client closes its socket: the daemon delivers them
    // before it sees the hang-up, and the send fails.
    let now = monotonicNow()
    var scans: [UInt8] = []
    for k in 0..<4 {
      scans += scan(x: 0, y: 0, z: 1023, timestamp: Int64((now + Double(k) * 0.008 + daemon.offset) * 1e9))
    }
    daemon.bed.feed(scans)
    #expect(try daemon.bed.waitUntilReadable(timeout: 2))
    close(first.fd)
    #expect(daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2))
    #expect(daemon.input?.sensor == nil, "the last client gone, the sensor is closed")
    #expect(daemon.bed.attribute("buffer/enable") == "0")
    // (The sample whose send failed still reaches the observers after the stream's.)
    #expect(lateSamples <= 1, "samples read from the sensor's buffer after it was closed")
    // A new stream is served by the sensor opened again.
    let second = try daemon.start(client, interval: 0.05)
    defer { close(second.fd) }
    var records = 0
    daemon.feed(rate: 100, duration: 0.5, each: { records += drainRecords(second.fd).count })
    #expect(records >= 8, "\(records) samples in 0.5 s at 0.05 s")
    daemon.stop()
  }

  @Test("motion API: a shake responder and a stream share one capture; shakes are found while samples stream")
  func motionShakesAndStreamShareOneCapture() throws {
    let shakes = MotionPhaseRecorder()
    let daemon = try MotionRig(chain: [shakes.name], handlers: [shakes])
    var opened: [IIOInput.Sensor] = []
    daemon.input?.addSensorObserver {
      if case .opened(let sensor) = $0 { opened.append(sensor) }
      if case .reconfigured(let sensor) = $0 { opened.append(sensor) }
    }
    // The shake responder alone: the configured 50 Hz (62.5 offered), in blocks of 0.1 s.
    let alone = try #require(daemon.input?.sensor)
    #expect(alone.rate == 62.5 && alone.blockSamples == 6)
    let client = try daemon.connect()
    let stream = try daemon.start(client, interval: 0.05)
    // The stream takes the same capture (samples one by one now), not a sensor of its own.
    #expect(daemon.motion.wantedBy == "\(shakes.name), 1 motion stream")
    #expect(opened.count == 1 && opened.last?.rate == 62.5 && opened.last?.blockSamples == 1)
    var records: [AccelerometerRecord] = []
    // 1.2 s of shaking (3 Hz, 1.8 g along the screen's x axis), then 0.8 s still.
    daemon.feed(
      rate: 62.5, duration: 2,
      raw: { t in
        let dynamic = t < 1.2 ? 1.8 * standardGravity * sin(2 * .pi * 3 * t) : 0
        return (0, max(-2048, min(2047, Int((dynamic / 0.009582).rounded()))), 1023)
      },
      each: { records += drainRecords(stream.fd).compactMap { AccelerometerRecord(bytes: $0) } })
    _ = daemon.loop.run(until: { shakes.phases.count >= 2 }, timeout: 2)
    #expect(shakes.phases == [.began, .ended])
    #expect((38...42).contains(records.count), "\(records.count) samples in 2 s at 0.05 s")
    // The stream saw the shake: x swings both ways past 1 g (Core Motion's signs).
    #expect(records.contains { $0.x > 1 } && records.contains { $0.x < -1 })
    #expect(opened.count == 1, "one capture for both")

    // The stream ends: the sensor stays open for the shakes, in blocks again.
    _ = try daemon.call(client, "StopUpdates", [.uint32(stream.id)])
    close(stream.fd)
    #expect(daemon.input?.sensor?.rate == 62.5 && daemon.input?.sensor?.blockSamples == 6)
    #expect(daemon.motion.wantedBy == shakes.name)
    daemon.stop()
  }

  @Test("motion API: bad requests get errors and change nothing")
  func motionBadRequests() throws {
    let daemon = try MotionRig()
    let client = try daemon.connect()
    for interval in [0, -1, 1e9, 0.001, Double.nan, .infinity] {
      #expect(throws: DBusError.self, "interval \(interval)") {
        try daemon.call(client, "StartAccelerometerUpdates", [.double(interval)])
      }
      do {
        _ = try daemon.call(client, "StartDeviceMotionUpdates", [.double(interval)])
      } catch {
        #expect(error.name == DBusError.Name.invalidArgs, "\(interval): \(error)")
        #expect(error.message.contains("interval"))
      }
    }
    #expect(daemon.api.streamCount == 0 && daemon.input?.sensor == nil)
    #expect(throws: DBusError.self) { try daemon.call(client, "StopUpdates", [.uint32(7)]) }

    var fds: [Int32] = []
    defer { for fd in fds { close(fd) } }
    for _ in 0..<MotionBusAPI.maxStreams { fds.append(try daemon.start(client, interval: 0.1).fd) }
    do {
      _ = try daemon.call(client, "StartAccelerometerUpdates", [.double(0.1)])
      Issue.record("one stream more than the most was served")
    } catch {
      #expect(error.name == MotionBusAPI.ErrorName.tooManyStreams)
    }
    #expect(daemon.api.streamCount == MotionBusAPI.maxStreams)
    // Another connection cannot stop this one's streams.
    let other = try daemon.connect()
    do {
      _ = try daemon.call(other, "StopUpdates", [.uint32(1)])
      Issue.record("a stranger stopped a stream")
    } catch {
      #expect(error.name == MotionBusAPI.ErrorName.unknownStream)
    }
    #expect(daemon.api.streamCount == MotionBusAPI.maxStreams)
    daemon.stop()
  }

  @Test("motion API: orientation follows a recorded turn, without flicker at 45°")
  func motionOrientation() throws {
    let daemon = try MotionRig()
    let client = try daemon.connect()
    var seen: [String] = []
    client.onPropertiesChanged(path: ResponderBusAPI.daemonPath, interface: MotionBusAPI.interface) {
      _, changed, _ in
      if let value = changed["DeviceOrientation"]?.string { seen.append(value) }
    }
    #expect(try daemon.property(client, "DeviceOrientation") == .string("unknown"))
    _ = try daemon.call(client, "BeginGeneratingDeviceOrientationNotifications")
    #expect(daemon.input?.sensor != nil)
    // Upright for 0.5 s, turned over 1 s to 45° and held there with ±3° of wobble for 1 s, then on
    // to its side (the right edge up), held 0.5 s.
    let g = 1023.0
    daemon.feed(rate: 62.5, duration: 3) { t in
      let degrees: Double
      switch t {
      case ..<0.5: degrees = 0
      case ..<1.5: degrees = 45 * (t - 0.5)
      case ..<2.5: degrees = 45 + 3 * sin(2 * .pi * 4 * t)
      default: degrees = 90
      }
      let angle = degrees * .pi / 180
      // The fixture's mount matrix reads the screen's x from raw y and its y from raw -x.
      return (Int((-g * cos(angle)).rounded()), Int((g * sin(angle)).rounded()), 0)
    }
    _ = daemon.loop.run(until: { seen.count >= 2 }, timeout: 1)
    #expect(seen == ["portrait", "landscapeLeft"])
    #expect(try daemon.property(client, "DeviceOrientation") == .string("landscapeLeft"))
    // A stream reopens the sensor at its rate: the orientation stays.
    let stream = try daemon.start(client, interval: 0.01)
    #expect(daemon.input?.sensor?.rate == 125)
    _ = try daemon.call(client, "StopUpdates", [.uint32(stream.id)])
    close(stream.fd)
    // (A signal sent before the property's reply arrives before it.)
    #expect(try daemon.property(client, "DeviceOrientation") == .string("landscapeLeft"))
    #expect(seen == ["portrait", "landscapeLeft"])
    _ = try daemon.call(client, "EndGeneratingDeviceOrientationNotifications")
    #expect(daemon.input?.sensor == nil)
    _ = daemon.loop.run(until: { seen.count >= 3 }, timeout: 1)
    #expect(seen.last == "unknown")
    daemon.stop()
  }
}

extension IIOInputDeviceTests {
  @Test("motion API: orientation from a real recorded turn (a phone on a belt, standing, then lying down)")
  func motionOrientationFromARecordedTurn() throws {
    // UCI HAPT subject 1 at the waist, 50 Hz, screen coordinates in m/s² (Tests/Fixtures/Motion/real):
    // standing still until 67.5 s, the stand-to-lie transition until 73.26 s, then lying.
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/Motion/real/hapt-u01-waist-50hz.csv").path
    let trace = try MotionTrace.parse(try readTextFile(file), file: file)
    let from = 66.0
    let first = try #require(trace.firstIndex { $0.t >= from })
    let daemon = try MotionRig()
    let client = try daemon.connect()
    var seen: [(String, Double)] = []
    var fed = 0.0
    client.onPropertiesChanged(path: ResponderBusAPI.daemonPath, interface: MotionBusAPI.interface) {
      _, changed, _ in
      if let value = changed["DeviceOrientation"]?.string { seen.append((value, from + fed)) }
    }
    _ = try daemon.call(client, "BeginGeneratingDeviceOrientationNotifications")
    // The trace through the emulated sensor as it happened: its mount matrix reads the screen's x
    // from raw y and its y from raw -x; 0.009582 m/s² a count, ±2048.
    func counts(_ value: Double) -> Int { max(-2048, min(2047, Int((value / 0.009582).rounded()))) }
    daemon.feed(
      rate: 50, duration: 8,
      raw: { t in
        fed = t
        let sample = trace[min(trace.count - 1, first + Int((t * 50).rounded()))]
        return (counts(-sample.y), counts(sample.x), counts(sample.z))
      })
    _ = daemon.loop.run(until: { false }, timeout: 0.2)
    // Standing, the phone sideways in its holder (its right edge up); one change, in the transition.
    #expect(seen.map(\.0) == ["landscapeLeft", "portrait"], "\(seen)")
    if seen.count == 2 { #expect((67.5...73.26).contains(seen[1].1), "turned at \(seen[1].1) s") }
    _ = try daemon.call(client, "EndGeneratingDeviceOrientationNotifications")
    daemon.stop()
  }
}

extension IIOInputDeviceTests {
  @Test("responderctl motion watch prints samples live; killed mid-stream, its stream is released")
  func motionWatchCommand() throws {
    let daemon = try MotionRig()
    let responderctl = try BuiltProducts.path(of: "responderctl")
    let watch = try ChildProcess(
      [responderctl, "motion", "watch", "--interval", "0.05", "--json", "--count", "10"],
      environment: daemon.bus.environment, stdout: .capture, stderr: .capture)
    let text = try daemon.run(watch, feedingFor: 1).output
    let lines = text.split(separator: "\n")
    #expect(lines.count == 10, "\(text)")
    #expect(
      lines.allSatisfy { $0.hasPrefix("{\"timestamp\": ") && $0.hasSuffix("\"z\": -0.999565}") }, "\(text)")
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2)
    #expect(daemon.api.streamCount == 0)

    // Text: a header that says the units; --units m/s2 gives the sensor's, as motion record.
    let sensorUnits = try ChildProcess(
      [responderctl, "motion", "watch", "--interval", "0.05", "--count", "3", "--units", "m/s2"],
      environment: daemon.bus.environment, stdout: .capture, stderr: .capture)
    let plain = try daemon.run(sensorUnits, feedingFor: 1).output
    let plainLines = plain.split(separator: "\n")
    #expect(
      plainLines.first
        == "# t x y z every 0.05 s: m/s² with the sensor's signs (lying face up reads z = +9.8), as motion record writes",
      "\(plain)")
    #expect(
      plainLines.count == 4 && plainLines.dropFirst().allSatisfy { $0.hasSuffix(" 9.802386") }, "\(plain)")
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2)

    // A client killed mid-stream.
    let victim = try ChildProcess(
      [responderctl, "motion", "watch", "--interval", "0.01"], environment: daemon.bus.environment,
      stdout: .null, stderr: .null)
    daemon.feed(rate: 100, duration: 0.5, each: {})
    _ = daemon.loop.run(until: { daemon.api.streamCount == 1 }, timeout: 3)
    #expect(daemon.api.streamCount == 1)
    #expect(daemon.input?.sensor?.rate == 125)
    victim.signal(SIGKILL)
    _ = try victim.waitForExit(timeout: 5)
    #expect(daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2), "released at once")
    #expect(daemon.input?.sensor == nil)
    daemon.stop()
  }

  @Test("MotionManager: device motion at its interval, and the orientation with its observer")
  func motionManager() throws {
    let daemon = try MotionRig()
    let manager = MotionManager(connection: try daemon.connect())
    var orientations: [DeviceOrientation] = []
    manager.addDeviceOrientationObserver { orientations.append($0) }
    manager.beginGeneratingDeviceOrientationNotifications()
    manager.deviceMotionUpdateInterval = 0.1
    var samples: [DeviceMotion] = []
    var errors: [DBusError] = []
    manager.startDeviceMotionUpdates { data, error in
      if let data { samples.append(data) }
      if let error { errors.append(error) }
    }
    _ = daemon.loop.run(until: { daemon.api.streamCount == 1 }, timeout: 3)
    // Face up, then a push along x for 0.2 s.
    daemon.feed(rate: 100, duration: 1) { t in t >= 0.5 && t < 0.7 ? (0, 300, 1023) : (0, 0, 1023) }
    #expect(errors.isEmpty)
    #expect((9...11).contains(samples.count), "\(samples.count)")
    #expect(manager.isDeviceMotionActive)
    #expect(manager.deviceOrientation == .faceUp && orientations == [.faceUp])
    let pushed = samples.filter { $0.timestamp - (samples.first?.timestamp ?? 0) > 0.45 }.prefix(2)
    // Core Motion's signs: a push toward the right edge reads negative x.
    #expect(pushed.contains { $0.userAcceleration.x < -0.1 }, "\(samples.map(\.userAcceleration))")
    #expect(samples.allSatisfy { abs($0.gravity.z + 1) < 0.05 })

    manager.stopDeviceMotionUpdates()
    manager.endGeneratingDeviceOrientationNotifications()
    #expect(manager.deviceOrientation == .unknown)
    _ = daemon.loop.run(until: { daemon.input?.sensor == nil }, timeout: 3)
    #expect(daemon.api.streamCount == 0 && daemon.input?.sensor == nil)
    daemon.stop()
  }
}

extension IIOInputDeviceTests {
  @Test("the Python example (python3-gi) reads the stream")
  func motionPythonExample() throws {
    let python = "/usr/bin/python3"
    guard access(python, X_OK) == 0 else {
      Issue.record("\(python) is missing: install python3-gi (scripts/packages.txt)")
      return
    }
    let daemon = try MotionRig()
    let script = pythonMotionExample.appendingPathComponent("motion_watch.py").path
    let example = try ChildProcess(
      [python, script, "--interval", "0.05", "--count", "5"], environment: daemon.bus.environment,
      stdout: .capture, stderr: .capture)
    let (text, exitCode) = try daemon.run(example, feedingFor: 1)
    #expect(exitCode == 0)
    let lines = text.split(separator: "\n")
    #expect(lines.count == 5, "\(text)")
    let times = lines.compactMap { $0.split(separator: " ").first.flatMap { Double($0) } }
    #expect(zip(times.dropFirst(), times).allSatisfy { abs($0 - $1 - 0.05) < 0.006 }, "\(text)")
    #expect(lines.allSatisfy { $0.hasSuffix(" 0.000000 0.000000 -0.999565") }, "\(text)")
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2)
    #expect(daemon.api.streamCount == 0, "the example's exit ends its stream")
    daemon.stop()
  }
}

extension IIOInputDeviceTests {
  @Test(
    "the Python example's start_updates: closing its socket ends the stream while the app stays on the bus")
  func motionPythonExampleClosesItsStream() throws {
    let python = "/usr/bin/python3"
    guard access(python, X_OK) == 0 else {
      Issue.record("\(python) is missing: install python3-gi (scripts/packages.txt)")
      return
    }
    let daemon = try MotionRig()
    let examples = pythonMotionExample.path
    let app = try ChildProcess(
      [
        python, "-c",
        """
        import signal
        from gi.repository import Gio
        from motion_watch import start_updates
        samples, stream_id = start_updates(Gio.bus_get_sync(Gio.BusType.SESSION, None), 0.05)
        print("started", stream_id, flush=True)
        samples.close()
        print("closed", flush=True)
        signal.pause()
        """,
      ],
      environment: daemon.bus.environment.merging(["PYTHONPATH": examples]) { $1 }, stdout: .capture,
      stderr: .capture)
    defer { app.terminate() }
    var text = ""
    #expect(
      daemon.loop.run(
        until: {
          app.readAvailable()
          text += app.takeBufferedOutput()
          return text.contains("closed")
        }, timeout: 5), "\(text)")
    #expect(
      daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2), "the stream ended at the close")
    #expect(daemon.input?.sensor == nil)
    #expect(app.isRunning, "still on the bus")
    daemon.stop()
  }
}

extension IIOInputDeviceTests {
  @Test(
    "motion API: with the buffer held by another (iio-sensor-proxy), streams go on through polled capture")
  func motionStreamsBesideSensorProxy() throws {
    let daemon = try MotionRig { bed in
      // What iio-sensor-proxy leaves behind: the buffer is enabled and cannot be taken (the
      // kernel answers EBUSY; here writing buffer/enable fails because it is a directory).
      let enable = bed.root + Testbed.sysPath + "/buffer/enable"
      try FileManager.default.removeItem(atPath: enable)
      try FileManager.default.createDirectory(atPath: enable, withIntermediateDirectories: false)
    }
    let client = try daemon.connect()
    let (fd, _) = try daemon.start(client, interval: 0.05)
    defer { close(fd) }
    #expect(daemon.input?.sensor?.mode == "polled")
    var records: [AccelerometerRecord] = []
    let start = monotonicNow()
    _ = daemon.loop.run(
      until: {
        records += drainRecords(fd).compactMap { AccelerometerRecord(bytes: $0) }
        return monotonicNow() > start + 1
      }, timeout: 3)
    #expect((18...22).contains(records.count), "\(records.count) samples in 1 s at 0.05 s")
    #expect(zip(records.dropFirst(), records).allSatisfy { $0.timestamp > $1.timestamp })
    // The fixture's raw (12, -987, 51) through the mount matrix, in Core Motion's signs.
    let last = try #require(records.last)
    #expect(abs(last.x - 987 * 0.009582 / standardGravity) < 1e-9, "\(last)")
    #expect(abs(last.y - 12 * 0.009582 / standardGravity) < 1e-9, "\(last)")
    daemon.stop()
  }
}

extension IIOInputDeviceTests {
  @Test(
    "responderctl motion record: the stream into a trace `motion analyze` reads; Ctrl-C ends it, file complete"
  )
  func motionRecordCommand() throws {
    let daemon = try MotionRig()
    let responderctl = try BuiltProducts.path(of: "responderctl")
    let file = NSTemporaryDirectory() + "responderd-record-\(getpid()).csv"
    defer { unlink(file) }
    let record = try ChildProcess(
      [responderctl, "motion", "record", "--interval", "0.02", "-o", file],
      environment: daemon.bus.environment,
      stdout: .capture, stderr: .capture)
    #expect(daemon.loop.run(until: { daemon.api.streamCount == 1 }, timeout: 5), "the recording's stream")
    // Face up, then a push along x for 0.2 s (raw y 300 through the mount matrix: x = 2.8746 m/s²).
    daemon.feed(rate: 100, duration: 1) { t in t >= 0.4 && t < 0.6 ? (0, 300, 1023) : (0, 0, 1023) }
    record.signal(SIGINT)
    let status = try record.waitForExit(timeout: 5)
    #expect(ChildProcess.exitCode(status) == 0, "ended cleanly by SIGINT")
    let said = try record.readToEnd(timeout: 2)
    #expect(said.contains(" samples recorded"), "\(said)")
    #expect(daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2), "its stream released")

    let text = try readTextFile(file)
    #expect(
      text.hasPrefix(
        "# responderd stream (org.responderd.Motion1): accelerometer every 0.02 s, m/s² with the sensor's signs (lying face up reads z = +9.8; `motion watch` prints g with Core Motion's, z = -1, unless --units m/s2)\nt,x,y,z\n"
      ),
      "\(text.prefix(200))")
    #expect(text.hasSuffix("\n"), "the last line complete")
    let samples = try MotionTrace.parse(text, file: file)
    #expect((40...56).contains(samples.count), "1 s at 50 Hz: \(samples.count)")
    // m/s² as the sensor reads it (face up: z = +1023 × 0.009582), as `motion record --direct` writes.
    #expect(samples.allSatisfy { abs($0.z - 1023 * 0.009582) < 1e-3 }, "\(samples.map(\.z))")
    let pushed = samples.filter { abs($0.x - 300 * 0.009582) < 1e-3 }.count
    #expect((8...12).contains(pushed), "0.2 s of push at 50 Hz: \(pushed)")
    #expect(zip(samples, samples.dropFirst()).allSatisfy { abs($1.t - $0.t - 0.02) < 0.002 })
    let analyze = try ChildProcess.run([responderctl, "motion", "analyze", file], loop: daemon.loop)
    #expect(analyze.exitCode == 0 && analyze.output.isEmpty, "\(analyze)")

    // Device motion, for a duration: the trace goes on with gravity and user acceleration.
    let timed = try ChildProcess(
      [
        responderctl, "motion", "record", "--device-motion", "--interval", "0.05", "--duration", "0.6", "-o",
        file,
      ],
      environment: daemon.bus.environment, stdout: .null, stderr: .null)
    #expect(daemon.loop.run(until: { daemon.api.streamCount == 1 }, timeout: 5))
    daemon.feed(rate: 100, duration: 1)
    #expect(ChildProcess.exitCode(try timed.waitForExit(timeout: 5)) == 0)
    let motion = try readTextFile(file)
    let lines = motion.split(separator: "\n")
    #expect(lines.count > 2 && lines[1] == "t,x,y,z,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z")
    let rows = lines.dropFirst(2).map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect((9...14).contains(rows.count), "0.6 s at 20 Hz: \(rows.count)")
    #expect(
      rows.allSatisfy { $0.count == 10 && abs($0[3] - ($0[6] + $0[9])) < 2e-4 && abs($0[6] - 9.8024) < 0.3 })
    #expect(try MotionTrace.parse(motion, file: file).count == rows.count)
    let analyzed = try ChildProcess.run([responderctl, "motion", "analyze", file], loop: daemon.loop)
    #expect(analyzed.exitCode == 0, "\(analyzed)")
    _ = daemon.loop.run(until: { daemon.api.streamCount == 0 }, timeout: 2)
    daemon.stop()
  }
}
