import EventTime
import ResponderCore
import Testing

/// Every dispatched event leaked about 500 bytes, never returned (issue 16): the delivery trace
/// kept closures that held the event and the trace. An event must be gone once its dispatch is
/// complete and nothing else holds it.
@Suite struct EventLifetimeTests {
  /// Posts an event made inside the call, so that only the application can keep it, and returns a
  /// weak reference to it.
  func postedEvent(
    to app: Application, _ make: () -> Event, phase: MotionPhase = .began
  ) -> () -> Event? {
    weak var weakEvent: Event?
    do {
      let event = make()
      weakEvent = event
      app.post(event, phase: phase)
    }
    return { weakEvent }
  }

  @Test func aHandledEventIsReleased() {
    let app = Application(scheduler: VirtualScheduler())
    app.beginReceivingRemoteControlEvents()
    let handler = Node("handler", next: app, handles: [.remoteControl, .motion])
    handler.becomes = true
    #expect(handler.becomeFirstResponder())
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    let remote = postedEvent(to: app) { .remoteControl(.remoteControlTogglePlayPause, timestamp: 1) }
    let motion = postedEvent(to: app, { .motion(.motionShake, timestamp: 2) }, phase: .ended)
    #expect(records.map(\.handledBy) == ["handler", "handler"])
    #expect(remote() == nil && motion() == nil)
  }

  @Test func droppedEventsAreReleased() {
    let app = Application(scheduler: VirtualScheduler())
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    // Not receiving remote-control events; then no first responder; then the end of the chain.
    let refused = postedEvent(to: app) { .remoteControl(.remoteControlPlay, timestamp: 1) }
    app.beginReceivingRemoteControlEvents()
    let nobody = postedEvent(to: app) { .remoteControl(.remoteControlPlay, timestamp: 2) }
    let window = Node("window", next: app)  // the application does not own its key window
    app.keyWindow = window
    let unhandled = postedEvent(to: app) { .remoteControl(.remoteControlPlay, timestamp: 3) }
    #expect(records.count == 3 && records.allSatisfy(\.wasDropped))
    #expect(refused() == nil && nobody() == nil && unhandled() == nil)
  }

  @Test func aDeferredEventIsReleasedOnceDecided() {
    let app = Application(scheduler: VirtualScheduler())
    app.beginReceivingRemoteControlEvents()
    let asker = DeferredDecisionTests.Asker(next: Node("tail", next: app, handles: [.remoteControl]))
    app.keyWindow = asker
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    let event = postedEvent(to: app) { .remoteControl(.remoteControlNextTrack, timestamp: 1) }
    #expect(event() != nil, "held while the decision is pending")
    asker.pending.removeFirst().resolve(handled: false)
    #expect(records.map(\.handledBy) == ["tail"])
    #expect(event() == nil)
  }

  @Test func anEventSentDirectlyIsReleased() {
    let app = Application(scheduler: VirtualScheduler())
    app.beginReceivingRemoteControlEvents()
    let window = Node("window", next: app, handles: [.remoteControl])
    app.keyWindow = window
    weak var weakEvent: Event?
    do {
      let event = Event.remoteControl(.remoteControlStop, timestamp: 1)
      weakEvent = event
      app.sendEvent(event)
    }
    #expect(weakEvent == nil)
  }
}

@Suite struct AbandonedDecisionTests {
  /// A decision given up (the service stops) sends the event no further and lets it go with the
  /// application.
  @Test func anAbandonedDecisionEndsTheDeliveryAndReleasesTheEvent() {
    weak var weakApplication: Application?
    weak var weakEvent: Event?
    var records: [DispatchRecord] = []
    do {
      let app = Application(scheduler: VirtualScheduler())
      app.beginReceivingRemoteControlEvents()
      // (Without a link back to the application: these test responders own their next one.)
      let tail = Node("tail", handles: [.remoteControl])
      let asker = DeferredDecisionTests.Asker(next: tail)
      app.keyWindow = asker
      app.addDispatchObserver { records.append($0) }
      let event = Event.remoteControl(.remoteControlPlay, timestamp: 1)
      weakEvent = event
      app.post(event)
      app.post(.remoteControl(.remoteControlPause, timestamp: 2))
      asker.pending[0].abandon()
      #expect(asker.pending[0].isResolved)
      asker.pending[0].resolve(handled: false)  // too late: nothing happens
      #expect(tail.received.isEmpty)
      #expect(asker.pending.count == 1, "the next event is not delivered")
      weakApplication = app
    }
    #expect(records.isEmpty)
    #expect(weakApplication == nil)
    #expect(weakEvent == nil)
  }
}
