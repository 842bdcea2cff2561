import ResponderCore

/// A glob over MPRIS player names, as written in the config's `priority` and `ignore` lists.
///
/// `*` matches any run of characters (dots included), `?` one character, `[…]` one of a class
/// (as `Glob` reads it); everything else is literal. A glob is matched against a player's short name (its bus name without
/// `org.mpris.MediaPlayer2.`, as playerctl shows it: `mpv`, `mpv.instance4242`, `spotify`) and
/// against its full bus name. As in playerctl, a glob without `.instance` also matches the
/// instances of that name: `mpv` matches `mpv.instance4242`; `mpv.instance*` matches only them.
public struct NameGlob: Sendable, Hashable, CustomStringConvertible {
  private let glob: Glob

  /// The glob as written.
  public var pattern: String { glob.pattern }

  public init(_ pattern: String) { glob = Glob(pattern) }

  public var description: String { pattern }

  /// Whether the glob matches the player owning `busName` (a full `org.mpris.MediaPlayer2.*` name).
  public func matches(busName: String) -> Bool {
    let short = MPRISNames.shortName(busName)
    if glob.matches(short) || glob.matches(busName) { return true }
    if pattern.lastRange(of: ".instance") == nil, let base = MPRISNames.instanceBase(short) {
      return glob.matches(base)
    }
    return false
  }

  /// Whether the glob matches any of `busNames`.
  public func matches(anyOf busNames: [String]) -> Bool { busNames.contains { matches(busName: $0) } }
}

/// MPRIS bus-name helpers.
public enum MPRISNames {
  /// The prefix of every MPRIS player's bus name.
  public static let prefix = "org.mpris.MediaPlayer2."
  /// The object path of every MPRIS player.
  public static let objectPath = "/org/mpris/MediaPlayer2"
  /// The root interface.
  public static let rootInterface = "org.mpris.MediaPlayer2"
  /// The player interface.
  public static let playerInterface = "org.mpris.MediaPlayer2.Player"
  /// The name responderd's own proxy player owns.
  public static let responderd = "org.mpris.MediaPlayer2.responderd"
  /// The name playerctld owns (it re-emits the active player's signals under it).
  public static let playerctld = "org.mpris.MediaPlayer2.playerctld"

  /// The bus names of proxies that re-emit or forward other players (never controlled):
  /// playerctld and responderd itself (this instance or another one), with why.
  public static let proxies: [String: String] = [
    playerctld: "playerctld re-emits the active player's signals",
    responderd: "responderd's own proxy player",
  ]

  /// Whether `name` is an MPRIS player's well-known name.
  public static func isPlayerName(_ name: String) -> Bool {
    name.hasPrefix(prefix) && name.count > prefix.count
  }

  /// `org.mpris.MediaPlayer2.mpv.instance42` → `mpv.instance42` (other names unchanged).
  public static func shortName(_ busName: String) -> String {
    busName.hasPrefix(prefix) ? String(busName.dropFirst(prefix.count)) : busName
  }

  /// `mpv.instance42` → `mpv`; nil when the name has no `.instance<digits>` suffix.
  public static func instanceBase(_ shortName: String) -> String? {
    guard let range = shortName.lastRange(of: ".instance") else { return nil }
    let digits = shortName[range.upperBound...]
    guard !digits.isEmpty, digits.allSatisfy(\.isNumber) else { return nil }
    return String(shortName[..<range.lowerBound])
  }
}

extension String {
  /// The range of the last occurrence of `needle` (no Foundation).
  fileprivate func lastRange(of needle: String) -> Range<Index>? {
    guard !needle.isEmpty else { return nil }
    var index = endIndex
    while index > startIndex {
      index = self.index(before: index)
      if self[index...].hasPrefix(needle) {
        return index..<self.index(index, offsetBy: needle.count)
      }
    }
    return nil
  }
}
