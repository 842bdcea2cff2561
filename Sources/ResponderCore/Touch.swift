import EventTime

/// The phase of a touch, as UITouch.Phase.
public enum TouchPhase: Int, Sendable, CustomStringConvertible {
  case began, moved, stationary, ended, cancelled
  public var description: String {
    switch self {
    case .began: "began"
    case .moved: "moved"
    case .stationary: "stationary"
    case .ended: "ended"
    case .cancelled: "cancelled"
    }
  }
  /// Whether the touch is over (ended or cancelled).
  public var isFinal: Bool { self == .ended || self == .cancelled }
}

/// The kind of a touch, as UITouch.TouchType.
public enum TouchType: Int, Sendable {
  case direct, indirect, pencil
}

/// Something a touch location can be expressed in: a view or a window.
///
/// Touch locations are kept in window coordinates; a coordinate space converts them.
public protocol TouchCoordinateSpace: AnyObject {
  /// Converts a point from the coordinates of `window` (the touch's window) to this space.
  func convertFromWindow(_ point: Point) -> Point
}

/// One finger (or pen) on the surface for the whole of its sequence, as UITouch.
public final class Touch: Hashable, CustomStringConvertible {
  // Every public property is computed over a private `xStorage` field: touch frames read these
  // from TouchDispatch, and another module checks each access to a public stored property at run
  // time, where accesses to a private one are proven apart when compiled (HotPathRulesTests).
  // References are stored with a swap, which releases the old one outside the access.
  /// The phase of the touch in the current event.
  public var phase: TouchPhase {
    get { phaseStorage }
    set { phaseStorage = newValue }
  }
  private var phaseStorage: TouchPhase
  /// The number of taps at this location within the multi-tap window (1 for a first tap).
  public var tapCount: Int {
    get { tapCountStorage }
    set { tapCountStorage = newValue }
  }
  private var tapCountStorage: Int
  /// When the touch last changed, in seconds since boot.
  public var timestamp: Seconds {
    get { timestampStorage }
    set { timestampStorage = newValue }
  }
  private var timestampStorage: Seconds
  /// The view the touch was delivered to at touch-down; fixed for the whole sequence.
  public internal(set) var view: Responder? {
    get { viewStorage }
    set {
      // Swapped in: the old view is released after the access, not within it (see above).
      var view = newValue
      swap(&view, &viewStorage)
    }
  }
  private var viewStorage: Responder?
  /// The window the touch happened in.
  public var window: Responder? {
    get { windowStorage }
    set {
      var window = newValue
      swap(&window, &windowStorage)
    }
  }
  private var windowStorage: Responder?
  /// The radius of the touch, in points, and its tolerance.
  public var majorRadius: Double {
    get { majorRadiusStorage }
    set { majorRadiusStorage = newValue }
  }
  private var majorRadiusStorage: Double
  public var majorRadiusTolerance: Double {
    get { majorRadiusToleranceStorage }
    set { majorRadiusToleranceStorage = newValue }
  }
  private var majorRadiusToleranceStorage: Double
  /// The force of the touch (1.0 is an average touch) and the maximum the device reports.
  public var force: Double {
    get { forceStorage }
    set { forceStorage = newValue }
  }
  private var forceStorage: Double
  public var maximumPossibleForce: Double {
    get { maximumPossibleForceStorage }
    set { maximumPossibleForceStorage = newValue }
  }
  private var maximumPossibleForceStorage: Double
  public var type: TouchType {
    get { typeStorage }
    set { typeStorage = newValue }
  }
  private var typeStorage: TouchType
  /// The gesture recognizers that receive this touch (attached to the view and its ancestors).
  public var gestureRecognizers: [AnyObject] { gestureRecognizersStorage }
  private var gestureRecognizersStorage: [AnyObject] = []
  /// An identifier of the input contact (the evdev slot), for tools and logs.
  public let identifier: Int

  /// The current and previous locations in window coordinates.
  public var locationInWindow: Point {
    get { locationInWindowStorage }
    set { locationInWindowStorage = newValue }
  }
  private var locationInWindowStorage: Point
  public var previousLocationInWindow: Point {
    get { previousLocationInWindowStorage }
    set { previousLocationInWindowStorage = newValue }
  }
  private var previousLocationInWindowStorage: Point

  /// Touches that arrived between two events (same sequence), oldest first.
  public var coalesced: [Touch] {
    get { coalescedStorage }
    set { coalescedStorage = newValue }
  }
  private var coalescedStorage: [Touch] = []
  /// Predicted future positions, if any.
  public var predicted: [Touch] {
    get { predictedStorage }
    set { predictedStorage = newValue }
  }
  private var predictedStorage: [Touch] = []

