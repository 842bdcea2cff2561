import EventTime
import InputCodes
import ResponderCore

/// How the screen is rotated relative to the touch panel's natural orientation, clockwise.
public enum TouchRotation: Int, Sendable, CaseIterable {
  case degrees0 = 0
  case degrees90 = 90
  case degrees180 = 180
  case degrees270 = 270

  /// A rotation from degrees (0, 90, 180, 270).
  public init?(degrees: Int) { self.init(rawValue: degrees) }

  /// The rotation that shows the picture upright when the device is held as `orientation`
  /// (measured against the panel's natural orientation): portrait 0, landscapeRight (the left edge
  /// up) 90, portraitUpsideDown 180, landscapeLeft (the right edge up) 270; none for faceUp,
  /// faceDown and unknown, which say nothing about which edge is up.
  public init?(_ orientation: DeviceOrientation) {
    switch orientation {
    case .portrait: self = .degrees0
    case .landscapeRight: self = .degrees90
    case .portraitUpsideDown: self = .degrees180
    case .landscapeLeft: self = .degrees270
    case .faceUp, .faceDown, .unknown: return nil
    }
  }

  /// This rotation followed by `other` (clockwise degrees add up).
  public func adding(_ other: TouchRotation) -> TouchRotation {
    TouchRotation(rawValue: (rawValue + other.rawValue) % 360)!
  }

  /// Whether the screen is on its side (90 or 270): its width and height are the panel's swapped.
  public var isQuarterTurn: Bool { self == .degrees90 || self == .degrees270 }
}

/// Maps a touch panel's device units to screen points, as libinput does: the axis ranges
/// (inclusive, `minimum…maximum`) stretch linearly over the screen, turned by `rotation`.
///
/// With the display turned 90° clockwise, the panel's top edge is the right edge of the screen the
/// user sees and its left edge the top (libinput's matrix 0 -1 1 / 1 0 0). `screen` is the size in
/// points as the user sees it, after rotation.
public struct TouchCalibration: Sendable, Equatable {
  public var xRange: ClosedRange<Int32>
  public var yRange: ClosedRange<Int32>
  /// The screen in points, as the user sees it.
  public var screen: Size
  public var rotation: TouchRotation
  /// The ABS_MT_PRESSURE range, for forces (none: no force).
  public var pressureRange: ClosedRange<Int32>?

  public init(
    xRange: ClosedRange<Int32>, yRange: ClosedRange<Int32>, screen: Size,
    rotation: TouchRotation = .degrees0,
    pressureRange: ClosedRange<Int32>? = nil
  ) {
    self.xRange = xRange
    self.yRange = yRange
    self.screen = screen
    self.rotation = rotation
    self.pressureRange = pressureRange
  }

  /// The same panel with the screen turned to `rotation`: the screen's width and height swap when
  /// the turn is a quarter one.
  public func turned(to rotation: TouchRotation) -> TouchCalibration {
    var turned = self
    turned.rotation = rotation
    if rotation.isQuarterTurn != self.rotation.isQuarterTurn {
      turned.screen = Size(width: screen.height, height: screen.width)
    }
    return turned
  }

  private var xSpan: Double { Double(xRange.upperBound) - Double(xRange.lowerBound) + 1 }
  private var ySpan: Double { Double(yRange.upperBound) - Double(yRange.lowerBound) + 1 }

  /// The screen point of a device position.
  public func point(x: Int32, y: Int32) -> Point {
    let fromLeft = (Double(x) - Double(xRange.lowerBound)) / xSpan
    let fromRight = (Double(xRange.upperBound) - Double(x)) / xSpan
    let fromTop = (Double(y) - Double(yRange.lowerBound)) / ySpan
    let fromBottom = (Double(yRange.upperBound) - Double(y)) / ySpan
    let (u, v): (Double, Double) =
      switch rotation {
      case .degrees0: (fromLeft, fromTop)
      case .degrees90: (fromBottom, fromLeft)
      case .degrees180: (fromRight, fromBottom)
      case .degrees270: (fromTop, fromRight)
      }
    return Point(x: u * screen.width, y: v * screen.height)
  }

  /// Points per device unit, averaged over the two axes (for contact sizes).
  public var pointsPerUnit: Double {
    let turned = rotation.isQuarterTurn
    let alongX = (turned ? screen.height : screen.width) / xSpan
    let alongY = (turned ? screen.width : screen.height) / ySpan
    return (alongX + alongY) / 2
  }

