import EventTime

/// How the player to control is chosen among the MPRIS players on the bus.
public enum SelectionPolicy: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Any signal from a player (a property change, a seek, appearing on the bus) makes it the
  /// selected one: playerctld's rule.
  case mostRecent = "most-recent"
  /// A playing player wins (the one that started playing last when several play); when none
  /// plays, the current selection stays: GNOME's and KDE's rule.
  case playingFirst = "playing-first"

  public var description: String { rawValue }
}

/// `[players]`: which MPRIS player the `mpris` handler controls, and how.
public struct PlayerSettings: Equatable, Sendable {
  /// The selection policy.
  public var policy: SelectionPolicy = .playingFirst
  /// Ordered name globs: a player matching an earlier glob is always preferred to one matching a
  /// later glob or none; the policy chooses among the players of the best group.
  public var priority: [String] = []
  /// Name globs of players never controlled (still listed by `responderctl players`).
  public var ignore: [String] = []
  /// How far one seek step moves, in seconds.
  public var seekStep: Seconds = 5
  /// Time between seek steps while seeking is held, in seconds.
  public var seekInterval: Seconds = 0.25
  /// How long a call to a player may take before the event moves on down the chain, in seconds.
  public var callDeadline: Seconds = 0.3
  /// Whether responderd owns `org.mpris.MediaPlayer2.responderd`, the proxy player.
  public var proxy = true

  public init() {}
}
