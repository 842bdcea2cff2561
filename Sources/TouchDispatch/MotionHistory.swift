import EventTime
import ResponderCore

/// Recent samples of a value (a point, or a scale or angle in `x`), for velocities measured over
/// time rather than over events, so that 60 Hz and 240 Hz input give the same figures.
struct MotionHistory {
  /// How far back the velocity looks.
  var span: Seconds = 0.1
  private var samples: [(time: Seconds, value: Point)] = []

  mutating func add(_ value: Point, at time: Seconds) {
    if let last = samples.last, last.time == time {
      samples[samples.count - 1].value = value
    } else {
      samples.append((time, value))
    }
    // Keep one sample at or before `time - span` as the reference.
    while samples.count > 2 && samples[1].time <= time - span { samples.removeFirst() }
  }

  mutating func removeAll() { samples.removeAll(keepingCapacity: true) }

  /// The time of the latest sample.
  var lastTime: Seconds? { samples.last?.time }

  /// The latest value.
  var lastValue: Point? { samples.last?.value }

  /// The change per second between the reference sample and the latest one; zero with fewer
  /// than two samples.
  var velocity: Point {
    guard let first = samples.first, let last = samples.last, last.time > first.time else { return .zero }
    let dt = last.time - first.time
    return Point(x: (last.value.x - first.value.x) / dt, y: (last.value.y - first.value.y) / dt)
  }
}

extension Point {
  static func + (lhs: Point, rhs: Point) -> Point { Point(x: lhs.x + rhs.x, y: lhs.y + rhs.y) }
  static func - (lhs: Point, rhs: Point) -> Point { Point(x: lhs.x - rhs.x, y: lhs.y - rhs.y) }
  var length: Double { (x * x + y * y).squareRoot() }
}

extension View {
  /// A vector (a difference of points) of window coordinates in this view's coordinates.
  func convertVectorFromWindow(_ vector: Point) -> Point {
    convert(vector, from: nil) - convert(.zero, from: nil)
  }

  /// A vector of this view's coordinates in window coordinates.
  func convertVectorToWindow(_ vector: Point) -> Point {
    convert(vector, to: nil) - convert(.zero, to: nil)
  }
}
