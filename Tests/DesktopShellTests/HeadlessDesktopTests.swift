import DBusTestSupport
import ShellTestSupport
import SystemCalls
import TestConditions
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The test kit against the real compositors: a Wayland client (wl_touch_probe) gets an
/// injected tap at the right surface coordinates and an injected key, the shell's own 3-finger
/// gesture takes the touches from it (wl_touch.cancel), and the screenshot is the real output.
/// One desktop per test: each test checks every point on it, so each compositor starts once.
@Suite("Real headless desktops: injected touches and keys reach a Wayland client")
struct HeadlessDesktopTests {
  /// Taps at monitor pixel (x, y) until a tap lands at `expected` on the probe (its down's surface
  /// coordinates, "x=… y=…"), a tap every 20 ms for 5 s at most; returns where each tap that
  /// reached the probe landed. mutter and GNOME Shell scale a window in as it maps (about 250 ms):
  /// a tap during that lands on the animated window, or beside it, where no client gets it.
  func tapUntilItLands(
    _ desktop: HeadlessDesktop, _ probe: TouchProbe, x: Double, y: Double, at expected: String
  ) throws -> [String] {
    var landed: [String] = []
    let deadline = monotonicNow() + 5
    while landed.last != expected && monotonicNow() < deadline {
      let ups = probe.touches.count { $0.hasPrefix("touch up ") }
      try desktop.tap(x: x, y: y)
      do {
        try probe.waitFor("the tap's up", timeout: 0.5) { _ in
          probe.touches.count { $0.hasPrefix("touch up ") } > ups
        }
      } catch {
        continue  // it missed the window while the window scaled in
      }
      if let down = probe.touches.last(where: { $0.hasPrefix("touch down ") }) {
        landed.append(String(down.split(separator: " ").suffix(2).joined(separator: " ")))
      }
      _ = desktop.loop.run(until: { false }, timeout: 0.02)
    }
    return landed
  }

  /// The checks both compositors pass, on a fullscreen probe.
  func checkTouchesAndKeys(_ desktop: HeadlessDesktop) throws -> TouchProbe {
    let probe = try TouchProbe(desktop)
    #expect(probe.lines.contains("configure \(desktop.width) \(desktop.height)"), "\(probe.lines)")
    try desktop.warmUp()
    try probe.waitForSeat()

    // A tap at a known point arrives there: the window is fullscreen, so surface = monitor pixels.
    let before = probe.touches.count
    let landed = try tapUntilItLands(desktop, probe, x: 300, y: 200, at: "x=300.00 y=200.00")
    let taps = Array(probe.touches.dropFirst(before))
    #expect(landed.last == "x=300.00 y=200.00", "taps landed at \(landed); \(taps)")
    #expect(!taps.contains("touch cancel"), "\(taps)")

    // A key by its evdev code: the client gets that code (wl_keyboard keys are evdev codes).
    try desktop.press(30)  // KEY_A
    try probe.waitFor("KEY_A's release") { $0.contains { $0.hasPrefix("key key=30 state=0") } }
    #expect(probe.lines.contains { $0.hasPrefix("key key=30 state=1") })

    // Three fingers: the compositor's gesture takes them, the client gets wl_touch.cancel.
    let third = probe.touches.count
    try desktop.down(0, x: 500, y: 600)
    try desktop.down(1, x: 600, y: 600)
    try desktop.frame()
    try probe.waitFor("two fingers down") { _ in
      probe.touches.dropFirst(third).filter { $0.hasPrefix("touch down ") }.count == 2
    }
    #expect(!probe.touches.dropFirst(third).contains("touch cancel"), "two fingers are the client's")
    try desktop.down(2, x: 700, y: 600)
    try desktop.frame()
    try probe.waitFor("wl_touch.cancel at the third finger") { _ in
      probe.touches.dropFirst(third).contains("touch cancel")
    }
    return probe
  }

  @Test(
    "GNOME Shell: a tap at (300, 200), a key, three fingers cancelled and the overview opened by their swipe up",
    .enabledUnless(missing: HeadlessDesktop.missing(.gnomeShell)),
    .timeLimit(.minutes(3)))
  func gnomeShell() throws {
    let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800)
    defer { desktop.stop() }
    print("GNOME Shell ready for input in \(desktop.startSeconds) s")
    #expect(try desktop.overviewActive == false, "the start-up overview is closed")
    let probe = try checkTouchesAndKeys(desktop)
    #expect(try desktop.focusedWindowTitle() == "wl_touch_probe")
    // The three fingers, still down, swipe up: the shell opens the overview. A loaded GNOME Shell
    // now and then lets a swipe snap back: up to 3 swipes, each one it left alone said.
    let fingers = [(x: 500.0, y: 600.0), (x: 600.0, y: 600.0), (x: 700.0, y: 600.0)]
    for attempt in 1...3 {
      if attempt > 1 {
        print("GNOME Shell left 3-finger swipe \(attempt - 1) alone; swiping again")
        for (slot, finger) in fingers.enumerated() { try desktop.down(slot, x: finger.x, y: finger.y) }
        try desktop.frame()
      }
      try desktop.move(fingers: fingers, dx: 0, dy: -400, steps: 25, duration: 0.5)
      for slot in fingers.indices { try desktop.up(slot) }
      do {
        try desktop.waitFor("the overview to open after the 3-finger swipe up", timeout: attempt < 3 ? 5 : 10)
        {
          (try? desktop.overviewActive) == true
        }
        break
      } catch  where attempt < 3 {}
    }
    _ = probe

