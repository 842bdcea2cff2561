#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A point in a two-dimensional coordinate space, in points.
public struct Point: Hashable, Sendable, CustomStringConvertible {
  public var x: Double
  public var y: Double
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
  public static let zero = Point(x: 0, y: 0)
  public var description: String { "(\(x), \(y))" }

  /// The distance to another point.
  public func distance(to other: Point) -> Double {
    let dx = other.x - x
    let dy = other.y - y
    return (dx * dx + dy * dy).squareRoot()
  }
}

/// A width and a height.
public struct Size: Hashable, Sendable {
  public var width: Double
  public var height: Double
  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }
  public static let zero = Size(width: 0, height: 0)
}

/// A rectangle: an origin and a size.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
  public var origin: Point
  public var size: Size
  public init(origin: Point, size: Size) {
    self.origin = origin
    self.size = size
  }
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
  }
  public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)
  public var minX: Double { min(origin.x, origin.x + size.width) }
  public var minY: Double { min(origin.y, origin.y + size.height) }
  public var maxX: Double { max(origin.x, origin.x + size.width) }
  public var maxY: Double { max(origin.y, origin.y + size.height) }
  public var midX: Double { (minX + maxX) / 2 }
  public var midY: Double { (minY + maxY) / 2 }
  public var width: Double { abs(size.width) }
  public var height: Double { abs(size.height) }
  public var center: Point { Point(x: midX, y: midY) }

  /// Whether the point lies inside (min edges included, max edges excluded, as CGRectContainsPoint).
  public func contains(_ point: Point) -> Bool {
    point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
  }

  /// The smallest rectangle holding both.
  public func union(_ other: Rect) -> Rect {
    let x0 = min(minX, other.minX)
    let y0 = min(minY, other.minY)
    return Rect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
  }

  /// The four corners: top left, top right, bottom left, bottom right.
  public var corners: [Point] {
    [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: minX, y: maxY), Point(x: maxX, y: maxY)]
  }

  /// The smallest rectangle holding all of `points` (not empty).
  public init(boundingBoxOf points: [Point]) {
    let xs = points.map(\.x)
    let ys = points.map(\.y)
    let x0 = xs.min()!
    let y0 = ys.min()!
    self.init(x: x0, y: y0, width: xs.max()! - x0, height: ys.max()! - y0)
  }

  /// This rectangle transformed by `t`: the bounding box of its transformed corners.
  public func applying(_ t: AffineTransform) -> Rect {
    Rect(boundingBoxOf: corners.map { $0.applying(t) })
  }

  public var description: String { "(\(origin.x), \(origin.y), \(size.width), \(size.height))" }
}

/// An affine transform, as CGAffineTransform: x' = a·x + c·y + tx, y' = b·x + d·y + ty.
public struct AffineTransform: Hashable, Sendable {
  public var a: Double
  public var b: Double
  public var c: Double
  public var d: Double
  public var tx: Double
  public var ty: Double
  public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
    self.a = a
    self.b = b
    self.c = c
    self.d = d
    self.tx = tx
    self.ty = ty
  }
  public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
  public init(translationX x: Double, y: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y) }
  public init(scaleX x: Double, y: Double) { self.init(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0) }
  /// A rotation by `angle` radians (positive is clockwise on a y-down screen, as UIKit).
  public init(rotationAngle angle: Double) {
    let cosA = Trig.cosine(angle)
    let sinA = Trig.sine(angle)
    self.init(a: cosA, b: sinA, c: -sinA, d: cosA, tx: 0, ty: 0)
  }
  public var isIdentity: Bool { self == .identity }

  /// `self` followed by `t`.
  public func concatenating(_ t: AffineTransform) -> AffineTransform {
    AffineTransform(
      a: a * t.a + b * t.c, b: a * t.b + b * t.d,
      c: c * t.a + d * t.c, d: c * t.b + d * t.d,
      tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
  }

  /// The inverse, or the identity when the transform is not invertible.
  public func inverted() -> AffineTransform {
    let det = a * d - b * c
    guard det != 0 else { return .identity }
    return AffineTransform(
      a: d / det, b: -b / det, c: -c / det, d: a / det,
      tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
  }
}

extension Point {
  /// The point transformed by `t`.
  public func applying(_ t: AffineTransform) -> Point {
    Point(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
  }
}

/// The C library's trigonometry, in one place for the geometry here and the gesture recognizers,
/// so that neither imports the platform's C library for it.
public enum Trig {
  @inline(__always) public static func sine(_ x: Double) -> Double { sin(x) }
  @inline(__always) public static func cosine(_ x: Double) -> Double { cos(x) }
  @inline(__always) public static func arcTangent(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
}
