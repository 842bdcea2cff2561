import CUdev
import EventLoop
import SystemCalls
import SystemPackage

/// Watches udev for IIO devices coming and going (subsystem `iio`), on the event loop.
final class IIOHotplug {
  /// What happened: "add", "remove", "change" …, and the device's sysfs name ("iio:device0").
  typealias Handler = (_ action: String, _ sysname: String) -> Void

  private let udev: OpaquePointer
  private let monitor: OpaquePointer
  private var source: IOSource?

  init(loop: EventLoop, handler: @escaping Handler) throws {
    guard let udev = udev_new() else { throw SystemError("udev_new", errno: .noMemory) }
    guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
      udev_unref(udev)
      throw SystemError("udev_monitor_new_from_netlink", errno: .noMemory)
    }
    self.udev = udev
    self.monitor = monitor
    _ = udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
    let result = udev_monitor_enable_receiving(monitor)
    guard result >= 0 else {
      udev_monitor_unref(monitor)
      udev_unref(udev)
      throw SystemError("udev_monitor_enable_receiving", errno: Errno(rawValue: -result))
    }
    let fd = FileDescriptor(rawValue: udev_monitor_get_fd(monitor))
    source = try loop.register(fd: fd, events: .readable) { [monitor] _ in
      while let device = udev_monitor_receive_device(monitor) {
        let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
        let name = udev_device_get_sysname(device).map { String(cString: $0) } ?? ""
        udev_device_unref(device)
        handler(action, name)
      }
    }
  }

  func stop() {
    source?.remove()
    source = nil
  }

  deinit {
    source?.remove()
    udev_monitor_unref(monitor)
    udev_unref(udev)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
