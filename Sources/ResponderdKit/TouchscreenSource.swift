import EvdevInput
import EventLoop
import ResponderCore
import TouchDispatch

extension TouchscreenDevice {
  /// The calibration onto a screen of `screen` points turned by `rotation`.
  public func calibration(screen: Size, rotation: TouchRotation = .degrees0) -> TouchCalibration {
    TouchCalibration(
      xRange: xRange, yRange: yRange, screen: screen, rotation: rotation, pressureRange: pressureRange)
  }
}

/// A touchscreen feeding a window from an event loop: raw events through the multitouch decoder
/// and the calibration into the window's touches. When the device goes away the touches under way
/// are cancelled. Event times are the device's when they are on CLOCK_MONOTONIC, else the
/// window's clock at reading.
public final class TouchscreenSource {
  public let device: TouchscreenDevice
  public let input: TouchscreenInput
  private let window: Window
  private var source: IOSource?
  private var goneObservers: [() -> Void] = []

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

  /// Calls `observer` once when reading stops: the device went away (unplugged, failing) or
  /// `close()`.
  public func addGoneObserver(_ observer: @escaping () -> Void) { goneObservers.append(observer) }

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
    let observers = goneObservers
    goneObservers.removeAll()
    for observer in observers { observer() }
  }
}
