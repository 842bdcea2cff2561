import CUmockdev
import EventLoop
import ResponderCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every device test, one at a time: the testbed is process-global (UMOCKDEV_DIR).
@Suite(
  "EvdevInput on emulated devices (umockdev)", .serialized,
  .enabled(if: underUmockdev, Comment(rawValue: notUnderUmockdev)))
struct EvdevInputDeviceTests {}

/// Whether this process runs under umockdev's preload library (`umockdev-wrapper swift test …`).
let underUmockdev: Bool = {
  if getenv("UMOCKDEV_DIR") != nil { return true }
  guard let preload = getenv("LD_PRELOAD") else { return false }
  return String(cString: preload).contains("umockdev")
}()

let notUnderUmockdev =
  "device tests need umockdev: run `umockdev-wrapper swift test --filter EvdevInputDeviceTests`"

/// The fixtures under Tests/Fixtures/evdev (made by mkevdev.py there).
func evdevFixture(_ name: String) -> String {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Tests") { path = String(path[..<slash]) }
  return path + "/Fixtures/evdev/" + name
}

struct TestbedError: Error, CustomStringConvertible {
  var description: String
}

/// An emulated device of the testbed.
struct EmulatedDevice {
  /// "/dev/input/event7".
  var devnode: String
  /// "/sys/devices/…/event7".
  var syspath: String
  /// "13:71".
  var majorMinor: String
}

/// A umockdev testbed in this process: /sys and /dev redirected to a temporary tree where
/// emulated evdev devices are added, written to (as the kernel would), and unplugged.
final class Testbed {
  private let testbed: UnsafeMutablePointer<UMockdevTestbed>
  let root: String

  init() throws {
    guard underUmockdev else { throw TestbedError(description: notUnderUmockdev) }
    testbed = umockdev_testbed_new()
    let dir = umockdev_testbed_get_root_dir(testbed)!
    root = String(cString: dir)
    g_free(dir)
    // Hotplug listeners only see /dev/input redirected when it exists in the testbed.
    mkdir(root + "/dev", 0o755)
    mkdir(root + "/dev/input", 0o755)
  }

  deinit {
    g_object_unref(UnsafeMutableRawPointer(testbed))
  }

  /// Adds a fixture device ("headset", "keyboard", "jack", "touchscreen"): its ioctl answers
  /// first, then its sysfs description (which sends the "add" uevent).
  @discardableResult
  func add(_ name: String) throws -> EmulatedDevice {
    let ioctlPath = evdevFixture(name + ".ioctl")
    let ioctlText = try readText(ioctlPath)
    let sysText = try readText(evdevFixture(name + ".umockdev"))
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
    guard umockdev_testbed_load_ioctl(testbed, device.devnode, ioctlPath, &error) != 0 else {
      throw TestbedError(description: "load_ioctl \(name): \(message(error))")
    }
    guard umockdev_testbed_add_from_string(testbed, sysText, &error) != 0 else {
      throw TestbedError(description: "add_from_string \(name): \(message(error))")
    }
    return device
  }

  /// Writes events to the device as the kernel would (struct input_event, x86_64 layout).
  func write(_ device: EmulatedDevice, _ events: [RawInputEvent]) throws {
    let fd = umockdev_testbed_get_dev_fd(testbed, device.devnode)
    guard fd >= 0 else { throw TestbedError(description: "no device fd for \(device.devnode)") }
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
    guard written == bytes.count else { throw TestbedError(description: "short write to \(device.devnode)") }
  }

  /// A key event followed by SYN_REPORT.
  func key(_ device: EmulatedDevice, _ code: UInt16, _ value: Int32, at time: Seconds) throws {
    try write(
      device,
      [
        RawInputEvent(time: time, type: InputCode.EV_KEY, code: code, value: value),
        RawInputEvent(time: time, type: InputCode.EV_SYN, code: InputCode.SYN_REPORT, value: 0),
      ])
  }

  /// Sends the "remove" uevent and removes the device from sysfs (the open node stays readable).
  func removeUevent(_ device: EmulatedDevice) {
    umockdev_testbed_uevent(testbed, device.syspath, "remove")
    umockdev_testbed_remove_device(testbed, device.syspath)
  }

  /// Closes the emulated device's end: readers get EPOLLHUP, as on a real unplug.
  func hangUp(_ device: EmulatedDevice) {
    let fd = umockdev_testbed_get_dev_fd(testbed, device.devnode)
    if fd >= 0 { close(fd) }
  }

  /// A full unplug: the uevent, then the hang-up. (umockdev 0.17 cannot add a node of the same
  /// name again: a replugged device comes back under a new number, as "headset-replugged".)
  func unplug(_ device: EmulatedDevice) {
    removeUevent(device)
    hangUp(device)
    // Removing the last device removes /dev/input from the testbed: hotplug needs it.
    mkdir(root + "/dev/input", 0o755)
    // The closed pty's number is free again, but umockdev keeps its map entry, and would abort
    // when the next device gets that pty: forget it.
    let map = root + "/dev/.ptymap"
    guard let dir = opendir(map) else { return }
    defer { closedir(dir) }
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      var target = [CChar](repeating: 0, count: 64)
      let length = readlink(map + "/" + name, &target, target.count - 1)
      guard length > 0 else { continue }
      if String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        == device.majorMinor
      {
        unlink(map + "/" + name)
      }
    }
  }

  private func message(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return String(cString: error.pointee.message)
  }

  private func append<T: FixedWidthInteger>(_ bytes: inout [UInt8], _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  private func readText(_ path: String) throws -> String {
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
}
