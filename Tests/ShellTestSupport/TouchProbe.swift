import DBusTestSupport
import EventLoop

/// wl_touch_probe (`Tests/Fixtures/wayland/wl_touch_probe.c`) as a client of a headless desktop:
/// an xdg_toplevel (fullscreen, or `width`x`height`) that reports every wl_touch, wl_keyboard
/// and wl_pointer event it gets, one line each (`touch down serial=.. time=.. id=0 x=300.00
/// y=200.00`, `touch up ...`, `touch frame`, `touch cancel`, `key key=30 state=1 time=..`,
/// `seat caps touch=1 keyboard=1 pointer=1`, `configure W H`). Its lines are read on the
/// desktop's loop while a test waits (a `DesktopClient`).
public final class TouchProbe {
  public var process: ChildProcess { client.process }
  /// Every line it printed so far.
  public var lines: [String] { client.lines }
  private let client: DesktopClient
  private let desktop: HeadlessDesktop

  /// Starts the probe with `title` (its title and app id); returns once its window is mapped
  /// (its first buffer committed after the compositor's configure).
  public init(
    _ desktop: HeadlessDesktop, title: String = "wl_touch_probe", size: (width: Int, height: Int)? = nil
  ) throws {
    self.desktop = desktop
    var arguments = [try WaylandHelper.path(of: "wl_touch_probe"), "-t", title]
    if let size { arguments += ["-s", "\(size.width)x\(size.height)"] }
    client = try DesktopClient(desktop, arguments, name: title)
    try waitFor("its window to be configured") { $0.contains { $0.hasPrefix("configure ") } }
  }

  /// The colour its window is filled with (0xRRGGBB).
  public static let colour: UInt32 = 0x3366aa

  /// The touch lines (`touch ...`) so far.
  public var touches: [String] { lines.filter { $0.hasPrefix("touch ") } }

  /// Waits until `condition` holds on the lines so far (`timeout` seconds at most).
  public func waitFor(_ what: String, timeout: Double = 15, _ condition: ([String]) -> Bool) throws {
    try client.waitFor("\(what) (\(desktop.compositor.rawValue))", timeout: timeout, condition)
  }

  /// Waits until the seat offers it touch and keyboard (after `HeadlessDesktop.warmUp()`).
  public func waitForSeat() throws {
    try waitFor("the seat's touch and keyboard") { lines in
      lines.contains { $0.hasPrefix("seat caps touch=1 keyboard=1") }
    }
  }
}
