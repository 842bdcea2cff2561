import CWaylandClient
import Glibc
import ResponderCore

/// Pixels to draw a frame into: 32-bit XRGB (wl_shm's format 1), `scale` pixels a point.
public struct PixelBuffer {
  public let pixels: UnsafeMutablePointer<UInt32>
  public let width: Int
  public let height: Int
  /// Pixels per point (2 at buffer scale 2; 1.25 at a fractional 125 %).
  public let scale: Double
}

/// A top-level window (xdg_toplevel) drawn by the app in shared memory (no GPU): it resizes as the
/// compositor configures it, draws at the scale of the outputs it is on (a buffer scale, or the
/// fractional scale with a viewport where the compositor offers wp_fractional_scale_v1), and its
/// touches go to the `TouchInput` attached with `display.attach(_:to: window.surface)`.
public final class WaylandWindow {
  public let display: WaylandDisplay
  /// The `wl_surface`.
  public let surface: OpaquePointer
  private let xdgSurface: OpaquePointer
  private let toplevel: OpaquePointer
  private var viewport: OpaquePointer?
  private var fractionalScale: OpaquePointer?

  /// The size in points the compositor configured (the size asked for until it says).
  public private(set) var size: Size
  /// Pixels per point of the buffers drawn.
  public private(set) var scale: Double = 1
  /// Whether the compositor showed it fullscreen in its last configure.
  public private(set) var isFullscreen = false
  /// Whether the window has been configured and drawn once (it is mapped).
  public private(set) var isMapped = false
  /// Draws a frame (the whole buffer).
  public var draw: (PixelBuffer) -> Void = { _ in }
  /// Called after the size or the scale changed, before drawing.
  public var onResize: (Size) -> Void = { _ in }
  /// Called when the compositor asks the window to close.
  public var onClose: () -> Void = {}

  private final class Buffer {
    let buffer: OpaquePointer
    let memory: UnsafeMutableRawPointer
    let length: Int
    let width: Int
    let height: Int
    var busy = false

    init(buffer: OpaquePointer, memory: UnsafeMutableRawPointer, length: Int, width: Int, height: Int) {
      self.buffer = buffer
      self.memory = memory
      self.length = length
      self.width = width
      self.height = height
    }

    func destroy() {
      wl_buffer_destroy(buffer)
      munmap(memory, length)
    }
  }

  private var buffers: [Buffer] = []
  private var pendingSize: (width: Int32, height: Int32, states: UInt32)?
  private var redrawQueued = false
  private var redrawWhenReleased = false
  private var entered: Set<OpaquePointer> = []
  private var preferredScale120: Int32?

