import DBus
import EventTime
import ResponderCore

/// The players responderd sees, which one it controls and why: what `responderctl players`
/// shows, carried over D-Bus by `org.responderd.Players1.GetPlayers`.
public struct PlayersReport: Codable, Sendable, Equatable {
  /// One player.
  public struct Player: Codable, Sendable, Equatable {
    /// The short name (`mpv.instance4242`).
    public var name: String
    /// The unique bus name (`:1.42`).
    public var uniqueName: String
    /// Every well-known name it owns.
    public var busNames: [String]
    /// `Identity` of the application, if known.
    public var identity: String?
    /// `PlaybackStatus`, if known.
    public var status: String?
    public var title: String?
    public var artist: String?
    /// The capabilities it has ("control", "play", "pause", "next", "previous", "seek").
    public var capabilities: [String]
    /// Whether it is the one controlled, could be, or why it cannot be.
    public var state: State
    /// Why it is in that state (empty for a plain candidate).
    public var detail: String
    /// Seconds since its last activity, nil when none was seen.
    public var lastActivityAgo: Double?
    /// What that activity was.
    public var lastActivity: String?
    /// The index of the first priority glob it matches.
    public var priorityRank: Int?
  }

  /// Where a player stands; the raw value is the word `responderctl players` prints and
  /// `GetPlayers` carries.
  public enum State: String, Codable, Sendable, Equatable {
    /// The player responderd controls.
    case selected
    /// Could be selected; another one is.
    case candidate
    /// responderd's own proxy player (never controlled).
    case itself = "self"
    /// A proxy for other players, such as playerctld.
    case proxy
    /// Not a player, such as a Bluetooth headset's mpris-proxy.
    case notAPlayer = "not a player"
    /// Matches an `ignore` glob.
    case ignored
    /// Missed a call deadline or failed to answer.
    case unresponsive
    /// Its properties are being read.
    case loading
    /// Runs as another user.
    case otherUser = "other-user"
  }

  /// "most-recent" or "playing-first".
  public var policy: String
  public var priority: [String]
  public var ignore: [String]
  /// The selected player's short name, nil when none.
  public var selected: String?
  /// Its unique bus name.
  public var selectedUniqueName: String?
  /// Why it is selected, or why none is.
  public var reason: String
  /// Every player: the selected one first, then by name.
  public var players: [Player]

  public init(
    policy: String, priority: [String], ignore: [String], selected: String?, selectedUniqueName: String?,
    reason: String, players: [Player]
  ) {
    self.policy = policy
    self.priority = priority
    self.ignore = ignore
    self.selected = selected
    self.selectedUniqueName = selectedUniqueName
    self.reason = reason
    self.players = players
  }
}

extension PlayerTracker {
  /// The report as of now.
  public func report() -> PlayersReport {
    let now = scheduler.now
    let selectedID = selector.selectedID
    var entries: [PlayersReport.Player] = []
    for (id, record) in selector.players {
      let player = players[id]
      let state: PlayersReport.State
      let detail: String
      if id == selectedID {
        state = .selected
        detail = selector.reason
      } else if let exclusion = record.exclusion {
        state = exclusion.state
        detail = exclusion.description
      } else {
        state = .candidate
        detail = ""
      }
      entries.append(
        PlayersReport.Player(
          name: record.displayName, uniqueName: id, busNames: record.names, identity: player?.identity,
          status: player?.playbackStatus?.rawValue ?? record.status?.rawValue, title: player?.title,
          artist: player?.artist,
          capabilities: player.map { $0.playerProperties.isEmpty ? [] : $0.capabilities.map(\.shortName) }
            ?? [],
          state: state, detail: detail, lastActivityAgo: record.lastActivity.map { max(0, now - $0) },
          lastActivity: record.lastActivityKind, priorityRank: record.priorityRank))
    }
    entries.sort { a, b in
      if (a.state == .selected) != (b.state == .selected) { return a.state == .selected }
      return (a.name, a.uniqueName) < (b.name, b.uniqueName)
    }
    return PlayersReport(
      policy: settings.policy.rawValue, priority: settings.priority, ignore: settings.ignore,
      selected: selector.selected?.displayName, selectedUniqueName: selectedID, reason: selector.reason,
      players: entries)
  }
}

// MARK: - D-Bus form (`a{sv}` summary, `aa{sv}` players)

