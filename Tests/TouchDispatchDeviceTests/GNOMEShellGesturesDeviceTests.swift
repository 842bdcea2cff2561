import EventLoop
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import ShellGestures
import ShellTestSupport
import Testing

/// The daemon's whole-screen gestures beside the real GNOME Shell 43 (headless): the same touches
/// are written to the emulated panel responderd reads (umockdev) and injected into the shell, as
/// the kernel gives one touchscreen to both. The shell is found on the session bus (`shell =
/// "auto"`, the default); when its three-finger swipe up opens the overview, responderd's
/// three-finger rule does nothing, and a two-finger rule still acts.
extension TouchDispatchDeviceTests {
  @Suite(
    "The real GNOME Shell beside the daemon's gestures (umockdev)",
    .enabled(
      if: HeadlessDesktop.missing(.gnomeShell) == nil,
      Comment(rawValue: HeadlessDesktop.missing(.gnomeShell) ?? "")))
  struct GNOMEShellGesturesDeviceTests {
    @Test(.timeLimit(.minutes(3)))
    func threeFingersOpenTheOverviewAndNoRule() throws {
      let loop = try EventLoop()
      let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800, loop: loop)
      defer { desktop.stop() }
      print("GNOME Shell ready for input in \(desktop.startSeconds) s")
      // An application in front (fullscreen), as the shell's gestures are tried on one. The
      // desktop's processes start before the emulated panel is opened: a process forked while
      // responderd holds it would run umockdev's preload on its copy of the descriptor.
      let probe = try TouchProbe(desktop)
      try desktop.warmUp()
      try probe.waitForSeat()
      let testbed = try TouchscreenTestbed()
      let config = try ResponderdConfig.parse(
        """
        chain = ["log"]
        [keys]
        enabled = false
        [touch]
        width = 1280
        height = 800
        [[touch.gesture]]
        name = "three"
        gesture = "swipe"
        fingers = 3
        direction = "up"
        event = "nextTrack"
        [[touch.gesture]]
        name = "two"
        gesture = "swipe"
        fingers = 2
        direction = "down"
        event = "previousTrack"
        """, file: "test.toml")
      let harness = try LoopService(config: config, loop: loop, busAddress: desktop.sessionBusAddress)
      let keys = harness.service.keysComponent(bus: harness.bus)
      let desktopComponent = harness.service.desktopComponent(keys: keys, bus: harness.bus)
      let touch = harness.service.touchGesturesComponent(
        desktop: desktopComponent, motion: nil, motionAPI: nil)
      for component: ServiceComponent in [keys, desktopComponent, touch] { harness.add(component) }
      harness.start()
      defer { harness.stop() }
      var dispatches: [DispatchRecord] { harness.records }

      try desktop.waitFor("responderd to find GNOME Shell on the session bus") {
        touch.shellProfile == .gnome && touch.source?.device.path == testbed.devnode
      }
      #expect(
        keys.report.notes.contains {
          $0.hasPrefix("touch: shell profile gnome (GNOME Shell 40+, found on the session bus)")
        }, "\(keys.report.notes)")

      /// Fingers at `starts` moving by `dy`, then lifted: written to the panel (6 steps 0.08 s apart,
      /// with the times of the gesture: under 4096 bytes, all of which the emulated node's pty
      /// holds at once) and injected into the shell (25 steps over 0.5 s, at that pace).
      func touches(_ starts: [(x: Double, y: Double)], dy: Double) throws {
        var script = PanelScript(screen: Size(width: 1280, height: 800))
        var fingers: [Int: Point] = [:]
        for (slot, start) in starts.enumerated() { fingers[slot] = Point(x: start.x, y: start.y) }
        script.stroke(loop.scheduler.now, fingers, by: Point(x: 0, y: dy), steps: 6, interval: 0.08)
        try testbed.write(script.events)
        try desktop.swipe(fingers: starts, dx: 0, dy: dy, steps: 25, duration: 0.5)
      }
      func count(_ subtype: EventSubtype) -> Int { dispatches.count { $0.subtype == subtype } }

      var claims: [ShellClaim] = []
      touch.shellFilter?.claimObserver = { claim, _ in claims.append(claim) }

      // Two fingers down: the shell leaves them to the application; responderd's two-finger rule
      // acts.
      try touches([(500, 300), (700, 300)], dy: 300)
      try desktop.waitFor("the two-finger rule to act") { count(.remoteControlPreviousTrack) == 1 }
      #expect(try desktop.overviewActive == false)
      #expect(!probe.touches.contains("touch cancel"), "\(probe.touches)")

      // Three fingers up: the shell cancels the application's touches and opens the overview;
      // responderd read the same fingers, gave the sequence to the shell, and its three-finger
      // rule did nothing. (On a loaded machine the shell now and then lets a swipe snap back
      // without opening the overview: up to three swipes; responderd must act on none of them.)
      var swipes = 0
      var opened = false
      while !opened && swipes < 3 {
        swipes += 1
        try touches([(500, 700), (600, 700), (700, 700)], dy: -600)
        #expect(count(.remoteControlNextTrack) == 0, "swipe \(swipes): \(dispatches.map(\.source))")
        opened =
          (try? desktop.waitFor("the overview to open", timeout: 5) { (try? desktop.overviewActive) == true })
          != nil
      }
      #expect(opened, "the overview did not open after \(swipes) three-finger swipes up")
      try desktop.waitFor("responderd to read the three fingers") { claims.count == swipes }
      #expect(claims.allSatisfy { $0 == .fingers(3) }, "\(claims)")
      #expect(
        probe.touches.contains("touch cancel"), "the application's touches were cancelled: \(probe.touches)")
      #expect(count(.remoteControlNextTrack) == 0, "\(dispatches.map(\.source))")
      #expect(dispatches.map(\.source) == ["touch:two"])
    }
  }
}
