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
///
/// The properties read on every touch frame are accessors over `…Storage` fields kept without
/// dynamic exclusivity checks: another module checks every access to a public stored property,
/// whatever the property says.
public final class Touch: Hashable, CustomStringConvertible {
  /// The phase of the touch in the current event.
  @inlinable public var phase: TouchPhase {
    get { phaseStorage }
    set { phaseStorage = newValue }
    _modify { yield &phaseStorage }
  }
  @usableFromInline @exclusivity(unchecked) var phaseStorage: TouchPhase
  /// The number of taps at this location within the multi-tap window (1 for a first tap).
  @exclusivity(unchecked) public var tapCount: Int
  /// When the touch last changed, in seconds since boot.
  @inlinable public var timestamp: Seconds {
    get { timestampStorage }
    set { timestampStorage = newValue }
    _modify { yield &timestampStorage }
  }
  @usableFromInline @exclusivity(unchecked) var timestampStorage: Seconds
  /// The view the touch was delivered to at touch-down; fixed for the whole sequence.
  @inlinable public internal(set) var view: Responder? {
    get { viewStorage }
    set { viewStorage = newValue }
    _modify { yield &viewStorage }
  }
  @usableFromInline @exclusivity(unchecked) var viewStorage: Responder?
  /// The window the touch happened in.
  @inlinable public var window: Responder? {
    get { windowStorage }
    set { windowStorage = newValue }
    _modify { yield &windowStorage }
  }
  @usableFromInline @exclusivity(unchecked) var windowStorage: Responder?
  /// The radius of the touch, in points, and its tolerance.
  @exclusivity(unchecked) public var majorRadius: Double
  @exclusivity(unchecked) public var majorRadiusTolerance: Double
  /// The force of the touch (1.0 is an average touch) and the maximum the device reports.
  @exclusivity(unchecked) public var force: Double
  @exclusivity(unchecked) public var maximumPossibleForce: Double
  @exclusivity(unchecked) public var type: TouchType
  /// The gesture recognizers that receive this touch (attached to the view and its ancestors).
  @inlinable public var gestureRecognizers: [AnyObject] {
    get { gestureRecognizersStorage }
    set { gestureRecognizersStorage = newValue }
    _modify { yield &gestureRecognizersStorage }
  }
  @usableFromInline @exclusivity(unchecked) var gestureRecognizersStorage: [AnyObject] = []
  /// An identifier of the input contact (the evdev slot), for tools and logs.
  public let identifier: Int

  /// The current and previous locations in window coordinates.
  @inlinable public var locationInWindow: Point {
    get { locationInWindowStorage }
    set { locationInWindowStorage = newValue }
    _modify { yield &locationInWindowStorage }
  }
  @usableFromInline @exclusivity(unchecked) var locationInWindowStorage: Point
  @inlinable public var previousLocationInWindow: Point {
    get { previousLocationInWindowStorage }
    set { previousLocationInWindowStorage = newValue }
    _modify { yield &previousLocationInWindowStorage }
  }
  @usableFromInline @exclusivity(unchecked) var previousLocationInWindowStorage: Point

  /// Touches that arrived between two events (same sequence), oldest first.
  @exclusivity(unchecked) public var coalesced: [Touch] = []
  /// Predicted future positions, if any.
  @exclusivity(unchecked) public var predicted: [Touch] = []

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
    self.tapCount = tapCount
    self.majorRadius = majorRadius
    self.majorRadiusTolerance = majorRadiusTolerance
    self.force = force
    self.maximumPossibleForce = maximumPossibleForce
    self.type = type
  }

  /// Fixes the touch's view (done once, at touch-down, by the window's hit-test).
  public func assignView(_ view: Responder?) { self.viewStorage = view }

  /// Moves the touch: the old location becomes the previous one.
  public func move(to location: Point, at timestamp: Seconds, phase: TouchPhase) {
    previousLocationInWindow = locationInWindow
    locationInWindow = location
    self.timestampStorage = timestamp
    self.phaseStorage = phase
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
  @exclusivity(unchecked) public var phase: PressPhase
  @exclusivity(unchecked) public var type: PressType
  @exclusivity(unchecked) public var timestamp: Seconds
  /// The force of the press, 0 to 1 for analog buttons, 0 or 1 for digital ones.
  @exclusivity(unchecked) public var force: Double
  /// The responder the press was delivered to.
  @exclusivity(unchecked) public var responder: Responder?

  public init(type: PressType, phase: PressPhase = .began, timestamp: Seconds, force: Double = 1) {
    self.type = type
    self.phase = phase
    self.timestamp = timestamp
    self.force = force
  }
  public static func == (lhs: Press, rhs: Press) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
