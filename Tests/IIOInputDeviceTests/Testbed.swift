import CUmockdev
import EventLoop
import EventTime
import Foundation
import IIOInput
import Logging
import Motion
import SystemCalls
import SystemPackage
import Testing

/// Whether the tests run under umockdev (umockdev-wrapper preloads the library that redirects /sys
/// and /dev to the testbed).
let underUmockdev =
  ProcessInfo.processInfo.environment["UMOCKDEV_DIR"] != nil
  || ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("libumockdev-preload") == true

let skipMessage: Comment =
  "needs umockdev: run `umockdev-wrapper swift test --filter IIOInputDeviceTests`"

/// The fixtures under Tests/Fixtures/IIO.
func fixture(_ name: String) -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/IIO/\(name)").path
}

struct TestbedError: Error, CustomStringConvertible {
  var description: String
}

/// A umockdev testbed with the bmc150 accelerometer (Tests/Fixtures/IIO/iio-accel.umockdev).
final class Testbed {
  static let sysPath = "/sys/devices/platform/80860F41:01/i2c-1/i2c-BOSC0200:00/iio:device0"
  static let devNode = "/dev/iio:device0"
  let pointer: UnsafeMutablePointer<UMockdevTestbed>

  init(withDevice: Bool = true) throws {
    pointer = umockdev_testbed_new()
    if withDevice { try addDevice() }
  }

  deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

  func addDevice() throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_add_from_file(pointer, fixture("iio-accel.umockdev"), &error) != 0 else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      throw TestbedError(description: "cannot add the device: \(message)")
    }
  }

  /// The testbed's root (what /sys and /dev are redirected to).
  var root: String {
    let raw = umockdev_testbed_get_root_dir(pointer)!
    defer { g_free(raw) }
    return String(cString: raw)
  }

  /// Sets a sysfs attribute of the accelerometer (with the newline real sysfs has), in place, as
  /// the kernel changes a value: a program holding the attribute file open reads the new value.
  /// (umockdev_testbed_set_attribute writes a new file over it: an open one would keep the old.)
  func setAttribute(_ name: String, _ value: String, of device: String = Testbed.sysPath) {
    let path = root + device + "/" + name
    do {
      let file = try systemCall("open", path: FilePath(path)) {
        try FileDescriptor.open(FilePath(path), .writeOnly, options: [.truncate, .closeOnExec])
      }
      defer { try? file.close() }
      let text = Array((value + "\n").utf8)
      #expect(
        try systemCall("write", path: FilePath(path)) { try text.withUnsafeBytes { try file.write($0) } }
          == text.count)
    } catch {
      Issue.record("cannot write: \(error)")
    }
  }

  /// Reads a sysfs attribute of the accelerometer from the testbed's files (not through the
  /// preload library), as the test's own observation of what the program wrote.
  func attribute(_ name: String) -> String {
    let path = root + Self.sysPath + "/" + name
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing>"
    return text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
  }

  /// The pty master behind /dev/iio:device0: what is written there is what the program reads.
  var deviceFD: FileDescriptor {
    FileDescriptor(rawValue: umockdev_testbed_get_dev_fd(pointer, Self.devNode))
  }

  /// Writes scans to the device node (as far as it takes them).
  func feed(_ data: [UInt8]) {
    try? deviceFD.writeAll(bytes: data)
  }

  /// Waits until what was fed can be read on the device node (the pty passes it on a moment after
  /// the write), polling a descriptor of its own without reading; false after `timeout` seconds.
  func waitUntilReadable(timeout: Double) throws -> Bool {
    let path = root + "/dev/iio:device0"
    let fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw TestbedError(description: "cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, Int32(timeout * 1000)) == 1 && entry.revents & Int16(POLLIN) != 0
  }

  /// Replays a umockdev script on the device node.
  func loadScript(_ path: String) throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_load_script(pointer, Self.devNode, path, &error) != 0 else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      throw TestbedError(description: "cannot load the script: \(message)")
    }
  }

  /// The vcnl4040 proximity sensor of Tests/Fixtures/IIO/iio-proximity.umockdev.
  static let proximityPath = "/sys/devices/platform/soc@0/30800000.bus/30a30000.i2c/i2c-1/1-0060/iio:device1"

  /// Adds the proximity sensor (near above 200, reading far).
  func addProximitySensor() throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_add_from_file(pointer, fixture("iio-proximity.umockdev"), &error) != 0 else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      throw TestbedError(description: "cannot add the proximity sensor: \(message)")
    }
  }

  /// What the proximity sensor reads from now on (`in_proximity_raw`), as the kernel changes it.
  func setProximity(_ raw: Int) {
    setAttribute("in_proximity_raw", String(raw), of: Self.proximityPath)
  }

  /// Unplugs the accelerometer: a "remove" uevent, then the device is gone.
  func removeDevice() {
    umockdev_testbed_uevent(pointer, Self.sysPath, "remove")
    umockdev_testbed_remove_device(pointer, Self.sysPath)
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
