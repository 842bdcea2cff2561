// Helpers shared by the benchmarks: devices emulated with umockdev (live injection), fixture
// files, and statistics.
import CUmockdev

#if canImport(Glibc)
  import Glibc
#endif

/// A failure of a benchmark's setup, with what was seen.
public struct BenchmarkError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

// MARK: Running under umockdev

/// Whether this process runs with umockdev's preload library (umockdev-wrapper).
public func isUnderUmockdev() -> Bool {
  guard let preload = getenv("LD_PRELOAD") else { return false }
  return String(cString: preload).contains("umockdev")
}

/// Re-executes this program under `umockdev-wrapper` unless it already runs under it; `name` is
/// used in the error message when umockdev is missing.
public func reexecUnderUmockdevIfNeeded(name: String) {
  guard !isUnderUmockdev() else { return }
  var arguments = ["umockdev-wrapper"] + CommandLine.arguments
  if !CommandLine.arguments[0].contains("/") {
    arguments[1] = "/proc/self/exe"
  }
  let cArguments = arguments.map { strdup($0) } + [nil]
  execvp("umockdev-wrapper", cArguments)
  let text = "\(name): cannot run umockdev-wrapper (apt-get install umockdev)\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  exit(1)
}

// MARK: Files

/// The checkout's root directory (where Package.swift is), found from this source file's path.
public let packageRoot: String = {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Benchmarks") { path = String(path[..<slash]) }
  return String(path.dropLast("/Benchmarks".count))
}()

/// The path of a test fixture: `fixture("evdev/headset.umockdev")` is under Tests/Fixtures.
public func fixture(_ relativePath: String) -> String {
  packageRoot + "/Tests/Fixtures/" + relativePath
}

/// The whole content of a text file.
public func readTextFile(_ path: String) throws -> String {
  guard let file = fopen(path, "r") else { throw BenchmarkError("cannot read \(path): errno \(errno)") }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count == 0 { break }
    bytes.append(contentsOf: buffer[0..<count])
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to `path` (replacing it).
public func writeTextFile(_ text: String, to path: String) throws {
  guard let file = fopen(path, "w") else { throw BenchmarkError("cannot write \(path): errno \(errno)") }
  defer { fclose(file) }
  guard fputs(text, file) >= 0 else { throw BenchmarkError("cannot write \(path)") }
}

// MARK: The testbed

/// The process's umockdev testbed (one per process: it sets UMOCKDEV_DIR). Child processes started
/// with the preload library see the same devices.
public final class EmulatedDevices {
  public let testbed: UnsafeMutablePointer<UMockdevTestbed>
  /// The testbed's root directory (UMOCKDEV_DIR).
  public let root: String

  /// Creates the testbed, with an empty /dev/input (so that hotplug watchers can watch it).
  public init() {
    testbed = umockdev_testbed_new()!
    let dir = umockdev_testbed_get_root_dir(testbed)!
    root = String(cString: dir)
    g_free(dir)
    mkdir(root + "/dev", 0o755)
    mkdir(root + "/dev/input", 0o755)
  }

  /// Adds an evdev device from its sysfs description and ioctl answers (the ioctl answers are
  /// loaded first, so that no reader can open the node un-emulated). Returns the descriptor its
  /// events are written to.
  @discardableResult
  public func addEvdev(devnode: String, umockdev: String, ioctl: String) throws -> Int32 {
    let ioctlPath = root + "/" + (devnode.split(separator: "/").last.map(String.init) ?? "device") + ".ioctl"
    try writeTextFile(ioctl, to: ioctlPath)
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_load_ioctl(testbed, devnode, ioctlPath, &error) != 0 else {
      throw BenchmarkError("cannot load the ioctl answers of \(devnode): \(message(of: error))")
    }
    guard umockdev_testbed_add_from_string(testbed, umockdev, &error) != 0 else {
      throw BenchmarkError("cannot emulate \(devnode): \(message(of: error))")
    }
    return umockdev_testbed_get_dev_fd(testbed, devnode)
  }

  /// Adds an evdev fixture of Tests/Fixtures/evdev (`name`.umockdev and `name`.ioctl) at its own node.
  @discardableResult
  public func addEvdevFixture(_ name: String, devnode: String) throws -> Int32 {
    try addEvdev(
      devnode: devnode, umockdev: try readTextFile(fixture("evdev/\(name).umockdev")),
      ioctl: try readTextFile(fixture("evdev/\(name).ioctl")))
  }

  /// Adds the devices of a .umockdev file.
  public func add(umockdevFile path: String) throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_add_from_file(testbed, path, &error) != 0 else {
      throw BenchmarkError("cannot load \(path): \(message(of: error))")
    }
  }

  /// Sets a sysfs attribute of an emulated device.
  public func setAttribute(_ sysPath: String, _ name: String, _ value: String) {
    umockdev_testbed_set_attribute(testbed, sysPath, name, value)
  }

  /// The descriptor that feeds a device node's reads (the pty master).
  public func deviceFD(_ devnode: String) -> Int32 { umockdev_testbed_get_dev_fd(testbed, devnode) }

  private func message(of error: UnsafeMutablePointer<GError>?) -> String {
    guard let error, let text = error.pointee.message else { return "unknown error" }
    return String(cString: text)
  }
}

// MARK: Events

/// Seconds on CLOCK_REALTIME.
public func realtimeSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_REALTIME, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Writes a key event and its SYN_REPORT at once (one write), stamped with CLOCK_REALTIME as the
/// kernel does by default: `struct input_event` of x86_64.
public func writeKeyEvent(_ fd: Int32, code: UInt16, value: Int32) {
  let now = realtimeSeconds()
  let seconds = Int64(now)
  let micros = Int64((now - Double(seconds)) * 1e6)
  var bytes: [UInt8] = []
  bytes.reserveCapacity(48)
  func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
  for (type, code, value) in [(UInt16(1), code, value), (UInt16(0), UInt16(0), Int32(0))] {
    append(seconds)
    append(micros)
    append(type)
    append(code)
    append(value)
  }
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

/// KEY_PLAYPAUSE (linux/input-event-codes.h).
public let keyPlayPause: UInt16 = 164

// MARK: Statistics

/// The nearest-rank percentile of sorted values (`p` in 0...1).
public func percentile(_ sorted: [Double], _ p: Double) -> Double {
  let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
  return sorted[index]
}

/// Pads `text` with spaces to `width` characters.
public func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// `value` with `decimals` digits after the point ("0.25").
public func fixed(_ value: Double, _ decimals: Int) -> String {
  guard value.isFinite else { return "\(value)" }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  let whole = Int(scaled / scale)
  var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
  if decimals > 0 {
    let fraction = String(Int(scaled - Double(whole) * scale))
    text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
  }
  return text
}
