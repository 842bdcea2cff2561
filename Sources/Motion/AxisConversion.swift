import EventTime
import ResponderCore

/// A 3×3 matrix, stored by rows; `self * v` is the row-by-vector product.
public struct Matrix3: Equatable, Sendable, CustomStringConvertible {
  public var row0: Vector3
  public var row1: Vector3
  public var row2: Vector3

  public init(_ row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
    self.row0 = row0
    self.row1 = row1
    self.row2 = row2
  }

  public static let identity = Matrix3(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

  @inlinable public static func * (m: Matrix3, v: Vector3) -> Vector3 {
    Vector3(m.row0.dot(v), m.row1.dot(v), m.row2.dot(v))
  }

  public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    let c0 = Vector3(b.row0.x, b.row1.x, b.row2.x)
    let c1 = Vector3(b.row0.y, b.row1.y, b.row2.y)
    let c2 = Vector3(b.row0.z, b.row1.z, b.row2.z)
    return Matrix3(
      Vector3(a.row0.dot(c0), a.row0.dot(c1), a.row0.dot(c2)),
      Vector3(a.row1.dot(c0), a.row1.dot(c1), a.row1.dot(c2)),
      Vector3(a.row2.dot(c0), a.row2.dot(c1), a.row2.dot(c2)))
  }

  /// Parses an IIO mount matrix attribute (`in_accel_mount_matrix`): three rows separated by
  /// `;`, three numbers each separated by `,`, e.g. `"0, 1, 0; -1, 0, 0; 0, 0, 1"`. The kernel
  /// defines it so that `matrix * raw` is the acceleration in the device frame (x toward the
  /// right edge, y toward the top edge, z out of the display), as iio-sensor-proxy applies it.
  public static func parseMountMatrix(_ text: some StringProtocol) -> Matrix3? {
    let rows = text.split(separator: ";", omittingEmptySubsequences: false)
    guard rows.count == 3 else { return nil }
    var vectors: [Vector3] = []
    for row in rows {
      let numbers = row.split(separator: ",", omittingEmptySubsequences: false).map {
        Double(String($0).trimmingSpaces)
      }
      guard numbers.count == 3, let a = numbers[0], let b = numbers[1], let c = numbers[2] else {
        return nil
      }
      vectors.append(Vector3(a, b, c))
    }
    return Matrix3(vectors[0], vectors[1], vectors[2])
  }

  public var description: String {
    func row(_ v: Vector3) -> String { "\(v.x), \(v.y), \(v.z)" }
    return "\(row(row0)); \(row(row1)); \(row(row2))"
  }
}

extension String {
  var trimmingSpaces: Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return self[first...last]
  }
}

/// How the display is turned relative to the device, as xrandr's `--rotate`: `left` means the
/// picture is turned a quarter counterclockwise (its top is at the device's left edge).
///
/// Screen coordinates are the device frame turned with the picture: x toward the right edge of the
/// picture as displayed, y toward its top edge, z out of the screen toward the viewer.
public enum ScreenRotation: Int, Sendable, CaseIterable, CustomStringConvertible {
  case normal = 0
  case left = 90
  case inverted = 180
  case right = 270

  /// Parses "normal", "left", "inverted", "right" or a number of degrees (0, 90, 180, 270;
  /// counterclockwise).
  public init?(name: String) {
    switch name.lowercased() {
    case "normal", "0", "none": self = .normal
    case "left", "90": self = .left
    case "inverted", "180", "upside-down": self = .inverted
    case "right", "270", "-90": self = .right
    default: return nil
    }
  }

  public var name: String {
    switch self {
    case .normal: "normal"
    case .left: "left"
    case .inverted: "inverted"
    case .right: "right"
    }
  }
  public var description: String { name }

  /// The matrix taking a device-frame vector to screen coordinates.
  public var deviceToScreen: Matrix3 {
    switch self {
    case .normal: .identity
    // The picture's right is the device's top; its top is the device's left.
    case .left: Matrix3(Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1))
    case .inverted: Matrix3(Vector3(-1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, 1))
    case .right: Matrix3(Vector3(0, -1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1))
    }
  }
}

/// Turns raw accelerometer readings into samples in m/s² in screen coordinates:
/// `value = (raw + offset) * scale` per axis (the IIO rule), then the mount matrix, then the
/// screen rotation.
public struct SampleConverter: Equatable, Sendable {
  /// Per-axis scale (m/s² per raw unit) and offset (raw units), as IIO's `_scale` and `_offset`.
  public var scale: Vector3
  public var offset: Vector3
  public var mountMatrix: Matrix3
  public var rotation: ScreenRotation
  /// Mount matrix and rotation in one.
  public private(set) var combined: Matrix3

  public init(
    scale: Vector3 = Vector3(1, 1, 1), offset: Vector3 = .zero, mountMatrix: Matrix3 = .identity,
    rotation: ScreenRotation = .normal
  ) {
    self.scale = scale
    self.offset = offset
    self.mountMatrix = mountMatrix
    self.rotation = rotation
    self.combined = rotation.deviceToScreen * mountMatrix
  }

  /// The sample for raw readings at time `t`.
  @inlinable
  public func sample(t: Seconds, raw: Vector3) -> MotionSample {
    let scaled = Vector3(
      (raw.x + offset.x) * scale.x, (raw.y + offset.y) * scale.y, (raw.z + offset.z) * scale.z)
    return MotionSample(t: t, acceleration: combined * scaled)
  }
}
