import EventTime
import PlayerSelection
import ResponderCore

/// The playback status of an MPRIS player.
public enum PlaybackStatus: String, Sendable, CaseIterable, CustomStringConvertible {
  case playing = "Playing"
  case paused = "Paused"
  case stopped = "Stopped"

  public var description: String { rawValue }
}

/// Why a player cannot be selected.
public enum PlayerExclusion: Equatable, Sendable, CustomStringConvertible {
  /// responderd's own connection (its proxy player).
  case itself
  /// A proxy of other players (playerctld, another responderd): the reason.
  case proxy(String)
  /// Not a player to control: a Bluetooth headset exported by BlueZ's mpris-proxy (the reason).
  case notAPlayer(String)
  /// Matches an `ignore` glob.
  case ignored(glob: String)
  /// Missed a call deadline or failed to answer; the last failure.
  case unresponsive(String)
  /// Its properties are being read.
  case loading
  /// It runs as another user than responderd's (nil: the bus could not tell which): never read,
  /// selected nor controlled.
  case otherUser(UInt32?)

  /// The one-word state shown by `responderctl players`.
  public var state: PlayersReport.State {
    switch self {
    case .itself: .itself
    case .proxy: .proxy
    case .notAPlayer: .notAPlayer
    case .ignored: .ignored
    case .unresponsive: .unresponsive
    case .loading: .loading
    case .otherUser: .otherUser
    }
  }

  public var description: String {
    switch self {
    case .itself: "responderd itself (never controlled)"
    case .proxy(let reason): "proxy: \(reason)"
    case .notAPlayer(let reason): "not a player: \(reason)"
    case .ignored(let glob): "ignored (matches '\(glob)')"
    case .unresponsive(let reason): "unresponsive: \(reason)"
    case .loading: "reading its properties"
    case .otherUser(let uid?): "runs as uid \(uid), not as responderd's user (never controlled)"
    case .otherUser(nil): "the bus cannot tell which user it runs as (never controlled)"
    }
  }
}

/// What the selection policy knows about one player.
public struct PlayerRecord: Sendable, Equatable {
  /// The player's unique bus name (`:1.42`): players are keyed by connection, not by name.
  public let id: String
  /// Its well-known `org.mpris.MediaPlayer2.*` names, sorted.
  public internal(set) var names: [String]
  /// Its playback status (nil until read).
  public internal(set) var status: PlaybackStatus?
  /// When it appeared (or was found at startup).
  public internal(set) var appearedAt: Seconds
  /// When it last showed activity (a signal, or appearing while we watched); nil when none seen.
  public internal(set) var lastActivity: Seconds?
  /// What that activity was ("appeared", "PropertiesChanged (PlaybackStatus)", "Seeked").
  public internal(set) var lastActivityKind: String?
  /// When it last started playing (nil when not playing).
  public internal(set) var playingSince: Seconds?
  /// Whether its properties were read.
  public internal(set) var isLoaded = false
  /// Set when it missed a deadline; cleared by any sign of life.
  public internal(set) var unresponsiveReason: String?
  /// Set when it runs as another user than responderd's (`PlayerExclusion.otherUser`).
  public internal(set) var otherUser: PlayerExclusion?
  /// Set when it turned out not to be a player (a Bluetooth headset exported by mpris-proxy).
  public internal(set) var notAPlayerReason: String?
  /// Why it cannot be selected (nil for a candidate), as of the last selection.
  public internal(set) var exclusion: PlayerExclusion?
  /// The index of the first `priority` glob it matches.
  public internal(set) var priorityRank: Int?
  /// Order of activity and of starting to play (0: none), for ties at the same instant.
  var activitySequence: UInt64 = 0
  var playingSequence: UInt64 = 0

  /// The name to show: the shortest of its names without the MPRIS prefix (the unique name when
  /// it has none).
  public var displayName: String {
    let shortest = names.min { ($0.count, $0) < ($1.count, $1) }
    return shortest.map(MPRISNames.shortName) ?? id
  }
}

