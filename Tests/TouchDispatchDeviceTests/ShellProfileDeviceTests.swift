import EventLoop
import InputCodes
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import ShellGestures
import Testing

/// Fingers written to the emulated panel as the kernel gives them, in screen points: the Goodix
/// panel's 1080 × 2340 units make a 540 × 1170 point screen (two units a point) unless `screen`
/// says otherwise.
struct PanelScript {
  private(set) var events: [RawInputEvent] = []
  private var trackingIDs: [Int: Int32] = [:]
  private var nextTrackingID: Int32 = 100
  /// Added to every time given (successive scripts on one panel go forward in time).
  var offset: Double = 0
  /// Panel units per point along x and y.
  private let scale: (x: Double, y: Double)

  init(screen: Size = Size(width: 540, height: 1170)) {
    scale = (1080 / screen.width, 2340 / screen.height)
  }

  /// One frame: fingers put down or moved to a point, or lifted (nil).
  mutating func frame(_ time: Double, _ changes: [Int: Point?]) {
    let time = time + offset
    func abs(_ code: UInt16, _ value: Int32) {
      events.append(RawInputEvent(time: time, type: InputCode.EV_ABS, code: code, value: value))
    }
    for slot in changes.keys.sorted() {
      abs(InputCode.ABS_MT_SLOT, Int32(slot))
      if let point = changes[slot]! {
        if trackingIDs[slot] == nil {
          trackingIDs[slot] = nextTrackingID
          abs(InputCode.ABS_MT_TRACKING_ID, nextTrackingID)
          nextTrackingID += 1
        }
        abs(InputCode.ABS_MT_POSITION_X, Int32((point.x * scale.x).rounded()))
        abs(InputCode.ABS_MT_POSITION_Y, Int32((point.y * scale.y).rounded()))
      } else {
        abs(InputCode.ABS_MT_TRACKING_ID, -1)
        trackingIDs[slot] = nil
      }
    }
    events.append(RawInputEvent(time: time, type: InputCode.EV_SYN, code: 0, value: 0))
  }

  /// Fingers down at their start (already down ones stay), moving by `by` in `steps` frames
  /// `interval` apart (1/60 s), then lifted.
  mutating func stroke(
    _ time: Double, _ starts: [Int: Point], by delta: Point, steps: Int = 3, interval: Double = 1.0 / 60
  ) {
    frame(time, starts)
    for step in 1...steps {
      let f = Double(step) / Double(steps)
      frame(
        time + Double(step) * interval,
        starts.mapValues { Point(x: $0.x + delta.x * f, y: $0.y + delta.y * f) })
    }
    frame(time + Double(steps + 1) * interval, starts.mapValues { _ in nil })
  }

  /// The control gesture: two fingers swiping down in the middle of the screen, which no shell
  /// takes (the `control` rule).
  mutating func control(_ time: Double) {
    stroke(time, [0: Point(x: 220, y: 400), 1: Point(x: 320, y: 400)], by: Point(x: 0, y: 90))
  }
}

/// The daemon's whole-screen gestures on the emulated panel with each shell profile: a gesture
/// the shell takes makes no action here, on both sides of each threshold. Each probe is followed
/// by the control gesture (two fingers down, a rule no shell takes); the probe's sequence has been
/// read once the control's action arrives.
extension TouchDispatchDeviceTests {
  @Suite("Shell profiles on the emulated panel") struct ShellProfileDeviceTests {
    final class Rig {
      let testbed: TouchscreenTestbed
      let harness: LoopService
      var loop: EventLoop { harness.loop }
      /// A fixed profile: no desktop to follow.
      let component: TouchGesturesComponent
      var dispatches: [DispatchRecord] { harness.records }
      private var controls = 0
      /// Where the last script began, on the loop's clock.
      private var scriptBase = -Double.infinity

      init(shell: String, rules: String, ioctl: String = "touchscreen.ioctl") throws {
        testbed = try TouchscreenTestbed(ioctl: ioctl, writtenTimes: true)
        let config = try ResponderdConfig.parse(
          """
          chain = ["log"]
          [touch]
          width = 540
          height = 1170
          shell = "\(shell)"
          \(swipeRule("control", fingers: 2, "down", "previousTrack"))
          \(rules)
          """, file: "test.toml")
        harness = try LoopService(config: config)
        component = harness.service.touchGesturesComponent(desktop: nil, motion: nil, motionAPI: nil)
        harness.add(component)
        harness.start()
      }

