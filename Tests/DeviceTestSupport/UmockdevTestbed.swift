import CUmockdev
import InputCodes
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Whether this process runs under umockdev's preload library (`umockdev-wrapper swift test …`).
public let underUmockdev: Bool = {
  if getenv("UMOCKDEV_DIR") != nil { return true }
  guard let preload = getenv("LD_PRELOAD") else { return false }
  return String(cString: preload).contains("umockdev")
}()

/// A testbed that could not be set up or driven.
public struct TestbedError: Error, CustomStringConvertible {
  public var description: String
  public init(description: String) { self.description = description }
}

/// A file of `Tests/Fixtures/<folder>`.
public func fixturePath(_ folder: String, _ name: String) -> String {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Tests") { path = String(path[..<slash]) }
  return path + "/Fixtures/" + folder + "/" + name
}

/// An emulated evdev device of a testbed.
public struct EmulatedDevice: Sendable {
  /// "/dev/input/event7".
  public var devnode: String
  /// "/sys/devices/…/event7".
  public var syspath: String
  /// "13:71".
  public var majorMinor: String
}

/// A umockdev testbed in this process: /sys and /dev redirected to a temporary tree where
/// emulated evdev devices are added and written to as the kernel would.
public final class UmockdevTestbed {
  public let pointer: UnsafeMutablePointer<UMockdevTestbed>
  /// The temporary tree /sys and /dev are redirected to.
  public let root: String

  public init() {
    pointer = umockdev_testbed_new()
    let dir = umockdev_testbed_get_root_dir(pointer)!
    root = String(cString: dir)
    g_free(dir)
  }

  /// The testbed `pointer` another helper made (umockdev redirects to the last testbed made: one
  /// per process), to add evdev devices beside its own.
  public init(sharing pointer: UnsafeMutablePointer<UMockdevTestbed>) {
    g_object_ref(UnsafeMutableRawPointer(pointer))
    self.pointer = pointer
    let dir = umockdev_testbed_get_root_dir(pointer)!
    root = String(cString: dir)
    g_free(dir)
  }

  deinit {
    g_object_unref(UnsafeMutableRawPointer(pointer))
  }

  /// Adds an evdev device from a recording pair (`umockdev-record --ioctl` and its sysfs
  /// description): the ioctl answers first, then the sysfs description (which sends the "add"
  /// uevent). `name` names the device in errors.
  public func addEvdevDevice(ioctlPath: String, sysfsPath: String, name: String) throws -> EmulatedDevice {
    let ioctlText = try readTextFile(ioctlPath)
    let sysText = try readTextFile(sysfsPath)
    guard let first = ioctlText.split(separator: "\n").first, first.hasPrefix("@DEV "),
      let sysLine = sysText.split(separator: "\n").first, sysLine.hasPrefix("P: ")
    else { throw TestbedError(description: "\(name): unexpected fixture format") }
    guard let devLine = sysText.split(separator: "\n").first(where: { $0.hasPrefix("A: dev=") }) else {
      throw TestbedError(description: "\(name): no 'A: dev=' line")
    }
    let device = EmulatedDevice(
      devnode: String(first.dropFirst(5)), syspath: "/sys" + String(sysLine.dropFirst(3)),
      majorMinor: String(devLine.dropFirst(7)))
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_load_ioctl(pointer, device.devnode, ioctlPath, &error) != 0 else {
      throw TestbedError(description: "load_ioctl \(name): \(Self.message(error))")
    }
    guard umockdev_testbed_add_from_string(pointer, sysText, &error) != 0 else {
      throw TestbedError(description: "add_from_string \(name): \(Self.message(error))")
    }
    return device
  }

  /// Writes events to the device node as the kernel would (struct input_event, 64-bit layout).
  public func write(_ events: [RawInputEvent], to devnode: String) throws {
    let fd = umockdev_testbed_get_dev_fd(pointer, devnode)
    guard fd >= 0 else { throw TestbedError(description: "no device fd for \(devnode)") }
    let device = FileDescriptor(rawValue: fd)
    var bytes: [UInt8] = []
    for event in events {
      let micros = Int64((event.time * 1_000_000).rounded())
      Self.append(&bytes, micros / 1_000_000)
      Self.append(&bytes, micros % 1_000_000)
      Self.append(&bytes, event.type)
      Self.append(&bytes, event.code)
      Self.append(&bytes, event.value)
    }
    let written = try systemCall("write", path: FilePath(devnode)) {
      try bytes.withUnsafeBytes { try device.write($0) }
    }
    guard written == bytes.count else { throw TestbedError(description: "short write to \(devnode)") }
  }

  /// Closes the emulated device's end: readers get EPOLLHUP, as on a real unplug.
  public func hangUp(_ devnode: String) {
    let fd = umockdev_testbed_get_dev_fd(pointer, devnode)
    if fd >= 0 { try? FileDescriptor(rawValue: fd).close() }
  }

  private static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return String(cString: error.pointee.message)
  }

  private static func append<T: FixedWidthInteger>(_ bytes: inout [UInt8], _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
