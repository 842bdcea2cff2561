import EventTime
import ResponderCore
import ShellGestures
import Testing
import TouchDispatch

/// Frames of fingers through a `ShellGestureFilter`: what the daemon's gesture rules would see of
/// them, on each side of every threshold of every shell.
final class Fingers {
  let filter: ShellGestureFilter
  private var contacts: [Int: Point] = [:]
  /// Per frame: the slots passed on, or nil when the frame cancelled the touches under way.
  private(set) var frames: [[Int]?] = []

  init(_ profile: ShellProfile, screen: Size = Size(width: 1280, height: 800), millimetres: Size? = nil) {
    filter = ShellGestureFilter(
      profile: profile, geometry: ShellGeometry(screen: screen, physicalSize: millimetres))
  }

  /// One frame: `changes` puts fingers down or moves them (a point) or lifts them (nil).
  @discardableResult func frame(_ time: Seconds, _ changes: [Int: Point?]) -> [Int]? {
    for (slot, point) in changes { contacts[slot] = point }
    let samples = contacts.keys.sorted().map { ContactSample(slot: $0, location: contacts[$0]!) }
    let passed = filter.filter(samples, at: time).map { $0.map(\.slot) }
    frames.append(passed)
    return passed
  }

  /// Lifts every finger.
  @discardableResult func liftAll(_ time: Seconds) -> [Int]? {
    frame(time, Dictionary(uniqueKeysWithValues: contacts.keys.map { ($0, nil) }))
  }

  /// Whether some frame cancelled the touches.
  var cancelled: Bool { frames.contains { $0 == nil } }
}

private func p(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }

@Suite struct GNOMEProfileTests {
  /// Two fingers are the application's; the third finger's landing takes the sequence (the
  /// overview, a workspace): every touch is cancelled, and nothing is passed on until all lift.
  @Test func threeFingersTakeTheSequence() {
    let fingers = Fingers(.gnome)
    #expect(fingers.frame(1.00, [0: p(500, 400)]) == [0])
    #expect(fingers.frame(1.02, [1: p(600, 400)]) == [0, 1])
    #expect(fingers.frame(1.10, [0: p(500, 380), 1: p(600, 380)]) == [0, 1])
    #expect(fingers.frame(1.50, [2: p(700, 400)]) == nil)
    #expect(fingers.filter.sequenceClaim == .fingers(3))
    #expect(fingers.frame(1.60, [0: p(500, 200), 1: p(600, 200), 2: p(700, 200)]) == [])
    #expect(fingers.frame(1.70, [2: nil]) == [])  // two fingers left: still the shell's
    #expect(fingers.frame(1.80, [0: p(500, 100)]) == [])
    #expect(fingers.liftAll(1.90) == [])
    // The next sequence is the application's again.
    #expect(fingers.frame(2.00, [0: p(500, 400)]) == [0])
    #expect(fingers.frame(2.02, [1: p(600, 400)]) == [0, 1])
    #expect(fingers.filter.sequenceClaim == nil)
  }

  /// The same hand put down at once: the frame with the third finger is cancelled.
  @Test func threeFingersInOneFrame() {
    let fingers = Fingers(.gnome)
    #expect(fingers.frame(1, [0: p(500, 400), 1: p(600, 400), 2: p(700, 400)]) == nil)
    let two = Fingers(.gnome)
    #expect(two.frame(1, [0: p(500, 400), 1: p(600, 400)]) == [0, 1])
  }

  /// A finger landing within 20 px of the bottom edge and moving 8 px within 150 ms is the
  /// on-screen keyboard's drag; at 20 px and beyond, it stays the application's.
  @Test func bottomEdgeBand() {
    for (fromEdge, taken) in [(1.0, true), (10, true), (19, true), (20, false), (30, false)] {
      let fingers = Fingers(.gnome)
      #expect(fingers.frame(1.00, [0: p(640, 800 - fromEdge)]) == [0])
      let after = fingers.frame(1.05, [0: p(640, 800 - fromEdge - 10)])
      #expect((after == nil) == taken, "\(fromEdge) px from the bottom edge")
      #expect(fingers.filter.sequenceClaim == (taken ? .edgeDrag : nil))
    }
  }

