/// What the user's session is now, as logind and the desktop's screen saver tell it.
///
/// Without logind (no system bus, logind not running, no session of the user found) the session
/// is taken as active; without a screen saver on the session bus, as unlocked.
public struct SessionState: Equatable, Sendable, CustomStringConvertible {
  /// The session is in front of its seat (logind's `Active`): false while another user's session
  /// is (fast user switching) or the seat shows a login screen.
  public var isActive: Bool
  /// logind's `LockedHint` on the session (set by the desktop's screen locker).
  public var lockedHint: Bool
  /// A screen saver of the desktop (GNOME's, or org.freedesktop.ScreenSaver) says it is active.
  public var screenSaverActive: Bool
  /// The logind session followed ("3", "c2"), nil when none is.
  public var sessionID: String?

  public init(
    isActive: Bool = true, lockedHint: Bool = false, screenSaverActive: Bool = false, sessionID: String? = nil
  ) {
    self.isActive = isActive
    self.lockedHint = lockedHint
    self.screenSaverActive = screenSaverActive
    self.sessionID = sessionID
  }

  /// The screen is locked: logind's hint, or an active screen saver.
  public var isLocked: Bool { lockedHint || screenSaverActive }

  /// Whether the user is in front of this session with the screen unlocked: the only time shakes
  /// are delivered (iOS delivers them to the active application only, never to a locked screen).
  public var isInFront: Bool { isActive && !isLocked }

  /// "active", "active, locked (screen saver)", "inactive".
  public var description: String {
    guard isActive else { return "inactive" }
    guard isLocked else { return "active" }
    var by: [String] = []
    if lockedHint { by.append("logind") }
    if screenSaverActive { by.append("screen saver") }
    return "active, locked (\(by.joined(separator: ", ")))"
  }

  /// One word for tools: "active", "locked" or "inactive".
  public var word: String { !isActive ? "inactive" : isLocked ? "locked" : "active" }
}
