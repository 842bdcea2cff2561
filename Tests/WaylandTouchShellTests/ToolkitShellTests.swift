import DBusTestSupport
import ShellTestSupport
import TestConditions
import Testing
import TouchDemoTestSupport

#if canImport(Glibc)
  import Glibc
#endif

extension DemoProgram {
  /// The GTK 4 example (examples/touch-demo-gtk), on GTK's Wayland backend.
  static let gtk = DemoProgram(name: "touch-demo-gtk", environment: ["GDK_BACKEND": "wayland"])
  /// The SDL 2 example (examples/touch-demo-sdl), on SDL's Wayland video driver.
  static let sdl = DemoProgram(name: "touch-demo-sdl", environment: ["SDL_VIDEODRIVER": "wayland"])

  /// Why the example's tests are skipped (it is built only where its toolkit is installed), or nil.
  var missing: String? {
    (try? BuiltProducts.path(of: name)) == nil
      ? "\(name) was not built (its toolkit's development files are not installed: scripts/deps test)" : nil
  }

  /// Why a test of the example under `compositor` is skipped, or nil.
  func missing(under compositor: HeadlessDesktop.Compositor) -> String? {
    missing ?? HeadlessDesktop.missing(compositor)
  }
}

/// The toolkit examples (GTK 4, SDL 2) under the same real GNOME Shell 43 and KWin 5.27 as
/// touch-demo, with the same checks: taps in a window at its points, a tap, a pan and a pinch in
/// the fullscreen gestures scene, the third finger taken by the shell as the toolkit's cancel (every
/// touch cancelled), and a covered window that gets nothing.
@Suite("The GTK 4 and SDL 2 examples under real compositors")
struct ToolkitShellTests {
  let checks = TouchDemoShellTests()

  @Test(
    "GTK 4 under GNOME Shell: taps in a window, tap, pan, pinch, third finger cancelled, a covered window",
    .enabledUnless(missing: DemoProgram.gtk.missing(under: .gnomeShell)),
    .timeLimit(.minutes(3)))
  func gtkUnderGNOMEShell() throws {
    let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/gtk.png", .gtk)
  }

  @Test(
    "GTK 4 under KWin: taps in a window, tap, pan, pinch, third finger cancelled, a covered window",
    .enabledUnless(missing: DemoProgram.gtk.missing(under: .kwin)),
    .timeLimit(.minutes(3)))
  func gtkUnderKWin() throws {
    let desktop = try HeadlessDesktop.kwin(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/gtk.png", .gtk)
  }

  /// The window losing the focus with fingers down, the one sign of the shell taking the touches
  /// that SDL itself gives (the example hears `wl_touch.cancel`, which SDL 2.26 drops, on a
  /// wl_touch of its own): two fingers panning, then the shell's overview opens (it takes the
  /// keyboard focus): every touch is cancelled, the pan too, nothing ends.
  func checkFocusLost(_ desktop: HeadlessDesktop, _ demo: TouchDemoClient) throws {
    let start = demo.lines.count
    try desktop.drag(
      fingers: [((200, 300), (200, 315)), ((300, 300), (300, 315))], steps: 3, duration: 0.03, lift: false)
    try demo.waitFor("the two-finger pan changed", after: start) { line in
      line.kind == "action" && line.id == "pan" && (line.state == "began" || line.state == "changed")
        && line.number("touches") == 2
    }
    try desktop.setOverviewActive(true)
    try demo.waitFor("the pan cancelled", after: start) {
      $0.kind == "action" && $0.id == "pan" && $0.state == "cancelled"
    }
    for slot in 0..<2 { try desktop.up(slot) }
    try desktop.frame()
    try desktop.setOverviewActive(false)
    let sequence = demo.lines(after: start)
    let began = sequence.filter { $0.method == "touchesBegan" }.flatMap(\.touches).map(\.slot).sorted()
    let cancelled = sequence.filter { $0.method == "touchesCancelled" }.flatMap(\.touches)
    #expect(began == [0, 1], "\(sequence)")
    #expect(cancelled.map(\.slot).sorted() == began, "\(sequence)")
    #expect(!sequence.contains { $0.method == "touchesEnded" }, "\(sequence)")
  }

  @Test(
    "SDL 2 under GNOME Shell: taps in a window, tap, pan, pinch, third finger and focus lost cancelled, a covered window",
    .enabledUnless(missing: DemoProgram.sdl.missing(under: .gnomeShell)),
    .timeLimit(.minutes(3)))
  func sdlUnderGNOMEShell() throws {
    let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/sdl.png", .sdl) { desktop, demo in
      try checks.checkThirdFinger(desktop, demo)
      try checkFocusLost(desktop, demo)
    }
  }

  /// Fullscreen only: in a window, SDL 2.26 under KWin 5.27 loses the first tap's up (it sees it
  /// only at the next down), which these tests leave to SDL.
  @Test(
    "SDL 2 under KWin: tap, pan, pinch fullscreen, third finger cancelled",
    .enabledUnless(missing: DemoProgram.sdl.missing(under: .kwin)),
    .timeLimit(.minutes(3)))
  func sdlUnderKWin() throws {
    let desktop = try HeadlessDesktop.kwin(width: 1280, height: 800)
    defer { desktop.stop() }
    try desktop.warmUp()
    let demo = try checks.startFullscreen(desktop, .sdl)
    try checks.checkTapPanPinch(desktop, demo)
    try checks.checkThirdFinger(desktop, demo)
  }
}
