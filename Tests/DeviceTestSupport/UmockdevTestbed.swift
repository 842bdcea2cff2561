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

/// Why the device tests of `suite` do not run outside umockdev, and how to run them.
public func umockdevNeeded(by suite: String) -> String {
  "device tests need umockdev: run `umockdev-wrapper swift test --no-parallel --filter \(suite)`"
}

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

  /// Writes events to the device node as the kernel would (struct input_event, 64-bit layout),
  /// each read whole. The node is a pty, which is not an evdev node: it holds 4095 bytes until
  /// read (170 events), and passes a write of over 2048 bytes on in two parts, so that a reader
  /// woken by the first part reads half an event (libevdev then fails with EINVAL). So the events
  /// go in writes of at most 64, and more than 170 before the reader reads is an error: write a
  /// long script in parts, reading each.
  public func write(_ events: [RawInputEvent], to devnode: String) throws {
    guard events.count <= Self.eventsHeld else {
      throw TestbedError(
        description:
          "\(events.count) events for \(devnode): the emulated node holds \(Self.eventsHeld) until read")
    }
    let fd = umockdev_testbed_get_dev_fd(pointer, devnode)
    guard fd >= 0 else { throw TestbedError(description: "no device fd for \(devnode)") }
    let device = FileDescriptor(rawValue: fd)
    var start = events.startIndex
    while start < events.endIndex {
      let end = min(start + Self.eventsPerWrite, events.endIndex)
      var bytes: [UInt8] = []
      for event in events[start..<end] {
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
      start = end
    }
  }

  /// Events (24 bytes each) in one write to a pty: under the 2048 bytes it passes on at once.
  static let eventsPerWrite = 64
  /// Events a pty holds until they are read (4095 bytes).
  public static let eventsHeld = 170

  /// Closes the emulated device's end: readers get EPOLLHUP, as on a real unplug.
  public func hangUp(_ devnode: String) {
    let fd = umockdev_testbed_get_dev_fd(pointer, devnode)
    if fd >= 0 { try? FileDescriptor(rawValue: fd).close() }
  }

  // MARK: Any device: its sysfs attributes, its device node, scripts, removal

  /// Adds the devices of a umockdev description (what `umockdev-record` writes), with their "add"
  /// uevents.
  public func addDevices(fromFile path: String) throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_add_from_file(pointer, path, &error) != 0 else {
      throw TestbedError(description: "cannot add the devices of \(path): \(Self.message(error))")
    }
  }

  /// Sets the sysfs attribute `name` of the device at `sysPath` (with the newline real sysfs has)
  /// in place, as the kernel changes a value: a program holding the file open reads the new value.
  /// (umockdev_testbed_set_attribute writes a new file over it: an open one would keep the old.)
  public func setAttribute(_ name: String, of sysPath: String, to value: String) throws {
    let path = FilePath(root + sysPath + "/" + name)
    let file = try systemCall("open", path: path) {
      try FileDescriptor.open(path, .writeOnly, options: [.truncate, .closeOnExec])
    }
    defer { try? file.close() }
    try systemCall("write", path: path) { try file.writeAll(bytes: Array((value + "\n").utf8)) }
  }

  /// The sysfs attribute `name` of the device at `sysPath`, read from the testbed's files (not
  /// through the preload library): the test's own view of what a program wrote. "<missing>" when
  /// there is no such file.
  public func attribute(_ name: String, of sysPath: String) -> String {
    let text = (try? readTextFile(root + sysPath + "/" + name)) ?? "<missing>"
    let trimmed = text.unicodeScalars.reversed().drop { $0 == "\n" || $0 == " " || $0 == "\0" || $0 == "\t" }
    return String(String.UnicodeScalarView(trimmed.reversed()))
  }

  /// The pty master behind the device node `devnode`: what is written there is what a program
  /// reads from the node.
  public func deviceFD(_ devnode: String) -> FileDescriptor {
    FileDescriptor(rawValue: umockdev_testbed_get_dev_fd(pointer, devnode))
  }

  /// Waits until what was written to `devnode` can be read there (the pty passes it on a moment
  /// after the write), polling a descriptor of its own without reading; false after `timeout`.
  public func waitUntilReadable(_ devnode: String, timeout: Double) throws -> Bool {
    let path = root + devnode
    let fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw TestbedError(description: "cannot open \(path): errno \(errno)") }
    defer { close(fd) }
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, Int32(timeout * 1000)) == 1 && entry.revents & Int16(POLLIN) != 0
  }

  /// Replays a umockdev script on the device node `devnode`.
  public func loadScript(_ path: String, on devnode: String) throws {
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_load_script(pointer, devnode, path, &error) != 0 else {
      throw TestbedError(description: "cannot load the script \(path): \(Self.message(error))")
    }
  }

  /// Unplugs the device at `sysPath`: a "remove" uevent, then the device is gone.
  public func remove(_ sysPath: String) {
    umockdev_testbed_uevent(pointer, sysPath, "remove")
    umockdev_testbed_remove_device(pointer, sysPath)
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

/// A live ioctl handler for one emulated evdev device (see `rsp_evdev_ioctl` in CUmockdev): the
/// fixture's EVIOCG* answers, the key state the test sets (EVIOCGKEY), and EVIOCGRAB as the kernel
/// models it (`isGrabbed`; a second grab gets EBUSY). Attach it with
/// `UmockdevTestbed.addEvdevDevice(ioctlPath:sysfsPath:name:handler:)`.
public final class EvdevIoctlHandler {
  let state: UnsafeMutablePointer<rsp_evdev_ioctl>
  let base: UnsafeMutablePointer<UMockdevIoctlBase>
  /// The device node it answers for, once attached.
  var attached: (testbed: UnsafeMutablePointer<UMockdevTestbed>, devnode: String)?

  /// Reads the static answers of an ioctl fixture (`EVIOCGBIT(1) 96 <hex>` lines, as mkevdev.py
  /// writes them).
  public init(ioctlPath: String) throws {
    state = .allocate(capacity: 1)
    state.initialize(to: rsp_evdev_ioctl())
    base = umockdev_ioctl_base_new()
    let numbers: [String: UInt] = [
      "EVIOCGVERSION": 0x01, "EVIOCGID": 0x02, "EVIOCGNAME": 0x06, "EVIOCGPHYS": 0x07, "EVIOCGPROP": 0x09,
      "EVIOCGMTSLOTS": 0x0a, "EVIOCGKEY": 0x18, "EVIOCGLED": 0x19, "EVIOCGSW": 0x1b, "EVIOCGBIT": 0x20,
      "EVIOCGABS": 0x40,
    ]
    var entries: [(request: UInt, result: Int, data: [UInt8])] = []
    for line in try readTextFile(ioctlPath).split(separator: "\n").dropFirst() {
      let fields = line.split(separator: " ")
      guard fields.count == 3 else { continue }
      let name = fields[0].split(separator: "(").first.map(String.init) ?? ""
      guard var number = numbers[name], let result = Int(fields[1]) else {
        throw TestbedError(description: "\(ioctlPath): cannot read '\(line)'")
      }
      if name == "EVIOCGBIT" || name == "EVIOCGABS", let open = fields[0].firstIndex(of: "(") {
        number += UInt(fields[0][fields[0].index(after: open)...].dropLast()) ?? 0
      }
      let hex = Array(fields[2].utf8)
      let data = stride(from: 0, to: hex.count - 1, by: 2).map {
        UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16) ?? 0
      }
      let request = (2 << 30) | (UInt(data.count) << 16) | (UInt(UInt8(ascii: "E")) << 8) | number
      entries.append((request, result, data))
    }
    guard entries.count <= 64, entries.allSatisfy({ $0.data.count <= 2048 }) else {
      throw TestbedError(description: "\(ioctlPath): too many or too large answers")
    }
    state.pointee.count = Int32(entries.count)
    withUnsafeMutableBytes(of: &state.pointee.requests) { raw in
      for (index, entry) in entries.enumerated() {
        raw.storeBytes(of: entry.request, toByteOffset: index * 8, as: UInt.self)
      }
    }
    withUnsafeMutableBytes(of: &state.pointee.results) { raw in
      for (index, entry) in entries.enumerated() {
        raw.storeBytes(of: entry.result, toByteOffset: index * 8, as: Int.self)
      }
    }
    withUnsafeMutableBytes(of: &state.pointee.lengths) { raw in
      for (index, entry) in entries.enumerated() {
        raw.storeBytes(of: Int32(entry.data.count), toByteOffset: index * 4, as: Int32.self)
      }
    }
    withUnsafeMutableBytes(of: &state.pointee.answers) { raw in
      for (index, entry) in entries.enumerated() {
        for (offset, byte) in entry.data.enumerated() { raw[index * 2048 + offset] = byte }
      }
    }
    _ = rsp_evdev_ioctl_connect(base, state)
  }

  deinit {
    if let attached { umockdev_testbed_detach_ioctl(attached.testbed, attached.devnode, nil) }
    g_object_unref(UnsafeMutableRawPointer(base))
    state.deallocate()
  }

  /// Whether a reader holds the device exclusively (EVIOCGRAB).
  public var isGrabbed: Bool { rsp_evdev_ioctl_grabbed(state) != 0 }

  /// How many grabs succeeded, and how many were refused with EBUSY.
  public var grabCount: Int { Int(rsp_evdev_ioctl_grabs(state)) }
  public var busyCount: Int { Int(rsp_evdev_ioctl_busy(state)) }

  /// Makes the device grabbed by another program (true) or free (false).
  public func setGrabbedElsewhere(_ grabbed: Bool) { rsp_evdev_ioctl_set_grabbed(state, grabbed ? 1 : 0) }

  /// Marks a key down or up in the device's state (what EVIOCGKEY answers from now on).
  public func setKey(_ code: UInt16, down: Bool) {
    rsp_evdev_ioctl_set_key(state, UInt32(code), down ? 1 : 0)
  }
}