      /// How many times the rule posting `subtype` acted.
      func count(_ subtype: EventSubtype) -> Int { dispatches.count { $0.subtype == subtype } }

      /// Writes `probe` then the control gesture, and waits for the control's action: the probe's
      /// sequence has been through the rules by then. Returns the new actions of `subtype`.
      func actions(of subtype: EventSubtype, _ probe: (inout PanelScript) -> Void) throws -> Int {
        let before = count(subtype)
        var script = PanelScript()
        // On the loop's clock (CLOCK_MONOTONIC, as the device's times are): a recognizer's time
        // limit is a timer from now, and a script stamped in the past would let it fire between
        // two reads of the script. Each script 10 s after the one before.
        scriptBase = max(scriptBase + 10, loop.scheduler.now)
        script.offset = scriptBase
        probe(&script)
        script.control(5)
        try testbed.write(script.events)
        controls += 1
        let expected = controls
        let arrived = loop.run(until: { self.count(.remoteControlPreviousTrack) >= expected }, timeout: 3)
        #expect(arrived, "the control gesture acted")
        return count(subtype) - before
      }
    }

    private func p(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }

    /// Three fingers up: nextTrack (the gesture GNOME Shell takes).
    static let threeUp = swipeRule("three", fingers: 3, "up", "nextTrack")

    /// GNOME takes the sequence at its third finger: the three-finger rule never acts, the
    /// two-finger one does; with no shell profile the same three fingers act.
    @Test func gnomeThreeFingers() throws {
      let three: (inout PanelScript) -> Void = { script in
        script.stroke(1, [0: self.p(170, 700), 1: self.p(270, 700), 2: self.p(370, 700)], by: self.p(0, -90))
      }
      let gnome = try Rig(shell: "gnome", rules: Self.threeUp)
      #expect(gnome.component.shellProfile == .gnome)
      #expect(try gnome.actions(of: .remoteControlNextTrack, three) == 0)
      #expect(gnome.count(.remoteControlPreviousTrack) == 1)  // two fingers: the rule acted
      gnome.component.stop()
      let none = try Rig(shell: "none", rules: Self.threeUp)
      #expect(try none.actions(of: .remoteControlNextTrack, three) == 1)
    }

    /// GNOME's on-screen keyboard drag: a finger starting 10 px from the bottom edge is the
    /// shell's; 30 px from it, the edge swipe acts.
    @Test func gnomeBottomEdge() throws {
      let rig = try Rig(
        shell: "gnome",
        rules: edgeSwipeRule("drawer", "bottom", "play"))
      let at10 = try rig.actions(of: .remoteControlPlay) {
        $0.stroke(1, [0: self.p(270, 1160)], by: self.p(0, -90))
      }
      #expect(at10 == 0)
      let at30 = try rig.actions(of: .remoteControlPlay) {
        $0.stroke(1, [0: self.p(270, 1140)], by: self.p(0, -90))
      }
      #expect(at30 == 1)
    }

    /// GNOME 3.36–3.38 swipes with four fingers: three are the rules'.
    @Test func gnome3FourFingers() throws {
      let rig = try Rig(
        shell: "gnome-3",
        rules: Self.threeUp + "\n" + swipeRule("four", fingers: 4, "up", "play"))
      let four = try rig.actions(of: .remoteControlPlay) { script in
        script.stroke(
          1, [0: self.p(120, 700), 1: self.p(220, 700), 2: self.p(320, 700), 3: self.p(420, 700)],
          by: self.p(0, -90))
      }
      #expect(four == 0)
      let three = try rig.actions(of: .remoteControlNextTrack) { script in
        script.stroke(1, [0: self.p(170, 700), 1: self.p(270, 700), 2: self.p(370, 700)], by: self.p(0, -90))
      }
      #expect(three == 1)
    }

