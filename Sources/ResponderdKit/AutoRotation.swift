import Motion
import ResponderCore
import TouchDispatch

/// `[touch] rotation = "auto"`: the touchscreen's rotation from the device orientation.
///
/// Portrait is the panel's natural orientation, the one the accelerometer's mount matrix describes
/// (turned by `[motion] rotation` when that is set: the orientation is then measured against the
/// picture it describes, and `base` adds that turn back). landscapeRight (the left edge up) turns
/// the screen 90° clockwise, portraitUpsideDown 180°, landscapeLeft (the right edge up) 270°; lying
/// flat (faceUp, faceDown) and unknown say nothing about which edge is up, and keep the last
/// rotation (the natural one until an upright orientation was seen).
public struct AutoRotation: Equatable, Sendable {
  /// The turn of the frame the orientation is measured in (`[motion] rotation`).
  public var base: TouchRotation
  /// The rotation now.
  public private(set) var rotation: TouchRotation

  public init(base: TouchRotation = .degrees0) {
    self.base = base
    rotation = base
  }

  /// The rotation for `[motion] rotation`.
  public init(motionRotation: ScreenRotation) {
    self.init(base: TouchRotation(degrees: motionRotation.rawValue) ?? .degrees0)
  }

  /// Takes a new device orientation; returns the rotation, changed or not.
  @discardableResult
  public mutating func update(_ orientation: DeviceOrientation) -> TouchRotation {
    if let turn = TouchRotation(orientation) { rotation = base.adding(turn) }
    return rotation
  }
}
