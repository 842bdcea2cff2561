/// Where an input device sits in the hardware: the USB device it belongs to, that device's ALSA
/// sound cards and its USB ids (the volume keys of a USB headset act on its own card).
public struct InputDeviceLocation: Sendable, Equatable, CustomStringConvertible {
  /// The sysfs path of the USB device (`/devices/pci…/usb1/1-1`), without `/sys`; nil when the
  /// input device is not on USB.
  public var usbDevicePath: String?
  /// The ALSA card numbers under that USB device (`…/1-1:1.0/sound/card3` → 3).
  public var cardNumbers: [Int]
  /// The USB vendor and product ids of the device.
  public var usbVendor: UInt16?
  public var usbProduct: UInt16?

  public init(
    usbDevicePath: String? = nil, cardNumbers: [Int] = [], usbVendor: UInt16? = nil, usbProduct: UInt16? = nil
  ) {
    self.usbDevicePath = usbDevicePath
    self.cardNumbers = cardNumbers
    self.usbVendor = usbVendor
    self.usbProduct = usbProduct
  }

  public var description: String {
    var parts: [String] = []
    if let usbDevicePath { parts.append(usbDevicePath) }
    if !cardNumbers.isEmpty { parts.append("card \(cardNumbers.map(String.init).joined(separator: ","))") }
    if let usbVendor, let usbProduct { parts.append(Self.hex(usbVendor) + ":" + Self.hex(usbProduct)) }
    return parts.isEmpty ? "unknown" : parts.joined(separator: " ")
  }

  /// A USB id as udev and lsusb write it: four lowercase hex digits (`046d`).
  public static func hex(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