/// The selection policy as a pure state machine: it is told what happens to players (appear,
/// vanish, signal, change status, miss a deadline) with the time, and keeps which one is
/// selected and why. No bus and no clock: the tracker feeds it, tests feed it fake events.
public struct PlayerSelector: Sendable {
  public let settings: PlayerSettings
  /// Every known player by unique name, candidates or not.
  public private(set) var players: [String: PlayerRecord] = [:]
  /// The selected player's unique name.
  public private(set) var selectedID: String?
  /// Why it is selected (or why none is).
  public private(set) var reason = "no MPRIS player on the bus"
  /// The policy's part of `reason` (without the priority part).
  private var ruleReason = ""
  /// responderd's own unique name: never selected.
  public private(set) var ownID: String?
  private var sequence: UInt64 = 1
  private let ignoreGlobs: [NameGlob]
  private let priorityGlobs: [NameGlob]

  public init(settings: PlayerSettings) {
    self.settings = settings
    ignoreGlobs = settings.ignore.map(NameGlob.init)
    priorityGlobs = settings.priority.map(NameGlob.init)
  }

  /// The selected player's record.
  public var selected: PlayerRecord? { selectedID.flatMap { players[$0] } }

  private mutating func nextSequence() -> UInt64 {
    sequence += 1
    return sequence
  }

  // MARK: What happens to players (each returns whether the selection or its reason changed)

  /// Sets responderd's own unique name (on each connection).
  @discardableResult
  public mutating func setOwnID(_ id: String?) -> Bool {
    ownID = id
    return reselect()
  }

  /// A player appeared. `live`: seen appearing (counts as activity, as playerctld does); not
  /// live: found when listing the bus at startup or after a reconnection (no activity known).
  @discardableResult
  public mutating func appeared(_ id: String, names: [String], at time: Seconds, live: Bool) -> Bool {
    var record = players[id] ?? PlayerRecord(id: id, names: [], appearedAt: time)
    record.names = Array(Set(record.names + names)).sorted()
    if live {
      record.lastActivity = time
      record.lastActivityKind = "appeared"
      record.activitySequence = nextSequence()
    }
    players[id] = record
    return reselect()
  }

  /// Its set of well-known names changed (it still owns at least one).
  @discardableResult
  public mutating func namesChanged(_ id: String, names: [String]) -> Bool {
    guard players[id] != nil else { return false }
    players[id]!.names = names.sorted()
    return reselect()
  }

  /// Its properties were read: it becomes a candidate.
  @discardableResult
  public mutating func loaded(_ id: String, status: PlaybackStatus?, at time: Seconds) -> Bool {
    loaded([(id, status)], at: time)
  }

  /// The properties of several players were read, e.g. of every player found when listing the
  /// bus: they become candidates together, so that the selection does not depend on which
  /// answered first.
  @discardableResult
  public mutating func loaded(_ batch: [(id: String, status: PlaybackStatus?)], at time: Seconds) -> Bool {
    for (id, status) in batch {
      guard var record = players[id] else { continue }
      record.isLoaded = true
      apply(status, to: &record, at: time, initial: record.activitySequence == 0)
      players[id] = record
    }
    return reselect()
  }

  /// It runs as another user (`uid`; nil when the bus could not tell): never a candidate. It
  /// counts as loaded (its properties are never read).
  @discardableResult
  public mutating func ownedByAnotherUser(_ id: String, uid: UInt32?) -> Bool {
    guard players[id] != nil else { return false }
    players[id]!.otherUser = .otherUser(uid)
    players[id]!.isLoaded = true
    return reselect()
  }

  /// It left the bus (or gave up its last MPRIS name).
  @discardableResult
  public mutating func vanished(_ id: String) -> Bool {
    guard players.removeValue(forKey: id) != nil else { return false }
    return reselect()
  }