extension UmockdevTestbed {
  /// Adds an evdev device whose ioctls `handler` answers (instead of a static ioctl file), then its
  /// sysfs description (which sends the "add" uevent).
  @discardableResult
  public func addEvdevDevice(
    ioctlPath: String, sysfsPath: String, name: String, handler: EvdevIoctlHandler
  ) throws -> EmulatedDevice {
    let sysText = try readTextFile(sysfsPath)
    guard let first = try readTextFile(ioctlPath).split(separator: "\n").first, first.hasPrefix("@DEV "),
      let sysLine = sysText.split(separator: "\n").first, sysLine.hasPrefix("P: "),
      let devLine = sysText.split(separator: "\n").first(where: { $0.hasPrefix("A: dev=") })
    else { throw TestbedError(description: "\(name): unexpected fixture format") }
    let device = EmulatedDevice(
      devnode: String(first.dropFirst(5)), syspath: "/sys" + String(sysLine.dropFirst(3)),
      majorMinor: String(devLine.dropFirst(7)))
    var error: UnsafeMutablePointer<GError>?
    guard umockdev_testbed_attach_ioctl(pointer, device.devnode, handler.base, &error) != 0 else {
      throw TestbedError(description: "attach_ioctl \(name): \(Self.gerror(error))")
    }
    handler.attached = (pointer, device.devnode)
    guard umockdev_testbed_add_from_string(pointer, sysText, &error) != 0 else {
      throw TestbedError(description: "add_from_string \(name): \(Self.gerror(error))")
    }
    return device
  }

  static func gerror(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return String(cString: error.pointee.message)
  }
}
