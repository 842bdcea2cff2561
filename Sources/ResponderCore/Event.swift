import EventTime

/// Marks a type as a gesture recognizer, so that events can list the touches it receives.
public protocol GestureRecognizerIdentity: AnyObject {}

/// An event, as UIEvent: a type, a subtype, a timestamp and, for touch and press events,
/// the touches or presses it carries.
public final class Event: CustomStringConvertible {
  public let type: EventType
  public let subtype: EventSubtype
  /// Seconds since boot (CLOCK_MONOTONIC) when the event happened.
  public var timestamp: Seconds {
    get { timestampStorage }
    set { timestampStorage = newValue }
  }
  private var timestampStorage: Seconds
  /// The touches of a touch event (every touch of the sequence, whatever its phase).
  public private(set) var allTouches: Set<Touch> {
    get { allTouchesStorage }
    set { allTouchesStorage = newValue }
  }
  private var allTouchesStorage: Set<Touch>
  /// The presses of a press event.
  public private(set) var allPresses: Set<Press> {
    get { allPressesStorage }
    set { allPressesStorage = newValue }
  }
  private var allPressesStorage: Set<Press>
  /// Where the event came from ("evdev:/dev/input/event3", "mpris", "dbus:1.42", "test"), for records.
  public var source: String {
    get { sourceStorage }
    set { sourceStorage = newValue }
  }
  private var sourceStorage: String

  /// Where the event is on its way through the responder chain.
  let trace: DeliveryTrace

  public init(
    type: EventType, subtype: EventSubtype = .none, timestamp: Seconds, touches: Set<Touch> = [],
    presses: Set<Press> = [], source: String = ""
  ) {
    self.type = type
    self.subtype = subtype
    self.timestampStorage = timestamp
    self.allTouchesStorage = touches
    self.allPressesStorage = presses
    self.sourceStorage = source
    self.trace = DeliveryTrace()
  }

  /// A remote-control event.
  public static func remoteControl(_ subtype: EventSubtype, timestamp: Seconds, source: String = "")
    -> Event
  {
    Event(type: .remoteControl, subtype: subtype, timestamp: timestamp, source: source)
  }

  /// A motion event (`.motionShake`).
  public static func motion(
    _ subtype: EventSubtype = .motionShake, timestamp: Seconds, source: String = ""
  ) -> Event {
    Event(type: .motion, subtype: subtype, timestamp: timestamp, source: source)
  }

  /// Replaces the touches a touch event carries (the window does this for each frame).
  public func setTouches(_ touches: Set<Touch>, timestamp: Seconds) {
    allTouches = touches
    self.timestamp = timestamp
  }

  /// Replaces the presses a press event carries.
  public func setPresses(_ presses: Set<Press>, timestamp: Seconds) {
    allPresses = presses
    self.timestamp = timestamp
  }

  /// The touches delivered to `responder`: those whose view is it, or whose window is it.
  public func touches(for responder: Responder) -> Set<Touch> {
    allTouches.filter { $0.view === responder || $0.window === responder }
  }

  /// The touches delivered to a gesture recognizer.
  public func touches(for gestureRecognizer: any GestureRecognizerIdentity) -> Set<Touch> {
    allTouches.filter { touch in touch.gestureRecognizers.contains { $0 === gestureRecognizer } }
  }

  /// The touches that happened since the last event for the sequence of `touch`, the last one
  /// being `touch` itself; nil when `touch` is not part of this event.
  public func coalescedTouches(for touch: Touch) -> [Touch]? {
    guard allTouches.contains(touch) else { return nil }
    return touch.coalesced.isEmpty ? [touch] : touch.coalesced
  }

  /// Predicted touches for the sequence of `touch`; nil when `touch` is not part of this event.
  public func predictedTouches(for touch: Touch) -> [Touch]? {
    guard allTouches.contains(touch) else { return nil }
    return touch.predicted
  }

  public var description: String {
    subtype == .none ? "\(type) event at \(timestamp)" : "\(type)/\(subtype) event at \(timestamp)"
  }
}

/// What happened to one event: who saw it, who handled it, or that it was dropped.
public struct DispatchRecord: Sendable, CustomStringConvertible {
  public var type: EventType
  public var subtype: EventSubtype
  /// For motion events: which of motionBegan, motionEnded, motionCancelled delivered it.
  public var motionPhase: MotionPhase?
  public var timestamp: Seconds
  public var source: String
  /// The names of the responders the event reached, in order.
  public var receivedBy: [String]
  /// The name of the responder that handled it; nil when it was dropped.
  public var handledBy: String?
  /// Why the event was dropped (nil when it was handled).
  public var dropReason: String?

  public init(
    type: EventType, subtype: EventSubtype, motionPhase: MotionPhase? = nil, timestamp: Seconds,
    source: String,
    receivedBy: [String] = [], handledBy: String? = nil, dropReason: String? = nil
  ) {
    self.type = type
    self.subtype = subtype
    self.motionPhase = motionPhase
    self.timestamp = timestamp
    self.source = source
    self.receivedBy = receivedBy
    self.handledBy = handledBy
    self.dropReason = dropReason
  }

  /// Why an event is dropped when no responder took it, in every output (send, monitor, log).
  public static let unhandled = "no responder handled it"

  public var wasDropped: Bool { handledBy == nil }
  public var description: String {
    let kind = motionPhase.map { "\(type)/\(subtype)/\($0)" } ?? "\(type)/\(subtype)"
    let who = handledBy.map { "handled by \($0)" } ?? "dropped (\(dropReason ?? Self.unhandled))"
    let path = receivedBy.isEmpty ? "" : " via \(receivedBy.joined(separator: " → "))"
    return "\(kind) at \(timestamp): \(who)\(path)"
  }
}

/// The bookkeeping of one event's delivery. Internal: responders only see its effects.
final class DeliveryTrace {
  /// Whether responders passing the event on are noted (off for touch events nobody records).
  var isRecording = true
  var receivedBy: [Responder] = []
  var passedOn = Set<ObjectIdentifier>()
  /// Calls the event's responder method on a responder (set by the dispatcher).
  var deliver: ((Responder) -> Void)?
  /// Set when a responder defers its decision.
  var suspendedAt: Responder?
  var completion: ((DispatchRecord) -> Void)?
  var dropReason: String?
  var motionPhase: MotionPhase?
  var finished = false
}
