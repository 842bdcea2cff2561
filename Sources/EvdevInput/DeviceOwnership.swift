/// Who has one input device's keys: the state machine of a device responderd opened.
///
/// A device to be owned (its rule or its class says so) goes shared → waiting for keys up → owned:
/// it is grabbed only while none of its keys is down. A grab that fails leaves it busy (shared for
/// good). While a desktop handles media keys itself, the shared and busy devices are yielded to it
/// (closed); an inactive session closes every device (suspended).
///
/// The machine is pure: `handle(_:)` takes what happened and returns what to do; `MediaKeyInput`
/// does it (grabs, closes, reopens, reports the status).
public enum DeviceOwnership: Sendable, Equatable {
  /// Open, read for its mapped keys; the desktop reads it too.
  case shared
  /// To be owned, but a key is down: grabbed once every key is up.
  case waitingForKeysUp
  /// Held exclusively (EVIOCGRAB): the desktop never sees its keys.
  case owned
  /// The grab failed (`heldByAnother`: another program holds it, EBUSY): shared for good.
  case busy(heldByAnother: Bool)
  /// Closed: the desktop handles media keys itself and reads it.
  case yieldedToDesktop
  /// Closed: the session is inactive (another session is in front).
  case suspended

  /// What happened to the device, or around it.
  public enum Event: Sendable, Equatable {
    /// It was opened; `toBeOwned` when its rule or class says responderd owns it.
    case opened(toBeOwned: Bool)
    /// A grab was tried: every key was up (before and after), and it holds.
    case grabbed
    /// A grab was tried: a key was down.
    case keyDown
    /// A grab was tried and failed (`busy`: another program holds the device).
    case grabFailed(busy: Bool)
    /// Its pending events were read.
    case eventsRead
    /// A desktop that handles media keys itself appeared.
    case desktopAppeared
    /// That desktop went away.
    case desktopLeft
    /// The session went inactive.
    case sessionInactive
  }

  /// What to do on a transition, in order.
  public enum Action: Sendable, Equatable {
    /// Try to grab it (when every key is up): the answer is `grabbed`, `keyDown` or `grabFailed`.
    case grab
    /// Drop what was queued (the desktop had it).
    case discardPending
    /// Read only its mapped keys from now on (the others are the desktop's).
    case readMappedKeysOnly
    /// Its status (owned, shared, left alone, and why) changed.
    case reportStatus
    /// Close it, remembering it (it is opened again later).
    case close
    /// Open it again.
    case reopen
  }

  /// Whether responderd holds it exclusively.
  public var isOwned: Bool { self == .owned }

  /// Whether it is open.
  public var isOpen: Bool {
    switch self {
    case .shared, .waitingForKeysUp, .owned, .busy: true
    case .yieldedToDesktop, .suspended: false
    }
  }

  /// Moves to the state after `event` and returns what to do.
  public mutating func handle(_ event: Event) -> [Action] {
    switch (self, event) {
    case (_, .opened(let toBeOwned)):
      self = .shared
      return toBeOwned ? [.grab] : [.reportStatus]
    case (.shared, .grabbed), (.waitingForKeysUp, .grabbed):
      self = .owned
      return [.discardPending, .reportStatus]
    case (.shared, .keyDown):
      self = .waitingForKeysUp
      return [.reportStatus]
    case (.shared, .grabFailed(let busy)), (.waitingForKeysUp, .grabFailed(let busy)):
      self = .busy(heldByAnother: busy)
      return [.readMappedKeysOnly, .reportStatus]
    case (.waitingForKeysUp, .eventsRead):
      return [.grab]
    case (.shared, .desktopAppeared), (.busy, .desktopAppeared):
      self = .yieldedToDesktop
      return [.close, .reportStatus]
    case (.yieldedToDesktop, .desktopLeft):
      // What was pressed while the desktop had it was the desktop's.
      return [.reopen, .discardPending]
    case (.suspended, .sessionInactive):
      return []
    case (let state, .sessionInactive):
      self = .suspended
      return state.isOpen ? [.close, .reportStatus] : [.reportStatus]
    default:
      return []
    }
  }
}