  public init(
    identifier: Int = 0, phase: TouchPhase = .began, location: Point, timestamp: Seconds,
    window: Responder? = nil, view: Responder? = nil, tapCount: Int = 1, majorRadius: Double = 20,
    majorRadiusTolerance: Double = 5, force: Double = 0, maximumPossibleForce: Double = 0,
    type: TouchType = .direct
  ) {
    self.identifier = identifier
    self.phaseStorage = phase
    self.locationInWindowStorage = location
    self.previousLocationInWindowStorage = location
    self.timestampStorage = timestamp
    self.windowStorage = window
    self.viewStorage = view
    self.tapCountStorage = tapCount
    self.majorRadiusStorage = majorRadius
    self.majorRadiusToleranceStorage = majorRadiusTolerance
    self.forceStorage = force
    self.maximumPossibleForceStorage = maximumPossibleForce
    self.typeStorage = type
  }

  /// Hands the touch to `recognizer` as well (the window does this at touch-down).
  public func addGestureRecognizer(_ recognizer: AnyObject) {
    // The list is changed out of place, so that the optimizer can prove that no access to it
    // overlaps another and drop its run-time checks (see TouchDispatch's OutOfPlace.swift).
    var list: [AnyObject] = []
    swap(&list, &gestureRecognizersStorage)
    // A touch has a few: room for them at once, not growing one at a time.
    if list.capacity == 0 { list.reserveCapacity(4) }
    list.append(recognizer)
    swap(&list, &gestureRecognizersStorage)
  }

  /// Takes the touch away from `recognizer` (it ignored the touch, or was reset).
  public func removeGestureRecognizer(_ recognizer: AnyObject) {
    var list: [AnyObject] = []
    swap(&list, &gestureRecognizersStorage)
    list.removeAll { $0 === recognizer }
    swap(&list, &gestureRecognizersStorage)
  }

  /// Takes the touch away from every recognizer (before the window hands it to those of its view).
  public func removeAllGestureRecognizers() {
    var list: [AnyObject] = []
    swap(&list, &gestureRecognizersStorage)
    list.removeAll(keepingCapacity: true)
    swap(&list, &gestureRecognizersStorage)
  }

  /// Whether the touch happened in `window` (compared in place: no reference to it is taken).
  package func happened(in window: AnyObject) -> Bool { windowStorage === window }

  /// Fixes the touch's view (done once, at touch-down, by the window's hit-test).
  public func assignView(_ view: Responder?) { self.view = view }

  /// Moves the touch: the old location becomes the previous one.
  public func move(to location: Point, at timestamp: Seconds, phase: TouchPhase) {
    previousLocationInWindow = locationInWindow
    locationInWindow = location
    self.timestamp = timestamp
    self.phase = phase
  }

  /// The location in `space` (a view or window); window coordinates when nil.
  public func location(in space: TouchCoordinateSpace?) -> Point {
    space?.convertFromWindow(locationInWindow) ?? locationInWindow
  }

  /// The previous location in `space`; window coordinates when nil.
  public func previousLocation(in space: TouchCoordinateSpace?) -> Point {
    space?.convertFromWindow(previousLocationInWindow) ?? previousLocationInWindow
  }

  public static func == (lhs: Touch, rhs: Touch) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  public var description: String {
    "Touch(\(identifier), \(phase), \(locationInWindow), taps: \(tapCount))"
  }
}

/// The physical button of a press, as UIPress.PressType.
public enum PressType: Int, Sendable {
  case upArrow, downArrow, leftArrow, rightArrow, select, menu, playPause, pageUp, pageDown
}

/// The phase of a press, as UIPress.Phase.
public enum PressPhase: Int, Sendable {
  case began, changed, stationary, ended, cancelled
}

/// A press of a physical button, as UIPress.
public final class Press: Hashable {
  public var phase: PressPhase
  public var type: PressType
  public var timestamp: Seconds
  /// The force of the press, 0 to 1 for analog buttons, 0 or 1 for digital ones.
  public var force: Double
  /// The responder the press was delivered to.
  public var responder: Responder?

  public init(type: PressType, phase: PressPhase = .began, timestamp: Seconds, force: Double = 1) {
    self.type = type
    self.phase = phase
    self.timestamp = timestamp
    self.force = force
  }
  public static func == (lhs: Press, rhs: Press) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
