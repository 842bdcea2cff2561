/// Whether the touch gestures component follows the touchscreens: what it was asked to do and
/// what the session lets the input devices do, as one state.
///
/// The machine is pure: `handle(_:)` takes what happened and returns what to do;
/// `TouchGesturesComponent` does it (opens the touchscreen and follows hotplug, or closes it).
public enum TouchscreenWatch: Sendable, Equatable {
  /// Not started, stopped, or started with no gesture to recognize: nothing is followed.
  case off
  /// The touchscreen present is open and hotplug is followed.
  case following
  /// Started with gestures, but the session holds the input devices (logind not answered yet,
  /// another session in front): closed until the session lets them be opened.
  case held

  /// What happened.
  public enum Event: Sendable, Equatable {
    /// The component started with gestures to recognize; `sessionOpen` when the session lets the
    /// input devices be opened now.
    case started(sessionOpen: Bool)
    /// The session lets the input devices be opened (again).
    case sessionOpened
    /// The session holds them (another session in front, logind not answered).
    case sessionClosed
    /// The component stopped.
    case stopped
  }

  /// What to do.
  public enum Action: Sendable, Equatable {
    /// Open the touchscreen present and follow hotplug.
    case watch
    /// Close the touchscreen (the touches under way are cancelled) and stop following hotplug.
    case close
  }

  /// Moves to the state after `event` and returns what to do.
  public mutating func handle(_ event: Event) -> [Action] {
    switch (self, event) {
    case (.off, .started(let sessionOpen)):
      self = sessionOpen ? .following : .held
      return sessionOpen ? [.watch] : []
    case (.following, .sessionClosed):
      self = .held
      return [.close]
    case (.held, .sessionOpened):
      self = .following
      return [.watch]
    case (_, .stopped):
      self = .off
      return [.close]
    default:
      return []
    }
  }
}
