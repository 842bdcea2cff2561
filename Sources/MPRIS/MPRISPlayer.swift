import DBus
import EventTime
import ResponderCore

/// What responderd knows of one MPRIS player on the bus: its names and the properties of its
/// `org.mpris.MediaPlayer2` and `org.mpris.MediaPlayer2.Player` interfaces, kept up to date from
/// GetAll and PropertiesChanged.
public struct MPRISPlayer: Sendable {
  /// The unique bus name of its connection (`:1.42`), where calls go.
  public let uniqueName: String
  /// Its well-known names (`org.mpris.MediaPlayer2.mpv`, …), sorted.
  public internal(set) var busNames: [String]
  /// The properties of `org.mpris.MediaPlayer2.Player` (variants removed).
  public internal(set) var playerProperties: [String: DBusValue] = [:]
  /// The properties of `org.mpris.MediaPlayer2`.
  public internal(set) var rootProperties: [String: DBusValue] = [:]
  /// The Player properties that changed without being read (all are decoded only for the
  /// selected player): their values here are older than the player's until read again.
  public internal(set) var unreadProperties: Set<String> = []
  /// The property names of its last PropertiesChanged and the activity kind made of them.
  var lastSignal: (names: [String], kind: String)?
  /// The last known position (µs) and when it was known, for extrapolation while playing
  /// (players do not signal Position changes, only jumps through `Seeked`).
  var positionSample: (position: Int64, at: Seconds)?

  init(uniqueName: String, busNames: [String]) {
    self.uniqueName = uniqueName
    self.busNames = busNames.sorted()
  }

  /// Whether some Player property changed without being read.
  public var hasUnreadChanges: Bool { !unreadProperties.isEmpty }

  /// Records which changed properties were read (`read`) and which were not (`unread`).
  mutating func noteRead(_ read: Dictionary<String, DBusValue>.Keys, unread: [String]) {
    if !unreadProperties.isEmpty { for name in read { unreadProperties.remove(name) } }
    if !unread.isEmpty { unreadProperties.formUnion(unread) }
  }

  /// `PlaybackStatus`, when the player gave a valid one.
  public var playbackStatus: PlaybackStatus? {
    playerProperties["PlaybackStatus"]?.string.flatMap(PlaybackStatus.init(rawValue:))
  }

  /// `Metadata` (empty when unknown).
  public var metadata: [String: DBusValue] { playerProperties["Metadata"]?.dictionary ?? [:] }

  /// `xesam:title` of the current track.
  public var title: String? { metadata["xesam:title"]?.string }

  /// `xesam:artist`, joined.
  public var artist: String? {
    metadata["xesam:artist"]?.stringArray?.joined(separator: ", ") ?? metadata["xesam:artist"]?.string
  }

  /// The `Identity` of the player application.
  public var identity: String? { rootProperties["Identity"]?.string }

  /// `Rate` (1 when unknown).
  public var rate: Double { playerProperties["Rate"]?.double ?? 1 }

  /// A boolean capability (`CanPlay`, `CanGoNext`, …). A missing `CanControl` counts as true (a
  /// sloppy player), any other missing capability as false.
  public func can(_ capability: MPRISCapability) -> Bool {
    if let value = playerProperties[capability.rawValue]?.bool { return value }
    return capability == .control
  }

  /// The capabilities it has, for listings.
  public var capabilities: [MPRISCapability] { MPRISCapability.allCases.filter { can($0) } }

  /// The position in µs at `now`: the last known one, moved on at `Rate` while playing.
  public func position(at now: Seconds) -> Int64 {
    guard let sample = positionSample else { return playerProperties["Position"]?.int64 ?? 0 }
    guard playbackStatus == .playing else { return sample.position }
    return sample.position + Int64(((now - sample.at) * rate * 1_000_000).rounded())
  }

  /// Records a known position.
  mutating func setPosition(_ position: Int64, at now: Seconds) {
    positionSample = (position, now)
    playerProperties["Position"] = .int64(position)
  }

  /// Merges changed Player properties; the position stays continuous across a status change.
  mutating func mergePlayerProperties(_ changed: [String: DBusValue], at now: Seconds) {
    if changed["PlaybackStatus"] != nil || changed["Rate"] != nil {
      let current = position(at: now)
      positionSample = (current, now)
    }
    for (key, value) in changed { playerProperties[key] = value }
    if let position = changed["Position"]?.int64 { positionSample = (position, now) }
  }
}

/// The boolean capabilities of `org.mpris.MediaPlayer2.Player`.
public enum MPRISCapability: String, Sendable, CaseIterable {
  case control = "CanControl"
  case play = "CanPlay"
  case pause = "CanPause"
  case goNext = "CanGoNext"
  case goPrevious = "CanGoPrevious"
  case seek = "CanSeek"

  /// The short name shown in listings ("play", "goNext").
  public var shortName: String {
    switch self {
    case .control: "control"
    case .play: "play"
    case .pause: "pause"
    case .goNext: "next"
    case .goPrevious: "previous"
    case .seek: "seek"
    }
  }
}
