import DBus
import EventTime
import ResponderCore

/// The names of responderd's D-Bus API, shared by the daemon, `responderctl` and applications.
///
/// The daemon owns `org.responderd.Daemon1` on the session bus and serves
/// `/org/responderd/Daemon1` with interface `org.responderd.Daemon1`:
///
/// - `RegisterResponder(o path, as eventTypes) → u id`
/// - `UnregisterResponder(u id)`
/// - `BecomeFirstResponder(u id) → b accepted`, `ResignFirstResponder(u id) → b resigned`
/// - `SetActive(u id, b active) → b firstResponder`: the application's window is (not) the
///   active one; shakes go to the active one only, the latest claim wins
/// - `SendEvent(s type, s subtype, s phase) → s handledBy`
/// - properties `FirstResponder u`, `Chain aa{sv}`, `MotionInterest b`, `Version s`,
///   `ConfigFile s`, `Deadline d`
/// - `WatchEvents()`, `UnwatchEvents()`: the two signals below are sent (unicast) only to the
///   connections of the daemon's user that called `WatchEvents`
/// - signal `EventDispatched(s type, s subtype, d timestamp, s handledBy)` for every dispatched
///   event (`handledBy` empty when dropped), and `EventDispatchedDetails(s type, s subtype,
///   d timestamp, s handledBy, a{sv} details)` right after it with `phase` (motion), `dropReason`,
///   `source` and `receivedBy`
///
/// Applications implement `org.responderd.Responder1` on the registered path:
/// `RemoteControlReceived(s subtype, d timestamp) → b handled`, `MotionBegan`, `MotionEnded`,
/// `MotionCancelled` (same arguments), and optionally the properties `CanBecomeFirstResponder b`
/// (false when absent) and `CanResignFirstResponder b` (true when absent).
public enum ResponderBusAPI {
  /// The daemon's well-known bus name.
  public static let daemonName = "org.responderd.Daemon1"
  /// The daemon's object.
  public static let daemonPath = "/org/responderd/Daemon1"
  /// The daemon's interface.
  public static let daemonInterface = "org.responderd.Daemon1"
  /// The interface applications implement on their registered object.
  public static let responderInterface = "org.responderd.Responder1"

  /// Errors of the daemon's methods (besides `org.freedesktop.DBus.Error.AccessDenied` for a caller
  /// running as another user and `org.freedesktop.DBus.Error.InvalidArgs` for bad arguments).
  public enum ErrorName {
    /// No responder is registered with this id.
    public static let unknownResponder = "org.responderd.Daemon1.Error.UnknownResponder"
    /// The id was registered by another bus connection: only that connection may act on it.
    public static let notOwner = "org.responderd.Daemon1.Error.NotOwner"
    /// This connection already registered a responder at this path.
    public static let alreadyRegistered = "org.responderd.Daemon1.Error.AlreadyRegistered"
    /// This connection has registered as many responders as one connection may.
    public static let tooManyResponders = "org.responderd.Daemon1.Error.TooManyResponders"
  }

  /// How many responders one bus connection may register at once.
  public static let maximumRespondersPerConnection = 16
  /// The longest object path a responder may be registered at, in bytes (InvalidArgs beyond).
  public static let longestResponderPath = 1024

  /// The event types applications may register for.
  public static let registrableEventTypes: [EventType] = [.remoteControl, .motion]

  /// The `Responder1` method an event is delivered with: `RemoteControlReceived`, or
  /// `MotionBegan`/`MotionEnded`/`MotionCancelled` for the motion phase (began when nil).
  public static func method(for type: EventType, phase: MotionPhase?) -> String? {
    switch type {
    case .remoteControl: return "RemoteControlReceived"
    case .motion:
      switch phase ?? .began {
      case .began: return "MotionBegan"
      case .ended: return "MotionEnded"
      case .cancelled: return "MotionCancelled"
      }
    case .touches, .presses: return nil
    }
  }

  /// The event type and motion phase a `Responder1` method delivers.
  public static func event(forMethod method: String) -> (type: EventType, phase: MotionPhase?)? {
    switch method {
    case "RemoteControlReceived": return (.remoteControl, nil)
    case "MotionBegan": return (.motion, .began)
    case "MotionEnded": return (.motion, .ended)
    case "MotionCancelled": return (.motion, .cancelled)
    default: return nil
    }
  }
}