  /// A contact in screen points: position, radius (half the touch major), force (pressure over
  /// its range, 0…1).
  public func sample(_ contact: RawContact) -> ContactSample {
    var force: Double?
    var maximum: Double?
    if let pressure = contact.pressure, let range = pressureRange, range.upperBound > range.lowerBound {
      let span = Double(range.upperBound) - Double(range.lowerBound)
      force = min(max((Double(pressure) - Double(range.lowerBound)) / span, 0), 1)
      maximum = 1
    }
    return ContactSample(
      slot: contact.slot, trackingID: Int(contact.trackingID), location: point(x: contact.x, y: contact.y),
      majorRadius: contact.touchMajor.map { Double($0) / 2 * pointsPerUnit }, force: force,
      maximumPossibleForce: maximum)
  }
}

/// Looks at each frame of contacts before touches are made of it: passes the contacts the window
/// may see, or takes the whole sequence away (the daemon's `ShellGestureFilter`: a gesture the
/// desktop shell takes).
public protocol ContactFrameFilter: AnyObject {
  /// The contacts of the frame the window sees (some may be held back), or nil to cancel every
  /// touch under way.
  func filter(_ contacts: [ContactSample], at time: Seconds) -> [ContactSample]?
  /// Forgets every finger (the device went away).
  func reset()
}

/// A touchscreen feeding a window: raw evdev events in, through the multitouch decoder (protocol A
/// or B) and the calibration, into touches. Dropped events cancel the touches under way.
public final class TouchscreenInput {
  public let touchInput: TouchInput
  public var calibration: TouchCalibration {
    get { calibrationStorage }
    set { calibrationStorage = newValue }
  }
  private var calibrationStorage: TouchCalibration
  /// Sees each frame before the window does (nil: every contact goes through).
  public var frameFilter: (any ContactFrameFilter)? {
    get { frameFilterStorage }
    set { frameFilterStorage = newValue }
  }
  private var frameFilterStorage: (any ContactFrameFilter)?
  /// The rotation `rotate(to:)` asked for while fingers were down, applied when the last one lifts.
  public private(set) var pendingRotation: TouchRotation? {
    get { pendingRotationStorage }
    set { pendingRotationStorage = newValue }
  }
  private var pendingRotationStorage: TouchRotation?
  /// Called each time a new rotation takes effect, with the new calibration (its `screen` is the
  /// window's new size).
  public var rotationObserver: ((TouchCalibration) -> Void)? {
    get { rotationObserverStorage }
    set { rotationObserverStorage = newValue }
  }
  private var rotationObserverStorage: ((TouchCalibration) -> Void)?
  private var decoder = MultitouchDecoder()

  public init(window: Window, calibration: TouchCalibration, source: String = "touchscreen") {
    touchInput = TouchInput(window: window, source: source)
    self.calibrationStorage = calibration
  }

  /// Feeds one raw event; a SYN_REPORT delivers the frame to the window.
  public func handle(_ event: RawInputEvent) {
    guard let report = decoder.feed(event) else { return }
    switch report {
    case .frame(let time, let contacts):
      let samples = contacts.map(calibration.sample)
      if let frameFilter {
        if let passed = frameFilter.filter(samples, at: time) {
          touchInput.process(passed, at: time)
        } else {
          touchInput.cancelAll(at: time)
        }
      } else {
        touchInput.process(samples, at: time)
      }
    case .dropped(let time):
      touchInput.cancelAll(at: time)
    }
    if pendingRotation != nil { applyPendingRotation() }
  }

  /// Cancels the touches under way (the device went away).
  public func cancel(at time: Seconds) {
    touchInput.cancelAll(at: time)
    frameFilter?.reset()
    decoder = MultitouchDecoder()
    if pendingRotation != nil { applyPendingRotation() }
  }

  /// Turns the screen to `rotation` (the screen turned with the device): at once when no finger
  /// is on the surface, else once the last one lifts, so that a touch sequence under way keeps
  /// the coordinates it began with to its end, as the touches of one UIKit sequence do.
  public func rotate(to rotation: TouchRotation) {
    pendingRotation = rotation
    applyPendingRotation()
  }

  private func applyPendingRotation() {
    guard let rotation = pendingRotation, touchInput.activeTouches.isEmpty else { return }
    pendingRotation = nil
    guard rotation != calibration.rotation else { return }
    calibration = calibration.turned(to: rotation)
    rotationObserver?(calibration)
  }
}
