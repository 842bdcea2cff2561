import DBusTestSupport
import ShellTestSupport
import TestConditions
import Testing
import TouchDemoTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// touch-demo on the real phoc 0.24 and phosh 0.24 (headless): touches from an emulated evdev
/// touchscreen through libinput, as on a phone. phoc maximizes the window below phosh's 32 point
/// top bar and above its 40 point home bar: 360 × 648 points at y = 32 on a 720 × 1440 pixel
/// output at scale 2, so a touch at pixel (x, y) lands at window point (x / 2, y / 2 − 32).
extension TouchDemoShellTests {
  /// `program` with the phone scene under phosh: maximized between the bars (below its own title
  /// bar of `titleBar` points, if it draws one), then a tap between pixels, a pan and a pinch, each
  /// at its window points.
  func checkPhoshTapPanPinch(
    _ desktop: HeadlessDesktop, _ program: DemoProgram, titleBar: Double = 0
  ) throws -> TouchDemoClient {
    let demo = try TouchDemoClient(
      desktop, program: program.name, arguments: ["--scene", Self.scene("phone.json"), "--log"],
      environment: program.environment)
    try demo.waitFor("the window maximized between the bars, 360 × \(648 - titleBar) points at scale 2") {
      $0.kind == "window" && $0.number("width") == 360 && $0.number("height") == 648 - titleBar
        && $0.number("scale") == 2
    }
    try desktop.waitUntilAppShown("phosh's home folded away from the window")
    try demo.tapUntilTouched(at: (600, 1200))

    // A tap between pixels: the board's tap, at its window point.
    try checkTap(desktop, demo, x: 301, y: 400.5, at: (150.5, 168.25 - titleBar))

    // A pan of 150 × 100 pixels: 75 × 50 points.
    try checkPan(desktop, demo, translation: [75, 50])

    // A pinch on the square: two fingers 100 points apart spread to 200: scale 2.
    try checkPinch(desktop, demo, fingers: [((260, 1000), (160, 1000)), ((460, 1000), (560, 1000))])
    return demo
  }

  @Test(
    "phosh at scale 2: taps, pan and pinch at window points; drags from the top bar and the home bar never reach the app",
    .enabledUnless(missing: HeadlessDesktop.missing(.phosh)),
    .timeLimit(.minutes(3)))
  func phosh() throws {
    let desktop = try HeadlessDesktop.phosh()
    defer { desktop.stop() }
    print("phoc and phosh ready for input in \(desktop.startSeconds) s")
    let demo = try checkPhoshTapPanPinch(desktop, .touchDemo)
    var start: Int
    // RESPONDERD_DOCS_SCREENSHOT=/absolute/path.png keeps the picture (docs/images/touch-demo-phosh.png).
    let shot =
      getenv("RESPONDERD_DOCS_SCREENSHOT").map { String(cString: $0) } ?? desktop.directory
      + "/touch-demo.png"
    try desktop.screenshot(to: shot)
    try expectPNG(shot, width: 360, height: 720)

    // phosh's panels are black: its quick settings and its overview cover most of the screen with
    // black (more than half of it, below).
    // A drag down from the top bar (point y = 10) opens phosh's quick settings; a drag up from
    // their handle (point y = 603) closes them. Neither reaches the app (wlroots 0.15 has no
    // wl_touch.cancel: a touch that starts on phosh's panels is phosh's alone). A tap on the app
    // afterwards is the first touch it gets.
    start = demo.lines.count
    try desktop.drag(fingers: [((360, 20), (360, 1000))], steps: 20, duration: 0.4)
    try desktop.waitUntilScreenSettles("phosh's quick settings to open") { $0 > 0.5 }
    try desktop.drag(fingers: [((360, 1206), (360, 100))], steps: 20, duration: 0.3)
    try desktop.waitUntilAppShown("phosh's quick settings to close")
    try demo.tapUntilTouched(at: (600, 1200))
    let afterTopBar = demo.lines(after: start).filter { $0.kind == "touches" }
    #expect(
      afterTopBar.first?.touches == [.init(slot: 0, phase: "began", x: 300, y: 568)], "\(afterTopBar)")

