import EventLoop
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import ShellGestures
import ShellTestSupport

/// responderd's keys, desktop and touch-gesture components beside a real shell, on its session
/// bus: each touch is written to the emulated panel responderd reads and given to the shell, as
/// the kernel gives one touchscreen to both.
final class DaemonBesideShell {
  private let desktop: HeadlessDesktop
  let testbed: TouchscreenTestbed
  let harness: LoopService
  let keys: KeysComponent
  let desktopComponent: DesktopComponent
  let touch: TouchGesturesComponent
  /// The shell's claims on the sequences responderd read, in order.
  private(set) var claims: [ShellClaim] = []
  private let screen: Size
  /// The shell's pixels per point of the panel (phosh's scale 2).
  private let scale: Double

  /// Starts the components on a `screen` of points with the TOML gesture `rules` (the log handler,
  /// the keys off).
  init(
    rules: String, desktop: HeadlessDesktop, testbed: TouchscreenTestbed, loop: EventLoop, screen: Size,
    scale: Double = 1
  ) throws {
    self.desktop = desktop
    self.testbed = testbed
    self.screen = screen
    self.scale = scale
    harness = try LoopService(
      config: try ResponderdConfig.parse(
        """
        chain = ["log"]
        [keys]
        enabled = false
        [touch]
        width = \(Int(screen.width))
        height = \(Int(screen.height))
        \(rules)
        """, file: "test.toml"), loop: loop,
      busAddress: desktop.sessionBusAddress)
    keys = harness.service.keysComponent(bus: harness.bus)
    desktopComponent = harness.service.desktopComponent(keys: keys, bus: harness.bus)
    touch = harness.service.touchGesturesComponent(desktop: desktopComponent, motion: nil, motionAPI: nil)
    for component: ServiceComponent in [keys, desktopComponent, touch] { harness.add(component) }
    harness.start()
  }

  func stop() { harness.stop() }

  var dispatches: [DispatchRecord] { harness.records }

  /// How many times a rule posting `subtype` acted.
  func count(_ subtype: EventSubtype) -> Int { dispatches.count { $0.subtype == subtype } }

  /// Waits for responderd to find the shell (`profile`) and read the panel; from then on, records
  /// the shell's claims.
  func waitForShell(_ what: String, profile: ShellProfile) throws {
    try desktop.waitFor(what) {
      touch.shellProfile == profile && touch.source?.device.path == testbed.devnode
    }
    touch.shellFilter?.claimObserver = { [unowned self] claim, _ in self.claims.append(claim) }
  }

  /// Fingers at `starts` (points) moving by `dy`, then lifted: written to the panel (6 steps 0.08 s
  /// apart, with the times of the gesture: under 4096 bytes, all of which the emulated node's pty
  /// holds at once) and given to the shell (in its pixels, 25 steps over 0.5 s, at that pace).
  func touches(_ starts: [(x: Double, y: Double)], dy: Double) throws {
    var script = PanelScript(screen: screen)
    var fingers: [Int: Point] = [:]
    for (slot, start) in starts.enumerated() { fingers[slot] = Point(x: start.x, y: start.y) }
    script.stroke(harness.loop.scheduler.now, fingers, by: Point(x: 0, y: dy), steps: 6, interval: 0.08)
    try testbed.write(script.events)
    try desktop.swipe(
      fingers: starts.map { (x: $0.x * scale, y: $0.y * scale) }, dx: 0, dy: dy * scale, steps: 25,
      duration: 0.5)
  }
}