  /// The drag begins at 8 px of motion (Clutter's drag threshold); 7 px is still a touch.
  @Test func edgeDragThreshold() {
    let fingers = Fingers(.gnome)
    fingers.frame(1.00, [0: p(640, 790)])
    #expect(fingers.frame(1.03, [0: p(640, 783)]) == [0])  // 7 px
    #expect(fingers.frame(1.06, [0: p(640, 782)]) == nil)  // 8 px
  }

  /// mutter leaves a sequence to the application when nothing claimed it within 150 ms of its
  /// touch-down: a slow start from the edge is the application's.
  @Test func edgeDragAfterTheAutodenyTimeout() {
    let late = Fingers(.gnome)
    late.frame(1.00, [0: p(640, 790)])
    #expect(late.frame(1.16, [0: p(640, 770)]) == [0])
    #expect(late.frame(1.20, [0: p(640, 700)]) == [0])
    let soon = Fingers(.gnome)
    soon.frame(1.00, [0: p(640, 790)])
    #expect(soon.frame(1.14, [0: p(640, 770)]) == nil)
  }

  /// A first motion of more than 30 px along an axis leaves the sequence to the application before
  /// the drag can claim it.
  @Test func edgeDragJumpingPastTheRejectDistance() {
    let far = Fingers(.gnome)
    far.frame(1.00, [0: p(640, 790)])
    #expect(far.frame(1.02, [0: p(640, 759)]) == [0])  // 31 px
    let near = Fingers(.gnome)
    near.frame(1.00, [0: p(640, 790)])
    #expect(near.frame(1.02, [0: p(640, 761)]) == nil)  // 29 px
  }

  /// Only the first finger of a sequence can start the edge drag, and only the bottom edge has
  /// one that the daemon follows (the top one acts over fullscreen windows only, the sides none).
  @Test func otherEdgesAndLaterFingers() {
    let second = Fingers(.gnome)
    second.frame(1.00, [0: p(300, 400)])
    second.frame(1.02, [1: p(640, 795)])
    #expect(second.frame(1.05, [1: p(640, 770)]) == [0, 1])
    for start in [p(640, 5), p(5, 400), p(1275, 400)] {
      let fingers = Fingers(.gnome)
      fingers.frame(1.00, [0: start])
      #expect(fingers.frame(1.05, [0: p(640, 400)]) == [0])
    }
  }

  /// A new profile waits for the fingers on the surface to lift.
  @Test func profileChangesBetweenSequences() {
    let fingers = Fingers(.none)
    fingers.frame(1.00, [0: p(500, 400), 1: p(600, 400)])
    fingers.filter.setProfile(.gnome)
    #expect(fingers.filter.profile == ShellProfile.none)
    #expect(fingers.frame(1.05, [2: p(700, 400)]) == [0, 1, 2])
    fingers.liftAll(1.2)
    #expect(fingers.filter.profile == .gnome)
    fingers.frame(2.00, [0: p(500, 400), 1: p(600, 400)])
    #expect(fingers.frame(2.05, [2: p(700, 400)]) == nil)
  }
}

@Suite struct GNOME3ProfileTests {
  /// GNOME 3.36 and 3.38 swipe with four fingers: three are the application's.
  @Test func fourFingersTakeTheSequence() {
    let fingers = Fingers(.gnome3)
    fingers.frame(1.00, [0: p(400, 400), 1: p(500, 400)])
    #expect(fingers.frame(1.05, [2: p(600, 400)]) == [0, 1, 2])
    #expect(fingers.frame(1.10, [3: p(700, 400)]) == nil)
    #expect(fingers.filter.sequenceClaim == .fingers(4))
    // No bottom-edge drag in this profile.
    let edge = Fingers(.gnome3)
    edge.frame(1.00, [0: p(640, 795)])
    #expect(edge.frame(1.05, [0: p(640, 780)]) == [0])
  }
}

@Suite struct KDEProfileTests {
  // 1280 × 800 points on a 256 × 160 mm panel: 0.2 mm a point, 50 mm = 250 points.
  private static let panel = Size(width: 256, height: 160)

  /// KWin takes a third finger landing within 250 ms of the one before; at 300 ms it is the
  /// application's, and so is the rest of that sequence.
  @Test func thirdFingerWithin250ms() {
    for (delay, taken) in [(0.10, true), (0.20, true), (0.25, true), (0.30, false), (0.40, false)] {
      let fingers = Fingers(.kde, millimetres: Self.panel)
      fingers.frame(1.00, [0: p(500, 400)])
      fingers.frame(1.05, [1: p(550, 400)])
      let third = fingers.frame(1.05 + delay, [2: p(600, 400)])
      #expect((third == nil) == taken, "third finger \(delay) s after the second")
      if !taken {
        // Too late: no fourth finger makes it the shell's either.
        #expect(fingers.frame(1.05 + delay + 0.05, [3: p(650, 400)]) == [0, 1, 2, 3])
      }
    }
  }

