import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// A small deterministic random generator (SplitMix64), so that every run plays the same scenes.
private struct SplitMix {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
  mutating func within(_ low: Double, _ high: Double) -> Double {
    low + (high - low) * Double(next() % 10_000) / 10_000
  }
}

/// A view that writes down, touch by touch, the messages it gets, and whether each touch it got
/// was its own (its `view`).
private final class LedgerView: View {
  var messages: [ObjectIdentifier: (touch: Touch, methods: [String])] = [:]
  var foreign: [String] = []
  private func note(_ method: String, _ touches: Set<Touch>) {
    for touch in touches {
      if touch.view !== self {
        foreign.append("\(method) of a touch of \(touch.view?.responderName ?? "nil")")
      }
      messages[ObjectIdentifier(touch), default: (touch, [])].methods.append(method)
    }
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { note("began", touches) }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) { note("moved", touches) }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { note("ended", touches) }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) { note("cancelled", touches) }

  /// What is wrong with the messages: each touch must have begun, may have moved, and must have
  /// ended or been cancelled, once.
  func problems() -> [String] {
    var found = foreign
    for (_, entry) in messages {
      let methods = entry.methods
      let valid =
        methods.count >= 2 && methods.first == "began"
        && (methods.last == "ended" || methods.last == "cancelled")
        && methods.dropFirst().dropLast().allSatisfy { $0 == "moved" }
      if !valid { found.append("\(identifier!): touch \(entry.touch.identifier) got \(methods)") }
    }
    return found
  }
}

@Suite struct TouchLedgerTests {
  /// One random scene: views (some nested, some exclusive or taking several touches), recognizers
  /// of every kind with random delivery settings and failure requirements, fingers landing,
  /// moving and lifting at random, now and then a view taken out of the window and put back, or
  /// every touch cancelled. Returns what went wrong.
  private func play(seed: UInt64) -> (problems: [String], ends: [String: Int]) {
    var random = SplitMix(state: seed)
    let h = Harness()
    var views: [LedgerView] = []
    for index in 0..<(1 + random.below(3)) {
      let view = LedgerView(
        frame: Rect(
          x: random.within(0, 200), y: random.within(0, 400), width: random.within(100, 300),
          height: random.within(150, 500)))
      view.identifier = "V\(index)"
      view.isMultipleTouchEnabled = random.chance(50)
      view.isExclusiveTouch = random.chance(15)
      let parent: View = views.isEmpty || random.chance(50) ? h.window : views[random.below(views.count)]
      parent.addSubview(view)
      views.append(view)
    }
    var recognizers: [GestureRecognizer] = []
    var delegates: [Delegate] = []  // (recognizers hold their delegates weakly)
    var machineProblems: [String] = []
    // The last state change of each recognizer, by name, and whether an action may follow it.
    var lastChange: [String: GestureRecognizer.State] = [:]
    h.window.addGestureObserver { observation in
      switch observation {
      case .stateChanged(let recognizer, let from, let to):
        let name = recognizer.name ?? "?"
        if !Self.isLegal(from: from, to: to) { machineProblems.append("\(name): \(from) → \(to)") }
        lastChange[name] = to
      case .actionSent(let recognizer):
        let name = recognizer.name ?? "?"
        let state = lastChange[name]
        if state == nil || state == .failed || state == .possible {
          machineProblems.append("\(name): action after \(state.map(\.description) ?? "nothing")")
        }
      }
    }
    for index in 0..<random.below(4) {
      let recognizer: GestureRecognizer
      switch random.below(6) {
      case 0:
        let tap = TapGestureRecognizer()
        tap.numberOfTapsRequired = 1 + random.below(2)
        tap.numberOfTouchesRequired = 1 + random.below(2)
        recognizer = tap
      case 1: recognizer = PanGestureRecognizer()
      case 2: recognizer = SwipeGestureRecognizer()
      case 3: recognizer = LongPressGestureRecognizer()
      case 4: recognizer = PinchGestureRecognizer()
      default: recognizer = RotationGestureRecognizer()
      }
      recognizer.delaysTouchesBegan = random.chance(30)
      recognizer.delaysTouchesEnded = random.chance(70)
      recognizer.cancelsTouchesInView = random.chance(80)
      if let other = recognizers.last, random.chance(30) { recognizer.require(toFail: other) }
      if random.chance(30) {
        // A delegate with fixed answers: refusing to begin, keeping some touches away, letting
        // its recognizer run alongside the others.
        let delegate = Delegate()
        let refuses = random.chance(30)
        let picky = random.chance(50)
        let together = random.chance(50)
        delegate.shouldBegin = { _ in !refuses }
        delegate.shouldReceive = { _, touch in !picky || touch.identifier != 1 }
        delegate.simultaneous = { _, _ in together }
        recognizer.delegate = delegate
        delegates.append(delegate)
      }
      let host: View = random.chance(20) ? h.window : views[random.below(views.count)]
      h.attach(recognizer, "R\(index)", to: host)
      recognizers.append(recognizer)
    }

    var down: [Int: Point] = [:]
    var time: Seconds = 1
    /// One of the fingers down, picked at random (nil when none is).
    func randomDownSlot() -> Int? {
      let slots = down.keys.sorted()
      return slots.isEmpty ? nil : slots[random.below(slots.count)]
    }
    for _ in 0..<40 {
      time += random.within(0.01, 0.25)
      switch random.below(20) {
      case 0..<6:
        let free = (0..<3).filter { down[$0] == nil }
        guard let slot = free.first else { continue }
        let place = Point(x: random.within(0, 400), y: random.within(0, 800))
        down[slot] = place
        h.down(slot, place.x, place.y, at: time)
      case 6..<13:
        guard let slot = randomDownSlot(), let place = down[slot] else { continue }
        let moved = Point(x: place.x + random.within(-60, 60), y: place.y + random.within(-60, 60))
        down[slot] = moved
        h.move(slot, moved.x, moved.y, at: time)
      case 13..<18:
        guard let slot = randomDownSlot() else { continue }
        down[slot] = nil
        h.up(slot, at: time)
      case 18:
        let view = views[random.below(views.count)]
        let parent = view.superview
        view.removeFromSuperview()
        if let parent, random.chance(70) { parent.addSubview(view) }
      default:
        if random.chance(30) {
          down.removeAll()
          h.cancelAll(at: time)
        } else {
          h.advance(to: time)
        }
      }
    }
    time += 0.1
    if !down.isEmpty { h.up(down.keys.sorted()[0], at: time) }
    for slot in down.keys.sorted().dropFirst() {
      time += 0.05
      h.up(slot, at: time)
    }
    h.runUntilIdle()
    var problems = views.flatMap { $0.problems() } + machineProblems
    for recognizer in recognizers where recognizer.state != .possible {
      problems.append("\(recognizer.name ?? "?") left in \(recognizer.state)")
    }
    var ends: [String: Int] = [:]
    for view in views {
      for entry in view.messages.values { ends[entry.methods.last ?? "none", default: 0] += 1 }
      view.messages.removeAll()  // the touches hold the window, which holds the views
    }
    withExtendedLifetime(delegates) {}
    return (problems, ends)
  }

