import CWaylandClient
import EventLoop
import EventTime
import Glibc
import SystemPackage
import TouchDispatch

/// What went wrong with the Wayland connection, in one sentence.
public struct WaylandError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// A connection to the Wayland compositor on the project's event loop: the display's socket in
/// epoll (prepare-read, read, dispatch; a flush that waits for the socket to drain when it is full),
/// no thread, nothing done while nothing arrives. It binds the globals an app needs for a
/// shared-memory window (compositor, shm, xdg_wm_base, outputs, viewporter and fractional scale when
/// offered) and every seat, with its `wl_touch` while the seat has touch (capabilities come and go,
/// seats come later), and feeds each surface's touches to the `TouchInput` attached to it.
///
/// The compositor going away (or a protocol error) ends the connection with one error to
/// `onError`; every touch held is cancelled first.
public final class WaylandDisplay {
  /// The `wl_display`.
  public let display: OpaquePointer
  public let loop: EventLoop
  /// Called once when the connection ends (the compositor went away, a protocol error).
  public var onError: ((WaylandError) -> Void)?
  /// Called when the socket is found readable, with the loop's clock then, before anything is read
  /// (the benchmark's start of a frame).
  public var onReadable: ((Seconds) -> Void)?

  public private(set) var compositor: OpaquePointer?
  public private(set) var shm: OpaquePointer?
  public private(set) var wmBase: OpaquePointer?
  public private(set) var viewporter: OpaquePointer?
  public private(set) var fractionalScaleManager: OpaquePointer?
  /// Whether the connection ended.
  public private(set) var failed = false

  private struct Seat {
    var proxy: OpaquePointer
    var version: UInt32
    var touch: OpaquePointer?
  }

  private let registry: OpaquePointer
  private let sink: UnsafeMutablePointer<wt_sink>
  private var source: IOSource?
  private var flushQueued = false
  private var seats: [UInt32: Seat] = [:]
  private var outputs: [UInt32: OpaquePointer] = [:]
  private var outputScales: [OpaquePointer: Int] = [:]
  /// Each surface's touches, by wl_surface and wl_touch.
  private let routing = TouchRouting<OpaquePointer, OpaquePointer>()
  private var objectHandlers: [OpaquePointer: (wt_event) -> Void] = [:]
  private var outputObservers: [() -> Void] = []

  /// Connects to the compositor `WAYLAND_DISPLAY` names (or `name`) and reads its globals.
  public init(loop: EventLoop, name: String? = nil) throws {
    guard let display = wl_display_connect(name) else {
      let socket = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
      throw WaylandError(
        message:
          "cannot connect to the Wayland compositor at '\(socket)': \(String(cString: strerror(errno)))")
    }
    self.display = display
    self.loop = loop
    sink = .allocate(capacity: 1)
    guard let registry = wl_display_get_registry(display) else {
      wl_display_disconnect(display)
      sink.deallocate()
      throw WaylandError(message: "the Wayland compositor gave no registry")
    }
    self.registry = registry
    sink.initialize(
      to: wt_sink(
        handler: { context, event in
          guard let context, let event else { return }
          Unmanaged<WaylandDisplay>.fromOpaque(context).takeUnretainedValue().handle(event.pointee)
        }, context: Unmanaged.passUnretained(self).toOpaque()))
    wt_listen_registry(registry, sink)
    // Globals, then what binding them brought (seat capabilities, output scales).
    for _ in 0..<2 where wl_display_roundtrip(display) < 0 {
      let error = connectionError()
      wl_display_disconnect(display)
      sink.deallocate()
      throw error
    }
    guard compositor != nil, shm != nil, wmBase != nil else {
      wl_display_disconnect(display)
      sink.deallocate()
      throw WaylandError(message: "the Wayland compositor offers no wl_compositor, wl_shm or xdg_wm_base")
    }
    source = try loop.register(fd: FileDescriptor(rawValue: wl_display_get_fd(display)), events: .readable) {
      [weak self] events in self?.ready(events)
    }
  }

  deinit {
    source?.remove()
    wl_display_disconnect(display)
    sink.deallocate()
  }