  /// Makes the window (mapped once the compositor configures it: run the loop).
  public init(display: WaylandDisplay, title: String, appID: String, size: Size, fullscreen: Bool = false)
    throws
  {
    guard let compositor = display.compositor, let wmBase = display.wmBase,
      let surface = wl_compositor_create_surface(compositor)
    else { throw WaylandError(message: "the Wayland compositor made no surface") }
    guard let xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface),
      let toplevel = xdg_surface_get_toplevel(xdgSurface)
    else { throw WaylandError(message: "the Wayland compositor made no xdg_toplevel") }
    self.display = display
    self.surface = surface
    self.xdgSurface = xdgSurface
    self.toplevel = toplevel
    self.size = size
    wt_listen_surface(surface, display.eventSink)
    wt_listen_xdg_surface(xdgSurface, display.eventSink)
    wt_listen_toplevel(toplevel, display.eventSink)
    if let manager = display.fractionalScaleManager, let viewporter = display.viewporter {
      viewport = wp_viewporter_get_viewport(viewporter, surface)
      fractionalScale = wp_fractional_scale_manager_v1_get_fractional_scale(manager, surface)
      if let fractionalScale { wt_listen_fractional_scale(fractionalScale, display.eventSink) }
    }
    for object in [surface, xdgSurface, toplevel] + (fractionalScale.map { [$0] } ?? []) {
      display.listen(to: object) { [weak self] event in self?.handle(event) }
    }
    display.addOutputObserver { [weak self] in self?.updateScale() }
    xdg_toplevel_set_title(toplevel, title)
    xdg_toplevel_set_app_id(toplevel, appID)
    if fullscreen { xdg_toplevel_set_fullscreen(toplevel, nil) }
    wl_surface_commit(surface)
    display.flushSoon()
  }

  deinit {
    for object in [surface, xdgSurface, toplevel] { display.stopListening(to: object) }
    for buffer in buffers {
      display.stopListening(to: buffer.buffer)
      buffer.destroy()
    }
    if let fractionalScale {
      display.stopListening(to: fractionalScale)
      wp_fractional_scale_v1_destroy(fractionalScale)
    }
    if let viewport { wp_viewport_destroy(viewport) }
    display.detach(surface: surface)
    xdg_toplevel_destroy(toplevel)
    xdg_surface_destroy(xdgSurface)
    wl_surface_destroy(surface)
    display.flushSoon()
  }

  /// Draws again before the loop sleeps (once, however often it is asked).
  public func setNeedsDisplay() {
    guard isMapped, !redrawQueued else { return }
    redrawQueued = true
    display.loop.runSoon { [weak self] in
      guard let self else { return }
      self.redrawQueued = false
      self.redraw()
    }
  }

  private func handle(_ event: wt_event) {
    switch event.kind {
    case WT_TOPLEVEL_CONFIGURE:
      pendingSize = (event.width, event.height, event.states)
    case WT_XDG_SURFACE_CONFIGURE:
      xdg_surface_ack_configure(xdgSurface, event.serial)
      if let pending = pendingSize {
        pendingSize = nil
        isFullscreen = pending.states & WT_STATE_FULLSCREEN.rawValue != 0
        if pending.width > 0, pending.height > 0 {
          size = Size(width: Double(pending.width), height: Double(pending.height))
        }
      }
      onResize(size)
      isMapped = true
      redraw()
    case WT_TOPLEVEL_CLOSE:
      onClose()
    case WT_SURFACE_ENTER:
      if let output = OpaquePointer(event.other) { entered.insert(output) }
      updateScale()
    case WT_SURFACE_LEAVE:
      if let output = OpaquePointer(event.other) { entered.remove(output) }
      updateScale()
    case WT_PREFERRED_SCALE:
      preferredScale120 = event.value
      updateScale()
    case WT_BUFFER_RELEASE:
      guard let object = OpaquePointer(event.object),
        let buffer = buffers.first(where: { $0.buffer == object })
      else { return }
      buffer.busy = false
      if redrawWhenReleased {
        redrawWhenReleased = false
        setNeedsDisplay()
      }
    default: break
    }
  }

  /// The scale to draw at: the compositor's preferred fractional scale, else the largest buffer
  /// scale of the outputs the surface is on.
  private func updateScale() {
    let scale: Double
    if let preferred = preferredScale120, viewport != nil {
      scale = Double(preferred) / 120
    } else {
      scale = Double(entered.map { display.scale(of: $0) }.max() ?? 1)
    }
    guard scale != self.scale else { return }
    self.scale = scale
    guard isMapped else { return }
    onResize(size)
    setNeedsDisplay()
  }

  private func redraw() {
    guard isMapped, !display.failed, let shm = display.shm else { return }
    let width = max(1, Int((size.width * scale).rounded()))
    let height = max(1, Int((size.height * scale).rounded()))
    for buffer in buffers where !buffer.busy && (buffer.width != width || buffer.height != height) {
      display.stopListening(to: buffer.buffer)
      buffer.destroy()
    }
    buffers.removeAll { !$0.busy && ($0.width != width || $0.height != height) }
    var buffer = buffers.first { !$0.busy }
    if buffer == nil {
      guard buffers.count < 2 else {
        redrawWhenReleased = true
        return
      }
      buffer = makeBuffer(shm: shm, width: width, height: height)
    }
    guard let buffer else { return }
    draw(
      PixelBuffer(
        pixels: buffer.memory.assumingMemoryBound(to: UInt32.self), width: width, height: height, scale: scale
      ))
    wl_surface_attach(surface, buffer.buffer, 0, 0)
    if let viewport {
      wl_surface_set_buffer_scale(surface, 1)
      wp_viewport_set_destination(viewport, Int32(size.width.rounded()), Int32(size.height.rounded()))
    } else {
      wl_surface_set_buffer_scale(surface, Int32(scale))
    }
    wl_surface_damage_buffer(surface, 0, 0, Int32(width), Int32(height))
    wl_surface_commit(surface)
    buffer.busy = true
    display.flushSoon()
  }

  private func makeBuffer(shm: OpaquePointer, width: Int, height: Int) -> Buffer? {
    let stride = width * 4
    let length = stride * height
    let fd = wt_shm_file(Int64(length))
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard let memory = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), memory != MAP_FAILED,
      let pool = wl_shm_create_pool(shm, fd, Int32(length))
    else { return nil }
    defer { wl_shm_pool_destroy(pool) }
    guard
      let object = wl_shm_pool_create_buffer(
        pool, 0, Int32(width), Int32(height), Int32(stride), WL_SHM_FORMAT_XRGB8888.rawValue)
    else {
      munmap(memory, length)
      return nil
    }
    wt_listen_buffer(object, display.eventSink)
    display.listen(to: object) { [weak self] event in self?.handle(event) }
    let buffer = Buffer(buffer: object, memory: memory, length: length, width: width, height: height)
    buffers.append(buffer)
    return buffer
  }
}