  /// It emitted a signal (`kind` says which); `status` when the signal carried a new
  /// PlaybackStatus. Any signal is activity (most-recent) and a sign of life.
  @discardableResult
  public mutating func signal(_ id: String, kind: String, status: PlaybackStatus? = nil, at time: Seconds)
    -> Bool
  {
    guard players[id] != nil else { return false }
    let sequence = nextSequence()
    // Changed in place: a chatty player (a browser tab signals 10 times a second) costs no copy.
    let before = (players[id]!.unresponsiveReason, players[id]!.status, players[id]!.playingSequence)
    players[id]!.lastActivity = time
    players[id]!.lastActivityKind = kind
    players[id]!.activitySequence = sequence
    players[id]!.unresponsiveReason = nil
    if let status {
      var record = players[id]!
      apply(status, to: &record, at: time, initial: false)
      players[id] = record
    }
    // Playing first looks at activity only through what it changed (its responsiveness, its
    // status, when it started playing): when none changed, the selection and its reason cannot.
    if settings.policy == .playingFirst, before.0 == nil, before.1 == players[id]!.status,
      before.2 == players[id]!.playingSequence
    {
      return false
    }
    return reselect()
  }

  /// Records a signal of player `id` that changes no status when, under playing-first, that
  /// cannot change the selection: `id` is a candidate (not excluded, answering) and not the
  /// selected player. Returns false, recording nothing, otherwise (then call `signal`).
  /// `kind` is only asked for when the signal is recorded.
  public mutating func quietSignal(_ id: String, kind: () -> String, at time: Seconds) -> Bool {
    guard settings.policy == .playingFirst, id != selectedID, let index = players.index(forKey: id) else {
      return false
    }
    let next = sequence + 1
    guard Self.recordQuietActivity(in: &players.values[index], kind: kind, at: time, sequence: next) else {
      return false
    }
    sequence = next
    return true
  }

  /// Records activity in `record` when it is a candidate (not excluded, answering); changed in
  /// place, since a copy of a record copies its names and reasons (this runs for every signal of a
  /// chatty player).
  private static func recordQuietActivity(
    in record: inout PlayerRecord, kind: () -> String, at time: Seconds, sequence: UInt64
  ) -> Bool {
    guard case nil = record.exclusion, case nil = record.unresponsiveReason else { return false }
    record.lastActivity = time
    record.lastActivityKind = kind()
    record.activitySequence = sequence
    return true
  }

  /// Its playback status is now known to be `status` (e.g. read after a reconnection), without
  /// it counting as activity.
  @discardableResult
  public mutating func statusRead(_ id: String, status: PlaybackStatus, at time: Seconds) -> Bool {
    guard var record = players[id] else { return false }
    apply(status, to: &record, at: time, initial: false)
    players[id] = record
    return reselect()
  }

  /// It missed a call deadline (or failed to answer): not selected until it shows life.
  @discardableResult
  public mutating func unresponsive(_ id: String, reason: String) -> Bool {
    guard players[id] != nil else { return false }
    players[id]!.unresponsiveReason = reason
    return reselect()
  }

  /// It is not a player to control (see `PlayerExclusion.notAPlayer`): never selected.
  @discardableResult
  public mutating func notAPlayer(_ id: String, reason: String) -> Bool {
    guard players[id] != nil, players[id]!.notAPlayerReason != reason else { return false }
    players[id]!.notAPlayerReason = reason
    return reselect()
  }

  /// It answered again.
  @discardableResult
  public mutating func responsive(_ id: String) -> Bool {
    guard players[id]?.unresponsiveReason != nil else { return false }
    players[id]!.unresponsiveReason = nil
    return reselect()
  }

  /// Forgets every player (the bus went away).
  @discardableResult
  public mutating func removeAll() -> Bool {
    players.removeAll()
    return reselect()
  }

  private mutating func apply(
    _ status: PlaybackStatus?, to record: inout PlayerRecord, at time: Seconds, initial: Bool
  ) {
    let wasPlaying = record.status == .playing
    record.status = status
    if status == .playing, !wasPlaying || record.playingSequence == 0 {
      record.playingSince = time
      // Found playing at startup: older than anything seen starting to play since.
      record.playingSequence = initial ? 1 : nextSequence()
    } else if status != .playing {
      record.playingSince = nil
      record.playingSequence = 0
    }
  }

  // MARK: Selection

