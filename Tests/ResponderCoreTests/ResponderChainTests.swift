import EventTime
import ResponderCore
import Testing

/// A responder with a settable next responder that records what reaches it and handles what it is
/// told to handle.
final class Node: Responder {
  let name: String
  var nextNode: Responder?
  var becomes = false
  var resigns = true
  var handles: Set<EventType> = []
  var received: [String] = []

  init(_ name: String, next: Responder? = nil, handles: Set<EventType> = []) {
    self.name = name
    self.nextNode = next
    self.handles = handles
  }

  override var next: Responder? { nextNode }
  override var canBecomeFirstResponder: Bool { becomes }
  override var canResignFirstResponder: Bool { resigns }
  override var responderName: String { name }

  override func remoteControlReceived(with event: Event?) {
    received.append("remote:\(event!.subtype)")
    if !handles.contains(.remoteControl) { super.remoteControlReceived(with: event) }
  }
  override func motionBegan(_ motion: EventSubtype, with event: Event?) {
    received.append("motionBegan")
    if !handles.contains(.motion) { super.motionBegan(motion, with: event) }
  }
  override func motionEnded(_ motion: EventSubtype, with event: Event?) {
    received.append("motionEnded")
    if !handles.contains(.motion) { super.motionEnded(motion, with: event) }
  }
  override func motionCancelled(_ motion: EventSubtype, with event: Event?) {
    received.append("motionCancelled")
    if !handles.contains(.motion) { super.motionCancelled(motion, with: event) }
  }
  override func pressesBegan(_ presses: Set<Press>, with event: Event?) {
    received.append("pressesBegan")
    if !handles.contains(.presses) { super.pressesBegan(presses, with: event) }
  }
  override func pressesChanged(_ presses: Set<Press>, with event: Event?) {
    received.append("pressesChanged")
    if !handles.contains(.presses) { super.pressesChanged(presses, with: event) }
  }
  override func pressesEnded(_ presses: Set<Press>, with event: Event?) {
    received.append("pressesEnded")
    if !handles.contains(.presses) { super.pressesEnded(presses, with: event) }
  }
  override func pressesCancelled(_ presses: Set<Press>, with event: Event?) {
    received.append("pressesCancelled")
    if !handles.contains(.presses) { super.pressesCancelled(presses, with: event) }
  }
}

@Suite struct ResponderChainTests {
  let app = Application(scheduler: VirtualScheduler())

  func records() -> (Application, () -> [DispatchRecord]) {
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    return (app, { records })
  }

  @Test func handledEventStopsAtTheHandler() {
    let (app, records) = records()
    app.beginReceivingRemoteControlEvents()
    let last = Node("last", next: app)
    let middle = Node("middle", next: last, handles: [.remoteControl])
    let first = Node("first", next: middle)
    first.becomes = true
    #expect(first.becomeFirstResponder())
    app.post(.remoteControl(.remoteControlNextTrack, timestamp: 1))
    #expect(first.received == ["remote:nextTrack"])
    #expect(middle.received == ["remote:nextTrack"])
    #expect(last.received.isEmpty)
    #expect(records().count == 1)
    #expect(records()[0].handledBy == "middle")
    #expect(records()[0].receivedBy == ["first", "middle"])
  }

  @Test func unhandledEventIsDroppedAtTheEndAndRecordedAsDropped() {
    let (app, records) = records()
    app.beginReceivingRemoteControlEvents()
    let first = Node("first", next: Node("second", next: app))
    first.becomes = true
    first.becomeFirstResponder()
    app.post(.remoteControl(.remoteControlPlay, timestamp: 2))
    let record = records()[0]
    #expect(record.wasDropped)
    #expect(record.receivedBy == ["first", "second", "application"])
    #expect(record.dropReason == "no responder handled it")
  }

  @Test func remoteControlEventsNeedBeginReceiving() {
    let (app, records) = records()
    let first = Node("first", next: app, handles: [.remoteControl])
    first.becomes = true
    first.becomeFirstResponder()
    app.post(.remoteControl(.remoteControlPlay, timestamp: 0))
    #expect(first.received.isEmpty)
    #expect(records()[0].dropReason == "not receiving remote-control events")
    app.beginReceivingRemoteControlEvents()
    app.post(.remoteControl(.remoteControlPlay, timestamp: 0))
    #expect(records()[1].handledBy == "first")
  }

