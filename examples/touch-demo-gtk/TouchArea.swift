import CGtk4
import EventTime
import ResponderCore
import TouchDispatch
import TouchScenes

/// A GtkDrawingArea showing a live scene: its touches (`GdkEventTouch`, through a
/// GtkEventControllerLegacy) go to `TouchInput`, and it draws the scene's views with cairo.
final class TouchArea {
  let widget: UnsafeMutablePointer<GtkWidget>
  let live: LiveScene
  private let input: TouchInput
  private let scheduler: any Scheduler
  private var clock = TouchClock()
  /// The fingers on the widget, by the GdkEventSequence that names each.
  private var contacts: [OpaquePointer: ContactSample] = [:]
  private var nextTrackingID = 0
  /// Called when the widget's size changed (its size in points).
  var onResize: (Size) -> Void = { _ in }

  init(scene: TouchScene, scheduler: any Scheduler) {
    self.scheduler = scheduler
    live = LiveScene(scene: scene, scheduler: scheduler)
    input = TouchInput(window: live.world.window, source: "gtk")
    widget = gtk_drawing_area_new()
    let area = UnsafeMutablePointer<GtkDrawingArea>(OpaquePointer(widget))
    let this = Unmanaged.passUnretained(self).toOpaque()
    gtk_drawing_area_set_draw_func(
      area,
      { _, cairo, _, _, data in
        guard let cairo, let data else { return }
        Unmanaged<TouchArea>.fromOpaque(data).takeUnretainedValue().draw(cairo)
      }, this, nil)
    let resized: @convention(c) (OpaquePointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Void = {
      _, width, height, data in
      guard let data else { return }
      let area = Unmanaged<TouchArea>.fromOpaque(data).takeUnretainedValue()
      let size = Size(width: Double(width), height: Double(height))
      area.live.resize(to: size)
      area.onResize(size)
    }
    connect(widget, "resize", resized, this)
    // Every event that reaches the widget, unfiltered: its touches as GDK delivers them.
    let legacy = gtk_event_controller_legacy_new()!
    let event: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
      _, event, data in
      guard let event, let data else { return 0 }
      return Unmanaged<TouchArea>.fromOpaque(data).takeUnretainedValue().handle(event) ? 1 : 0
    }
    connect(legacy, "event", event, this)
    gtk_widget_add_controller(widget, legacy)
    live.onChange = { [unowned self] in gtk_widget_queue_draw(widget) }
  }

  /// One GdkEventTouch into TouchInput: GDK gives one event per finger and no frame, so after
  /// each, every finger on the widget goes to `process` (fingers that moved together come as
  /// consecutive updates: frames of their own). `GDK_TOUCH_CANCEL` (one per finger) is
  /// `wl_touch.cancel`, the compositor taking the touches: `cancelAll`.
  func handle(_ event: OpaquePointer) -> Bool {
    let type = gdk_event_get_event_type(event)
    guard [GDK_TOUCH_BEGIN, GDK_TOUCH_UPDATE, GDK_TOUCH_END, GDK_TOUCH_CANCEL].contains(type),
      let sequence = gdk_event_get_event_sequence(event)
    else { return false }
    // Milliseconds on GDK's clock (the compositor's) put on the scheduler's.
    let time = clock.time(ofMilliseconds: gdk_event_get_time(event), now: scheduler.now)
    switch type {
    case GDK_TOUCH_BEGIN, GDK_TOUCH_UPDATE:
      var x = 0.0
      var y = 0.0
      gdk_event_get_position(event, &x, &y)
      let location = point(surfaceX: x, y: y)
      if contacts[sequence] == nil {
        let used = Set(contacts.values.map(\.slot))
        let slot = (0...).first { !used.contains($0) }!
        contacts[sequence] = ContactSample(slot: slot, trackingID: nextTrackingID, location: location)
        nextTrackingID += 1
      }
      contacts[sequence]?.location = location
    case GDK_TOUCH_END:
      contacts[sequence] = nil
    default:  // GDK_TOUCH_CANCEL
      if !contacts.isEmpty {
        contacts.removeAll()
        input.cancelAll(at: time)
      }
      return true
    }
    input.process(contacts.values.sorted { $0.slot < $1.slot }, at: time)
    return true
  }

  /// A GdkEvent's position (the surface's coordinates, in logical pixels) in the widget's points:
  /// less the surface's shadow margin, then from the window to the widget (below the title bar).
  private func point(surfaceX x: Double, y: Double) -> Point {
    guard let native = gtk_widget_get_native(widget) else { return Point(x: x, y: y) }
    var marginX = 0.0
    var marginY = 0.0
    gtk_native_get_surface_transform(native, &marginX, &marginY)
    var widgetX = x - marginX
    var widgetY = y - marginY
    _ = gtk_widget_translate_coordinates(
      UnsafeMutablePointer<GtkWidget>(native), widget, x - marginX, y - marginY, &widgetX, &widgetY)
    return Point(x: widgetX, y: widgetY)
  }

  /// The scene's views as filled polygons (cairo's coordinates are the widget's points).
  private func draw(_ cairo: OpaquePointer) {
    setColor(cairo, LiveScene.background)
    cairo_paint(cairo)
    for shape in live.shapes {
      guard let first = shape.corners.first else { continue }
      cairo_move_to(cairo, first.x, first.y)
      for corner in shape.corners.dropFirst() { cairo_line_to(cairo, corner.x, corner.y) }
      cairo_close_path(cairo)
      setColor(cairo, shape.color)
      cairo_fill(cairo)
    }
  }

  private func setColor(_ cairo: OpaquePointer, _ color: UInt32) {
    cairo_set_source_rgb(
      cairo, Double((color >> 16) & 0xFF) / 255, Double((color >> 8) & 0xFF) / 255, Double(color & 0xFF) / 255
    )
  }
}

/// `g_signal_connect` (a C macro): `handler` is the signal's C callback, `data` its last argument.
func connect<Instance, Handler>(
  _ instance: UnsafeMutablePointer<Instance>, _ signal: String, _ handler: Handler,
  _ data: UnsafeMutableRawPointer
) {
  _ = g_signal_connect_data(
    instance, signal, unsafeBitCast(handler, to: GCallback.self), data, nil, GConnectFlags(0))
}

/// The same for an instance GTK declares opaque.
func connect<Handler>(
  _ instance: OpaquePointer, _ signal: String, _ handler: Handler, _ data: UnsafeMutableRawPointer
) {
  _ = g_signal_connect_data(
    UnsafeMutableRawPointer(instance), signal, unsafeBitCast(handler, to: GCallback.self), data, nil,
    GConnectFlags(0))
}
