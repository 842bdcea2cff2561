import CUmockdev
import DeviceTestSupport
// Helpers shared by the benchmarks: running under umockdev, devices emulated with the tests'
// testbed (DeviceTestSupport) for live injection, and statistics.
import InputCodes
import ResponderCore
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A failure of a benchmark's setup, with what was seen.
public struct BenchmarkError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

// MARK: Running under umockdev

/// Re-executes this program under `umockdev-wrapper` unless its preload library is already
/// loaded; `name` is used in the error message when umockdev is missing.
public func reexecUnderUmockdevIfNeeded(name: String) {
  if let preload = getenv("LD_PRELOAD"), String(cString: preload).contains("umockdev") { return }
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

// MARK: The testbed

extension UmockdevTestbed {
  /// Creates /dev/input in the testbed, so that hotplug watchers can watch it before any device.
  public func makeInputDirectory() {
    mkdir(root + "/dev", 0o755)
    mkdir(root + "/dev/input", 0o755)
  }

  /// Adds the evdev fixture `name` of Tests/Fixtures/evdev (name.ioctl, name.umockdev).
  @discardableResult
  public func addEvdevFixture(_ name: String) throws -> EmulatedDevice {
    try addEvdevDevice(
      ioctlPath: fixturePath("evdev", name + ".ioctl"), sysfsPath: fixturePath("evdev", name + ".umockdev"),
      name: name)
  }

  /// Adds an evdev device from the texts of its ioctl answers and sysfs description (written next
  /// to the testbed's tree first).
  @discardableResult
  public func addEvdevDevice(ioctl: String, sysfs: String, name: String) throws -> EmulatedDevice {
    let ioctlPath = root + "/" + name + ".ioctl"
    let sysfsPath = root + "/" + name + ".umockdev"
    try writeTextFile(ioctlPath, ioctl)
    try writeTextFile(sysfsPath, sysfs)
    return try addEvdevDevice(ioctlPath: ioctlPath, sysfsPath: sysfsPath, name: name)
  }

  /// Sets a sysfs attribute of an emulated device.
  public func setAttribute(_ sysPath: String, _ name: String, _ value: String) {
    umockdev_testbed_set_attribute(pointer, sysPath, name, value)
  }

  /// Writes a key event and its SYN_REPORT to `devnode` at once, stamped with CLOCK_REALTIME as
  /// the kernel stamps them by default.
  public func writeKey(_ code: UInt16, _ value: Int32, to devnode: String) throws {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    let now = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    try write(
      [
        RawInputEvent(time: now, type: 1, code: code, value: value),
        RawInputEvent(time: now, type: 0, code: 0, value: 0),
      ], to: devnode)
  }
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
