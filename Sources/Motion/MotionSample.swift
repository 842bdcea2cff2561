import EventTime
import ResponderCore

/// Standard gravity, in m/s² (one g).
public let standardGravity: Double = 9.80665

/// A three-component vector (an acceleration in m/s², or an axis).
public struct Vector3: Equatable, Sendable, CustomStringConvertible {
  public var x: Double
  public var y: Double
  public var z: Double

  public init(_ x: Double, _ y: Double, _ z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }

  public static let zero = Vector3(0, 0, 0)

  /// The Euclidean length.
  @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }

  /// The scalar product.
  @inlinable public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

  @inlinable public static func + (lhs: Vector3, rhs: Vector3) -> Vector3 {
    Vector3(lhs.x + rhs.x, lhs.y + rhs.y, lhs.z + rhs.z)
  }
  @inlinable public static func - (lhs: Vector3, rhs: Vector3) -> Vector3 {
    Vector3(lhs.x - rhs.x, lhs.y - rhs.y, lhs.z - rhs.z)
  }
  @inlinable public static func * (lhs: Vector3, rhs: Double) -> Vector3 {
    Vector3(lhs.x * rhs, lhs.y * rhs, lhs.z * rhs)
  }
  @inlinable public static func * (lhs: Double, rhs: Vector3) -> Vector3 { rhs * lhs }

  public var description: String { "(\(x), \(y), \(z))" }
}

/// One accelerometer sample: a CLOCK_MONOTONIC time and the acceleration in m/s² in screen
/// coordinates (see `ScreenRotation`), gravity included: a device lying face up reads about
/// (0, 0, +9.81).
public struct MotionSample: Equatable, Sendable, CustomStringConvertible {
  /// Seconds since boot (CLOCK_MONOTONIC), or the trace's clock in offline tools.
  public var t: Seconds
  public var x: Double
  public var y: Double
  public var z: Double

  public init(t: Seconds, x: Double, y: Double, z: Double) {
    self.t = t
    self.x = x
    self.y = y
    self.z = z
  }

  public init(t: Seconds, acceleration: Vector3) {
    self.init(t: t, x: acceleration.x, y: acceleration.y, z: acceleration.z)
  }

  /// The acceleration as a vector, in m/s².
  @inlinable public var acceleration: Vector3 { Vector3(x, y, z) }

  public var description: String { "\(t),\(x),\(y),\(z)" }
}