  @Test func motionAndRemoteControlGoToTheFirstResponderPressesToTheFocusedOne() {
    let (app, records) = records()
    app.beginReceivingRemoteControlEvents()
    let focused = Node("focused", next: app, handles: [.presses])
    let first = Node("first", next: app, handles: [.motion, .remoteControl, .presses])
    first.becomes = true
    first.becomeFirstResponder()
    app.focusedResponder = focused
    app.post(.motion(timestamp: 1))
    app.post(.motion(timestamp: 2), phase: .ended)
    app.post(.remoteControl(.remoteControlTogglePlayPause, timestamp: 3))
    app.post(Event(type: .presses, timestamp: 4, presses: [Press(type: .select, timestamp: 4)]))
    #expect(first.received == ["motionBegan", "motionEnded", "remote:togglePlayPause"])
    #expect(focused.received == ["pressesBegan"])
    #expect(records().map(\.handledBy) == ["first", "first", "first", "focused"])
    #expect(records().map(\.motionPhase) == [.began, .ended, nil, nil])
  }

  /// Seed 003, "Responding to Motion Events": a motion event goes to the first responder first and
  /// is forwarded up the chain as needed, in each of its phases (motionBegan, motionEnded,
  /// motionCancelled: "此方法的默认实现将消息转发到响应者链"); nobody handling it, it is dropped.
  @Test func unhandledMotionTravelsUpTheChainInEveryPhase() {
    let (app, records) = records()
    let last = Node("last", next: app, handles: [.motion])
    let first = Node("first", next: last)
    first.becomes = true
    #expect(first.becomeFirstResponder())
    app.post(.motion(timestamp: 1))
    app.post(.motion(timestamp: 2), phase: .cancelled)
    app.post(.motion(timestamp: 3))
    app.post(.motion(timestamp: 4), phase: .ended)
    let phases = ["motionBegan", "motionCancelled", "motionBegan", "motionEnded"]
    #expect(first.received == phases)
    #expect(last.received == phases)
    #expect(records().map(\.handledBy) == ["last", "last", "last", "last"])
    #expect(records().allSatisfy { $0.receivedBy == ["first", "last"] && $0.subtype == .motionShake })
    #expect(records().map(\.motionPhase) == [.began, .cancelled, .began, .ended])

    last.handles = []
    app.post(.motion(timestamp: 5), phase: .cancelled)
    #expect(records()[4].wasDropped)
    #expect(records()[4].receivedBy == ["first", "last", "application"])
    #expect(records()[4].motionPhase == .cancelled)
  }

  /// Seed 003: "要关闭远程控制事件的传递，请调用 endReceivingRemoteControlEvents 方法": after it, remote
  /// control events reach nobody (and say why); other events are not affected; beginning again
  /// delivers them again.
  @Test func endReceivingRemoteControlEventsStopsTheirDelivery() {
    let (app, records) = records()
    let first = Node("first", next: app, handles: [.remoteControl, .motion])
    first.becomes = true
    first.becomeFirstResponder()
    app.beginReceivingRemoteControlEvents()
    app.post(.remoteControl(.remoteControlPause, timestamp: 1))
    app.endReceivingRemoteControlEvents()
    #expect(!app.isReceivingRemoteControlEvents)
    app.post(.remoteControl(.remoteControlPlay, timestamp: 2))
    app.post(.motion(timestamp: 3))
    #expect(first.received == ["remote:pause", "motionBegan"])
    #expect(records()[1].dropReason == "not receiving remote-control events")
    #expect(records()[1].receivedBy.isEmpty)
    app.beginReceivingRemoteControlEvents()
    app.post(.remoteControl(.remoteControlNextTrack, timestamp: 4))
    #expect(first.received == ["remote:pause", "motionBegan", "remote:nextTrack"])
    #expect(records().map(\.handledBy) == ["first", nil, "first", "first"])
  }