    /// Two fingers down, the third `delay` seconds after the second, then all three swipe up.
    private func kdeThree(_ delay: Double, third: Point = Point(x: 370, y: 700)) -> (inout PanelScript) ->
      Void
    {
      { script in
        script.frame(1.00, [0: self.p(170, 700)])
        script.frame(1.02, [1: self.p(270, 700)])
        let t = 1.02 + delay
        script.frame(t, [2: third])
        let starts = [0: self.p(170, 700), 1: self.p(270, 700), 2: third]
        for step in 1...3 {
          script.frame(
            t + Double(step) / 60, starts.mapValues { Point(x: $0.x, y: $0.y - 30 * Double(step)) })
        }
        script.frame(t + 4.0 / 60, [0: nil, 1: nil, 2: nil])
      }
    }

    /// Without a shell profile the same fingers act, whenever the third lands.
    @Test func kdeProbesActWithoutAProfile() throws {
      let rig = try Rig(shell: "none", rules: Self.threeUp)
      #expect(try rig.actions(of: .remoteControlNextTrack, kdeThree(0.20)) == 1)
      #expect(try rig.actions(of: .remoteControlNextTrack, kdeThree(0.30)) == 1)
    }

    /// KWin takes a third finger landing within 250 ms of the one before: at 0.20 s the rule does
    /// nothing, at 0.30 s it acts.
    @Test func kdeThirdFingerTiming() throws {
      let rig = try Rig(shell: "kde", rules: Self.threeUp)
      #expect(try rig.actions(of: .remoteControlNextTrack, kdeThree(0.20)) == 0)
      #expect(try rig.actions(of: .remoteControlNextTrack, kdeThree(0.30)) == 1)
    }

    /// ... and within 50 mm of a finger already down, measured on the panel's own size (16 units
    /// a millimetre: 0.125 mm a point here): 44 mm away the rule does nothing, 56 mm away it acts.
    @Test func kdeThirdFingerDistance() throws {
      let rig = try Rig(shell: "kde", rules: Self.threeUp, ioctl: "touchscreen-16-per-mm.ioctl")
      let size = try #require(rig.component.source?.device.physicalSize)
      #expect(abs(size.width - 67.44) < 0.01 && abs(size.height - 146.19) < 0.01)
      // The nearest finger is 100 + 250 = 350 points (43.7 mm) away, then 100 + 350 (56.2 mm).
      #expect(try rig.actions(of: .remoteControlNextTrack, kdeThree(0.05, third: p(370, 950))) == 0)
      #expect(try rig.actions(of: .remoteControlNextTrack, kdeThree(0.05, third: p(370, 1050))) == 1)
    }

    /// Phosh's bars: a touch landing on the top bar (32 px) or the home bar (15 px) never reaches a
    /// rule; just below or above them it does.
    @Test func phoshBars() throws {
      let rig = try Rig(
        shell: "phosh",
        rules: edgeSwipeRule("shade", "top", "play") + "\n" + edgeSwipeRule("drawer", "bottom", "pause"))
      #expect(
        try rig.actions(of: .remoteControlPlay) { $0.stroke(1, [0: self.p(270, 20)], by: self.p(0, 90)) } == 0
      )
      #expect(
        try rig.actions(of: .remoteControlPlay) { $0.stroke(1, [0: self.p(270, 36)], by: self.p(0, 90)) } == 1
      )
      #expect(
        try rig.actions(of: .remoteControlPause) { $0.stroke(1, [0: self.p(270, 1160)], by: self.p(0, -90)) }
          == 0)
      #expect(
        try rig.actions(of: .remoteControlPause) { $0.stroke(1, [0: self.p(270, 1150)], by: self.p(0, -90)) }
          == 1)
    }

    /// Hyprland with its touch swipe: a touch landing within 21 px of a side edge begins a
    /// workspace swipe and never reaches a rule; at 30 px the edge swipe acts.
    @Test func hyprlandSideEdges() throws {
      let rig = try Rig(
        shell: "hyprland-touch",
        rules: edgeSwipeRule("drawer", "left", "play"))
      #expect(
        try rig.actions(of: .remoteControlPlay) { $0.stroke(1, [0: self.p(10, 600)], by: self.p(120, 0)) }
          == 0)
      #expect(
        try rig.actions(of: .remoteControlPlay) { $0.stroke(1, [0: self.p(30, 600)], by: self.p(120, 0)) }
          == 1)
    }
  }
}
