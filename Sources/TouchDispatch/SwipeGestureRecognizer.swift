import EventTime
import ResponderCore

/// The directions of a swipe, as UISwipeGestureRecognizer.Direction (same raw values).
public struct SwipeDirection: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let right = SwipeDirection(rawValue: 1 << 0)
  public static let left = SwipeDirection(rawValue: 1 << 1)
  public static let up = SwipeDirection(rawValue: 1 << 2)
  public static let down = SwipeDirection(rawValue: 1 << 3)

  /// The unit vector of a single direction (y grows downwards).
  var unitVector: Point {
    switch self {
    case .right: Point(x: 1, y: 0)
    case .left: Point(x: -1, y: 0)
    case .up: Point(x: 0, y: -1)
    default: Point(x: 0, y: 1)
    }
  }

  static let singles: [SwipeDirection] = [.right, .left, .up, .down]

  /// A direction by name: "right", "left", "up", "down".
  public init?(name: String) {
    switch name {
    case "right": self = .right
    case "left": self = .left
    case "up": self = .up
    case "down": self = .down
    default: return nil
    }
  }

  public var description: String {
    let names = zip(Self.singles, ["right", "left", "up", "down"]).filter { contains($0.0) }.map(\.1)
    return names.joined(separator: "|")
  }
}

/// Recognizes a swipe, as UISwipeGestureRecognizer: `numberOfTouchesRequired` fingers moving at
/// least `minimumDistance` points in one of the allowed directions within `maximumDuration` of
/// the first finger down. Discrete: recognized as soon as the distance is covered, before the
/// fingers lift.
///
/// It fails as soon as the movement can no longer be its swipe: when the time is up without the
/// distance covered (a timer, so a finger held still fails too), when a finger that has moved
/// `slop` points heads more than `maximumAngle` off every allowed direction, when the fingers
/// disagree on the direction, when too many fingers come down, or when they lift early.
open class SwipeGestureRecognizer: GestureRecognizer {
  /// The allowed directions (right by default).
  public var direction: SwipeDirection {
    get { directionStorage }
    set { directionStorage = newValue }
  }
  private var directionStorage: SwipeDirection = .right
  /// Fingers that must swipe together (1 by default).
  public var numberOfTouchesRequired: Int {
    get { numberOfTouchesRequiredStorage }
    set { numberOfTouchesRequiredStorage = newValue }
  }
  private var numberOfTouchesRequiredStorage: Int = 1
  /// The distance to cover along the direction, in points (50 by default).
  public var minimumDistance: Double {
    get { minimumDistanceStorage }
    set { minimumDistanceStorage = newValue }
  }
  private var minimumDistanceStorage: Double = 50
  /// The time allowed to cover it, from the first finger down (0.4 s by default).
  public var maximumDuration: Seconds {
    get { maximumDurationStorage }
    set { maximumDurationStorage = newValue }
  }
  private var maximumDurationStorage: Seconds = 0.4
  /// How far off the direction a finger may head, in radians (30° by default).
  public var maximumAngle: Double {
    get { maximumAngleStorage }
    set { maximumAngleStorage = newValue }
  }
  private var maximumAngleStorage: Double = 30 * Double.pi / 180
  /// Movement, in points, below which the heading is not judged yet (10 by default).
  public var slop: Double {
    get { slopStorage }
    set { slopStorage = newValue }
  }
  private var slopStorage: Double = 10

  /// The direction of the recognized swipe.
  public private(set) var recognizedDirection: SwipeDirection? {
    get { recognizedDirectionStorage }
    set { recognizedDirectionStorage = newValue }
  }
  private var recognizedDirectionStorage: SwipeDirection?

  private var starts: [ObjectIdentifier: Point] = [:]
  private var startTime: Seconds?
  private var timer: ScheduledTimer?

  open override var isDiscrete: Bool { true }

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else { return }
    for touch in touches { starts[ObjectIdentifier(touch)] = touch.locationInWindow }
    if startTime == nil {
      let start = touches.reduce(Double.infinity) { min($0, $1.timestamp) }
      startTime = start
      timer = failIfStillPossible(after: max(0, start + maximumDuration - now))
    }
    if trackedTouches.count > numberOfTouchesRequired { state = .failed }
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else { return }
    evaluate(at: Self.latest(touches))
  }

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
    guard state == .possible else { return }
    evaluate(at: Self.latest(touches))
    if state == .possible { state = .failed }
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event) {
    if state == .possible { state = .failed }
  }

  private func evaluate(at time: Seconds) {
    if let startTime, time - startTime > maximumDuration {
      state = .failed
      return
    }
    var candidates = SwipeDirection.singles.filter { direction.contains($0) }
    var reached = trackedTouches.count == numberOfTouchesRequired
    let tangent = Self.tangent(maximumAngle)
    for touch in trackedTouches {
      guard let start = starts[ObjectIdentifier(touch)] else { continue }
      let moved = touch.locationInWindow - start
      guard moved.length >= slop else {
        reached = false
        continue
      }
      candidates.removeAll { candidate in
        let unit = candidate.unitVector
        let along = moved.x * unit.x + moved.y * unit.y
        let across = abs(moved.x * unit.y - moved.y * unit.x)
        return along <= 0 || across > along * tangent
      }
      if candidates.isEmpty {
        state = .failed
        return
      }
      let along = candidates.map { c in moved.x * c.unitVector.x + moved.y * c.unitVector.y }.max() ?? 0
      if along < minimumDistance { reached = false }
    }
    if reached, let found = candidates.first {
      recognizedDirection = found
      state = .recognized
    }
  }

  /// tan(angle), for 0 ≤ angle < π/2.
  static func tangent(_ angle: Double) -> Double {
    let a = min(max(angle, 0), Double.pi / 2 - 1e-6)
    return Trig.sine(a) / Trig.cosine(a)
  }

  open override func reset() {
    starts = [:]
    startTime = nil
    timer = nil
    recognizedDirection = nil
  }
}