  /// Sends `input` the touches of `surface` (a `wl_surface` of this connection) from now on.
  public func attach(_ input: TouchInput, to surface: OpaquePointer) {
    routing.attach(input, to: surface)
  }

  /// Stops sending touches for `surface`; the touches held are cancelled.
  public func detach(surface: OpaquePointer) {
    routing.detach(surface: surface, now: loop.scheduler.now)
  }

  /// The scale of an output (`wl_output.scale`), 1 until it says.
  public func scale(of output: OpaquePointer) -> Int { outputScales[output] ?? 1 }

  /// Calls `observer` when an output's properties are done changing (its scale may be new).
  public func addOutputObserver(_ observer: @escaping () -> Void) { outputObservers.append(observer) }

  /// Routes the events of `object` (a proxy of this connection listened to with the shim) to
  /// `handler`.
  public func listen(to object: OpaquePointer, _ handler: @escaping (wt_event) -> Void) {
    objectHandlers[object] = handler
  }

  public func stopListening(to object: OpaquePointer) { objectHandlers[object] = nil }

  /// The shim's sink for this connection (pass it to `wt_listen_…`).
  public var eventSink: UnsafePointer<wt_sink> { UnsafePointer(sink) }

  /// Sends the requests made since the last flush, after the current handler returns (requests made
  /// in a timer or an action are sent before the loop sleeps again).
  public func flushSoon() {
    guard !flushQueued, !failed else { return }
    flushQueued = true
    loop.runSoon { [weak self] in
      self?.flushQueued = false
      self?.flush()
    }
  }

  // MARK: The socket

  private func ready(_ events: IOEvents) {
    guard !failed else { return }
    onReadable?(loop.scheduler.now)
    if events.contains(.readable) || events.isGone {
      // Events already queued (by a roundtrip) are dispatched before reading more.
      if wl_display_prepare_read(display) == 0 {
        if wl_display_read_events(display) < 0 { return fail(connectionError()) }
      }
      if wl_display_dispatch_pending(display) < 0 { return fail(connectionError()) }
      // mutter 43 sends no wl_touch.frame after the up of the last finger: what a read brought
      // (the compositor writes a frame's events at once) ends a frame left open.
      for touch in routing.devicesWithOpenFrames { routing.frame(touch, now: loop.scheduler.now) }
    }
    flush()
  }

  /// Writes what is buffered; when the socket is full, waits for it to drain (EPOLLOUT) and writes
  /// the rest then.
  private func flush() {
    guard !failed, let source else { return }
    if wl_display_flush(display) < 0 {
      guard errno == EAGAIN else { return fail(connectionError()) }
      if !source.events.contains(.writable) { try? source.setEvents([.readable, .writable]) }
    } else if source.events.contains(.writable) {
      try? source.setEvents(.readable)
    }
  }

  private func connectionError() -> WaylandError {
    var interface: UnsafePointer<wl_interface>?
    var id: UInt32 = 0
    let code = wl_display_get_protocol_error(display, &interface, &id)
    if let interface, code != 0 || wl_display_get_error(display) == EPROTO {
      return WaylandError(
        message:
          "the Wayland compositor ended the connection: protocol error \(code) on \(String(cString: interface.pointee.name))@\(id)"
      )
    }
    let number = wl_display_get_error(display)
    let reason = number != 0 ? String(cString: strerror(number)) : "connection closed"
    return WaylandError(message: "the Wayland compositor went away (\(reason))")
  }

  private func fail(_ error: WaylandError) {
    guard !failed else { return }
    failed = true
    source?.remove()
    source = nil
    routing.cancelAll(now: loop.scheduler.now)
    onError?(error)
  }

  // MARK: Events

