import CEvdev
import EventLoop
import ResponderCore
import TouchDispatch

#if canImport(Glibc)
  import Glibc
#endif

/// An error opening a touchscreen: the device, what failed, and the errno when there is one.
public struct TouchscreenError: Error, CustomStringConvertible, Equatable {
  public var path: String
  public var message: String
  public var errno: Int32?

  public init(path: String, message: String, errno: Int32? = nil) {
    self.path = path
    self.message = message
    self.errno = errno
  }

  public var description: String {
    guard let errno else { return "\(path): \(message)" }
    return "\(path): \(message): \(String(cString: strerror(errno)))"
  }
}

/// A multitouch touchscreen (evdev protocol B) opened read-only with libevdev. Never grabbed.
public final class TouchscreenDevice {
  public let path: String
  public let fd: Int32
  private var device: OpaquePointer?
  public let identity: InputDeviceIdentity
  /// The ABS_MT_POSITION_X and _Y ranges.
  public let xRange: ClosedRange<Int32>
  public let yRange: ClosedRange<Int32>
  /// The ABS_MT_PRESSURE range, when the device reports pressure.
  public let pressureRange: ClosedRange<Int32>?
  /// The number of slots (fingers) the device tracks.
  public let slotCount: Int
  /// Whether the device is a screen (INPUT_PROP_DIRECT), not a touchpad.
  public let isDirect: Bool
  /// Whether event times are on CLOCK_MONOTONIC (the device accepted EVIOCSCLOCKID).
  public private(set) var clockIsMonotonic = false
  /// How many SYN_DROPPED the device reported.
  public private(set) var droppedCount = 0

  /// Opens `path` and checks that it is a protocol B multitouch device.
  public init(path: String) throws(TouchscreenError) {
    self.path = path
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw TouchscreenError(path: path, message: "open", errno: errno) }
    guard let device = libevdev_new() else {
      Glibc.close(fd)
      throw TouchscreenError(path: path, message: "libevdev_new", errno: ENOMEM)
    }
    libevdev_set_device_log_function(device, { _, _, _, _, _, _, _, _ in }, LIBEVDEV_LOG_ERROR, nil)
    let rc = libevdev_set_fd(device, fd)
    guard rc == 0 else {
      libevdev_free(device)
      Glibc.close(fd)
      throw TouchscreenError(path: path, message: "libevdev_set_fd", errno: -rc)
    }
    func axis(_ code: UInt16) -> ClosedRange<Int32>? {
      guard libevdev_has_event_code(device, UInt32(InputCode.EV_ABS), UInt32(code)) == 1 else { return nil }
      let low = libevdev_get_abs_minimum(device, UInt32(code))
      let high = libevdev_get_abs_maximum(device, UInt32(code))
      return high > low ? low...high : nil
    }
    guard libevdev_get_num_slots(device) > 0, let x = axis(InputCode.ABS_MT_POSITION_X),
      let y = axis(InputCode.ABS_MT_POSITION_Y)
    else {
      libevdev_free(device)
      Glibc.close(fd)
      throw TouchscreenError(
        path: path, message: "not a multitouch touchscreen (no ABS_MT_SLOT with ABS_MT_POSITION_X/Y)")
    }
    self.fd = fd
    self.device = device
    xRange = x
    yRange = y
    pressureRange = axis(InputCode.ABS_MT_PRESSURE)
    slotCount = Int(libevdev_get_num_slots(device))
    isDirect = libevdev_has_property(device, 1) == 1  // INPUT_PROP_DIRECT
    identity = InputDeviceIdentity(
      name: libevdev_get_name(device).map { String(cString: $0) } ?? "",
      bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
      vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
      product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
      version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)),
      phys: libevdev_get_phys(device).map { String(cString: $0) } ?? "")
    clockIsMonotonic = libevdev_set_clock_id(device, CLOCK_MONOTONIC) == 0
  }

  deinit { close() }

  public var isOpen: Bool { device != nil }

  /// Frees libevdev's state and closes the descriptor.
  public func close() {
    guard let device else { return }
    libevdev_free(device)
    self.device = nil
    Glibc.close(fd)
  }

  /// The calibration onto a screen of `screen` points turned by `rotation`.
  public func calibration(screen: Size, rotation: TouchRotation = .degrees0) -> TouchCalibration {
    TouchCalibration(
      xRange: xRange, yRange: yRange, screen: screen, rotation: rotation, pressureRange: pressureRange)
  }

  /// Reads everything pending and hands each event over, in order. After a SYN_DROPPED (handed
  /// over too) come libevdev's resync events, ended by their SYN_REPORT. Returns false when the
  /// device is gone.
  public func read(_ handle: (RawInputEvent) -> Void) -> Bool {
    guard let device else { return false }
    let normal = LIBEVDEV_READ_FLAG_NORMAL.rawValue
    let sync = LIBEVDEV_READ_FLAG_SYNC.rawValue
    let statusSync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
    var flags = normal
    var event = input_event()
    while true {
      let rc = libevdev_next_event(device, flags, &event)
      if rc == -EAGAIN {
        if flags == sync {
          flags = normal
          continue
        }
        return true
      }
      if rc == -EINTR { continue }
      if rc < 0 { return false }
      let time = Seconds(event.time.tv_sec) + Seconds(event.time.tv_usec) / 1_000_000
      if rc == statusSync && flags == normal {
        droppedCount += 1
        flags = sync
      }
      handle(RawInputEvent(time: time, type: event.type, code: event.code, value: event.value))
    }
  }
}

/// A touchscreen feeding a window from an event loop: raw events through the protocol B decoder
/// and the calibration into the window's touches. When the device goes away the touches under way
/// are cancelled. Event times are the device's when they are on CLOCK_MONOTONIC, else the
/// window's clock at reading.
public final class TouchscreenSource {
  public let device: TouchscreenDevice
  public let input: TouchscreenInput
  private let window: Window
  private var source: IOSource?
  /// Called once when reading stops: the device went away (unplugged, failing) or `close()`.
  public var onGone: (() -> Void)?

  /// Opens `path` and starts reading it on `loop` into `window`, the screen being the window's
  /// bounds turned by `rotation`.
  public convenience init(path: String, window: Window, loop: EventLoop, rotation: TouchRotation = .degrees0)
    throws
  {
    try self.init(device: try TouchscreenDevice(path: path), window: window, loop: loop, rotation: rotation)
  }

  /// Starts reading an opened device on `loop` into `window`.
  public init(
    device: TouchscreenDevice, window: Window, loop: EventLoop, rotation: TouchRotation = .degrees0
  )
    throws
  {
    self.device = device
    self.window = window
    input = TouchscreenInput(
      window: window, calibration: device.calibration(screen: window.bounds.size, rotation: rotation),
      source: "evdev:\(device.path)")
    source = try loop.register(fd: device.fd, events: .readable) { [weak self] events in
      self?.readable(events)
    }
  }

  private func readable(_ events: IOEvents) {
    let restamp = !device.clockIsMonotonic
    let now = window.scheduler.now
    let alive = device.read { event in
      var event = event
      if restamp { event.time = now }
      input.handle(event)
    }
    if !alive || events.isGone { close() }
  }

  /// Stops reading: cancels the touches under way and closes the device.
  public func close() {
    guard device.isOpen else { return }
    source?.remove()
    source = nil
    input.cancel(at: window.scheduler.now)
    device.close()
    onGone?()
  }
}
