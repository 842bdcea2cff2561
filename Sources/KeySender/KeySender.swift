import EventTime

/// The only keys responderd ever sends: the undo and redo chords, to the focused application,
/// after the user answered the shake-to-undo question. No other key can be expressed here.
public enum EditChord: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Ctrl+Z.
  case undo
  /// Ctrl+Shift+Z.
  case redo

  /// The modifiers (evdev codes: KEY_LEFTCTRL, KEY_LEFTSHIFT), pressed in this order and released
  /// in the reverse one.
  public var modifiers: [UInt32] {
    switch self {
    case .undo: [EvdevKey.leftControl]
    case .redo: [EvdevKey.leftControl, EvdevKey.leftShift]
    }
  }

  /// The key pressed and released while the modifiers are held (KEY_Z).
  public var key: UInt32 { EvdevKey.z }

  public var description: String { self == .undo ? "Ctrl+Z" : "Ctrl+Shift+Z" }
}

/// The evdev codes of the chords' keys (linux/input-event-codes.h).
public enum EvdevKey {
  public static let leftControl: UInt32 = 29
  public static let leftShift: UInt32 = 42
  public static let z: UInt32 = 44
}

/// Whether a sender can send keys now.
public enum KeySenderState: Equatable, Sendable, CustomStringConvertible {
  /// It can: through `api` ("org.gnome.Mutter.RemoteDesktop (GNOME)").
  case ready(api: String)
  /// It cannot, and why.
  case unavailable(reason: String)

  public var isReady: Bool { if case .ready = self { true } else { false } }

  /// "org.gnome.Mutter.RemoteDesktop (GNOME)" or "none: <reason>".
  public var description: String {
    switch self {
    case .ready(let api): api
    case .unavailable(let reason): "none: \(reason)"
    }
  }
}

/// Why a chord was not sent (the compositor refused it, went away or did not answer).
public struct KeySendError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Sends the undo and redo chords through the compositor, to the focused application.
public protocol EditKeySender: AnyObject {
  /// Whether it can send now, through which API (or why not).
  var state: KeySenderState { get }
  /// Calls `observer` after each change of `state`.
  func addObserver(_ observer: @escaping (KeySenderState) -> Void)
  /// Sends `chord` (modifiers down, the key down and up, modifiers up); `done` runs once.
  func send(_ chord: EditChord, _ done: @escaping (Result<Void, KeySendError>) -> Void)
}

/// A sender's state and the observers told when it changes, as each sender keeps them.
public final class KeySenderStatus {
  /// The state as last set.
  public private(set) var state: KeySenderState
  private var observers: [(KeySenderState) -> Void] = []

  public init(_ state: KeySenderState) { self.state = state }

  /// Calls `observer` after each change of `state`.
  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    observers.append(observer)
  }

  /// Sets the state; tells the observers when it changed.
  public func set(_ new: KeySenderState) {
    guard new != state else { return }
    state = new
    for observer in observers { observer(new) }
  }
}

/// The first ready sender of several, one per compositor API: the desktop that runs says which
/// is ready.
public final class FirstReadyKeySender: EditKeySender {
  public let senders: [any EditKeySender]
  private var observers: [(KeySenderState) -> Void] = []
  private var last: KeySenderState
  /// Why none is ready when no sender says more ("no compositor API to send keys").
  private let noneReason: String

  public init(_ senders: [any EditKeySender], noneReason: String) {
    self.senders = senders
    self.noneReason = noneReason
    last = .unavailable(reason: noneReason)
    last = state
    for sender in senders {
      sender.addObserver { [weak self] _ in self?.changed() }
    }
  }

  public var state: KeySenderState {
    if let ready = senders.first(where: { $0.state.isReady }) { return ready.state }
    let reasons = senders.compactMap { sender -> String? in
      if case .unavailable(let reason) = sender.state { return reason }
      return nil
    }
    return .unavailable(reason: reasons.isEmpty ? noneReason : reasons.joined(separator: "; "))
  }

  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    observers.append(observer)
  }

  public func send(_ chord: EditChord, _ done: @escaping (Result<Void, KeySendError>) -> Void) {
    guard let ready = senders.first(where: { $0.state.isReady }) else {
      let reason = state.description
      done(.failure(KeySendError("no way to send keys: \(reason)")))
      return
    }
    ready.send(chord, done)
  }

  private func changed() {
    let now = state
    guard now != last else { return }
    last = now
    for observer in observers { observer(now) }
  }
}
