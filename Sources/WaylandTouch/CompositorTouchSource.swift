import TouchDispatch

/// Where a window's touches come from: the compositor's touch events for the window's surface,
/// gathered into `TouchInput` frames (`TouchRouting`). `WaylandDisplay` is the real one (wl_touch
/// on the Wayland connection); the test kit's `FakeCompositorTouch` is an in-process double
/// whose fingers a test puts down, moves and lifts, and whose compositor can take a gesture
/// (cancel), lose touch or go away.
public protocol CompositorTouchSource<Surface>: AnyObject {
  /// What names a window's surface (`wl_surface`).
  associatedtype Surface: Hashable
  /// Sends `input` the touches of `surface` from now on.
  func attach(_ input: TouchInput, to surface: Surface)
  /// Stops sending touches for `surface`; the touches held are cancelled.
  func detach(surface: Surface)
}

extension WaylandDisplay: CompositorTouchSource {}
