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
  /// selected player): their values here are older than the player's until read again. Changed by
  /// `noteRead` and `forgetUnread` alone, which keep `quietSignalNoted` true to it.
  public private(set) var unreadProperties: Set<String> = []
  /// The property names of its last PropertiesChanged and the activity kind made of them.
  var lastSignal: (names: [String], kind: String)?
  /// Its last signal dropped unread (`PlayerTracker.droppedUnread`: a chatty player sends the
  /// same names each time), kept with the player so that no lookup of its own is made a signal.
  var quietSignal: QuietSignal?
  /// Whether `quietSignal`'s Player properties are in `unreadProperties`, none of them read since:
  /// a signal naming the same properties then has nothing to note.
  var quietSignalNoted = false
  /// Whether it sent more than `decodingLimits` lets through (said once in the log).
  var exceededLimits = false
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
    if !unreadProperties.isEmpty {
      for name in read where unreadProperties.remove(name) != nil { quietSignalNoted = false }
    }
    if !unread.isEmpty { unreadProperties.formUnion(unread) }
  }

  /// Every property read anew (GetAll): nothing is left unread.
  mutating func forgetUnread() {
    unreadProperties.removeAll()
    quietSignalNoted = false
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

  /// Merges changed root properties (`Identity`, …), what `kept` keeps of them.
  mutating func mergeRootProperties(_ changed: [String: DBusValue]) {
    for (key, value) in Self.kept(changed)
    where rootProperties[key] != nil || rootProperties.count < Self.maximumEntries {
      rootProperties[key] = value
    }
  }

  /// Records a known position.
  mutating func setPosition(_ position: Int64, at now: Seconds) {
    positionSample = (position, now)
    playerProperties["Position"] = .int64(position)
  }

  /// Merges changed Player properties (what `kept` keeps of them); the position stays continuous
  /// across a status change.
  mutating func mergePlayerProperties(_ changed: [String: DBusValue], at now: Seconds) {
    if changed["PlaybackStatus"] != nil || changed["Rate"] != nil {
      let current = position(at: now)
      positionSample = (current, now)
    }
    for (key, value) in Self.kept(changed)
    where playerProperties[key] != nil || playerProperties.count < Self.maximumEntries {
      playerProperties[key] = value
    }
    if let position = changed["Position"]?.int64 { positionSample = (position, now) }
  }
}

extension MPRISPlayer {
  /// What is kept of a player's properties, whatever it sends (two bogus players with 4 MB of
  /// Metadata each took responderd from 12.9 to 61.6 MiB): at most `maximumEntries` properties,
  /// and of each value at most `maximumEntries` elements or entries per array or dict, strings of
  /// at most `maximumStringBytes` UTF-8 bytes (cut at a character, "…" added) and `maximumDepth`
  /// levels of containers. A real player's title, URL or artist list fits whole.
  public static func kept(_ properties: [String: DBusValue]) -> [String: DBusValue] {
    guard properties.count > maximumEntries || properties.values.contains(where: { !fitsWhole($0, depth: 0) })
    else { return properties }
    var result: [String: DBusValue] = [:]
    for key in properties.keys.sorted().prefix(maximumEntries) {
      result[key] = trimmed(properties[key]!, depth: 0)
    }
    return result
  }

  /// What is decoded of a player's properties: the same bounds as `kept`, applied while reading
  /// the message, so that what lies beyond them is never decoded (a 4 MB title or a
  /// 400,000-entry `xesam:artist` costs what is kept of it).
  public static let decodingLimits = DBusDecodingLimits(
    maximumEntries: maximumEntries, maximumStringBytes: maximumStringBytes, maximumDepth: maximumDepth)

  /// The `org.mpris.MediaPlayer2.Player` properties responderd reads (the interface's own): a
  /// player's other properties are never decoded.
  public static let playerPropertyNames: Set<String> = [
    "PlaybackStatus", "LoopStatus", "Rate", "Shuffle", "Metadata", "Volume", "Position", "MinimumRate",
    "MaximumRate", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek", "CanControl",
  ]

  /// The most properties, array elements or dict entries kept.
  public static let maximumEntries = 64
  /// The longest string kept whole, in UTF-8 bytes.
  public static let maximumStringBytes = 2048
  /// The deepest nesting of containers kept (Metadata is a dict of variants of arrays: 3).
  public static let maximumDepth = 4

  private static func fitsWhole(_ value: DBusValue, depth: Int) -> Bool {
    switch value {
    case .string(let text), .objectPath(let text), .signature(let text):
      return text.utf8.count <= maximumStringBytes
    case .array(_, let elements):
      return depth < maximumDepth && elements.count <= maximumEntries
        && elements.allSatisfy { fitsWhole($0, depth: depth + 1) }
    case .dict(_, _, let entries):
      return depth < maximumDepth && entries.count <= maximumEntries
        && entries.allSatisfy { fitsWhole($0.key, depth: depth + 1) && fitsWhole($0.value, depth: depth + 1) }
    case .variant(let inner):
      return fitsWhole(inner, depth: depth + 1)
    case .structure(let fields):
      return fields.allSatisfy { fitsWhole($0, depth: depth + 1) }
    default:
      return true
    }
  }

  private static func trimmed(_ value: DBusValue, depth: Int) -> DBusValue {
    switch value {
    case .string(let text):
      return .string(shortened(text))
    case .objectPath(let text) where text.utf8.count > maximumStringBytes:
      return .objectPath("/")
    case .array(let signature, let elements):
      guard depth < maximumDepth else { return .array(elementSignature: signature, []) }
      return .array(
        elementSignature: signature, elements.prefix(maximumEntries).map { trimmed($0, depth: depth + 1) })
    case .dict(let keySignature, let valueSignature, let entries):
      guard depth < maximumDepth else {
        return .dict(keySignature: keySignature, valueSignature: valueSignature, [])
      }
      return .dict(
        keySignature: keySignature, valueSignature: valueSignature,
        entries.prefix(maximumEntries).map {
          (trimmed($0.key, depth: depth + 1), trimmed($0.value, depth: depth + 1))
        })
    case .variant(let inner):
      return .variant(trimmed(inner, depth: depth + 1))
    case .structure(let fields):
      return .structure(fields.map { trimmed($0, depth: depth + 1) })
    default:
      return value
    }
  }

  /// `text` whole when it fits `maximumStringBytes`, else cut at a character boundary with "…".
  static func shortened(_ text: String) -> String {
    guard text.utf8.count > maximumStringBytes else { return text }
    // Room for "…" (3 bytes); not in the middle of a character (a UTF-8 continuation byte).
    var bytes = Array(text.utf8.prefix(maximumStringBytes - 2))
    repeat {
      bytes.removeLast()
    } while bytes.last.map({ $0 & 0xC0 == 0x80 }) == true
      && bytes.count > 1
    if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self) + "…"
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
