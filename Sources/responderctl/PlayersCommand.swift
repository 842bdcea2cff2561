import DBus
import MPRIS
import ResponderTools
import ResponderdKit
import TouchScenes

/// `responderctl players`: the MPRIS players responderd sees, which one it controls and why.
struct PlayersCommand {
  static var command: Command {
    Command(
      name: "players",
      abstract: "List the MPRIS players responderd sees, which one it controls, and why.",
      discussion: """
        The selected player is marked with '*'; every other one says why it is not selected: a
        candidate, ignored by a glob, a proxy such as playerctld, responderd itself, or unresponsive
        after missing a call deadline. Exits with 69 when responderd is not running on the session bus.
        """,
      arguments: [.json]
    ) { try PlayersCommand(json: $0.flag("json")).run() }
  }

  var json = false

  func run() throws {
    let link = try DaemonLink.connect(json: json)
    let values = try link.call(
      path: MPRISComponent.playersPath, interface: MPRISComponent.playersInterface, "GetPlayers", timeout: 5)
    guard let report = PlayersReport(dbusArguments: values) else {
      throw failure("GetPlayers returned '\(values.signature)', not a{sv}aa{sv}")
    }
    output(json ? report.json.text : report.text)
  }
}

extension PlayersReport {
  /// The report as JSON, with the field names of its Codable form.
  var json: JSON {
    func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    let players = self.players.map { player -> JSON in
      .object([
        ("name", .string(player.name)), ("uniqueName", .string(player.uniqueName)),
        ("busNames", .array(player.busNames.map(JSON.string))), ("identity", optional(player.identity)),
        ("status", optional(player.status)), ("title", optional(player.title)),
        ("artist", optional(player.artist)), ("capabilities", .array(player.capabilities.map(JSON.string))),
        ("state", .string(player.state.rawValue)), ("detail", .string(player.detail)),
        ("lastActivityAgo", player.lastActivityAgo.map(JSON.number) ?? .null),
        ("lastActivity", optional(player.lastActivity)),
        ("priorityRank", player.priorityRank.map { .number(Double($0)) } ?? .null),
      ])
    }
    return .object([
      ("policy", .string(policy)), ("priority", .array(priority.map(JSON.string))),
      ("ignore", .array(ignore.map(JSON.string))), ("selected", optional(selected)),
      ("selectedUniqueName", optional(selectedUniqueName)), ("reason", .string(reason)),
      ("players", .array(players)),
    ])
  }
}