  /// The second finger late is enough to leave the sequence to the application.
  @Test func secondFingerLate() {
    let fingers = Fingers(.kde, millimetres: Self.panel)
    fingers.frame(1.00, [0: p(500, 400)])
    fingers.frame(1.30, [1: p(550, 400)])
    #expect(fingers.frame(1.35, [2: p(600, 400)]) == [0, 1, 2])
  }

  /// Each new finger lands within 50 mm (|dx| + |dy|) of a finger already down.
  @Test func withinFiftyMillimetres() {
    for (gap, taken) in [(240.0, true), (249, true), (251, false), (260, false)] {
      let fingers = Fingers(.kde, millimetres: Self.panel)
      fingers.frame(1.00, [0: p(100, 400)])
      fingers.frame(1.05, [1: p(100, 420)])  // 4 mm away
      // 0.2 mm a point: `gap` points right of finger 1, split over both axes.
      let third = fingers.frame(1.10, [2: p(100 + gap - 100, 520)])
      #expect((third == nil) == taken, "third finger \(gap * 0.2) mm from the nearest")
    }
  }

  /// A panel that does not give its size is measured as KWin measures a display without one:
  /// 190 × 100 mm.
  @Test func unknownSizeIsKWinsGuess() {
    let fingers = Fingers(.kde)
    // 190 mm over 1280 points: 50 mm is 336.8 points.
    fingers.frame(1.00, [0: p(100, 400)])
    fingers.frame(1.05, [1: p(430, 400)])  // 48.98 mm
    #expect(fingers.frame(1.10, [2: p(760, 400)]) == nil)
    let far = Fingers(.kde)
    far.frame(1.00, [0: p(100, 400)])
    far.frame(1.05, [1: p(440, 400)])  // 50.47 mm
    #expect(far.frame(1.10, [2: p(780, 400)]) == [0, 1, 2])
  }
}

@Suite struct PhoshProfileTests {
  private static let phone = Size(width: 360, height: 720)

  /// Touches landing on the top bar (32 px) or the home bar (15 px) are Phosh's alone; the others
  /// are the application's.
  @Test func barsTakeTheTouchesOnThem() {
    for (y, passed) in [
      (0.0, false), (31, false), (32, true), (360, true), (704, true), (705, false), (719, false),
    ] {
      let fingers = Fingers(.phosh, screen: Self.phone)
      let first = fingers.frame(1.00, [0: p(180, y)])
      #expect((first == [0]) == passed, "a touch at y = \(y)")
      #expect(fingers.frame(1.10, [0: p(180, 360)]) == (passed ? [0] : []))
    }
  }

  /// Phosh 0.34 and earlier (0.24 in Debian 12): a 40 px home button bar. The real phosh 0.24
  /// gives the app the touches from y = 32 to y = 680 (exclusive) on this screen.
  @Test func homeButtonBarOfPhosh034() {
    for (y, passed) in [
      (0.0, false), (31.75, false), (32, true), (360, true), (679.75, true), (680, false), (719, false),
    ] {
      let fingers = Fingers(.phosh034, screen: Self.phone)
      #expect((fingers.frame(1.00, [0: p(180, y)]) == [0]) == passed, "a touch at y = \(y)")
    }
    #expect(ShellProfile.phosh034.edgeBands.map(\.width) == [32, 40])
    #expect(ShellProfile.phosh.edgeBands.map(\.width) == [32, 15])
  }

