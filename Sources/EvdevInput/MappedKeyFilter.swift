import InputCodes

/// The privacy boundary of the key input: on a device opened for its media keys, only the mapped
/// key codes get through. Every other event type (scan codes, LEDs, relative and absolute axes, …)
/// and every other key code is disabled in libevdev, which drops those events as it reads them:
/// they never reach Swift, are never logged, stored or forwarded. `accepts` checks again as the
/// events are read.
struct MappedKeyFilter {
  /// The highest key code (KEY_MAX) and event type (EV_MAX).
  static let keyMax: UInt16 = 0x2ff
  static let typeMax: UInt16 = 0x1f

  /// The key codes that may leave the input layer.
  let mappedKeys: Set<UInt16>

  /// A filter that lets exactly `keys` through (the mapped keys; an owned device's mapped and other
  /// keys).
  init(keys: Set<UInt16>) {
    mappedKeys = keys
  }

  /// The mapped keys the device has (none: the device is not kept open).
  func mappedKeys(of device: any InputDevice) -> [UInt16] {
    mappedKeys.sorted().filter { device.has(type: InputCode.EV_KEY, code: $0) }
  }

  /// Disables everything but EV_SYN and the mapped EV_KEY codes on the device.
  func restrict(_ device: any InputDevice) {
    for type in 1...Self.typeMax where type != InputCode.EV_KEY && device.has(type: type) {
      device.disable(type: type)
    }
    for code in 0...Self.keyMax
    where !mappedKeys.contains(code) && device.has(type: InputCode.EV_KEY, code: code) {
      device.disable(type: InputCode.EV_KEY, code: code)
    }
  }

  /// Whether an event may be read at all: SYN, or a mapped key.
  func accepts(type: UInt16, code: UInt16) -> Bool {
    type == InputCode.EV_SYN || (type == InputCode.EV_KEY && mappedKeys.contains(code))
  }
}
