import CGtk4
import EventTime
import Glibc
import ResponderCore
import SystemCalls
import TouchDispatch
import TouchScenes

// touch-demo-gtk: touch-demo's scenes in a GTK 4 window. A GtkDrawingArea's GdkEventTouches go to
// TouchDispatch's TouchInput, the views are drawn with cairo, and --log prints the JSON lines
// touch-demo prints (docs/touch-apps.md). Options: --scene FILE, --log, --fullscreen, --size WxH.

let usage = DemoCommandLine.usage("touch-demo-gtk")

func fail(_ message: String, status: Int32 = 1) -> Never {
  writeText("touch-demo-gtk: \(message)\n", to: .standardError)
  exit(status)
}

let options: DemoCommandLine
let scene: TouchScene
switch DemoCommandLine.start(
  "touch-demo-gtk", Array(CommandLine.arguments.dropFirst()), usage: usage, read: readTextFile)
{
case .run(let given, let shown): (options, scene) = (given, shown)
case .stop(let status, let message):
  writeText(message, to: status == 0 ? .standardOutput : .standardError)
  exit(status)
}

g_set_prgname("org.responderd.TouchDemo.Gtk")
guard gtk_init_check() != 0 else {
  fail("GTK cannot open a display (is WAYLAND_DISPLAY set, or GDK_BACKEND?)")
}
let scheduler = GLibScheduler()
let area = TouchArea(scene: scene, scheduler: scheduler)
let window = gtk_window_new()!
let gtkWindow = UnsafeMutablePointer<GtkWindow>(OpaquePointer(window))
gtk_window_set_title(gtkWindow, "TouchDispatch demo (GTK 4)")
gtk_window_set_child(gtkWindow, area.widget)
// The scene's size is where the window starts, not a minimum: a phone's shell (phosh) maximizes
// the window to less than that, and a minimum would push the area past the screen's edge.
gtk_window_set_default_size(gtkWindow, Int32(scene.screen.width), Int32(scene.screen.height))
if options.fullscreen { gtk_window_fullscreen(gtkWindow) }

// Each line is written as it happens (stdout may be a pipe).
if options.log {
  area.live.world.emit = { writeText($0 + "\n", to: .standardOutput) }
  /// The window line, at each size the widget gets and each change of fullscreen.
  func windowLine() {
    let size = Size(
      width: Double(gtk_widget_get_width(area.widget)), height: Double(gtk_widget_get_height(area.widget)))
    guard size.width > 0 else { return }
    writeText(
      area.live.windowLine(
        size: size, scale: Double(gtk_widget_get_scale_factor(area.widget)),
        fullscreen: gtk_window_is_fullscreen(gtkWindow) != 0) + "\n", to: .standardOutput)
  }
  area.onResize = { _ in windowLine() }
  let fullscreened: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
    _, _, _ in windowLine()
  }
  connect(window, "notify::fullscreened", fullscreened, Unmanaged.passUnretained(area).toOpaque())
}

let mainLoop = g_main_loop_new(nil, 0)!
let closed: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = { _, loop in
  g_main_loop_quit(OpaquePointer(loop))
  return 0
}
connect(window, "close-request", closed, UnsafeMutableRawPointer(mainLoop))
gtk_window_present(gtkWindow)
g_main_loop_run(mainLoop)
