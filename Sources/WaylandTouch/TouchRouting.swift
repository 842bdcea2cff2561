import EventTime
import TouchDispatch

/// A Wayland connection's touches, routed to the `TouchInput` attached to each surface: which
/// surface each finger of each touch device (`wl_touch`) went down on, the surfaces a device's
/// frame touched, and each surface's `TouchFrames`. Pure logic, on keys of the caller's choosing:
/// `WaylandDisplay` feeds it what the compositor sends (its `wl_surface` and `wl_touch` proxies),
/// the test kit's `FakeCompositorTouch` what a test makes up. A class: a `TouchInput`'s handlers
/// may detach a surface while a frame is delivered.
public final class TouchRouting<Surface: Hashable, Device: Hashable> {
  private struct Target {
    var input: TouchInput
    var frames: TouchFrames
  }

  private var targets: [Surface: Target] = [:]
  /// For each touch device, the surface each of its fingers went down on.
  private var fingerSurfaces: [Device: [Int32: Surface]] = [:]
  /// The surfaces a touch device sent events for since its last frame.
  private var framePending: [Device: Set<Surface>] = [:]

  public init() {}

  /// The touch devices with a frame left open (events since their last frame).
  public var devicesWithOpenFrames: [Device] {
    framePending.compactMap { $0.value.isEmpty ? nil : $0.key }
  }

  /// Sends `input` the touches of `surface` from now on.
  public func attach(_ input: TouchInput, to surface: Surface) {
    targets[surface] = Target(input: input, frames: TouchFrames(clock: TouchClock()))
  }

  /// Stops sending touches for `surface`; the touches held are cancelled at `now`.
  public func detach(surface: Surface, now: Seconds) {
    guard let target = targets.removeValue(forKey: surface) else { return }
    target.input.cancelAll(at: now)
  }

  /// wl_touch.down of `device` on `surface` (surface coordinates; `time` in wl_touch's ms).
  public func down(_ device: Device, on surface: Surface, id: Int32, x: Double, y: Double, time: UInt32) {
    fingerSurfaces[device, default: [:]][id] = surface
    update(surface, of: device) { $0.down(id: id, x: x, y: y, time: time) }
  }

  /// wl_touch.motion.
  public func motion(_ device: Device, id: Int32, x: Double, y: Double, time: UInt32) {
    guard let surface = fingerSurfaces[device]?[id] else { return }
    update(surface, of: device) { $0.motion(id: id, x: x, y: y, time: time) }
  }

  /// wl_touch.up.
  public func up(_ device: Device, id: Int32, time: UInt32) {
    guard let surface = fingerSurfaces[device]?[id] else { return }
    fingerSurfaces[device]?[id] = nil
    update(surface, of: device) { $0.up(id: id, time: time) }
  }

  /// wl_touch.shape.
  public func shape(_ device: Device, id: Int32, major: Double, minor: Double) {
    guard let surface = fingerSurfaces[device]?[id] else { return }
    update(surface, of: device) { $0.shape(id: id, major: major, minor: minor) }
  }

  /// wl_touch.frame of `device`, read at `now`: each surface it touched gets its frames.
  public func frame(_ device: Device, now: Seconds) {
    let surfaces = framePending[device] ?? []
    framePending[device] = []
    for surface in surfaces {
      guard var target = targets[surface] else { continue }
      let frames = target.frames.frame(now: now)
      targets[surface] = target
      for frame in frames { target.input.process(frame.contacts, at: frame.time) }
    }
  }

  /// wl_touch.cancel of `device`: the compositor took its touches; each surface they were on
  /// cancels them at `now`.
  public func cancel(_ device: Device, now: Seconds) {
    let surfaces = Set((fingerSurfaces[device] ?? [:]).values).union(framePending[device] ?? [])
    fingerSurfaces[device] = [:]
    framePending[device] = []
    for surface in surfaces {
      guard var target = targets[surface] else { continue }
      target.frames.cancel()
      targets[surface] = target
      target.input.cancelAll(at: now)
    }
  }

  /// `device` is gone (its seat lost touch): its touches are cancelled and it is forgotten.
  public func remove(_ device: Device, now: Seconds) {
    cancel(device, now: now)
    fingerSurfaces[device] = nil
    framePending[device] = nil
  }

  /// The connection ended: every touch held on every surface is cancelled at `now`.
  public func cancelAll(now: Seconds) {
    for surface in Array(targets.keys) {
      // (Looked up afresh: a surface detached by an earlier cancel's handler stays detached.)
      guard var target = targets[surface] else { continue }
      target.frames.cancel()
      targets[surface] = target
      target.input.cancelAll(at: now)
    }
    fingerSurfaces.removeAll()
    framePending.removeAll()
  }

  private func update(_ surface: Surface, of device: Device, _ change: (inout TouchFrames) -> Void) {
    guard targets[surface] != nil else { return }
    framePending[device, default: []].insert(surface)
    change(&targets[surface]!.frames)
  }
}
