import CUmockdev
import DeviceTestSupport
import EventLoop
import EventTime
import Glibc
import InputCodes
import ResponderCore
import Testing

/// Every device test, one at a time: the testbed is process-global (UMOCKDEV_DIR).
@Suite(
  "EvdevInput on emulated devices (umockdev)", .serialized,
  .enabled(if: underUmockdev, Comment(rawValue: umockdevNeeded(by: "EvdevInputDeviceTests"))))
struct EvdevInputDeviceTests {}

/// The fixtures under Tests/Fixtures/evdev (made by mkevdev.py there).
func evdevFixture(_ name: String) -> String {
  fixturePath("evdev", name)
}

/// A umockdev testbed in this process: /sys and /dev redirected to a temporary tree where
/// emulated evdev devices are added, written to (as the kernel would), and unplugged.
final class Testbed {
  private let testbed: UmockdevTestbed
  var root: String { testbed.root }

  init() throws {
    guard underUmockdev else { throw TestbedError(description: umockdevNeeded(by: "EvdevInputDeviceTests")) }
    testbed = UmockdevTestbed()
    // Hotplug listeners only see /dev/input redirected when it exists in the testbed.
    mkdir(root + "/dev", 0o755)
    mkdir(root + "/dev/input", 0o755)
  }

  /// Adds a fixture device ("headset", "keyboard", "jack", "touchscreen"): its ioctl answers
  /// first, then its sysfs description (which sends the "add" uevent).
  @discardableResult
  func add(_ name: String) throws -> EmulatedDevice {
    try testbed.addEvdevDevice(
      ioctlPath: evdevFixture(name + ".ioctl"), sysfsPath: evdevFixture(name + ".umockdev"), name: name)
  }

  /// Adds a fixture device whose ioctls `handler` answers live (key state, EVIOCGRAB).
  @discardableResult
  func add(_ name: String, handler: EvdevIoctlHandler) throws -> EmulatedDevice {
    try testbed.addEvdevDevice(
      ioctlPath: evdevFixture(name + ".ioctl"), sysfsPath: evdevFixture(name + ".umockdev"), name: name,
      handler: handler)
  }

  /// Adds a fixture device with a live ioctl handler of its own: the device and the handler.
  @discardableResult
  func addLive(_ name: String) throws -> (device: EmulatedDevice, handler: EvdevIoctlHandler) {
    let handler = try self.handler(name)
    return (try add(name, handler: handler), handler)
  }

  /// A live ioctl handler with the fixture's answers ("headset", "jack", …).
  func handler(_ name: String) throws -> EvdevIoctlHandler {
    try EvdevIoctlHandler(ioctlPath: evdevFixture(name + ".ioctl"))
  }

  /// Writes events to the device as the kernel would (struct input_event, x86_64 layout).
  func write(_ device: EmulatedDevice, _ events: [RawInputEvent]) throws {
    try testbed.write(events, to: device.devnode)
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

  /// A press of `code` at `time` and its release `duration` later.
  func click(_ device: EmulatedDevice, _ code: UInt16, at time: Seconds, duration: Seconds = 0.1) throws {
    try key(device, code, 1, at: time)
    try key(device, code, 0, at: time + duration)
  }

  /// SYN_DROPPED at `time`: the kernel's queue overflowed, events were lost.
  func dropEvents(_ device: EmulatedDevice, at time: Seconds) throws {
    try write(device, [RawInputEvent(time: time, type: 0, code: InputCode.SYN_DROPPED, value: 0)])
  }

  /// Sends the "remove" uevent and removes the device from sysfs (the open node stays readable).
  func removeUevent(_ device: EmulatedDevice) {
    umockdev_testbed_uevent(testbed.pointer, device.syspath, "remove")
    umockdev_testbed_remove_device(testbed.pointer, device.syspath)
  }

  /// Closes the emulated device's end: readers get EPOLLHUP, as on a real unplug.
  func hangUp(_ device: EmulatedDevice) {
    testbed.hangUp(device.devnode)
  }

  /// Adds a sysfs device described in umockdev's format (one `P:` block: a USB device, a sound
  /// card), without a device node.
  func addSysfs(_ description: String) throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_add_from_string(testbed.pointer, description, &error) != 0 else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      if let error { g_error_free(error) }
      throw TestbedError(description: "add_from_string: \(message)")
    }
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
}
