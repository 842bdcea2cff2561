/// What the user's session is now, as logind and the desktop's screen saver tell it: where it
/// stands on its seat, and who says its screen is locked.
///
/// Without logind (no system bus, logind not running, no session of the user found) the session
/// is taken as active; without a screen saver on the session bus, as unlocked.
public struct SessionState: Equatable, Sendable, CustomStringConvertible {
  /// Where the session stands on its seat (logind's `Active`).
  public enum Seat: String, Equatable, Sendable {
    /// In front of its seat.
    case active
    /// Another user's session is in front (fast user switching), or the seat shows a login screen.
    case inactive
  }

  /// What says the screen is locked.
  public enum Lock: String, Hashable, Sendable, CaseIterable {
    /// logind's `LockedHint` on the session (set by the desktop's screen locker).
    case logind
    /// A screen saver of the desktop (GNOME's, or org.freedesktop.ScreenSaver) says it is active.
    case screenSaver = "screen saver"
  }

  /// The session as the inputs and tools see it: one word each.
  public enum Phase: String, Equatable, Sendable {
    /// Active, the screen unlocked: the user is in front of it.
    case active
    /// Active, the screen locked.
    case locked
    /// Another session is in front.
    case inactive
  }

  public var seat: Seat
  /// Who says the screen is locked (empty: unlocked).
  public var locks: Set<Lock>
  /// The logind session followed ("3", "c2"), nil when none is.
  public var sessionID: String?

  public init(_ seat: Seat = .active, locks: Set<Lock> = [], sessionID: String? = nil) {
    self.seat = seat
    self.locks = locks
    self.sessionID = sessionID
  }

  /// Whether the session is in front of its seat.
  public var isActive: Bool { seat == .active }

  /// The screen is locked: logind's hint, or an active screen saver.
  public var isLocked: Bool { !locks.isEmpty }

  /// Active and unlocked, locked, or inactive.
  public var phase: Phase { !isActive ? .inactive : isLocked ? .locked : .active }

  /// Whether the user is in front of this session with the screen unlocked: the only time shakes
  /// are delivered (iOS delivers them to the active application only, never to a locked screen).
  public var isInFront: Bool { phase == .active }

  /// Sets whether `lock` says the screen is locked.
  public mutating func set(_ lock: Lock, locked: Bool) {
    if locked { locks.insert(lock) } else { locks.remove(lock) }
  }

  /// "active", "active, locked (screen saver)", "inactive".
  public var description: String {
    guard phase == .locked else { return phase.rawValue }
    let by = Lock.allCases.filter(locks.contains).map(\.rawValue)
    return "active, locked (\(by.joined(separator: ", ")))"
  }

  /// One word for tools: "active", "locked" or "inactive".
  public var word: String { phase.rawValue }
}
