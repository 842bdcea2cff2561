import CSDL2
import CWaylandClient

/// SDL 2.26's Wayland driver drops `wl_touch.cancel`, the compositor taking a sequence (GNOME Shell
/// and KWin at a third finger): its fingers would stay down for the app. This hears the cancel on a
/// `wl_touch` of the app's own, made on SDL's `wl_display` (the compositor sends each of a client's
/// wl_touch objects the same events; SDL dispatches them with its own), and posts it as an SDL event
/// of its own type, so that it comes after the finger events SDL queued before it.
final class WaylandTouchCancel {
  /// The SDL event type a cancel arrives as.
  let eventType: UInt32
  private let registry: OpaquePointer
  private let sink: UnsafeMutablePointer<wt_sink>
  /// Each seat by its global name: the proxy, its version, and its wl_touch while it has touch.
  private var seats: [UInt32: (proxy: OpaquePointer, version: UInt32, touch: OpaquePointer?)] = [:]

  /// Nil when `window` is not on Wayland (another video driver) or SDL has no event type left.
  init?(window: OpaquePointer) {
    var info = SDL_SysWMinfo()
    info.version = SDL_version(
      major: UInt8(SDL_MAJOR_VERSION), minor: UInt8(SDL_MINOR_VERSION), patch: UInt8(SDL_PATCHLEVEL))
    guard SDL_GetWindowWMInfo(window, &info) == SDL_TRUE, info.subsystem == SDL_SYSWM_WAYLAND,
      let display = info.info.wl.display
    else { return nil }
    let eventType = SDL_RegisterEvents(1)
    guard eventType != UInt32.max, let registry = wl_display_get_registry(display) else { return nil }
    self.eventType = eventType
    self.registry = registry
    sink = .allocate(capacity: 1)
    sink.initialize(
      to: wt_sink(
        handler: { context, event in
          guard let context, let event else { return }
          Unmanaged<WaylandTouchCancel>.fromOpaque(context).takeUnretainedValue().handle(event.pointee)
        }, context: Unmanaged.passUnretained(self).toOpaque()))
    wt_listen_registry(registry, sink)
    // The seats, then their capabilities: the wl_touch exists before the first finger comes down.
    wl_display_roundtrip(display)
    wl_display_roundtrip(display)
  }

  deinit {
    for seat in seats.values {
      if let touch = seat.touch { seat.version >= 3 ? wl_touch_release(touch) : wl_touch_destroy(touch) }
      seat.version >= 5 ? wl_seat_release(seat.proxy) : wl_seat_destroy(seat.proxy)
    }
    wl_registry_destroy(registry)
    sink.deallocate()
  }

  private func handle(_ event: wt_event) {
    switch event.kind {
    case WT_GLOBAL where String(cString: event.interface) == "wl_seat":
      let version = min(event.version, 5)
      guard let seat = OpaquePointer(wt_bind(registry, event.name, "wl_seat", version)) else { return }
      seats[event.name] = (seat, version, nil)
      wt_listen_seat(seat, sink)
    case WT_SEAT_CAPABILITIES:
      guard let proxy = OpaquePointer(event.object),
        let name = seats.first(where: { $0.value.proxy == proxy })?.key, var seat = seats[name]
      else { return }
      let hasTouch = UInt32(event.value) & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0
      if hasTouch, seat.touch == nil, let touch = wl_seat_get_touch(proxy) {
        wt_listen_touch(touch, sink)
        seat.touch = touch
      } else if !hasTouch, let touch = seat.touch {
        seat.version >= 3 ? wl_touch_release(touch) : wl_touch_destroy(touch)
        seat.touch = nil
      }
      seats[name] = seat
    case WT_TOUCH_CANCEL:
      var cancel = SDL_Event()
      cancel.type = eventType
      SDL_PushEvent(&cancel)
    default:
      break
    }
  }
}
