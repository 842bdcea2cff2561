import EventTime
import InputCodes
import ResponderCore

/// Key and click settings (the `[keys]` config section), with the defaults of docs/design.md.
public struct KeySettings: Hashable, Sendable {
  /// A press within this many seconds of the previous release joins the click group; the group is
  /// decided this long after its last release.
  public var clickInterval: Seconds
  /// A press held this long is a hold (seeking, or single click-and-hold).
  public var holdThreshold: Seconds
  /// The standard key roles.
  public var keyMap: KeyMap
  /// Keys that are the one-button headset key on every device (KEY_MEDIA by default).
  public var headsetKeys: Set<UInt16>
  /// Device rules, applied in order (by default the built-in jack rules).
  public var deviceRules: [DeviceRule]

  public init(
    clickInterval: Seconds = 0.4, holdThreshold: Seconds = 0.5, keyMap: KeyMap = .standard,
    headsetKeys: Set<UInt16> = [InputCode.KEY_MEDIA], deviceRules: [DeviceRule] = DeviceRule.jackDefaults
  ) {
    self.clickInterval = clickInterval
    self.holdThreshold = holdThreshold
    self.keyMap = keyMap
    self.headsetKeys = headsetKeys
    self.deviceRules = deviceRules
  }

  /// The defaults of docs/design.md#keys-and-the-click-grammar.
  public static let standard = KeySettings()

  /// The roles of a device's keys: the standard map, then the headset keys (global ones and those
  /// of matching rules) as headset buttons, then each matching rule's `keys` in order.
  public func profile(for identity: InputDeviceIdentity) -> DeviceKeyProfile {
    var ignored = false
    var grab = GrabSetting.auto
    var grabRule: DeviceMatch?
    var headset = headsetKeys
    var extra: [UInt16: KeyRole] = [:]
    for rule in deviceRules where rule.match.matches(identity) {
      if let ignore = rule.ignore { ignored = ignore }
      if let setting = rule.grab { (grab, grabRule) = (setting, rule.match) }
      headset.formUnion(rule.headsetKeys)
      extra.merge(rule.keys) { _, new in new }
    }
    var roles = keyMap.roles
    for code in headset { roles[code] = .headsetButton }
    roles.merge(extra) { _, new in new }
    return DeviceKeyProfile(isIgnored: ignored, roles: roles, grab: grab, grabRule: grabRule)
  }
}