  /// phosh restarts while fingers are down (its `org.gnome.Shell` leaves the bus and comes back:
  /// no profile, then phosh's again): the sequence under way keeps the rules it began with, so
  /// the finger on the home bar stays phosh's and the one on the app stays the app's, with no
  /// cancel; the new profile applies from the next sequence.
  @Test func phoshRestartsWhileFingersAreDown() {
    let fingers = Fingers(.phosh, screen: Self.phone)
    #expect(fingers.frame(1.00, [0: p(180, 712), 1: p(180, 360)]) == [1])
    fingers.filter.setProfile(.none)
    #expect(fingers.frame(1.10, [0: p(180, 600), 1: p(200, 360)]) == [1])
    fingers.filter.setProfile(.phosh)
    #expect(fingers.frame(1.20, [0: p(180, 400), 1: p(220, 360)]) == [1])
    #expect(fingers.frame(1.30, [0: nil]) == [1])
    #expect(fingers.filter.profile == .phosh)
    fingers.liftAll(1.40)
    #expect(!fingers.cancelled)
    // Gone for good while the fingers were down: the next sequence has no bars.
    fingers.frame(2.00, [0: p(180, 712)])
    fingers.filter.setProfile(.none)
    #expect(fingers.frame(2.10, [0: p(180, 600)]) == [])
    fingers.liftAll(2.20)
    #expect(fingers.filter.profile == ShellProfile.none)
    #expect(fingers.frame(3.00, [0: p(180, 712)]) == [0])
  }

  /// The profile follows the phosh release: the home bar shrank to 15 px in 0.35.0.
  @Test func profileOfARelease() {
    #expect(ShellProfile.phosh(version: "0.24.0") == .phosh034)
    #expect(ShellProfile.phosh(version: "0.34.1") == .phosh034)
    #expect(ShellProfile.phosh(version: "0.35.0") == .phosh)
    #expect(ShellProfile.phosh(version: "0.49.0") == .phosh)
    #expect(ShellProfile.phosh(version: "1.0") == .phosh)
    #expect(ShellProfile.phosh(version: nil) == .phosh)
    #expect(ShellProfile.phosh(version: "unknown") == .phosh)
    #expect(ShellProfile(rawValue: "phosh-0.34") == .phosh034)
  }

  /// A finger on a bar takes nothing from a finger elsewhere.
  @Test func otherFingersStayTheApplications() {
    let fingers = Fingers(.phosh, screen: Self.phone)
    #expect(fingers.frame(1.00, [0: p(180, 10), 1: p(180, 300)]) == [1])
    #expect(fingers.frame(1.05, [2: p(200, 400)]) == [1, 2])
    #expect(!fingers.cancelled)
  }
}

@Suite struct HyprlandProfileTests {
  /// With workspace_swipe_touch on, a touch landing within 21 px of a side edge (gaps_out 20 plus
  /// border 1) begins a workspace swipe and is never the application's, nor is any touch landing
  /// while it lasts.
  @Test func sideEdgesBand() {
    for (x, passed) in [
      (0.0, false), (20, false), (21, true), (640, true), (1259, true), (1260, false), (1279, false),
    ] {
      let fingers = Fingers(.hyprlandTouch)
      #expect((fingers.frame(1.00, [0: p(x, 400)]) == [0]) == passed, "a touch at x = \(x)")
    }
  }

  @Test func touchesDuringTheSwipe() {
    let fingers = Fingers(.hyprlandTouch)
    #expect(fingers.frame(1.00, [0: p(640, 400)]) == [0])  // before the swipe: the application's
    #expect(fingers.frame(1.10, [1: p(5, 400)]) == [0])
    #expect(fingers.frame(1.20, [2: p(640, 500)]) == [0])
    #expect(fingers.frame(1.30, [1: nil]) == [0])  // the swipe ends
    // Finger 2 landed during the swipe: it stays Hyprland's.
    #expect(fingers.frame(1.40, [3: p(640, 600)]) == [0, 3])
    #expect(!fingers.cancelled)
  }
}

@Suite struct NoShellProfileTests {
  @Test func everythingIsTheApplications() {
    let fingers = Fingers(.none)
    #expect(fingers.frame(1.00, [0: p(0, 799), 1: p(5, 5), 2: p(1279, 400)]) == [0, 1, 2])
    #expect(fingers.frame(1.05, [3: p(640, 400), 0: p(0, 780)]) == [0, 1, 2, 3])
    #expect(!fingers.cancelled)
  }

  @Test func currentDesktopNames() {
    #expect(ShellProfile.named(currentDesktop: "GNOME") == .gnome)
    #expect(ShellProfile.named(currentDesktop: "ubuntu:GNOME") == .gnome)
    #expect(ShellProfile.named(currentDesktop: "KDE") == .kde)
    #expect(ShellProfile.named(currentDesktop: "Phosh:GNOME") == .phosh)
    #expect(ShellProfile.named(currentDesktop: "Hyprland") == nil)
    #expect(ShellProfile.named(currentDesktop: "sway") == nil)
  }
}
