import DBusTestSupport
import ShellTestSupport
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
    .enabled(
      if: DemoProgram.gtk.missing(under: .gnomeShell) == nil,
      Comment(rawValue: DemoProgram.gtk.missing(under: .gnomeShell) ?? "")),
    .timeLimit(.minutes(3)))
  func gtkUnderGNOMEShell() throws {
    let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/gtk.png", .gtk)
  }

  @Test(
    "GTK 4 under KWin: taps in a window, tap, pan, pinch, third finger cancelled, a covered window",
    .enabled(
      if: DemoProgram.gtk.missing(under: .kwin) == nil,
      Comment(rawValue: DemoProgram.gtk.missing(under: .kwin) ?? "")),
    .timeLimit(.minutes(3)))
  func gtkUnderKWin() throws {
    let desktop = try HeadlessDesktop.kwin(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/gtk.png", .gtk)
  }

  @Test(
    "SDL 2 under GNOME Shell: taps in a window, tap, pan, pinch, third finger cancelled, a covered window",
    .enabled(
      if: DemoProgram.sdl.missing(under: .gnomeShell) == nil,
      Comment(rawValue: DemoProgram.sdl.missing(under: .gnomeShell) ?? "")),
    .timeLimit(.minutes(3)))
  func sdlUnderGNOMEShell() throws {
    let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/sdl.png", .sdl)
  }

  @Test(
    "SDL 2 under KWin: taps in a window, tap, pan, pinch, third finger cancelled, a covered window",
    .enabled(
      if: DemoProgram.sdl.missing(under: .kwin) == nil,
      Comment(rawValue: DemoProgram.sdl.missing(under: .kwin) ?? "")),
    .timeLimit(.minutes(3)))
  func sdlUnderKWin() throws {
    let desktop = try HeadlessDesktop.kwin(width: 1280, height: 800)
    defer { desktop.stop() }
    _ = try checks.checkAll(desktop, screenshot: desktop.directory + "/sdl.png", .sdl)
  }
}