extension PlayersReport: DBusReportable {
  /// The report as `GetPlayers` answers it.
  public var dbusReport: DBusReport {
    var summary: [String: DBusValue] = [
      "Policy": .string(policy), "Priority": priority.dbusValue, "Ignore": ignore.dbusValue,
      "Reason": .string(reason),
    ]
    if let selected { summary["Selected"] = .string(selected) }
    if let selectedUniqueName { summary["SelectedUniqueName"] = .string(selectedUniqueName) }
    let list = players.map { player -> [String: DBusValue] in
      var entry: [String: DBusValue] = [
        "Name": .string(player.name), "UniqueName": .string(player.uniqueName),
        "BusNames": player.busNames.dbusValue, "Capabilities": player.capabilities.dbusValue,
        "State": .string(player.state.rawValue), "Detail": .string(player.detail),
      ]
      if let value = player.identity { entry["Identity"] = .string(value) }
      if let value = player.status { entry["PlaybackStatus"] = .string(value) }
      if let value = player.title { entry["Title"] = .string(value) }
      if let value = player.artist { entry["Artist"] = .string(value) }
      if let value = player.lastActivityAgo { entry["LastActivityAgo"] = .double(value) }
      if let value = player.lastActivity { entry["LastActivity"] = .string(value) }
      if let value = player.priorityRank { entry["PriorityRank"] = .int32(Int32(value)) }
      return entry
    }
    return DBusReport(summary: summary, items: list)
  }

  /// Reads a `GetPlayers` report; nil when a player lacks its name, unique name or state.
  public init?(dbusReport report: DBusReport) {
    let players = report.items { entry -> Player? in
      guard let name = entry["Name"]?.string,
        let uniqueName = entry["UniqueName"]?.string,
        let state = entry["State"]?.string.flatMap(State.init(rawValue:))
      else { return nil }
      return Player(
        name: name, uniqueName: uniqueName, busNames: entry["BusNames"]?.stringArray ?? [],
        identity: entry["Identity"]?.string, status: entry["PlaybackStatus"]?.string,
        title: entry["Title"]?.string, artist: entry["Artist"]?.string,
        capabilities: entry["Capabilities"]?.stringArray ?? [], state: state,
        detail: entry["Detail"]?.string ?? "", lastActivityAgo: entry["LastActivityAgo"]?.double,
        lastActivity: entry["LastActivity"]?.string,
        priorityRank: entry["PriorityRank"]?.int32.map(Int.init))
    }
    guard let players else { return nil }
    let summary = report.summary
    self.init(
      policy: summary["Policy"]?.string ?? "?", priority: summary["Priority"]?.stringArray ?? [],
      ignore: summary["Ignore"]?.stringArray ?? [], selected: summary["Selected"]?.string,
      selectedUniqueName: summary["SelectedUniqueName"]?.string, reason: summary["Reason"]?.string ?? "",
      players: players)
  }

  /// The report for people: one line per player, the selected one marked.
  public var text: String {
    var lines: [String] = []
    var policyLine = "policy: \(policy)"
    if !priority.isEmpty { policyLine += "; priority: \(priority.joined(separator: ", "))" }
    if !ignore.isEmpty { policyLine += "; ignore: \(ignore.joined(separator: ", "))" }
    lines.append(policyLine)
    if let selected {
      lines.append("selected: \(selected) (\(selectedUniqueName ?? "?")): \(reason)")
    } else {
      lines.append("selected: none: \(reason)")
    }
    if players.isEmpty { lines.append("no MPRIS player on the bus") }
    for player in players {
      var line = player.state == .selected ? "* " : "  "
      line += "\(player.name) (\(player.uniqueName))"
      if let status = player.status { line += " \(status)" }
      if let title = player.title {
        line += " \"\(Self.shortened(title))\"" + (player.artist.map { " by \(Self.shortened($0))" } ?? "")
      }
      var notes: [String] = []
      if player.state != .selected {
        notes.append(player.detail.isEmpty ? player.state.rawValue : player.detail)
      }
      if let ago = player.lastActivityAgo, let what = player.lastActivity {
        notes.append("last activity \(Self.seconds(ago)) ago: \(what)")
      }
      if !player.capabilities.isEmpty { notes.append("can " + player.capabilities.joined(separator: ",")) }
      if !notes.isEmpty { line += " — " + notes.joined(separator: "; ") }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }

  /// The longest title or artist a line shows whole (in characters).
  static let longestShownText = 120

  /// `text` whole up to `longestShownText` characters, else its start and "…".
  static func shortened(_ text: String) -> String {
    guard let end = text.index(text.startIndex, offsetBy: longestShownText, limitedBy: text.endIndex),
      end != text.endIndex
    else { return text }
    return text[..<text.index(before: end)] + "…"
  }

  private static func seconds(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) s"
  }
}
