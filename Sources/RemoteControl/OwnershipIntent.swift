import InputCodes
import ResponderCore

/// Whether responderd holds a device exclusively (EVIOCGRAB), hiding its keys from the desktop
/// (`grab` of a `[[keys.device]]` rule).
public enum GrabSetting: String, Hashable, Sendable, CaseIterable {
  /// Grabbed when it is a headset-class device (see `HeadsetClass`) and not a keyboard.
  case auto
  /// Always grabbed (when it has a mapped key).
  case always
  /// Never grabbed: shared with the desktop.
  case never
}

/// The devices that only a headset or a remote carries: the ones responderd owns by default
/// (docs/design.md#one-press-one-action).
public enum HeadsetClass: Hashable, Sendable, CustomStringConvertible {
  /// The sound card's jack input (phys "ALSA", or a name of the jack rules).
  case jack
  /// A key device of a USB audio device (its USB device has an audio interface).
  case usbAudio
  /// BlueZ's input device for a Bluetooth headset's buttons ("… (AVRCP)").
  case bluetoothAVRCP

  /// The class of a device, nil when it is none of them. `usbInterfaces` is udev's
  /// `ID_USB_INTERFACES` of the device (":010100:010200:030000:", class/subclass/protocol in hex).
  public static func of(_ identity: InputDeviceIdentity, usbInterfaces: String?) -> HeadsetClass? {
    if identity.phys == "ALSA"
      || DeviceRule.jackDefaults.contains(where: { $0.match.phys == nil && $0.match.matches(identity) })
    {
      return .jack
    }
    if identity.name.hasSuffix("(AVRCP)") { return .bluetoothAVRCP }
    if let usbInterfaces, hasAudioInterface(usbInterfaces) { return .usbAudio }
    return nil
  }

  /// Whether udev's `ID_USB_INTERFACES` lists an interface of class 01 (audio).
  static func hasAudioInterface(_ interfaces: String) -> Bool {
    interfaces.split(separator: ":").contains { $0.count == 6 && $0.hasPrefix("01") }
  }

  public var description: String {
    switch self {
    case .jack: "the sound card's jack input"
    case .usbAudio: "a key device of a USB audio device"
    case .bluetoothAVRCP: "a Bluetooth headset's AVRCP buttons"
    }
  }
}

/// Whether responderd means to own a device, and why: the answer of `KeySettings.ownership`.
public struct OwnershipIntent: Hashable, Sendable {
  /// Why a device is, or is not, to be owned.
  public enum Reason: Hashable, Sendable {
    /// A `[[keys.device]]` rule says `grab = "always"` or `"never"`.
    case rule(GrabSetting, DeviceMatch)
    /// `grab = "auto"` and the device is of a headset class.
    case headsetClass(HeadsetClass)
    /// `grab = "auto"` and the device has typing keys: a keyboard stays the desktop's.
    case keyboard
    /// `grab = "auto"` and the device is of no headset class.
    case notHeadsetClass
  }

  /// Whether the device is to be grabbed.
  public var grab: Bool
  public var reason: Reason

  public init(grab: Bool, reason: Reason) {
    self.grab = grab
    self.reason = reason
  }

  /// The reason in words ("headset class: a key device of a USB audio device").
  public var explanation: String {
    switch reason {
    case .rule(let setting, let match): "rule (\(match)): grab = \"\(setting.rawValue)\""
    case .headsetClass(let headsetClass): "headset class: \(headsetClass)"
    case .keyboard: "a keyboard (the desktop's)"
    case .notHeadsetClass: "not a headset-class device"
    }
  }

  /// A short stable name of the reason, for JSON ("rule", "headset-class", "keyboard", …).
  public var code: String {
    switch reason {
    case .rule: "rule"
    case .headsetClass: "headset-class"
    case .keyboard: "keyboard"
    case .notHeadsetClass: "not-headset-class"
    }
  }
}

extension KeySettings {
  /// Whether a device with this profile is to be owned: a rule's `always` / `never` decide; with
  /// `auto`, a keyboard (a device with typing keys) is shared and a headset-class device owned.
  public func ownership(
    of profile: DeviceKeyProfile, headsetClass: HeadsetClass?, isKeyboard: Bool
  ) -> OwnershipIntent {
    switch profile.grab {
    case .always:
      return OwnershipIntent(grab: true, reason: .rule(.always, profile.grabRule ?? DeviceMatch()))
    case .never: return OwnershipIntent(grab: false, reason: .rule(.never, profile.grabRule ?? DeviceMatch()))
    case .auto:
      if isKeyboard { return OwnershipIntent(grab: false, reason: .keyboard) }
      if let headsetClass { return OwnershipIntent(grab: true, reason: .headsetClass(headsetClass)) }
      return OwnershipIntent(grab: false, reason: .notHeadsetClass)
    }
  }
}
