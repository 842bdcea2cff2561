import DeviceTestSupport
import EventLoop
import EventTime
import Foundation
import IIOInput
import Logging
import Motion
import SystemCalls
import SystemPackage
import Testing

let skipMessage: Comment =
  "needs umockdev: run `umockdev-wrapper swift test --filter IIOInputDeviceTests`"

/// The fixtures under Tests/Fixtures/IIO.
func fixture(_ name: String) -> String {
  fixturePath("IIO", name)
}

/// The testbed with the bmc150 accelerometer (Tests/Fixtures/IIO/iio-accel.umockdev).
final class Testbed {
  static let sysPath = "/sys/devices/platform/80860F41:01/i2c-1/i2c-BOSC0200:00/iio:device0"
  static let devNode = "/dev/iio:device0"
  let testbed = UmockdevTestbed()

  init(withDevice: Bool = true) throws {
    if withDevice { try addDevice() }
  }

  func addDevice() throws {
    try testbed.addDevices(fromFile: fixture("iio-accel.umockdev"))
  }

  /// The testbed's root (what /sys and /dev are redirected to).
  var root: String { testbed.root }

  /// Sets a sysfs attribute of the accelerometer (or of `device`) in place, as the kernel changes
  /// a value.
  func setAttribute(_ name: String, _ value: String, of device: String = Testbed.sysPath) {
    do {
      try testbed.setAttribute(name, of: device, to: value)
    } catch {
      Issue.record("cannot write: \(error)")
    }
  }

  /// A sysfs attribute of the accelerometer as the program left it.
  func attribute(_ name: String) -> String {
    testbed.attribute(name, of: Self.sysPath)
  }

  /// The pty master behind /dev/iio:device0: what is written there is what the program reads.
  var deviceFD: FileDescriptor { testbed.deviceFD(Self.devNode) }

  /// Writes scans to the device node (as far as it takes them).
  func feed(_ data: [UInt8]) {
    try? deviceFD.writeAll(bytes: data)
  }

  /// Feeds scans on `loop` as they happen, `raw(t)` at `rate(t)` Hz (t from the start) for
  /// `feedingFor` s, until `until(t)` says so; `each(t)` runs every loop turn. The scans' times are
  /// the realtime clock's (`clockOffset` from the monotonic one). Returns the monotonic start time.
  @discardableResult
  func feed(
    on loop: EventLoop, rate: @escaping (Double) -> Double, timeout: Double, raw: (Double) -> (Int, Int, Int),
    feedingFor: Double = .infinity,
    clockOffset: Double = Double(realtimeNanoseconds()) / 1e9 - monotonicNow(),
    each: (Double) -> Void = { _ in }, until: (Double) -> Bool
  ) -> Double {
    let start = monotonicNow()
    var next = start
    _ = loop.run(
      until: {
        var block: [UInt8] = []
        while next <= monotonicNow(), next < start + feedingFor {
          let (x, y, z) = raw(next - start)
          block += scan(x: x, y: y, z: z, timestamp: Int64((next + clockOffset) * 1e9))
          next += 1 / rate(next - start)
        }
        if !block.isEmpty { feed(block) }
        each(monotonicNow() - start)
        return until(monotonicNow() - start)
      }, timeout: timeout)
    return start
  }

  /// Waits until what was fed can be read on the device node; false after `timeout` seconds.
  func waitUntilReadable(timeout: Double) throws -> Bool {
    try testbed.waitUntilReadable(Self.devNode, timeout: timeout)
  }

  /// Replays a umockdev script on the device node.
  func loadScript(_ path: String) throws {
    try testbed.loadScript(path, on: Self.devNode)
  }

  /// The vcnl4040 proximity sensor of Tests/Fixtures/IIO/iio-proximity.umockdev.
  static let proximityPath = "/sys/devices/platform/soc@0/30800000.bus/30a30000.i2c/i2c-1/1-0060/iio:device1"

  /// Adds the proximity sensor (near above 200, reading far).
  func addProximitySensor() throws {
    try testbed.addDevices(fromFile: fixture("iio-proximity.umockdev"))
  }

  /// What the proximity sensor reads from now on (`in_proximity_raw`), as the kernel changes it.
  func setProximity(_ raw: Int) {
    setAttribute("in_proximity_raw", String(raw), of: Self.proximityPath)
  }

  /// Unplugs the accelerometer: a "remove" uevent, then the device is gone.
  func removeDevice() {
    testbed.remove(Self.sysPath)
  }
}

/// One bmc150 scan: x, y, z as `le:s12/16>>4` at indexes 0–2, then the `le:s64/64>>0` timestamp
/// aligned to 8 bytes.
func scan(x: Int, y: Int, z: Int, timestamp: Int64) -> [UInt8] {
  var bytes: [UInt8] = []
  for value in [x, y, z] {
    let word = UInt16(bitPattern: Int16(value) << 4)
    bytes += [UInt8(word & 0xff), UInt8(word >> 8)]
  }
  bytes += [0, 0]
  bytes += withUnsafeBytes(of: timestamp.littleEndian) { Array($0) }
  return bytes
}

/// Nanoseconds on CLOCK_REALTIME (the kernel's default clock for IIO timestamps).
func realtimeNanoseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Seconds on CLOCK_MONOTONIC.
func monotonicNow() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Watches a directory with inotify for any file being opened or read.
final class AccessWatch {
  let fd: FileDescriptor
  init(_ paths: [String]) throws {
    fd = try systemCall("inotify_init1") { try FileDescriptor.inotify() }
    for path in paths {
      try systemCall("inotify_add_watch", path: FilePath(path)) {
        try fd.addInotifyWatch(FilePath(path), mask: UInt32(IN_OPEN | IN_ACCESS))
      }
    }
  }
  deinit { try? fd.close() }

  /// The number of events since the last call.
  func drain() -> Int {
    var buffer = [UInt8](repeating: 0, count: 65536)
    var events = 0
    while true {
      guard let n = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) }), n > 0 else {
        return events
      }
      var offset = 0
      while offset < n {
        let length = buffer.withUnsafeBytes { $0.load(fromByteOffset: offset + 12, as: UInt32.self) }
        events += 1
        offset += 16 + Int(length)
      }
    }
  }
}

let testLogger: Logger = {
  var logger = Logger(label: "iio-test")
  logger.logLevel = .debug
  return logger
}()
