import ResponderCore

/// The device orientation from gravity, with hysteresis: the orientation changes only once
/// gravity is clearly nearer another one's axis (by about 10° past the 45° half-way line), so a
/// device held at 45° does not flicker between two.
///
/// Gravity is in the device frame as the sensor reads it (x toward the right edge, y toward the
/// top edge, z out of the screen; lying face up reads +z). While the device accelerates hard (the
/// reading is far from 1 g) the orientation is kept.
public struct OrientationEstimator: Sendable {
  /// How much nearer (in cosine) the new axis must be than the current one: 0.25 ≈ 10° past 45°.
  public var margin = 0.25
  /// Readings whose length is outside this many g are ignored.
  public var acceptedMagnitude = 0.6...1.4

  public private(set) var orientation: DeviceOrientation = .unknown

  public init() {}

  /// Takes a gravity estimate (m/s²); returns the orientation, changed or not.
  @discardableResult
  public mutating func update(gravity: Vector3) -> DeviceOrientation {
    let length = gravity.length
    guard length > 0, acceptedMagnitude.contains(length / standardGravity) else { return orientation }
    let n = gravity * (1 / length)
    let scores: [(DeviceOrientation, Double)] = [
      (.portrait, n.y), (.portraitUpsideDown, -n.y), (.landscapeLeft, n.x), (.landscapeRight, -n.x),
      (.faceUp, n.z), (.faceDown, -n.z),
    ]
    let best = scores.max { $0.1 < $1.1 }!
    guard best.0 != orientation else { return orientation }
    let current = scores.first { $0.0 == orientation }?.1
    if let current, best.1 < current + margin { return orientation }
    orientation = best.0
    return orientation
  }

  /// Forgets the orientation (the sensor closed).
  public mutating func reset() { orientation = .unknown }
}