    // A swipe up from the home bar (point y = 712, within its 40 points) opens the overview and
    // never reaches the app; a tap on the app's thumbnail there (points 105 to 254 across, 76 to
    // 343 down) brings it back. Then a tap on the app is the first touch it gets.
    start = demo.lines.count
    try desktop.drag(fingers: [((360, 1424), (360, 500))], steps: 20, duration: 0.4)
    try desktop.waitUntilScreenSettles("phosh's overview to open") { $0 > 0.5 }
    try desktop.tapUntilAppShown(x: 360, y: 400, "the overview to close on a tap of the app's thumbnail")
    try demo.tapUntilTouched(at: (600, 1200))
    let afterHomeBar = demo.lines(after: start).filter { $0.kind == "touches" }
    #expect(
      afterHomeBar.first?.touches == [.init(slot: 0, phase: "began", x: 300, y: 568)], "\(afterHomeBar)")
  }

  /// phosh crashes and is started again while one finger is on the app and one on phosh's home
  /// bar. touch-demo's connection is phoc's, not phosh's: it goes on; each touch it began ends
  /// (or is cancelled), none is left open, the finger on the home bar never reaches it, and
  /// with phosh back the window is between the bars again and a tap is the board's tap.
  @Test(
    "phosh restarted while touches are down: the app's touches end, the home bar's never reach it, the next tap is a tap",
    .enabledUnless(missing: HeadlessDesktop.missing(.phosh)),
    .timeLimit(.minutes(4)))
  func phoshRestartedWhileTouchesAreDown() throws {
    let desktop = try HeadlessDesktop.phosh()
    defer { desktop.stop() }
    let demo = try TouchDemoClient(desktop, arguments: ["--scene", Self.scene("phone.json"), "--log"])
    try demo.waitFor("the window maximized between the bars") {
      $0.kind == "window" && $0.number("height") == 648
    }
    try desktop.waitUntilAppShown("phosh's home folded away from the window")
    try demo.tapUntilTouched(at: (600, 1200))

    let start = demo.lines.count
    try desktop.down(0, x: 200, y: 300)
    try desktop.down(1, x: 360, y: 1424)
    try desktop.frame()
    for step in 1...5 {
      try desktop.motion(0, x: 200 + Double(step) * 10, y: 300)
      try desktop.frame()
    }
    try demo.waitFor("the pan to begin", after: start) {
      $0.kind == "action" && $0.id == "pan" && $0.state == "began"
    }
    try desktop.restartPhosh()
    for step in 6...10 {
      try desktop.motion(0, x: 200 + Double(step) * 10, y: 300)
      try desktop.frame()
    }
    try desktop.up(0)
    try desktop.up(1)
    try desktop.frame()
    try demo.waitFor("the pan to end", after: start) {
      $0.kind == "action" && $0.id == "pan" && ($0.state == "ended" || $0.state == "cancelled")
    }
    // The view hears of its touch after the recognizers: its line may come after the pan's.
    try demo.waitFor("the app's touch to end", after: start) { line in
      line.kind == "touches" && line.touches.contains { $0.phase == "ended" || $0.phase == "cancelled" }
    }
    let touches = demo.lines(after: start).filter { $0.kind == "touches" }.flatMap(\.touches)
    let began = Set(touches.filter { $0.phase == "began" }.map(\.slot))
    let finished = Set(touches.filter { $0.phase == "ended" || $0.phase == "cancelled" }.map(\.slot))
    #expect(began == [0], "\(touches)")
    #expect(finished == began, "\(touches)")
    #expect(demo.process.isRunning)

    // phosh back: the window between its bars (the last configure), and a tap is a tap.
    try demo.waitUntil("the window between phosh's bars again") { _ in
      demo.lines.last { $0.kind == "window" }?.number("height") == 648
    }
    try desktop.waitUntilAppShown("the window shown again")
    try demo.tapUntilTouched(at: (600, 1200))
    let tapStart = demo.lines.count
    try desktop.tap(x: 301, y: 400.5)
    try demo.waitFor("the tap's action", after: tapStart) { $0.kind == "action" && $0.id == "tap" }
    let tapBegan = demo.lines(after: tapStart).first { $0.method == "touchesBegan" }
    #expect(
      tapBegan?.touches == [.init(slot: 0, phase: "began", x: 150.5, y: 168.25)],
      "\(String(describing: tapBegan))")
  }

  @Test(
    "GTK 4 under phosh at scale 2: tap, pan and pinch at window points",
    .enabledUnless(missing: DemoProgram.gtk.missing(under: .phosh)),
    .timeLimit(.minutes(3)))
  func gtkUnderPhosh() throws {
    let desktop = try HeadlessDesktop.phosh()
    defer { desktop.stop() }
    // GTK draws its own title bar there (phoc decorates no window): 37 points.
    _ = try checkPhoshTapPanPinch(desktop, .gtk, titleBar: 37)
  }

  @Test(
    "SDL 2 under phosh at scale 2: tap, pan and pinch at window points",
    .enabledUnless(missing: DemoProgram.sdl.missing(under: .phosh)),
    .timeLimit(.minutes(3)))
  func sdlUnderPhosh() throws {
    let desktop = try HeadlessDesktop.phosh()
    defer { desktop.stop() }
    _ = try checkPhoshTapPanPinch(desktop, .sdl)
  }
}

extension HeadlessDesktop {
  /// Waits until the screen shows the app, still: phosh's panels are black, and with its home,
  /// quick settings and overview folded away its bars leave 10 % of the screen black; two
  /// screenshots in a row agree, so no panel is still folding. A touch on a panel that folds is a
  /// drag of it, which phoc lets fall back open over the app.
  fileprivate func waitUntilAppShown(_ what: String, timeout: Double = 20) throws {
    try waitUntilScreenSettles(what, timeout: timeout) { $0 < 0.2 }
  }

  /// Waits until the share of black on the screen satisfies `shown` in two screenshots in a row
  /// that agree (nothing is still moving).
  fileprivate func waitUntilScreenSettles(
    _ what: String, timeout: Double = 20, _ shown: (Double) -> Bool
  ) throws {
    var last: Double?
    do {
      try waitFor(what, timeout: timeout) {
        guard let share = try? screenShare(inColour: 0x000000) else { return false }
        defer { last = share }
        return shown(share) && share == last
      }
    } catch {
      throw TestSupportError(
        "\(error); black share of the last screenshot: \(last.map { "\($0)" } ?? "none")")
    }
  }

  /// Taps a panel of phosh (its overview's thumbnail of the app) until the app is shown, as a user
  /// taps again when nothing happened: at most three taps, each while phosh still covers the
  /// screen (more than half of it black), 7 s apart at most.
  fileprivate func tapUntilAppShown(x: Double, y: Double, _ what: String) throws {
    for attempt in 1...3 {
      try tap(x: x, y: y)
      do {
        return try waitUntilAppShown(what, timeout: 7)
      } catch  where attempt < 3 {
        guard (try? screenShare(inColour: 0x000000)).map({ $0 > 0.5 }) == true else { throw error }
      }
    }
  }
}