  /// Why `record` cannot be selected, if it cannot.
  private func exclusion(of record: PlayerRecord) -> PlayerExclusion? {
    if record.id == ownID { return .itself }
    if let otherUser = record.otherUser { return otherUser }
    for name in record.names {
      for (proxy, why) in MPRISNames.proxies where name == proxy || name.hasPrefix(proxy + ".instance") {
        return .proxy(why)
      }
    }
    if let reason = record.notAPlayerReason { return .notAPlayer(reason) }
    if let glob = ignoreGlobs.first(where: { $0.matches(anyOf: record.names) }) {
      return .ignored(glob: glob.pattern)
    }
    if !record.isLoaded { return .loading }
    if let reason = record.unresponsiveReason { return .unresponsive(reason) }
    return nil
  }

  /// Recomputes the selection; returns whether it (or its reason) changed.
  @discardableResult
  private mutating func reselect() -> Bool {
    let previousID = selectedID
    let previousReason = reason
    for id in players.keys {
      players[id]!.exclusion = exclusion(of: players[id]!)
      players[id]!.priorityRank = priorityGlobs.firstIndex { $0.matches(anyOf: players[id]!.names) }
    }
    let candidates = players.values.filter { $0.exclusion == nil }
    guard !candidates.isEmpty else {
      selectedID = nil
      if players.isEmpty {
        reason = "no MPRIS player on the bus"
      } else {
        let why = players.values.sorted { ($0.displayName, $0.id) < ($1.displayName, $1.id) }
          .map { "\($0.displayName): \($0.exclusion?.description ?? "?")" }
        reason = "no usable player (\(why.joined(separator: "; ")))"
      }
      return selectedID != previousID || reason != previousReason
    }

    let unranked = priorityGlobs.count
    let bestRank = candidates.map { $0.priorityRank ?? unranked }.min()!
    let group = candidates.filter { ($0.priorityRank ?? unranked) == bestRank }
    var parts: [String] = []
    if bestRank < unranked {
      parts.append("first in priority (matches '\(priorityGlobs[bestRank].pattern)')")
    }
    let chosen: PlayerRecord
    if group.count == 1 {
      chosen = group[0]
      parts.append(candidates.count == 1 ? "the only usable player" : "the only player of its priority")
    } else {
      switch settings.policy {
      case .mostRecent:
        chosen = Self.best(group) { ($0.activitySequence, $0.status == .playing ? 1 : 0) }
        parts.append(Self.recencyReason(chosen))
      case .playingFirst:
        let playing = group.filter { $0.status == .playing }
        if !playing.isEmpty {
          chosen = Self.best(playing) { ($0.playingSequence, 0) }
          parts.append(
            playing.count == 1 ? "playing" : "started playing last of \(playing.count) playing players")
        } else if let previousID, let current = group.first(where: { $0.id == previousID }) {
          chosen = current
          // Chosen while none played (at startup, say): that reason still holds.
          parts.append(
            ruleReason.hasPrefix("no player is playing")
              ? ruleReason : "no player is playing; keeps the current selection")
        } else {
          chosen = Self.best(group) { ($0.activitySequence, 0) }
          parts.append("no player is playing; " + Self.recencyReason(chosen))
        }
      }
    }
    selectedID = chosen.id
    ruleReason = parts.last ?? ""
    reason = parts.joined(separator: "; ")
    return selectedID != previousID || reason != previousReason
  }

  private static func recencyReason(_ record: PlayerRecord) -> String {
    if record.activitySequence > 0, let kind = record.lastActivityKind {
      return "most recently active (\(kind))"
    }
    return record.status == .playing
      ? "playing, and no activity seen from any player yet" : "no activity seen yet; first by name"
  }

  /// The record with the greatest key; ties go to the smallest display name, then unique name.
  private static func best(_ records: [PlayerRecord], key: (PlayerRecord) -> (UInt64, Int)) -> PlayerRecord {
    records.min { a, b in
      let ka = key(a)
      let kb = key(b)
      if ka != kb { return ka > kb }
      return (a.displayName, a.id) < (b.displayName, b.id)
    }!
  }
}
