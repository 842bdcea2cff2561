import DBus
import EvdevInput

/// What `responderctl devices` shows: every input device responderd sees, whether it is owned,
/// shared or left alone, and why. It travels as the reply of `org.responderd.Devices1.GetDevices`
/// (`a{sv}` summary, `aa{sv}` devices); components may add summary notes (the desktop found).
public struct DevicesReport: DBusReportable, Equatable, Sendable {
  /// One device.
  public struct Device: Equatable, Sendable {
    public var path: String
    public var name: String
    /// "bus:vendor:product" in hex.
    public var id: String
    public var phys: String
    /// "owned", "shared" or "left alone".
    public var state: String
    public var reason: String
    /// A stable word for the reason ("headset-class", "rule", "busy", "keyboard", …).
    public var reasonCode: String
    /// The keys responderd reads from it.
    public var keys: [String]

    public init(
      path: String, name: String, id: String, phys: String, state: String, reason: String, reasonCode: String,
      keys: [String]
    ) {
      self.path = path
      self.name = name
      self.id = id
      self.phys = phys
      self.state = state
      self.reason = reason
      self.reasonCode = reasonCode
      self.keys = keys
    }

    /// A device status as the report shows it.
    public init(_ status: DeviceStatus) {
      self.init(
        path: status.path, name: status.identity.name, id: status.id, phys: status.identity.phys,
        state: status.state.rawValue, reason: status.reason, reasonCode: status.reasonCode, keys: status.keys)
    }
  }

  public var devices: [Device]
  /// Whether responderd reads input devices at all (`[keys] enabled`).
  public var keysEnabled: Bool
  /// Whether the devices are released because the user's session is inactive.
  public var suspended: Bool
  /// Lines that apply to every device (what the desktop does with media keys, …).
  public var notes: [String]

  public init(devices: [Device], keysEnabled: Bool = true, suspended: Bool = false, notes: [String] = []) {
    self.devices = devices
    self.keysEnabled = keysEnabled
    self.suspended = suspended
    self.notes = notes
  }

  /// How many devices are in `state` ("owned", "shared", "left alone").
  public func count(_ state: DeviceStatus.State) -> Int {
    devices.filter { $0.state == state.rawValue }.count
  }

  /// "1 owned, 1 shared, 2 left alone".
  public var counts: String {
    DeviceStatus.State.allCases.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
  }

  /// The report as `GetDevices` answers it.
  public var dbusReport: DBusReport {
    let summary: [String: DBusValue] = [
      "KeysEnabled": .bool(keysEnabled), "Suspended": .bool(suspended), "Notes": notes.dbusValue,
    ]
    let list = devices.map { device -> [String: DBusValue] in
      [
        "Path": .string(device.path), "Name": .string(device.name), "Id": .string(device.id),
        "Phys": .string(device.phys), "State": .string(device.state), "Reason": .string(device.reason),
        "ReasonCode": .string(device.reasonCode), "Keys": device.keys.dbusValue,
      ]
    }
    return DBusReport(summary: summary, items: list)
  }

  /// Reads a `GetDevices` report; nil when a device lacks its path or state.
  public init?(dbusReport report: DBusReport) {
    let devices = report.items { entry -> Device? in
      guard let path = entry["Path"]?.string, let state = entry["State"]?.string else { return nil }
      return Device(
        path: path, name: entry["Name"]?.string ?? "", id: entry["Id"]?.string ?? "",
        phys: entry["Phys"]?.string ?? "", state: state, reason: entry["Reason"]?.string ?? "",
        reasonCode: entry["ReasonCode"]?.string ?? "", keys: entry["Keys"]?.stringArray ?? [])
    }
    guard let devices else { return nil }
    self.init(
      devices: devices, keysEnabled: report.summary["KeysEnabled"]?.bool ?? true,
      suspended: report.summary["Suspended"]?.bool ?? false, notes: report.summary["Notes"]?.stringArray ?? []
    )
  }

  /// The report as `responderctl devices` prints it.
  public var text: String {
    var lines: [String] = []
    if !keysEnabled {
      lines.append("media and headset keys are off ([keys] enabled = false): no device is read")
    }
    if suspended { lines.append("the session is inactive: every device is released and closed") }
    lines.append(contentsOf: notes)
    if devices.isEmpty && keysEnabled { lines.append("no input device") }
    for device in devices {
      var line = device.state + String(repeating: " ", count: max(1, 11 - device.state.count)) + device.path
      if !device.name.isEmpty {
        line += "  \(device.name) (\(device.id)\(device.phys.isEmpty ? "" : ", \(device.phys)"))"
      }
      lines.append(line)
      lines.append("           \(device.reason)")
      if !device.keys.isEmpty { lines.append("           keys: \(device.keys.joined(separator: ", "))") }
    }
    lines.append("\(devices.count) device\(devices.count == 1 ? "" : "s"): \(counts)")
    return lines.joined(separator: "\n")
  }
}
