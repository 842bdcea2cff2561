import InputCodes

/// What responderd does with one input device, and why: a line of `responderctl devices`.
public struct DeviceStatus: Sendable, Equatable {
  /// Owned, shared or left alone.
  public enum State: String, Sendable, CaseIterable {
    /// Held exclusively (EVIOCGRAB): the desktop never sees its keys.
    case owned
    /// Read for its media keys while the desktop reads it too.
    case shared
    /// Not read at all.
    case leftAlone = "left alone"
  }

  /// "/dev/input/event7".
  public var path: String
  /// Its identity (empty when it could not be opened).
  public var identity: InputDeviceIdentity
  public var state: State
  /// Why, in words ("headset class: a key device of a USB audio device").
  public var reason: String
  /// The reason as a stable word for scripts: "rule", "headset-class", "keyboard",
  /// "not-headset-class", "busy", "grab-failed", "key-down", "session-inactive", "no-media-key",
  /// "ignored", "cannot-open". Others may add their own (a desktop that handles media keys).
  public var reasonCode: String
  /// The keys responderd reads from it (names), empty when left alone.
  public var keys: [String]

  public init(
    path: String, identity: InputDeviceIdentity = InputDeviceIdentity(), state: State, reason: String,
    reasonCode: String, keys: [String] = []
  ) {
    self.path = path
    self.identity = identity
    self.state = state
    self.reason = reason
    self.reasonCode = reasonCode
    self.keys = keys
  }

  /// "bus:vendor:product" in hex ("0003:046d:0a38").
  public var id: String { identity.id }

  mutating func own(because reason: String, code: String) {
    (state, self.reason, reasonCode) = (.owned, reason, code)
  }

  mutating func share(because reason: String, code: String) {
    (state, self.reason, reasonCode) = (.shared, reason, code)
  }

  mutating func leaveAlone(because reason: String, code: String) {
    (state, self.reason, reasonCode, keys) = (.leftAlone, reason, code, [])
  }
}
