import EventLoop
import InputCodes
import ResponderCore
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Why a touchscreen could not be opened.
public enum TouchscreenError: Error, CustomStringConvertible, Equatable {
  /// Opening the device or reading its description failed (the error names the call and the device).
  case cannotOpen(SystemError)
  /// The device reports no multitouch positions (a single-touch panel, or not a touch device).
  case notMultitouch(path: String)

  public var description: String {
    switch self {
    case .cannotOpen(let error): "\(error)"
    case .notMultitouch(let path):
      "\(path): not a multitouch touchscreen (no ABS_MT_POSITION_X/Y axes: single-touch panels are not supported)"
    }
  }
}

/// A multitouch touchscreen opened read-only with libevdev (`EvdevDevice`): protocol B (slots) or
/// protocol A (SYN_MT_REPORT, no slots). Never grabbed. It reads raw events and decides nothing:
/// the multitouch decoder and the calibration onto a screen are above it (`TouchscreenSource` in
/// the service's kit).
public final class TouchscreenDevice {
  private let device: EvdevDevice
  public var path: String { device.path }
  public var fd: FileDescriptor { device.fd }
  public var identity: InputDeviceIdentity { device.identity }
  /// The ABS_MT_POSITION_X and _Y ranges.
  public let xRange: ClosedRange<Int32>
  public let yRange: ClosedRange<Int32>
  /// The panel's size in millimetres in its natural orientation, from the resolution of its
  /// position axes (units per millimetre); nil when the device gives none.
  public let physicalSize: Size?
  /// The ABS_MT_PRESSURE range, when the device reports pressure.
  public let pressureRange: ClosedRange<Int32>?
  /// The number of slots (fingers) the device tracks; 0 for a protocol A device, which has none.
  public let slotCount: Int
  /// Whether the device speaks multitouch protocol A (ABS_MT_POSITION_X/Y without ABS_MT_SLOT).
  public var usesProtocolA: Bool { slotCount == 0 }
  /// Whether the device is a screen, not a touchpad: INPUT_PROP_DIRECT, or (older protocol A
  /// panels set no properties) BTN_TOUCH without BTN_TOOL_FINGER, as udev's input_id decides.
  public let isDirect: Bool
  /// Whether event times are on CLOCK_MONOTONIC (the device accepted EVIOCSCLOCKID).
  public var clockIsMonotonic: Bool { device.clockIsMonotonic }

  /// Opens `path` and checks that it is a multitouch device (protocol A or B).
  public init(path: String) throws(TouchscreenError) {
    let device: EvdevDevice
    do {
      device = try EvdevDevice(path: path)
    } catch {
      throw .cannotOpen(error)
    }
    func axis(_ code: UInt16) -> ClosedRange<Int32>? {
      guard let axis = device.absoluteAxis(code), axis.maximum > axis.minimum else { return nil }
      return axis.minimum...axis.maximum
    }
    guard let x = axis(InputCode.ABS_MT_POSITION_X),
      let y = axis(InputCode.ABS_MT_POSITION_Y)
    else {
      device.close()
      throw .notMultitouch(path: path)
    }
    self.device = device
    xRange = x
    yRange = y
    if let xResolution = device.absoluteAxis(InputCode.ABS_MT_POSITION_X)?.resolution, xResolution > 0,
      let yResolution = device.absoluteAxis(InputCode.ABS_MT_POSITION_Y)?.resolution, yResolution > 0
    {
      physicalSize = Size(
        width: (Double(x.upperBound) - Double(x.lowerBound)) / Double(xResolution),
        height: (Double(y.upperBound) - Double(y.lowerBound)) / Double(yResolution))
    } else {
      physicalSize = nil
    }
    pressureRange = axis(InputCode.ABS_MT_PRESSURE)
    slotCount = device.slotCount ?? 0
    isDirect =
      device.has(property: 1)  // INPUT_PROP_DIRECT
      || (device.has(type: InputCode.EV_KEY, code: InputCode.BTN_TOUCH)
        && !device.has(type: InputCode.EV_KEY, code: 0x145))  // BTN_TOOL_FINGER: a touchpad
    device.setClockMonotonic()
  }

  public var isOpen: Bool { device.isOpen }

  /// Frees libevdev's state and closes the descriptor.
  public func close() { device.close() }

  /// Reads everything pending and hands each event over, in order. After a SYN_DROPPED (handed
  /// over too) come libevdev's resync events, ended by their SYN_REPORT. Returns false when the
  /// device is gone.
  public func read(_ handle: (RawInputEvent) -> Void) -> Bool {
    let status = device.readEvents { item in
      switch item {
      case .reported(let event), .dropped(let event), .resync(let event): handle(event)
      case .resyncEnded: break
      }
    }
    return status == .drained
  }
}
