import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// The references back up the hierarchy (superview, view controller, a recognizer's view) are
/// cleared when their owner goes away, whatever order things are released in.
@Suite struct OwnershipTests {
  @Test func aSubviewOutlivesItsSuperview() {
    let child = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
    do {
      let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
      parent.addSubview(child)
      #expect(child.superview === parent)
    }
    #expect(child.superview == nil)
    #expect(child.next == nil)
  }

  @Test func aRootViewOutlivesItsController() {
    let view = View()
    do {
      let controller = ViewController(view: view)
      #expect(view.viewController === controller)
      #expect(view.next === controller)
    }
    #expect(view.viewController == nil)
    #expect(view.next == nil)
  }

  @Test func aControllerOutlivesItsView() {
    let controller = ViewController()
    do {
      let view = View()
      controller.view = view
    }
    #expect(controller.view.viewController === controller)
  }

  @Test func aRecognizerOutlivesItsView() {
    let recognizer = TapGestureRecognizer()
    do {
      let view = View()
      view.addGestureRecognizer(recognizer)
      #expect(recognizer.view === view)
    }
    #expect(recognizer.view == nil)
    #expect(recognizer.scheduler == nil)
  }

  @Test func aRecognizerGoingAwayMidGestureCancelsItsTimers() {
    let scheduler = VirtualScheduler()
    let window = Window(frame: Rect(x: 0, y: 0, width: 100, height: 100), scheduler: scheduler)
    let input = TouchInput(window: window)
    var began = 0
    do {
      let press = LongPressGestureRecognizer { recognizer in
        if recognizer.state == .began { began += 1 }
      }
      window.addGestureRecognizer(press)
      input.process([ContactSample(slot: 0, location: Point(x: 50, y: 50))], at: 0)
      window.removeGestureRecognizer(press)
    }
    // The press timer would have fired at 0.5 s.
    scheduler.advance(to: 1)
    input.process([], at: 1)
    #expect(began == 0)
    #expect(scheduler.pendingCount == 0)
  }
}