  /// Seed 000's state machines: a recognizer leaves possible for began, recognized (ended) or
  /// failed; a continuous one goes from began or changed to changed, ended or cancelled; a final
  /// state returns to possible (the reset).
  static func isLegal(from: GestureRecognizer.State, to: GestureRecognizer.State) -> Bool {
    switch (from, to) {
    case (.possible, .began), (.possible, .ended), (.possible, .failed): true
    case (.began, .changed), (.changed, .changed): true
    case (.began, .ended), (.changed, .ended), (.began, .cancelled), (.changed, .cancelled): true
    case (.ended, .possible), (.cancelled, .possible), (.failed, .possible): true
    default: false
    }
  }

  /// Seed 003, UIResponder "Responding to Touch Events": for every touch a responder gets in
  /// touchesBegan, it gets touchesEnded or touchesCancelled ("对于每个正在处理的 touch（你在
  /// touchesBegan:withEvent: 中收到的 touch），你的响应者将收到 touchesEnded:withEvent: 或
  /// touchesCancelled:withEvent:"), and nothing before touchesBegan; and seed 004: a touch is only
  /// ever delivered to the view it was assigned to. Checked over 400 random scenes mixing every
  /// recognizer and delivery setting (delaysTouchesBegan, delaysTouchesEnded, cancelsTouchesInView,
  /// failure requirements, delegates refusing to begin, keeping touches away or allowing
  /// simultaneous recognition), exclusive and multi-touch views, views removed mid-touch, and
  /// system cancels. In the same scenes every recognizer follows seed 000's state machine, sends its
  /// action only on a change to a state other than failed (never for the reset), and is back in
  /// possible once the touches are over.
  @Test func everyTouchAViewBeganEndsOrIsCancelledExactlyOnce() {
    var failures: [String] = []
    var ends: [String: Int] = [:]
    for seed in 1...400 {
      let scene = play(seed: UInt64(seed))
      ends.merge(scene.ends, uniquingKeysWith: +)
      if !scene.problems.isEmpty {
        failures.append("scene \(seed): \(scene.problems.joined(separator: "; "))")
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n"))")
    // The scenes do exercise both ends: views saw many touches end, and many cancelled.
    #expect(ends["ended", default: 0] > 300 && ends["cancelled", default: 0] > 100, "\(ends)")
  }
}