  /// Seed 003, "Responding to Press Events": a press is delivered with the method of its phase
  /// (pressesBegan, pressesChanged, pressesEnded, pressesCancelled), to the responder with focus
  /// (seed 004), and each default implementation forwards it up the chain.
  @Test func pressesAreDeliveredByPhaseAndForwardedUpTheChain() {
    let (app, records) = records()
    let container = Node("container", next: app, handles: [.presses])
    let focused = Node("focused", next: container)
    app.focusedResponder = focused
    for (time, phase) in [(1.0, PressPhase.began), (2, .changed), (3, .ended), (4, .cancelled)] {
      let press = Press(type: .select, phase: phase, timestamp: Seconds(time))
      app.post(Event(type: .presses, timestamp: Seconds(time), presses: [press]))
    }
    let methods = ["pressesBegan", "pressesChanged", "pressesEnded", "pressesCancelled"]
    #expect(focused.received == methods)
    #expect(container.received == methods)
    #expect(
      records().allSatisfy { $0.receivedBy == ["focused", "container"] && $0.handledBy == "container" })
  }

  /// Seed 003, UIResponder reference: canBecomeFirstResponder is NO by default,
  /// canResignFirstResponder YES, and UIResponder stores no next responder (nil by default).
  @Test func aPlainResponderCannotBecomeFirstResponderMayResignAndHasNoNext() {
    let responder = Responder()
    #expect(!responder.canBecomeFirstResponder)
    #expect(responder.canResignFirstResponder)
    #expect(responder.next == nil)
    #expect(!responder.becomeFirstResponder())
    #expect(!responder.isFirstResponder)
  }

  @Test func withoutFirstResponderEventsStartAtTheKeyWindowOrAreDropped() {
    let (app, records) = records()
    app.beginReceivingRemoteControlEvents()
    app.post(.motion(timestamp: 1))
    #expect(records()[0].dropReason == "no first responder")
    let key = Node("key", next: app, handles: [.motion])
    app.keyWindow = key
    app.post(.motion(timestamp: 2))
    #expect(records()[1].handledBy == "key")
  }

  @Test func becomeFirstResponderIsRefusedWhenTheResponderCannotBecomeOne() {
    let node = Node("n", next: app)
    #expect(!node.becomeFirstResponder())
    #expect(app.firstResponder == nil)
    #expect(!node.isFirstResponder)
  }

  @Test func becomeFirstResponderIsRefusedWithoutAnApplication() {
    let orphan = Node("orphan")
    orphan.becomes = true
    #expect(!orphan.becomeFirstResponder())
  }

  @Test func becomingFirstResponderAsksTheCurrentOneToResign() {
    let a = Node("a", next: app)
    let b = Node("b", next: app)
    a.becomes = true
    b.becomes = true
    #expect(a.becomeFirstResponder())
    #expect(a.isFirstResponder)
    a.resigns = false
    #expect(!b.becomeFirstResponder())
    #expect(a.isFirstResponder && !b.isFirstResponder)
    a.resigns = true
    #expect(b.becomeFirstResponder())
    #expect(b.isFirstResponder && !a.isFirstResponder)
  }

  @Test func resignFirstResponderIsRefusedWhenItCannotResign() {
    let a = Node("a", next: app)
    a.becomes = true
    a.becomeFirstResponder()
    a.resigns = false
    #expect(!a.resignFirstResponder())
    #expect(a.isFirstResponder)
    a.resigns = true
    #expect(a.resignFirstResponder())
    #expect(app.firstResponder == nil)
  }

  @Test func firstResponderObserversHearChanges() {
    var seen: [String?] = []
    app.addFirstResponderObserver { seen.append($0?.responderName) }
    let a = Node("a", next: app)
    a.becomes = true
    a.becomeFirstResponder()
    a.resignFirstResponder()
    #expect(seen == ["a", nil])
  }
}

@Suite struct ApplicationDelegateTests {
  final class Delegate: Responder {
    var got = 0
    override func remoteControlReceived(with event: Event?) { got += 1 }
    override var responderName: String { "delegate" }
  }
  final class ViewLikeDelegate: Responder {
    override var isPartOfViewHierarchy: Bool { true }
  }

