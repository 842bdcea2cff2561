import CUmockdev
import ResponderCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every touchscreen device test, one at a time: the umockdev testbed is process-wide.
@Suite(
  "TouchDispatch on an emulated touchscreen (umockdev)", .serialized,
  .enabled(if: underUmockdev, Comment(rawValue: notUnderUmockdev)))
struct TouchDispatchDeviceTests {}

/// Whether this process runs under umockdev's preload library (`umockdev-wrapper swift test …`).
let underUmockdev: Bool = {
  if getenv("UMOCKDEV_DIR") != nil { return true }
  guard let preload = getenv("LD_PRELOAD") else { return false }
  return String(cString: preload).contains("umockdev")
}()

let notUnderUmockdev =
  "skipped: touchscreen device tests need umockdev; run `umockdev-wrapper swift test --filter TouchDispatchDeviceTests`"

/// A file of Tests/Fixtures/Touchscreen.
func touchscreenFixture(_ name: String) -> String {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Tests") { path = String(path[..<slash]) }
  return path + "/Fixtures/Touchscreen/" + name
}

func readText(_ path: String) throws -> String {
  guard let file = fopen(path, "r") else { throw TestbedError(description: "cannot read \(path)") }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = fread(&buffer, 1, buffer.count, file)
    if n == 0 { break }
    bytes.append(contentsOf: buffer[0..<n])
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// The events of an evemu fixture.
func fixtureEvents(_ name: String) throws -> [RawInputEvent] {
  try EvemuRecording(text: try readText(touchscreenFixture(name))).events
}

struct TestbedError: Error, CustomStringConvertible {
  var description: String
}

/// A umockdev testbed with the emulated touchscreen: /sys and /dev redirected to a temporary tree,
/// the device written to as the kernel would, and unplugged.
final class TouchscreenTestbed {
  private let testbed: UnsafeMutablePointer<UMockdevTestbed>
  /// "/dev/input/event9".
  let devnode: String

  init() throws {
    guard underUmockdev else { throw TestbedError(description: notUnderUmockdev) }
    testbed = umockdev_testbed_new()
    let ioctlPath = touchscreenFixture("touchscreen.ioctl")
    let sysText = try readText(touchscreenFixture("touchscreen.umockdev"))
    guard let first = try readText(ioctlPath).split(separator: "\n").first, first.hasPrefix("@DEV ") else {
      throw TestbedError(description: "touchscreen.ioctl: no @DEV line")
    }
    devnode = String(first.dropFirst(5))
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_load_ioctl(testbed, devnode, ioctlPath, &error) != 0 else {
      throw TestbedError(description: "load_ioctl: \(message(error))")
    }
    guard umockdev_testbed_add_from_string(testbed, sysText, &error) != 0 else {
      throw TestbedError(description: "add_from_string: \(message(error))")
    }
  }

  deinit {
    g_object_unref(UnsafeMutableRawPointer(testbed))
  }

  /// Writes events as the kernel would (struct input_event, 64-bit layout).
  func write(_ events: [RawInputEvent]) throws {
    let fd = umockdev_testbed_get_dev_fd(testbed, devnode)
    guard fd >= 0 else { throw TestbedError(description: "no device fd for \(devnode)") }
    var bytes: [UInt8] = []
    for event in events {
      let micros = Int64((event.time * 1_000_000).rounded())
      append(&bytes, micros / 1_000_000)
      append(&bytes, micros % 1_000_000)
      append(&bytes, event.type)
      append(&bytes, event.code)
      append(&bytes, event.value)
    }
    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw TestbedError(description: "short write to \(devnode)") }
  }

  /// Closes the emulated device's end: readers get EPOLLHUP, as on a real unplug.
  func hangUp() {
    let fd = umockdev_testbed_get_dev_fd(testbed, devnode)
    if fd >= 0 { close(fd) }
  }

  private func message(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return String(cString: error.pointee.message)
  }

  private func append<T: FixedWidthInteger>(_ bytes: inout [UInt8], _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
