import InputCodes
import ResponderCore

/// Which devices a rule applies to. Every criterion given must match; a match with none matches
/// every device. Names and phys are glob patterns (`*` any run of characters, `?` one character,
/// `[…]` one of a class, as in the shell).
public struct DeviceMatch: Hashable, Sendable, CustomStringConvertible {
  /// Glob on the device name ("* Headset Jack").
  public var name: String?
  /// Glob on the physical path ("ALSA", "usb-0000:00:14.0-2/*").
  public var phys: String?
  public var bustype: UInt16?
  public var vendor: UInt16?
  public var product: UInt16?

  public init(
    name: String? = nil, phys: String? = nil, bustype: UInt16? = nil, vendor: UInt16? = nil,
    product: UInt16? = nil
  ) {
    self.name = name
    self.phys = phys
    self.bustype = bustype
    self.vendor = vendor
    self.product = product
  }

  /// Parses "bus:vendor:product" in hex ("0003:046d:0a38"); any part may be "*" or left out
  /// at the end ("0003:046d" = any product of that vendor on USB).
  public static func id(_ text: String) -> DeviceMatch? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var values: [UInt16?] = []
    for part in parts {
      if part == "*" {
        values.append(nil)
      } else if let value = UInt16(part.lowercased().hasPrefix("0x") ? part.dropFirst(2) : part, radix: 16) {
        values.append(value)
      } else {
        return nil
      }
    }
    while values.count < 3 { values.append(nil) }
    return DeviceMatch(bustype: values[0], vendor: values[1], product: values[2])
  }

  /// Whether `identity` satisfies every criterion.
  public func matches(_ identity: InputDeviceIdentity) -> Bool {
    if let name, !Glob(name).matches(identity.name) { return false }
    if let phys, !Glob(phys).matches(identity.phys) { return false }
    if let bustype, bustype != identity.bustype { return false }
    if let vendor, vendor != identity.vendor { return false }
    if let product, product != identity.product { return false }
    return true
  }

  public var description: String {
    var parts: [String] = []
    if let name { parts.append("name \"\(name)\"") }
    if let phys { parts.append("phys \"\(phys)\"") }
    if bustype != nil || vendor != nil || product != nil {
      let hex: (UInt16?) -> String = { $0.map(InputDeviceLocation.hex) ?? "*" }
      parts.append("id \(hex(bustype)):\(hex(vendor)):\(hex(product))")
    }
    return parts.isEmpty ? "any device" : parts.joined(separator: ", ")
  }
}

/// A device rule: for the devices it matches, ignore them, add headset keys, map keys to other
/// roles, or say whether responderd holds them exclusively. Rules apply in order: `ignore` and
/// `grab` from the last matching rule that sets them win, headset keys add up, and `keys` override
/// everything before them (so a rule can also turn a headset key back into an ordinary one).
public struct DeviceRule: Hashable, Sendable {
  public var match: DeviceMatch
  /// When set, matching devices are (true) or are not (false) ignored: never opened, never read.
  public var ignore: Bool?
  /// When set, whether matching devices are grabbed (held exclusively, hidden from the desktop).
  public var grab: GrabSetting?
  /// Keys that are one-button headset keys on matching devices (added to the global ones).
  public var headsetKeys: Set<UInt16>
  /// Extra or changed key roles on matching devices.
  public var keys: [UInt16: KeyRole]

  public init(
    match: DeviceMatch, ignore: Bool? = nil, grab: GrabSetting? = nil, headsetKeys: Set<UInt16> = [],
    keys: [UInt16: KeyRole] = [:]
  ) {
    self.match = match
    self.ignore = ignore
    self.grab = grab
    self.headsetKeys = headsetKeys
    self.keys = keys
  }

  /// The built-in rules: on a sound card's jack device (phys "ALSA", or a name ending in
  /// "Headset Jack", "Headphone Mic" or "Headphone"), KEY_PLAYPAUSE is the one-button headset
  /// key: a wired headset's button arrives there, while a keyboard's or a USB headset's own
  /// play/pause key acts at once.
  public static let jackDefaults: [DeviceRule] = [
    DeviceMatch(phys: "ALSA"), DeviceMatch(name: "*Headset Jack"), DeviceMatch(name: "*Headphone Mic"),
    DeviceMatch(name: "*Headphone"),
  ].map { DeviceRule(match: $0, headsetKeys: [InputCode.KEY_PLAYPAUSE]) }
}

/// How one device's keys are read: resolved from the settings and the device's identity.
public struct DeviceKeyProfile: Hashable, Sendable {
  /// Whether the device is ignored by a rule (never opened).
  public var isIgnored: Bool
  /// The role of every mapped key of the device.
  public var roles: [UInt16: KeyRole]
  /// Whether the device is to be held exclusively (`.auto` unless a rule says otherwise).
  public var grab: GrabSetting
  /// The rule that set `grab`, nil when none did.
  public var grabRule: DeviceMatch?

  public init(
    isIgnored: Bool, roles: [UInt16: KeyRole], grab: GrabSetting = .auto, grabRule: DeviceMatch? = nil
  ) {
    self.isIgnored = isIgnored
    self.roles = roles
    self.grab = grab
    self.grabRule = grabRule
  }

  /// The mapped key codes: the only ones that may leave the input layer.
  public var mappedKeys: Set<UInt16> { isIgnored ? [] : Set(roles.keys) }

  /// The role of a key, nil when it is not mapped (or the device is ignored).
  public func role(of code: UInt16) -> KeyRole? { isIgnored ? nil : roles[code] }
}
