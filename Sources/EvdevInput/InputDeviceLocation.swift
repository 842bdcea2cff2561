import CUdev
import InputCodes

extension InputDeviceLocation {
  /// The location of the input device at `syspath` (`/sys/devices/…/input7/event7`); an empty
  /// location when udev does not know it or it is not on USB.
  public static func of(syspath: String) -> InputDeviceLocation {
    guard let udev = udev_new() else { return InputDeviceLocation() }
    defer { udev_unref(udev) }
    guard let device = udev_device_new_from_syspath(udev, syspath) else { return InputDeviceLocation() }
    defer { udev_device_unref(device) }
    // Borrowed from `device`: not unreferenced here.
    guard let usb = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device"),
      let syspath = udev_device_get_syspath(usb)
    else { return InputDeviceLocation() }
    var location = InputDeviceLocation()
    let path = String(cString: syspath)
    location.usbDevicePath = path.hasPrefix("/sys/") ? String(path.dropFirst(4)) : path
    location.usbVendor = udev_device_get_sysattr_value(usb, "idVendor").flatMap {
      UInt16(String(cString: $0), radix: 16)
    }
    location.usbProduct = udev_device_get_sysattr_value(usb, "idProduct").flatMap {
      UInt16(String(cString: $0), radix: 16)
    }
    if let enumerate = udev_enumerate_new(udev) {
      defer { udev_enumerate_unref(enumerate) }
      udev_enumerate_add_match_subsystem(enumerate, "sound")
      udev_enumerate_add_match_sysname(enumerate, "card*")
      udev_enumerate_add_match_parent(enumerate, usb)
      udev_enumerate_scan_devices(enumerate)
      var entry = udev_enumerate_get_list_entry(enumerate)
      while let current = entry {
        if let name = udev_list_entry_get_name(current) {
          let cardPath = String(cString: name)
          if let last = cardPath.split(separator: "/").last, last.hasPrefix("card"),
            let number = Int(last.dropFirst(4))
          {
            location.cardNumbers.append(number)
          }
        }
        entry = udev_list_entry_get_next(current)
      }
    }
    location.cardNumbers.sort()
    return location
  }
}