    let shot = desktop.directory + "/shot.png"
    try desktop.screenshot(to: shot)
    try expectPNG(shot, width: 1280, height: 800)
  }

  @Test(
    "KWin: a tap at (300, 200), a key, three fingers cancelled",
    .enabledUnless(missing: HeadlessDesktop.missing(.kwin)),
    .timeLimit(.minutes(3)))
  func kwin() throws {
    let desktop = try HeadlessDesktop.kwin(width: 1280, height: 800)
    defer { desktop.stop() }
    print("KWin ready for input in \(desktop.startSeconds) s")
    _ = try checkTouchesAndKeys(desktop)
    for slot in 0..<3 { try desktop.up(slot) }
    try desktop.frame()

    let shot = desktop.directory + "/shot.png"
    try desktop.screenshot(to: shot)
    try expectPNG(shot, width: 1280, height: 800)
  }

  @Test(
    "mutter alone at scale 2: the window is half the monitor, a tap at monitor pixel (600, 400) is at (300, 200) on it, three fingers stay the client's",
    .enabledUnless(missing: HeadlessDesktop.missing(.mutter)),
    .timeLimit(.minutes(3)))
  func mutterAtScale2() throws {
    let desktop = try HeadlessDesktop.mutter(width: 2560, height: 1600, scale: 2)
    defer { desktop.stop() }
    print("mutter ready for input in \(desktop.startSeconds) s")
    let probe = try TouchProbe(desktop)
    #expect(probe.lines.contains("configure 1280 800"), "\(probe.lines)")
    try desktop.warmUp()
    try probe.waitForSeat()
    // A wrong scale never lands at (300, 200).
    let landed = try tapUntilItLands(desktop, probe, x: 600, y: 400, at: "x=300.00 y=200.00")
    #expect(landed.last == "x=300.00 y=200.00", "taps landed at \(landed); \(probe.touches)")
    let before = probe.touches.count
    try desktop.swipe(
      fingers: [(1000, 1200), (1200, 1200), (1400, 1200)], dx: 0, dy: -600, steps: 5, duration: 0.1)
    try probe.waitFor("the three fingers' ups") { _ in
      probe.touches.dropFirst(before).filter { $0.hasPrefix("touch up ") }.count == 3
    }
    #expect(!probe.touches.contains("touch cancel"), "\(probe.touches)")
    #expect(probe.touches.dropFirst(before).filter { $0.hasPrefix("touch down ") }.count == 3)
  }

  @Test(
    "stop() leaves no process behind, D-Bus-activated ones included",
    .enabledUnless(missing: HeadlessDesktop.missing(.kwin)),
    .timeLimit(.minutes(2)))
  func stopKillsTheTree() throws {
    let desktop = try HeadlessDesktop.kwin()
    // A program D-Bus activation starts (a child of the private dbus-daemon, not of the test).
    let services = desktop.directory + "/home/.local/share/dbus-1/services"
    for folder in ["/home/.local/share/dbus-1", "/home/.local/share/dbus-1/services"] {
      mkdir(desktop.directory + folder, 0o700)
    }
    try writeTextFile(
      services + "/org.responderd.TestActivated.service",
      "[D-BUS Service]\nName=org.responderd.TestActivated\nExec=/usr/bin/sleep 600\n")
    _ = try desktop.sessionBus.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "ReloadConfig", timeout: 10)
    var activation = ""
    desktop.sessionBus.call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "StartServiceByName", arguments: [.string("org.responderd.TestActivated"), .uint32(0)],
      timeout: 30
    ) { activation = "\($0)" }
    try desktop.waitFor("the activated sleep to run; activation: \(activation)") {
      commands(desktop).contains("/usr/bin/sleep 600")
    }
    #expect(commands(desktop).contains { $0.contains("kwin_wayland") })
    desktop.stop()
    #expect(commands(desktop) == [], "left behind: \(commands(desktop))")
  }
}

/// The command lines of the desktop's living processes.
func commands(_ desktop: HeadlessDesktop) -> [String] {
  desktop.livingProcesses.map { pid in
    let command = (try? readFile("/proc/\(pid)/cmdline")) ?? []
    return command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
  }
}

/// `path` is a PNG of `width` x `height` (its IHDR chunk).
func expectPNG(_ path: String, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation)
  throws
{
  let bytes = try readFile(path)
  #expect(bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]), "not a PNG", sourceLocation: sourceLocation)
  guard bytes.count > 24 else { return }
  func big(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
  #expect(big(16) == width && big(20) == height, "\(big(16))x\(big(20))", sourceLocation: sourceLocation)
  #expect(bytes.count > 4096, "a real picture, not an empty one", sourceLocation: sourceLocation)
}
