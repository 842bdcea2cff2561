/// How the device is held, as UIKit's `UIDeviceOrientation` names it.
public enum DeviceOrientation: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Not known (the accelerometer is closed, or the device is moving too much to tell).
  case unknown
  /// Upright, the top edge up.
  case portrait
  /// Upright, the top edge down.
  case portraitUpsideDown
  /// On its side, the top edge to the left (the right edge up).
  case landscapeLeft
  /// On its side, the top edge to the right (the left edge up).
  case landscapeRight
  /// Flat, the screen up.
  case faceUp
  /// Flat, the screen down.
  case faceDown

  public var description: String { rawValue }
}
