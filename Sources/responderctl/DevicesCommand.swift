import DBus
import ResponderTools
import ResponderdKit
import TouchScenes

/// `responderctl devices`: every input device responderd sees, and what it does with each.
struct DevicesCommand {
  static var command: Command {
    Command(
      name: "devices",
      abstract: "List the input devices responderd sees: owned, shared or left alone, and why.",
      discussion: """
        Owned devices (a headset's: the sound card's jack input, a USB headset's keys, a Bluetooth
        headset's AVRCP device, or one a [[keys.device]] rule marks grab = "always") are held
        exclusively: the desktop never sees their keys. Shared devices (keyboards, devices another
        program holds, grab = "never") are read for their media keys only. Every other device is left
        alone. Exits with 69 when responderd is not running on the session bus.
        """,
      arguments: [.json]
    ) { try DevicesCommand(json: $0.flag("json")).run() }
  }

  var json = false

  func run() throws {
    let link = try DaemonLink.connect(json: json)
    let report = try Self.fetch(link)
    output(json ? report.json.text : report.text)
  }

  /// Asks the daemon for its devices report.
  static func fetch(_ link: DaemonLink) throws -> DevicesReport {
    let values = try link.call(
      path: KeysComponent.devicesPath, interface: KeysComponent.devicesInterface, "GetDevices", timeout: 5)
    guard let report = DevicesReport(dbusArguments: values) else {
      throw failure("GetDevices returned '\(values.signature)', not a{sv}aa{sv}")
    }
    return report
  }
}

extension DevicesReport {
  /// The report as JSON: counts, then one object per device.
  var json: JSON {
    let devices = self.devices.map { device -> JSON in
      .object([
        ("path", .string(device.path)), ("name", .string(device.name)), ("id", .string(device.id)),
        ("phys", .string(device.phys)), ("state", .string(device.state)), ("reason", .string(device.reason)),
        ("reasonCode", .string(device.reasonCode)), ("keys", .array(device.keys.map(JSON.string))),
      ])
    }
    return .object([
      ("keysEnabled", .bool(keysEnabled)), ("suspended", .bool(suspended)),
      ("owned", .number(Double(count(.owned)))), ("shared", .number(Double(count(.shared)))),
      ("leftAlone", .number(Double(count(.leftAlone)))), ("notes", .array(notes.map(JSON.string))),
      ("devices", .array(devices)),
    ])
  }
}
