import InputCodes
import RemoteControl
import ResponderCore

/// `[keys]`: headset and media keys from evdev (docs/design.md#keys-and-the-click-grammar).
///
/// ```toml
/// [keys]
/// enabled = true             # read evdev devices at all
/// click-interval = 0.4       # seconds
/// hold-threshold = 0.5       # seconds
/// headset-keys = ["KEY_MEDIA"]
/// desktop-handles-media-keys = "auto"   # "auto" | "yes" | "no"
///
/// # Device rules, in order. When present they replace the built-in ones (the jack rules below).
/// [[keys.device]]
/// phys = "ALSA"                  # glob on the physical path
/// headset-keys = ["KEY_PLAYPAUSE"]
/// [[keys.device]]
/// name = "*Headset Jack"         # glob on the device name
/// headset-keys = ["KEY_PLAYPAUSE"]
/// [[keys.device]]
/// id = "0003:046d:*"             # bus:vendor:product in hex, * for any
/// ignore = true                  # never open it
/// grab = "never"                 # "auto" | "always" | "never": hold it exclusively or share it
/// keys = { KEY_PLAY = "play" }   # map more keys, or change a key's role
/// ```
public struct KeysConfig: Equatable {
  /// Whether responderd reads evdev devices at all.
  public var enabled = true
  /// The key mapping, click grammar timings and device rules.
  public var settings = KeySettings.standard
  /// Whether the desktop takes the media keys of shared devices (then responderd leaves them).
  public var desktopHandlesMediaKeys = DesktopMediaKeysSetting.auto

  public init() {}

  init(_ section: ConfigSection) throws {
    enabled = try section.bool("enabled", default: enabled)
    settings.clickInterval = try section.double(
      "click-interval", default: settings.clickInterval, range: 0.01...5)
    settings.holdThreshold = try section.double(
      "hold-threshold", default: settings.holdThreshold, range: 0.01...10)
    // Every key is read (so that typos get a did-you-mean), then used when present.
    let headsetKeys = try Self.keyCodes(section, "headset-keys")
    if section.contains("headset-keys") { settings.headsetKeys = headsetKeys }
    let rules = try section.sections("device").map(Self.deviceRule)
    if section.contains("device") { settings.deviceRules = rules }
    let desktop = try section.string(
      "desktop-handles-media-keys", default: desktopHandlesMediaKeys.rawValue,
      allowed: DesktopMediaKeysSetting.allCases.map(\.rawValue))
    desktopHandlesMediaKeys = DesktopMediaKeysSetting(rawValue: desktop) ?? .auto
    try section.finish()
  }

  private static func deviceRule(_ section: ConfigSection) throws -> DeviceRule {
    var match = DeviceMatch()
    let name = try section.string("name", default: "")
    if section.contains("name") { match.name = name }
    let phys = try section.string("phys", default: "")
    if section.contains("phys") { match.phys = phys }
    let text = try section.string("id", default: "")
    if section.contains("id") {
      guard let id = DeviceMatch.id(text) else {
        throw section.error(
          "id",
          "'\(section.qualified("id"))' must be \"bus:vendor:product\" in hex (\"0003:046d:0a38\", * for any), not '\(shown(text))'"
        )
      }
      match.bustype = id.bustype
      match.vendor = id.vendor
      match.product = id.product
    }
    guard
      match.name != nil || match.phys != nil || match.bustype != nil || match.vendor != nil
        || match.product != nil
    else {
      throw ConfigError(
        file: section.file, line: section.table.line, key: section.path,
        message: "[[keys.device]] rule \(section.path) needs 'name', 'phys' or 'id' to match devices")
    }
    var rule = DeviceRule(match: match)
    let ignore = try section.bool("ignore", default: false)
    if section.contains("ignore") { rule.ignore = ignore }
    let grab = try section.string(
      "grab", default: GrabSetting.auto.rawValue, allowed: GrabSetting.allCases.map(\.rawValue))
    if section.contains("grab") { rule.grab = GrabSetting(rawValue: grab) }
    rule.headsetKeys = try keyCodes(section, "headset-keys")
    let keys = try section.section("keys")
    for entry in keys.entries() {
      let code = try keyCode(entry.key, in: keys, key: entry.key)
      guard case .string(let roleName) = entry.value else {
        throw keys.error(
          entry.key, "'\(keys.qualified(entry.key))' must be a role name, not \(entry.value.typeName)")
      }
      guard let role = KeyRole(name: roleName) else {
        let names = KeyRole.all.map(\.name)
        let hint = suggestion(for: roleName, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw keys.error(
          entry.key,
          "unknown role '\(shown(roleName))'\(hint); known: \(names.joined(separator: ", "))")
      }
      rule.keys[code] = role
    }
    try section.finish()
    return rule
  }

  private static func keyCodes(_ section: ConfigSection, _ key: String) throws -> Set<UInt16> {
    Set(try section.strings(key, default: []).map { try keyCode($0, in: section, key: key) })
  }

  /// A key code from a name ("KEY_MEDIA") or a number ("226", "0xe2").
  private static func keyCode(_ name: String, in section: ConfigSection, key: String) throws -> UInt16 {
    if let code = InputCode.keyCode(named: name), code < 0x300 { return code }
    let names = Array(InputCode.keys.keys).sorted()
    let hint = suggestion(for: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
    throw section.error(
      key,
      "unknown key '\(shown(name))' in '\(section.qualified(key))'\(hint); use a KEY_ name or a key code number"
    )
  }
}
