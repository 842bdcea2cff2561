import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// A view that keeps copies of what it was given (the events by identity: an event holds its
/// touches, which hold the window, which holds this view).
final class InspectingView: View {
  var seen: [(method: String, phases: [TouchPhase], event: ObjectIdentifier?, type: EventType?)] = []
  /// The last event given, while something else keeps it (the window does while its touches last).
  weak var lastEvent: Event?
  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { note("began", touches, event) }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) { note("moved", touches, event) }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { note("ended", touches, event) }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
    note("cancelled", touches, event)
  }
  private func note(_ method: String, _ touches: Set<Touch>, _ event: Event?) {
    seen.append(
      (
        method, touches.sorted { $0.identifier < $1.identifier }.map(\.phase),
        event.map(ObjectIdentifier.init), event?.type
      ))
    lastEvent = event
  }
}

/// A view filling its superview that tells what it sees in touchesCancelled.
final class TouchCancelInspector: View {
  let onCancel: (Set<Touch>) -> Void
  init(_ onCancel: @escaping (Set<Touch>) -> Void) {
    self.onCancel = onCancel
    super.init(frame: Rect(x: 0, y: 0, width: 400, height: 800))
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {}
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {}
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {}
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) { onCancel(touches) }
}

@Suite struct TouchTests {
  /// Phases through a two-finger sequence: a finger that does not move in a frame where another
  /// does is stationary, and is not delivered.
  @Test func phases() {
    let h = Harness()
    let view = InspectingView(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    view.isMultipleTouchEnabled = true
    h.window.addSubview(view)
    h.down(0, 100, 100, at: 1)
    h.down(1, 200, 100, at: 1.1)
    let first = h.input.activeTouches[0]
    #expect(first.phase == .stationary)
    h.move(1, 210, 100, at: 1.2)
    #expect(first.phase == .stationary)
    h.up(0, at: 1.3)
    h.up(1, at: 1.4)
    #expect(view.seen.map(\.method) == ["began", "began", "moved", "ended", "ended"])
    #expect(view.seen.map(\.phases) == [[.began], [.began], [.moved], [.ended], [.ended]])
    // One event for the whole sequence; allTouches has every touch of the frame.
    #expect(view.seen.allSatisfy { $0.event == view.seen[0].event })
    #expect(view.seen[0].type == .touches)
  }

  /// A touch a recognizer takes reaches its view's touchesCancelled with phase cancelled (seed
  /// 003, UITouchPhaseCancelled: "识别到触摸是手势后会强制把 touch 置为 cancel"), whether it was moving
  /// (a pan) or lifting (a tap). Its `view` stays the view: this follows seed 004 ("唯一不变的属性是包含
  /// 视图。即使触摸位置移动到原始视图之外，触摸视图属性中的值也不会改变"), not seed 003's UITouch.view
  /// ("当 gesture recognizer 识别到 touch 时，此属性为 nil"). After the view heard of it, the touch goes on
  /// with its own phase, for the recognizer that took it.
  @Test func aTouchTakenByARecognizerIsCancelledForItsView() {
    for (recognizer, lift) in [
      (PanGestureRecognizer() as GestureRecognizer, false), (TapGestureRecognizer(), true),
    ] {
      let h = Harness()
      let view = View(frame: Rect(x: 0, y: 0, width: 400, height: 800))
      h.window.addSubview(view)
      weak var viewWhenCancelled: Responder?  // the inspector keeps this closure
      var cancelledPhases: [TouchPhase] = []
      let inspector = TouchCancelInspector { touches in
        cancelledPhases = touches.map(\.phase)
        viewWhenCancelled = touches.first?.view
      }
      view.addSubview(inspector)
      h.attach(recognizer, "g", to: view)
      if lift {
        // The tap is recognized at the lift, whose end delaysTouchesEnded held back.
        h.down(0, 100, 100, at: 1)
        h.up(0, at: 1.05)
      } else {
        h.down(0, 100, 100, at: 1)
        h.move(0, 130, 100, at: 1.05)
      }
      #expect(cancelledPhases == [.cancelled], "\(recognizer)")
      #expect(viewWhenCancelled === inspector)
      let touch = h.input.activeTouches.first
      if lift {
        #expect(touch == nil)
      } else {
        #expect(touch?.phase == .moved)
        #expect(recognizer.state == .began)
        h.move(0, 160, 100, at: 1.1)
        #expect(recognizer.state == .changed)
      }
    }
  }

  /// Timestamps, previous location, the view fixed at touch-down, the window.
  @Test func touchProperties() {
    let h = Harness()
    let left = h.addView("L", 0, 0, 200, 800)
    h.addView("R", 200, 0, 200, 800)
    h.down(0, 100, 100, at: 1)
    let touch = h.input.activeTouches[0]
    #expect(touch.timestamp == 1 && touch.view === left && touch.window === h.window)
    h.move(0, 300, 120, at: 1.25)  // over R now
    #expect(touch.timestamp == 1.25)
    #expect(touch.previousLocation(in: nil) == Point(x: 100, y: 100))
    #expect(touch.location(in: left) == Point(x: 300, y: 120))
    #expect(touch.view === left)
    h.up(0, at: 1.5)
    #expect(touch.phase == .ended && touch.timestamp == 1.5)
    #expect(h.log.take() == ["L touchesBegan 0", "L touchesMoved 0", "L touchesEnded 0"])
  }

  /// tapCount: quick taps at one place count up; a slow or distant tap starts again at 1; a touch
  /// that wandered off is no tap.
  @Test func tapCounts() {
    let h = Harness()
    let view = h.addView("V", 0, 0, 400, 800)
    view.showsTapCount = true
    h.tap(100, 100, at: 1)
    h.tap(105, 100, at: 1.2)
    h.tap(100, 104, at: 1.4)
    h.tap(100, 100, at: 2.0)  // 0.52 s after the previous tap
    h.tap(300, 300, at: 2.2)  // far
    h.drag(from: point(100, 100), to: point(200, 100), at: 3, duration: 0.1)
    h.tap(200, 100, at: 3.2)
    let counts = h.log.take().filter { $0.contains("touchesBegan") }.map { $0.split(separator: " ").last! }
    #expect(counts == ["1", "2", "3", "1", "1", "1", "1"])
  }

  /// Event queries: touches(for: view), touches(for: recognizer), the touch's recognizers.
  @Test func eventQueries() {
    let h = Harness()
    let view = InspectingView(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    view.isMultipleTouchEnabled = true
    h.window.addSubview(view)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: h.window)
    tap.numberOfTouchesRequired = 2  // (a one-finger tap fails at once, and lists no touch then)
    h.down([0: point(100, 100), 1: point(200, 100)], at: 1)
    let event = view.lastEvent!
    #expect(view.seen.count == 1 && view.seen[0].event == ObjectIdentifier(event))
    #expect(event.allTouches.count == 2)
    #expect(event.touches(for: view).count == 2)
    #expect(event.touches(for: pan).count == 2)
    let touch = h.input.activeTouches[0]
    #expect(touch.gestureRecognizers.count == 2)
    #expect(touch.gestureRecognizers.first === pan && touch.gestureRecognizers.last === tap)
  }

  /// Seed 003, UIEvent: touchesForWindow: gives the touches that belong to a window, and
  /// coalescedTouchesForTouch: / predictedTouchesForTouch: return nil for a touch that is not part
  /// of the event; the coalesced touches end with the touch itself.
  @Test func eventQueriesByWindowAndForForeignTouches() {
    let h = Harness()
    let view = InspectingView(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    h.window.addSubview(view)
    h.down(0, 100, 100, at: 1)
    let event = view.lastEvent!
    let touch = h.input.activeTouches[0]
    #expect(event.touches(for: h.window) == [touch])
    #expect(event.touches(for: View()).isEmpty)
    #expect(event.coalescedTouches(for: touch)?.last === touch)
    #expect(event.predictedTouches(for: touch) != nil)
    let stranger = Touch(location: Point(x: 1, y: 1), timestamp: 1)
    #expect(event.coalescedTouches(for: stranger) == nil)
    #expect(event.predictedTouches(for: stranger) == nil)
    h.up(0, at: 1.1)
  }

  /// Seed 003, UITouch gestureRecognizers: the recognizers currently receiving the touch ("当前正在
  /// 处理 touch 的 gesture recognizers"; an empty array when none is). A recognizer that failed,
  /// cancelled its gesture or recognized it while the finger is still down no longer receives it:
  /// it leaves the touch's list and the event's touches for it at once, not at the end of the
  /// sequence.
  @Test func aRecognizerThatGaveUpNoLongerListsTheTouch() {
    let h = Harness()
    let view = InspectingView(frame: Rect(x: 0, y: 0, width: 400, height: 800))
    h.window.addSubview(view)
    let tap = h.attach(TapGestureRecognizer(), "tap", to: view)
    let pan = h.attach(PanGestureRecognizer(), "pan", to: view)
    pan.minimumNumberOfTouches = 2
    h.down(0, 100, 100, at: 1)
    let touch = h.input.activeTouches[0]
    #expect(touch.gestureRecognizers.count == 2)
    h.move(0, 200, 100, at: 1.05)  // too far for a tap
    #expect(tap.state == .failed)
    #expect(touch.gestureRecognizers.count == 1 && touch.gestureRecognizers.first === pan)
    #expect(view.lastEvent?.touches(for: tap).isEmpty == true)
    #expect(view.lastEvent?.touches(for: pan) == [touch])
    #expect(tap.touches == [touch])  // what it had received stays known to it until its reset
    h.up(0, at: 1.1)
    #expect(touch.gestureRecognizers.isEmpty)

    // A discrete gesture recognized before the finger lifts (a swipe) receives it no more either.
    let swipe = h.attach(SwipeGestureRecognizer(), "swipe", to: view)
    h.drag(from: point(100, 400), to: point(300, 410), at: 2, duration: 0.15, lift: false)
    #expect(swipe.state == .recognized)
    let finger = h.input.activeTouches[0]
    #expect(!finger.gestureRecognizers.contains { $0 === swipe })
    h.up(0, at: 2.2)
  }

  /// Contact size and force reach the touch.
  @Test func radiusAndForce() {
    let scheduler = VirtualScheduler()
    let window = Window(frame: Rect(x: 0, y: 0, width: 100, height: 100), scheduler: scheduler)
    let input = TouchInput(window: window)
    input.process(
      [
        ContactSample(
          slot: 3, location: Point(x: 10, y: 10), majorRadius: 7, force: 0.5, maximumPossibleForce: 1)
      ],
      at: 1)
    let touch = input.activeTouches[0]
    #expect(touch.identifier == 3 && touch.majorRadius == 7 && touch.force == 0.5)
    #expect(touch.maximumPossibleForce == 1)
    input.process(
      [ContactSample(slot: 3, location: Point(x: 10, y: 10), force: 0.8, maximumPossibleForce: 1)], at: 1.1)
    #expect(touch.phase == .moved && touch.force == 0.8)  // a change of force is a move
    input.cancelAll(at: 1.2)  // a touch holds its window until it ends
  }

  /// The window delivers through the application: each touch frame is a dispatched event.
  @Test func framesGoThroughTheApplication() {
    let h = Harness()
    var records: [DispatchRecord] = []
    h.app.addDispatchObserver { records.append($0) }
    h.tap(10, 10, at: 1)
    #expect(records.count == 2)
    #expect(records.allSatisfy { $0.type == .touches })
  }
}