  private func handle(_ event: wt_event) {
    switch event.kind {
    case WT_GLOBAL:
      global(name: event.name, interface: String(cString: event.interface), version: event.version)
    case WT_GLOBAL_REMOVE: globalRemoved(name: event.name)
    case WT_SEAT_CAPABILITIES:
      guard let seatProxy = OpaquePointer(event.object),
        let name = seats.first(where: { $0.value.proxy == seatProxy })?.key
      else { return }
      seatCapabilities(name: name, hasTouch: UInt32(event.value) & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0)
    case WT_TOUCH_DOWN, WT_TOUCH_UP, WT_TOUCH_MOTION, WT_TOUCH_FRAME, WT_TOUCH_CANCEL, WT_TOUCH_SHAPE,
      WT_TOUCH_ORIENTATION:
      touchEvent(event)
    case WT_OUTPUT_SCALE:
      if let output = OpaquePointer(event.object) { outputScales[output] = Int(event.value) }
    case WT_OUTPUT_DONE:
      for observer in outputObservers { observer() }
    default:
      if let object = OpaquePointer(event.object), let handler = objectHandlers[object] { handler(event) }
    }
  }

  private func bind(_ name: UInt32, _ interface: String, _ version: UInt32) -> OpaquePointer? {
    OpaquePointer(wt_bind(registry, name, interface, version))
  }

  private func global(name: UInt32, interface: String, version: UInt32) {
    switch interface {
    case "wl_compositor": compositor = bind(name, "wl_compositor", min(version, 4))
    case "wl_shm": shm = bind(name, "wl_shm", 1)
    case "xdg_wm_base":
      wmBase = bind(name, "xdg_wm_base", min(version, 2))
      if let wmBase { wt_listen_wm_base(wmBase) }
    case "wp_viewporter": viewporter = bind(name, "wp_viewporter", 1)
    case "wp_fractional_scale_manager_v1":
      fractionalScaleManager = bind(name, "wp_fractional_scale_manager_v1", 1)
    case "wl_output":
      if let output = bind(name, "wl_output", min(version, 2)) {
        outputs[name] = output
        wt_listen_output(output, sink)
      }
    case "wl_seat":
      // Version 6 brings wl_touch.shape and orientation.
      let seatVersion = min(version, 7)
      if let seat = bind(name, "wl_seat", seatVersion) {
        seats[name] = Seat(proxy: seat, version: seatVersion)
        wt_listen_seat(seat, sink)
      }
    default: break
    }
  }

  private func globalRemoved(name: UInt32) {
    if let seat = seats[name] {
      seatCapabilities(name: name, hasTouch: false)
      if seat.version >= 5 { wl_seat_release(seat.proxy) } else { wl_seat_destroy(seat.proxy) }
      seats[name] = nil
    } else if let output = outputs.removeValue(forKey: name) {
      outputScales[output] = nil
      wl_output_destroy(output)
      for observer in outputObservers { observer() }
    }
  }

  /// A seat gained or lost touch: its wl_touch is made, or released with its touches cancelled.
  private func seatCapabilities(name: UInt32, hasTouch: Bool) {
    guard var seat = seats[name] else { return }
    if hasTouch, seat.touch == nil, let touch = wl_seat_get_touch(seat.proxy) {
      wt_listen_touch(touch, sink)
      seat.touch = touch
    } else if !hasTouch, let touch = seat.touch {
      routing.remove(touch, now: loop.scheduler.now)
      if seat.version >= 3 { wl_touch_release(touch) } else { wl_touch_destroy(touch) }
      seat.touch = nil
    }
    seats[name] = seat
  }

  private func touchEvent(_ event: wt_event) {
    guard let touch = OpaquePointer(event.object) else { return }
    switch event.kind {
    case WT_TOUCH_FRAME:
      routing.frame(touch, now: loop.scheduler.now)
    case WT_TOUCH_CANCEL:
      routing.cancel(touch, now: loop.scheduler.now)
    case WT_TOUCH_DOWN:
      guard let surface = OpaquePointer(event.other) else { return }
      routing.down(touch, on: surface, id: event.id, x: event.x, y: event.y, time: event.time)
    case WT_TOUCH_MOTION:
      routing.motion(touch, id: event.id, x: event.x, y: event.y, time: event.time)
    case WT_TOUCH_UP:
      routing.up(touch, id: event.id, time: event.time)
    case WT_TOUCH_SHAPE:
      routing.shape(touch, id: event.id, major: event.major, minor: event.minor)
    default:
      break  // orientation: TouchDispatch's touches have none
    }
  }
}
