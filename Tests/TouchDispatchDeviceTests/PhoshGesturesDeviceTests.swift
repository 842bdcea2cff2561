import EventLoop
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import ShellGestures
import ShellTestSupport
import TestConditions
import Testing

/// The daemon's whole-screen gestures beside the real phoc 0.24 and phosh 0.24 (headless): each
/// touch is written both to the emulated panel responderd reads (umockdev) and to phoc's own
/// emulated touchscreen (an emulated node is a pty, so two readers of one node would split its
/// bytes), as the kernel gives one touchscreen to both. phosh is found on the session bus by the
/// version it reports (`org.gnome.Shell`'s `ShellVersion`, "43 (phosh 0.24.0)"): the profile of
/// phosh 0.34 and earlier, a 40 point home bar.
extension TouchDispatchDeviceTests {
  @Suite(
    "The real phosh beside the daemon's gestures (umockdev)",
    .enabledUnless(missing: HeadlessDesktop.missing(.phosh)))
  struct PhoshGesturesDeviceTests {
    @Test(.timeLimit(.minutes(3)))
    func barsArePhoshsAndTheRestTheRules() throws {
      let loop = try EventLoop()
      let desktop = try HeadlessDesktop.phosh(loop: loop)
      defer { desktop.stop() }
      print("phoc and phosh ready for input in \(desktop.startSeconds) s")
      // An application in front, maximized between the bars: 360 × 648 points at y = 32. The
      // desktop's processes start before the emulated panel is opened (a process forked while
      // responderd holds it would run umockdev's preload on its copy of the descriptor).
      let probe = try TouchProbe(desktop, size: (width: 300, height: 400))
      let screen = Size(width: 360, height: 720)
      let daemon = try DaemonBesideShell(
        rules: [
          swipeRule("down", fingers: 1, "down", "previousTrack"),
          swipeRule("up", fingers: 1, "up", "nextTrack"),
          swipeRule("three", fingers: 3, "up", "togglePlayPause"),
        ].joined(separator: "\n"), desktop: desktop, testbed: try TouchscreenTestbed(), loop: loop,
        screen: screen, scale: 2)
      defer { daemon.stop() }

      try daemon.waitForShell("responderd to find phosh 0.24 on the session bus", profile: .phosh034)
      #expect(daemon.desktopComponent.watcher.phoshVersion == "0.24.0")
      #expect(
        daemon.keys.report.notes.contains {
          $0.hasPrefix("touch: shell profile phosh-0.34 (Phosh 0.34 and earlier, found on the session bus)")
        }, "\(daemon.keys.report.notes)")

      /// How much of the screen the application covers (0.9 between the bars; its thumbnail in
      /// the overview, about 0.15).
      func appShare() throws -> Double { try desktop.screenShare(inColour: TouchProbe.colour) }
      func touchDowns() -> [String] { probe.touches.filter { $0.hasPrefix("touch down") } }
      try desktop.waitFor("the application to fill the screen between the bars") {
        (try? appShare()).map { $0 > 0.85 } == true
      }

      // Down from the top bar (y = 20 of its 32 points): phosh's quick settings; the rule "down"
      // does nothing, the application gets nothing.
      try daemon.touches([(180, 20)], dy: 480)
      try desktop.waitFor("responderd to give the touch to phosh's top bar") { daemon.claims == [.bar(.top)] }
      try desktop.waitFor("phosh's quick settings to cover the application") {
        (try? appShare()).map { $0 < 0.3 } == true
      }
      // Up from the bottom closes them again (a home-bar touch for responderd).
      try daemon.touches([(180, 712)], dy: -600)
      try desktop.waitFor("the quick settings to close") { (try? appShare()).map { $0 > 0.85 } == true }
      #expect(daemon.claims == [.bar(.top), .bar(.bottom)])
      #expect(touchDowns().isEmpty, "\(probe.touches)")

      // Down from just below the top bar (y = 34): the application's touch, and the rule acts.
      try daemon.touches([(180, 34)], dy: 480)
      try desktop.waitFor("the rule 'down' to act") { daemon.count(.remoteControlPreviousTrack) == 1 }
      try probe.waitFor("the application's touch at y = 2") { lines in
        lines.contains { $0.hasPrefix("touch down") && $0.hasSuffix("x=180.00 y=2.00") }
      }

      // Up from the home bar (y = 690: within its 40 points, not within the 15 of later phosh
      // releases): phosh's overview opens (the application shrinks to a thumbnail); the rule "up"
      // does nothing, the application gets nothing.
      var downs = touchDowns().count
      try daemon.touches([(180, 690)], dy: -460)
      try desktop.waitFor("phosh's overview to open") { (try? appShare()).map { $0 < 0.3 } == true }
      try desktop.waitFor("responderd to give the touch to phosh's home bar") { daemon.claims.count == 3 }
      #expect(daemon.claims.last == .bar(.bottom))
      #expect(daemon.count(.remoteControlNextTrack) == 0, "\(daemon.dispatches.map(\.source))")
      #expect(touchDowns().count == downs, "\(probe.touches)")
      // A tap on the thumbnail brings the application back (a tap: no rule).
      try desktop.tap(x: 360, y: 400)
      var tap = PanelScript(screen: screen)
      tap.stroke(
        loop.scheduler.now, [0: Point(x: 180, y: 200)], by: Point(x: 0, y: 0), steps: 1, interval: 0.05)
      try daemon.testbed.write(tap.events)
      try desktop.waitFor("the overview to close") { (try? appShare()).map { $0 > 0.85 } == true }

      // Up from just above the home bar (y = 678): the application's touch, and the rule acts.
      downs = touchDowns().count
      try daemon.touches([(180, 678)], dy: -400)
      try desktop.waitFor("the rule 'up' to act") { daemon.count(.remoteControlNextTrack) == 1 }
      try probe.waitFor("the application's touch at y = 646") { lines in
        lines.filter { $0.hasPrefix("touch down") }.dropFirst(downs).contains {
          $0.hasSuffix("x=180.00 y=646.00")
        }
      }

      // Three fingers up in the middle: phosh does nothing (the application gets the three
      // touches, the overview stays closed), the rule "three" acts.
      downs = touchDowns().count
      try daemon.touches([(100, 500), (180, 500), (260, 500)], dy: -300)
      try desktop.waitFor("the rule 'three' to act") { daemon.count(.remoteControlTogglePlayPause) == 1 }
      try probe.waitFor("the application's three touches") { _ in touchDowns().count == downs + 3 }
      #expect(try appShare() > 0.85)
      #expect(daemon.claims.count == 3, "\(daemon.claims)")
      #expect(!probe.touches.contains("touch cancel"))
      #expect(daemon.dispatches.map(\.source) == ["touch:down", "touch:up", "touch:three"])
    }
  }
}