/// An event as an application receives it from responderd.
public struct ResponderEvent: Sendable, Equatable, CustomStringConvertible {
  public var type: EventType
  public var subtype: EventSubtype
  /// The motion phase (motion events only).
  public var phase: MotionPhase?
  /// Seconds since boot (CLOCK_MONOTONIC) when the event happened.
  public var timestamp: Seconds

  public init(type: EventType, subtype: EventSubtype, phase: MotionPhase? = nil, timestamp: Seconds) {
    self.type = type
    self.subtype = subtype
    self.phase = phase
    self.timestamp = timestamp
  }

  public var description: String {
    phase.map { "\(type)/\(subtype)/\($0)" } ?? "\(type)/\(subtype)"
  }
}

/// One `EventDispatched` or `EventDispatchedDetails` signal: what happened to an event.
public struct DispatchedEvent: Sendable, Equatable {
  public var type: String
  public var subtype: String
  /// The motion phase ("began", "ended", "cancelled"), nil for other events.
  public var phase: String?
  public var timestamp: Double
  /// Who handled it; nil when it was dropped.
  public var handledBy: String?
  /// Why it was dropped (nil when handled).
  public var dropReason: String?
  /// Where the event came from ("evdev:/dev/input/event3", "mpris", "dbus :1.42").
  public var source: String
  /// The responders it reached, in order.
  public var receivedBy: [String]

  /// Reads the arguments of an `EventDispatched` signal (nil when they do not fit).
  public init?(arguments: [DBusValue]) {
    guard arguments.count >= 4, let type = arguments[0].string, let subtype = arguments[1].string,
      let timestamp = arguments[2].double, let handledBy = arguments[3].string
    else { return nil }
    self.type = type
    self.subtype = subtype
    self.timestamp = timestamp
    self.handledBy = handledBy.isEmpty ? nil : handledBy
    let details = arguments.count > 4 ? arguments[4].dictionary ?? [:] : [:]
    phase = details["phase"]?.string
    dropReason = details["dropReason"]?.string
    source = details["source"]?.string ?? ""
    receivedBy = details["receivedBy"]?.stringArray ?? []
  }
}

// MARK: - org.responderd.Responder1, as an application exports it

extension ResponderBusAPI {
  /// The documented `org.responderd.Responder1` interface, with no application behind it (every
  /// event is answered "not handled"): what `responderctl interfaces` writes.
  public static var responderInterfaceDescription: DBusInterface {
    responderInterface(
      receive: { call in call.reply([.bool(false)]) }, canBecomeFirstResponder: { false },
      canResignFirstResponder: { true })
  }

  /// `org.responderd.Responder1` with its documentation: each event method's call goes to
  /// `receive` (which replies `b handled`), and the two properties are read from the closures.
  public static func responderInterface(
    receive: @escaping (DBusMethodCall) -> Void, canBecomeFirstResponder: @escaping () -> Bool,
    canResignFirstResponder: @escaping () -> Bool
  ) -> DBusInterface {
    let methods = ["RemoteControlReceived", "MotionBegan", "MotionEnded", "MotionCancelled"].map { name in
      DBusMethod.replyLater(
        name, in: "sd", out: "b", inNames: ["subtype", "timestamp"], outNames: ["handled"], handler: receive
      )
      .documented(methodDocs[name] ?? "")
    }
    return DBusInterface(
      responderInterface, methods: methods,
      properties: [
        DBusProperty("CanBecomeFirstResponder", get: canBecomeFirstResponder)
          .documented("Whether this responder may become first responder (false when absent)."),
        DBusProperty("CanResignFirstResponder", get: canResignFirstResponder)
          .documented("Whether it lets another responder become first responder (true when absent)."),
      ]
    )
    .documented(
      "Implemented by applications on the object they register with org.responderd.Daemon1.RegisterResponder: responderd calls these methods to deliver events. Calls come from the owner of org.responderd.Daemon1 only; refuse others."
    )
  }

  private static let methodDocs = [
    "RemoteControlReceived":
      "A remote-control event (subtype such as \"togglePlayPause\", \"nextTrack\", \"beginSeekingForward\"; timestamp in seconds since boot, CLOCK_MONOTONIC). Return true when handled; false (or no answer within the daemon's Deadline) passes it on up the chain.",
    "MotionBegan": "A shake began (subtype \"motionShake\"). Return true when handled.",
    "MotionEnded": "The shake ended (subtype \"motionShake\"). Return true when handled.",
    "MotionCancelled": "The shake was cancelled: it was not one after all. Return true when handled.",
  ]
}