  @Test func applicationForwardsToItsDelegateWhenItIsAResponderOutsideTheChain() {
    let app = Application(scheduler: VirtualScheduler())
    app.beginReceivingRemoteControlEvents()
    let delegate = Delegate()
    app.delegate = delegate
    #expect(app.next === delegate)
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    app.keyWindow = app
    app.post(.remoteControl(.remoteControlStop, timestamp: 0))
    #expect(delegate.got == 1)
    #expect(records[0].handledBy == "delegate")
  }

  @Test func delegateThatIsNotAResponderOrAlreadyInTheChainIsNotNext() {
    let app = Application(scheduler: VirtualScheduler())
    final class Plain {}
    let plain = Plain()
    app.delegate = plain
    #expect(app.next == nil)
    let viewLike = ViewLikeDelegate()
    app.delegate = viewLike
    #expect(app.next == nil)
    app.delegate = app
    #expect(app.next == nil)
  }
}

@Suite struct TargetActionTests {
  @Test func nilTargetActionWalksTheChainFromTheFirstResponder() {
    let app = Application(scheduler: VirtualScheduler())
    let window = Node("window", next: app)
    let container = Node("container", next: window)
    let field = Node("field", next: container)
    field.becomes = true
    field.becomeFirstResponder()
    var performed: [String] = []
    container.registerAction("copy") { _, _ in performed.append("container copy") }
    window.registerAction("paste") { _, _ in performed.append("window paste") }
    #expect(app.sendAction("copy", to: nil, from: nil, for: nil))
    #expect(app.sendAction("paste", to: nil, from: nil, for: nil))
    #expect(!app.sendAction("cut", to: nil, from: nil, for: nil))
    #expect(performed == ["container copy", "window paste"])
    #expect(field.target(forAction: "copy", withSender: nil) === container)
    #expect(field.target(forAction: "cut", withSender: nil) == nil)
  }

  @Test func applicationAndDelegateAreTheLastTargets() {
    let app = Application(scheduler: VirtualScheduler())
    let delegate = Responder()
    app.delegate = delegate
    var hits = 0
    delegate.registerAction("save") { _, _ in hits += 1 }
    let field = Node("field", next: app)
    field.becomes = true
    field.becomeFirstResponder()
    #expect(app.sendAction("save", to: nil, from: nil, for: nil))
    #expect(hits == 1)
  }

  @Test func explicitTargetGetsTheActionDirectly() {
    let app = Application(scheduler: VirtualScheduler())
    let target = Responder()
    var sender: String?
    target.registerAction("go") { s, _ in sender = s as? String }
    #expect(app.sendAction("go", to: target, from: nil, for: nil))
    #expect(sender == nil)
    #expect(!app.sendAction("other", to: target, from: nil, for: nil))
  }
}

@Suite struct DeferredDecisionTests {
  /// A responder that answers later, like an application over D-Bus.
  final class Asker: Responder {
    var pending: [PendingDecision] = []
    let nextNode: Responder
    init(next: Responder) { nextNode = next }
    override var next: Responder? { nextNode }
    override var responderName: String { "asker" }
    override func remoteControlReceived(with event: Event?) {
      pending.append(deferDecision(on: event!))
    }
  }

  @Test func eventsWaitInOrderWhileAResponderDecides() {
    let app = Application(scheduler: VirtualScheduler())
    app.beginReceivingRemoteControlEvents()
    let tail = Node("tail", next: app, handles: [.remoteControl])
    let asker = Asker(next: tail)
    app.keyWindow = asker
    var records: [DispatchRecord] = []
    app.addDispatchObserver { records.append($0) }
    app.post(.remoteControl(.remoteControlPlay, timestamp: 1))
    app.post(.remoteControl(.remoteControlPause, timestamp: 2))
    #expect(asker.pending.count == 1)
    #expect(app.pendingEventCount == 1)
    #expect(records.isEmpty)
    asker.pending[0].resolve(handled: false)
    #expect(tail.received == ["remote:play"])
    #expect(records.map(\.handledBy) == ["tail"])
    #expect(asker.pending.count == 2)
    asker.pending[1].resolve(handled: true)
    asker.pending[1].resolve(handled: false)
    #expect(records.map(\.handledBy) == ["tail", "asker"])
    #expect(tail.received == ["remote:play"])
    #expect(app.pendingEventCount == 0)
  }
}
