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

/// The daemon's whole-screen gestures beside the real GNOME Shell 43 (headless): the same touches
/// are written to the emulated panel responderd reads (umockdev) and injected into the shell, as
/// the kernel gives one touchscreen to both. The shell is found on the session bus (`shell =
/// "auto"`, the default); when its three-finger swipe up opens the overview, responderd's
/// three-finger rule does nothing, and a two-finger rule still acts.
extension TouchDispatchDeviceTests {
  @Suite(
    "The real GNOME Shell beside the daemon's gestures (umockdev)",
    .enabledUnless(missing: HeadlessDesktop.missing(.gnomeShell)))
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
      let daemon = try DaemonBesideShell(
        rules: ShellProfileDeviceTests.threeUp + "\n" + swipeRule("two", fingers: 2, "down", "previousTrack"),
        desktop: desktop, testbed: try TouchscreenTestbed(), loop: loop,
        screen: Size(width: 1280, height: 800))
      defer { daemon.stop() }

      try daemon.waitForShell("responderd to find GNOME Shell on the session bus", profile: .gnome)
      #expect(
        daemon.keys.report.notes.contains {
          $0.hasPrefix("touch: shell profile gnome (GNOME Shell 40+, found on the session bus)")
        }, "\(daemon.keys.report.notes)")

      // Two fingers down: the shell leaves them to the application; responderd's two-finger rule
      // acts.
      try daemon.touches([(500, 300), (700, 300)], dy: 300)
      try desktop.waitFor("the two-finger rule to act") { daemon.count(.remoteControlPreviousTrack) == 1 }
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
        try daemon.touches([(500, 700), (600, 700), (700, 700)], dy: -600)
        #expect(
          daemon.count(.remoteControlNextTrack) == 0, "swipe \(swipes): \(daemon.dispatches.map(\.source))")
        opened =
          (try? desktop.waitFor("the overview to open", timeout: 5) { (try? desktop.overviewActive) == true })
          != nil
      }
      #expect(opened, "the overview did not open after \(swipes) three-finger swipes up")
      try desktop.waitFor("responderd to read the three fingers") { daemon.claims.count == swipes }
      #expect(daemon.claims.allSatisfy { $0 == .fingers(3) }, "\(daemon.claims)")
      #expect(
        probe.touches.contains("touch cancel"), "the application's touches were cancelled: \(probe.touches)")
      #expect(daemon.count(.remoteControlNextTrack) == 0, "\(daemon.dispatches.map(\.source))")
      #expect(daemon.dispatches.map(\.source) == ["touch:two"])
    }
  }
}
