import DeviceTestSupport
import Glibc
import InputCodes
import ResponderCore
import SystemCalls
import Testing

/// Every touchscreen device test, one at a time: the umockdev testbed is process-wide.
@Suite(
  "TouchDispatch on an emulated touchscreen (umockdev)", .serialized,
  .enabled(if: underUmockdev, Comment(rawValue: umockdevNeeded(by: "TouchDispatchDeviceTests"))))
struct TouchDispatchDeviceTests {}

/// A file of Tests/Fixtures/Touchscreen.
func touchscreenFixture(_ name: String) -> String {
  fixturePath("Touchscreen", name)
}

/// The events of an evemu fixture.
func fixtureEvents(_ name: String) throws -> [RawInputEvent] {
  try EvemuRecording(text: try readTextFile(touchscreenFixture(name))).events
}

/// A umockdev testbed with the emulated touchscreen: /sys and /dev redirected to a temporary tree,
/// the device written to as the kernel would, and unplugged.
final class TouchscreenTestbed {
  private let testbed: UmockdevTestbed
  /// The live ioctl handler, when the device keeps the times written to it.
  private let handler: EvdevIoctlHandler?
  /// "/dev/input/event9".
  let devnode: String

  /// The Goodix touchscreen of Tests/Fixtures/Touchscreen (its ioctl answers from `ioctl` there),
  /// or the panel `stem` of the real corpus (Tests/Fixtures/TouchReplay/real: `stem`.ioctl and
  /// `stem`.umockdev). With `writtenTimes`, the device accepts EVIOCSCLOCKID as the kernel does, so
  /// a reader sees the times written (else, refused, the reader stamps events when it reads them).
  init(
    realPanel stem: String? = nil, ioctl ioctlName: String = "touchscreen.ioctl", writtenTimes: Bool = false
  )
    throws
  {
    guard underUmockdev else {
      throw TestbedError(description: umockdevNeeded(by: "TouchDispatchDeviceTests"))
    }
    testbed = UmockdevTestbed()
    let ioctl =
      stem.map { fixturePath("TouchReplay/real", "\($0).ioctl") } ?? touchscreenFixture(ioctlName)
    let sysfs =
      stem.map { fixturePath("TouchReplay/real", "\($0).umockdev") }
      ?? touchscreenFixture("touchscreen.umockdev")
    let name = stem ?? "touchscreen"
    if writtenTimes {
      let handler = try EvdevIoctlHandler(ioctlPath: ioctl)
      self.handler = handler
      devnode = try testbed.addEvdevDevice(ioctlPath: ioctl, sysfsPath: sysfs, name: name, handler: handler)
        .devnode
    } else {
      handler = nil
      devnode = try testbed.addEvdevDevice(ioctlPath: ioctl, sysfsPath: sysfs, name: name).devnode
    }
  }

  /// Writes events as the kernel would (struct input_event, 64-bit layout).
  func write(_ events: [RawInputEvent]) throws {
    try testbed.write(events, to: devnode)
  }

  /// Closes the emulated device's end: readers get EPOLLHUP, as on a real unplug.
  func hangUp() {
    testbed.hangUp(devnode)
  }
}
