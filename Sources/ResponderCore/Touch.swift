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
  /// The phase of the touch in the current event.
  @exclusivity(unchecked) public var phase: TouchPhase
  /// The number of taps at this location within the multi-tap window (1 for a first tap).
  @exclusivity(unchecked) public var tapCount: Int
  /// When the touch last changed, in seconds since boot.
  @exclusivity(unchecked) public var timestamp: Seconds
  /// The view the touch was delivered to at touch-down; fixed for the whole sequence.
  @exclusivity(unchecked) public internal(set) var view: Responder?
  /// The window the touch happened in.
  @exclusivity(unchecked) public var window: Responder?
  /// The radius of the touch, in points, and its tolerance.
  @exclusivity(unchecked) public var majorRadius: Double
  @exclusivity(unchecked) public var majorRadiusTolerance: Double
  /// The force of the touch (1.0 is an average touch) and the maximum the device reports.
  @exclusivity(unchecked) public var force: Double
  @exclusivity(unchecked) public var maximumPossibleForce: Double
  @exclusivity(unchecked) public var type: TouchType
  /// The gesture recognizers that receive this touch (attached to the view and its ancestors).
  @exclusivity(unchecked) public var gestureRecognizers: [AnyObject] = []
  /// An identifier of the input contact (the evdev slot), for tools and logs.
  public let identifier: Int

  /// The current and previous locations in window coordinates.
  @exclusivity(unchecked) public var locationInWindow: Point
  @exclusivity(unchecked) public var previousLocationInWindow: Point

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
    self.phase = phase
    self.locationInWindow = location
    self.previousLocationInWindow = location
    self.timestamp = timestamp
    self.window = window
    self.view = view
    self.tapCount = tapCount
    self.majorRadius = majorRadius
    self.majorRadiusTolerance = majorRadiusTolerance
    self.force = force
    self.maximumPossibleForce = maximumPossibleForce
    self.type = type
  }

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
