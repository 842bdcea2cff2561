import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// The same motions sampled at 60 Hz and at 240 Hz give the same outcome: recognizers decide on
/// time and distance, not on event counts.
@Suite struct FrameRateTests {
  /// A scripted gesture: fingers along continuous paths, sampled at `hz`.
  struct Motion {
    var name: String
    /// (slot, path over the gesture's time in seconds) for each finger.
    var fingers: [Int: (Seconds) -> Point]
    var duration: Seconds
    /// When each finger lifts (the gesture's end when absent).
    var lifts: [Int: Seconds] = [:]
  }

  struct Outcome: Equatable {
    /// Recognizer states in order, repeated "changed" collapsed.
    var states: [String]
    /// When each non-"changed" state happened, in 60 Hz frames (rounded up).
    var times: [Int]

    /// The same states, each at the same time give or take one 60 Hz frame (the 60 Hz input only
    /// shows a threshold crossed at its next frame).
    static func == (a: Outcome, b: Outcome) -> Bool {
      a.states == b.states && a.times.count == b.times.count
        && zip(a.times, b.times).allSatisfy { abs($0 - $1) <= 1 }
    }
  }

  private static func run(
    _ motion: Motion, hz: Double, configure: (Harness, View) -> Void
  ) -> (Outcome, Harness) {
    let h = Harness()
    let view = View(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    h.window.addSubview(view)
    configure(h, view)
    var times: [Int] = []
    h.window.addGestureObserver { [scheduler = h.scheduler] observation in
      if case .stateChanged(_, _, let to) = observation, to != .changed, to != .possible {
        times.append(Int((scheduler.now * 60).rounded(.up)))
      }
    }
    let start: Seconds = 1
    h.down(motion.fingers.mapValues { $0(0) }, at: start)
    let frames = Int((motion.duration * hz).rounded())
    var lifted = Set<Int>()
    for k in 1...frames {
      let t = Double(k) / hz
      var positions: [Int: Point] = [:]
      for (slot, path) in motion.fingers where !lifted.contains(slot) {
        if let lift = motion.lifts[slot], t >= lift {
          lifted.insert(slot)
          h.up(slot, at: start + t)
        } else {
          positions[slot] = path(t)
        }
      }
      if !positions.isEmpty { h.move(positions, at: start + t) }
    }
    let remaining = motion.fingers.keys.filter { !lifted.contains($0) }.sorted()
    for slot in remaining { h.up(slot, at: start + motion.duration + 1 / hz) }
    h.runUntilIdle()
    var states: [String] = []
    for line in h.log.take() where !line.hasSuffix(" action") {
      if line.hasSuffix(" changed"), states.last == line { continue }
      states.append(line)
    }
    return (Outcome(states: states, times: times), h)
  }

  private static func line(_ from: Point, _ to: Point, over duration: Seconds) -> (Seconds) -> Point {
    { t in
      let f = min(t / duration, 1)
      return Point(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f)
    }
  }

  private static func still(_ p: Point) -> (Seconds) -> Point { { _ in p } }

  /// Runs `motion` at both rates and checks the outcomes match; returns the 60 Hz outcome.
  @discardableResult
  private func same(
    _ motion: Motion, configure: @escaping (Harness, View) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Outcome {
    let (slow, _) = Self.run(motion, hz: 60, configure: configure)
    let (fast, _) = Self.run(motion, hz: 240, configure: configure)
    #expect(slow == fast, "\(motion.name)", sourceLocation: sourceLocation)
    return slow
  }

  @Test func tapsAndLongPress() {
    let taps: (Harness, View) -> Void = { h, view in
      h.attach(TapGestureRecognizer(), "single", to: view)
      let double = h.attach(TapGestureRecognizer(), "double", to: view)
      double.numberOfTapsRequired = 2
      h.attach(LongPressGestureRecognizer(), "press", to: view)
    }
    let tap = same(
      Motion(name: "tap", fingers: [0: Self.still(point(100, 100))], duration: 0.1), configure: taps)
    #expect(tap.states == ["single recognized", "press failed", "double failed"])
    let jitter = same(
      Motion(name: "jittery tap", fingers: [0: { t in point(100 + 6 * sine(t * 90), 100) }], duration: 0.2),
      configure: taps)
    #expect(jitter.states == ["single recognized", "press failed", "double failed"])
    let hold = same(
      Motion(name: "hold", fingers: [0: { t in point(100 + 8 * t, 100) }], duration: 0.8), configure: taps)
    #expect(hold.states == ["press began", "single failed", "double failed", "press changed", "press ended"])
    let creep = same(
      Motion(name: "creeping hold", fingers: [0: { t in point(100 + 30 * t, 100) }], duration: 0.8),
      configure: taps)
    #expect(creep.states.first == "press failed")
  }

  @Test func panAndSwipe() {
    let pair: (Harness, View) -> Void = { h, view in
      let swipe = h.attach(SwipeGestureRecognizer(), "swipe", to: view)
      let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
      pan.require(toFail: swipe)
    }
    let flick = same(
      Motion(
        name: "flick", fingers: [0: Self.line(point(50, 400), point(300, 400), over: 0.12)], duration: 0.15),
      configure: pair)
    #expect(flick.states == ["swipe recognized", "pan failed"])
    let drag = same(
      Motion(
        name: "slow drag", fingers: [0: Self.line(point(50, 400), point(150, 400), over: 1)], duration: 1),
      configure: pair)
    #expect(drag.states == ["swipe failed", "pan began", "pan changed", "pan ended"])
    let diagonal = same(
      Motion(
        name: "diagonal", fingers: [0: Self.line(point(50, 400), point(250, 600), over: 0.15)], duration: 0.15
      ),
      configure: pair)
    #expect(diagonal.states == ["swipe failed", "pan began", "pan changed", "pan ended"])
  }

  /// Pan figures agree too: translation exactly, velocity within a few percent.
  @Test func panFigures() {
    var results: [(Point, Point)] = []
    for hz in [60.0, 240.0] {
      var seen: (Point, Point)?
      let motion = Motion(
        name: "pan", fingers: [0: { t in point(100 + 400 * t, 100 + 100 * t * t) }], duration: 0.5)
      _ = Self.run(motion, hz: hz) { h, view in
        let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
        pan.addHandler { [scheduler = h.scheduler] recognizer in
          guard recognizer.state == .changed, scheduler.now >= 1.5 - 1e-9, seen == nil else { return }
          let pan = recognizer as! PanGestureRecognizer
          seen = (pan.translation(in: nil), pan.velocity(in: nil))
        }
      }
      results.append(seen!)
    }
    let (t60, v60) = results[0]
    let (t240, v240) = results[1]
    #expect(abs(t60.x - t240.x) < 1e-9 && abs(t60.y - t240.y) < 1e-9)
    #expect(abs(v60.x - v240.x) / v240.x < 0.03)
    #expect(abs(v60.y - v240.y) / v240.y < 0.1)
    #expect(abs(v240.x - 400) < 1 && abs(v240.y - 90) < 5)  // y' = 200 t: 90 on average over 0.4…0.5 s
  }

  /// The velocity at the end of a pan lifted while moving is the same at both rates; lifted
  /// after stopping, it is zero.
  @Test func panVelocityAtTheEnd() {
    for stopFirst in [false, true] {
      var ends: [Point] = []
      for hz in [60.0, 240.0] {
        let h = Harness()
        let view = View(frame: Rect(x: 0, y: 0, width: 400, height: 800))
        h.window.addSubview(view)
        let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
        pan.addHandler { recognizer in
          if recognizer.state == .ended {
            ends.append((recognizer as! PanGestureRecognizer).velocity(in: nil))
          }
        }
        h.down(0, 100, 100, at: 1)
        let end = h.glide(from: 1, duration: 0.3, hz: hz) { f in [0: point(100 + 300 * f, 100)] }
        h.up(0, at: end + (stopFirst ? 0.2 : 1 / hz))
      }
      #expect(ends.count == 2)
      if stopFirst {
        #expect(ends.allSatisfy { $0 == .zero })
      } else {
        #expect(abs(ends[0].x - 1000) < 1 && abs(ends[1].x - 1000) < 1, "\(ends)")
      }
    }
  }

  @Test func pinchAndRotation() {
    let both: (Harness, View) -> Void = { h, view in
      h.attach(PinchGestureRecognizer(), "pinch", to: view)
      h.attach(RotationGestureRecognizer(), "rotation", to: view)
    }
    func fingers(spread: Double, turn: Double) -> [Int: (Seconds) -> Point] {
      [
        0: { t in
          let f = min(t / 0.3, 1)
          let r = 60 * (1 + spread * f)
          return point(200 - r * cosine(turn * f), 400 - r * sine(turn * f))
        },
        1: { t in
          let f = min(t / 0.3, 1)
          let r = 60 * (1 + spread * f)
          return point(200 + r * cosine(turn * f), 400 + r * sine(turn * f))
        },
      ]
    }
    let pinch = same(
      Motion(name: "pinch", fingers: fingers(spread: 0.8, turn: 0.02), duration: 0.3), configure: both)
    #expect(pinch.states == ["pinch began", "rotation failed", "pinch changed", "pinch ended"])
    let turn = same(
      Motion(name: "turn", fingers: fingers(spread: 0, turn: 1.2), duration: 0.3), configure: both)
    #expect(turn.states == ["rotation began", "pinch failed", "rotation changed", "rotation ended"])
  }
}
