import EventTime
import ResponderCore

/// The responder method a window delivered touches with.
public enum TouchMethod: String, Sendable, CaseIterable {
  case touchesBegan, touchesMoved, touchesEnded, touchesCancelled
}

/// One delivery of touches to a view, as the window made it (for tools, tests and logs).
public struct TouchDelivery {
  public var method: TouchMethod
  public var view: View
  /// The touches, in the order they first appeared.
  public var touches: [Touch]
  public var event: Event
}

/// The root of a view hierarchy, as UIWindow: it hit-tests new touches, gives every touch to the
/// gesture recognizers of its view and the view's ancestors first, then to the view, holding back
/// or cancelling what the recognizers' `delaysTouchesBegan`, `delaysTouchesEnded` and
/// `cancelsTouchesInView` say. Its next responder is the application.
///
/// Window coordinates are the window's own (bounds) coordinates; its frame is in screen
/// coordinates.
open class Window: View, EventWindow {
  final class TouchRecord {
    let touch: Touch
    let order: Int
    let sequence: Int
    let event: Event
    let view: View?
    /// The view does not get this touch (it takes one touch at a time and has one already).
    var suppressed = false
    var beganDelivered = false
    var beganWithheld = false
    var endWithheld = false
    var captured = false
    /// The view got its last message for this touch, or will get none.
    var done = false
    /// The touch alone, as the recognizers that get only this touch in a frame receive it (made
    /// once for all of them).
    var alone: Set<Touch> {
      if let aloneStorage { return aloneStorage }
      // Made with room for one and filled, which takes no array in between (a literal does).
      var set = Set<Touch>(minimumCapacity: 1)
      set.insert(touch)
      aloneStorage = set
      return set
    }
    private var aloneStorage: Set<Touch>?

    /// Gives the record its set of the touch alone, made from an emptied one (no allocation).
    func setAlone(from spare: inout Set<Touch>) {
      spare.insert(touch)
      var set: Set<Touch>? = spare
      swap(&set, &aloneStorage)
    }

    /// The set of the touch alone, if it was made, taken away from the record.
    func takeAlone() -> Set<Touch>? {
      var set: Set<Touch>? = nil
      swap(&set, &aloneStorage)
      return set
    }

    init(touch: Touch, order: Int, sequence: Int, event: Event, view: View?) {
      self.touch = touch
      self.order = order
      self.sequence = sequence
      self.event = event
      self.view = view
    }
  }

  private let hostApplication: Application?
  /// The clock and timers of the window's gesture recognizers.
  public let scheduler: any Scheduler
  /// The window's gesture recognizers engaged in gestures, and the rules between them.
  var arena: GestureArena { arenaStorage! }
  /// Set once, as the window is made (swapped in: see OutOfPlace.swift).
  private var arenaStorage: GestureArena?
  /// The records of the touches the window tracks, in touch order (a handful: searched in order,
  /// which costs less than hashing).
  private var recordList: [TouchRecord] = []
  /// Sorts each frame's touches out for the recognizers.
  private let delivery = FrameDelivery()
  private var nextOrder = 0
  private var sequence = 0
  /// Set while recognizers get a frame's touches: touches released then are delivered with the
  /// frame's own, in the same messages.
  private var collectingReleases = false
  private var releasePending = false
  /// Set while `sendEvent` delivers a frame (which forgets the records of finished touches at its end).
  private var deliveringFrame = false
  /// Emptied sets of a touch alone, from records forgotten, for new records to reuse: making a
  /// set allocates its storage and looks its type up at run time, which costs more than the rest
  /// of giving a touch to a recognizer.
  private var spareSingletons: [Set<Touch>] = []
  private var gestureObservers: [(GestureObservation) -> Void] = []
  private var deliveryObservers: [(TouchDelivery) -> Void] = []

  /// A window of `application` (its next responder), on the application's scheduler.
  public init(frame: Rect, application: Application) {
    hostApplication = application
    scheduler = application.scheduler
    super.init(frame: frame)
    var arena: GestureArena? = GestureArena(window: self)
    swap(&arena, &arenaStorage)
  }

  /// A window with no application (the end of its responder chain), on `scheduler`.
  public init(frame: Rect, scheduler: any Scheduler) {
    hostApplication = nil
    self.scheduler = scheduler
    super.init(frame: frame)
    var arena: GestureArena? = GestureArena(window: self)
    swap(&arena, &arenaStorage)
  }

  deinit {
    arenaStorage?.detach()
  }

  /// The controller whose view fills the window; its next responder is the window.
  public var rootViewController: ViewController? {
    get { rootViewControllerStorage }
    set {
      let oldValue = rootViewControllerStorage
      rootViewControllerStorage = newValue
      guard oldValue !== newValue else { return }
      if let old = oldValue, old.isViewLoaded, old.view.superview === self { old.view.removeFromSuperview() }
      if let controller = newValue {
        controller.view.frame = bounds
        insertSubview(controller.view, at: 0)
      }
    }
  }
  private var rootViewControllerStorage: ViewController?

  open override var next: Responder? { hostApplication }

  open override var application: Application? { hostApplication }

  /// Makes this window the application's key window (where motion and remote-control events go
  /// when there is no first responder).
  public func makeKey() {
    hostApplication?.keyWindow = self
  }

  /// Calls `observer` for every recognizer state change and action sent in this window.
  public func addGestureObserver(_ observer: @escaping (GestureObservation) -> Void) {
    var list = gestureObservers.takeOut()
    list.append(observer)
    gestureObservers.putBack(&list)
  }

  /// Calls `observer` for every delivery of touches to a view, before the view gets it.
  public func addDeliveryObserver(_ observer: @escaping (TouchDelivery) -> Void) {
    var list = deliveryObservers.takeOut()
    list.append(observer)
    deliveryObservers.putBack(&list)
  }

  /// Whether someone observes recognizers (observations are only made then).
  var hasGestureObservers: Bool { !gestureObservers.isEmpty }

  func notify(_ observation: GestureObservation) {
    for observer in gestureObservers { observer(observation) }
  }

  /// Whether some touch of this window is on the surface.
  public var isTrackingTouches: Bool {
    recordList.contains { !$0.touch.phase.isFinal }
  }

  // MARK: Event delivery

  /// Delivers the touches of `event` that belong to this window: new touches are hit-tested and
  /// fixed to their view; recognizers get them first, then the views. Another event (motion, remote
  /// control, presses) goes to the window's first responder and up the chain from there.
  open func sendEvent(_ event: Event) {
    guard event.type == .touches else {
      sendToFirstResponder(event)
      return
    }
    deliveringFrame = true
    defer { deliveringFrame = false }
    var mine: [Touch] = []
    mine.reserveCapacity(event.allTouches.count)
    for touch in event.allTouches where touch.happened(in: self) { mine.append(touch) }
    mine.sort { $0.identifier < $1.identifier }
    var newSequence = !isTrackingTouches
    for touch in mine where touch.phase == .began && record(of: touch) == nil {
      if newSequence {
        sequence += 1
        newSequence = false
      }
      beginTracking(touch, event: event)
    }
    var frame: [TouchRecord] = []
    frame.reserveCapacity(mine.count)
    for touch in mine where touch.phase != .stationary {
      if let record = record(of: touch) { frame.append(record) }
    }
    frame.sort { $0.order < $1.order }

    let touchesEnded = frame.contains { $0.touch.phase.isFinal }
    if touchesEnded { arena.touchesEnding() }
    collectingReleases = true
    deliverToRecognizers(frame, event: event)
    collectingReleases = false
    deliverToViews(frame)
    arena.endOfFrame(touchesEnded: touchesEnded)
    removeFinishedRecords(touchesEnded: touchesEnded)
  }

  /// Seed 003: a window sends touches to their views and other events to the most appropriate
  /// target: the application's first responder (for presses, first its focused responder) when it
  /// is in this window, else the window itself.
  private func sendToFirstResponder(_ event: Event) {
    var start: Responder = self
    if let app = hostApplication {
      let candidates =
        event.type == .presses ? [app.focusedResponder, app.firstResponder] : [app.firstResponder]
      for case let candidate? in candidates where Self.view(of: candidate)?.window === self {
        start = candidate
        break
      }
      app.sendEvent(event, startingAt: start)
    } else {
      start.receive(event)
    }
  }

  /// The view `responder` stands for in a view hierarchy: itself, or a controller's loaded view.
  private static func view(of responder: Responder) -> View? {
    if let view = responder as? View { return view }
    if let controller = responder as? ViewController, controller.isViewLoaded { return controller.view }
    return nil
  }

  private func beginTracking(_ touch: Touch, event: Event) {
    var view = hitTest(touch.locationInWindow, with: event)
    // One look at the touches on the surface: an exclusive-touch view on either side keeps the
    // new touch from any view; a view taking one touch at a time that has one does not get it.
    var suppressed = false
    if let hit = view {
      let hitIsExclusive = hit.isExclusiveTouch
      let oneAtATime = !hit.isMultipleTouchEnabled
      for other in recordList {
        // What is needed of the record's view is read before its touch's phase (a call into
        // another module, across which the record and its view would have to be retained).
        guard let otherView = other.view else { continue }
        let sameView = otherView === hit
        let otherIsExclusive = otherView.isExclusiveTouch
        let otherSuppressed = other.suppressed
        guard !other.touch.phase.isFinal else { continue }
        if !sameView {
          if hitIsExclusive || otherIsExclusive {
            view = nil
            suppressed = false
            break
          }
        } else if oneAtATime && !otherSuppressed {
          suppressed = true
        }
      }
    }
    touch.assignView(view)
    let record = TouchRecord(touch: touch, order: nextOrder, sequence: sequence, event: event, view: view)
    record.suppressed = suppressed
    if !spareSingletons.isEmpty {
      var spares = spareSingletons.takeOut()
      var spare = spares.removeLast()
      spareSingletons.putBack(&spares)
      record.setAlone(from: &spare)
    }
    nextOrder += 1
    var list = recordList.takeOut()
    list.append(record)
    recordList.putBack(&list)
    guard let view else {
      touch.removeAllGestureRecognizers()
      return
    }
    touch.removeAllGestureRecognizers()
    let arena = self.arena
    var current: View? = view
    while let candidate = current {
      for recognizer in candidate.gestureRecognizers where arena.accepts(recognizer) {
        let delegate = recognizer.delegate
        if let delegate, !delegate.gestureRecognizer(recognizer, shouldReceive: touch) { continue }
        touch.addGestureRecognizer(recognizer)
        arena.engage(recognizer, with: touch, hasDelegate: delegate != nil)
      }
      current = candidate.superview
    }
  }

  private func deliverToRecognizers(_ frame: [TouchRecord], event: Event) {
    let orderMayDiffer = delivery.sort(frame, relations: arena.relationsPossible)
    guard !delivery.recognizers.isEmpty else { return }
    let order = orderMayDiffer ? arena.deliveryOrder(of: delivery) : nil
    delivery.deliver(frame, with: event, order: order, arena: arena)
    delivery.clear()
  }

  /// For a new touch, in one look at its recognizers: whether one already under way that cancels
  /// its view's touches keeps it (a second finger during a pan never reaches the view), and
  /// whether one delays touches began.
  private func beganDisposition(_ record: TouchRecord) -> (taken: Bool, delayed: Bool) {
    var delayed = false
    for item in record.touch.gestureRecognizers {
      guard let recognizer = item as? GestureRecognizer else { continue }
      switch recognizer.storedState {
      case .began, .changed:
        if recognizer.cancelsTouchesInView { return (true, false) }
      case .possible:
        if recognizer.delaysTouchesBegan && recognizer.isEngaged { delayed = true }
      default:
        break
      }
    }
    return (false, delayed)
  }

  private func delaysBegan(_ record: TouchRecord) -> Bool {
    record.touch.gestureRecognizers.contains { item in
      guard let recognizer = item as? GestureRecognizer else { return false }
      return recognizer.delaysTouchesBegan && recognizer.storedState == .possible && recognizer.isEngaged
    }
  }

  private func delaysEnded(_ record: TouchRecord) -> Bool {
    record.touch.gestureRecognizers.contains { item in
      guard let recognizer = item as? GestureRecognizer else { return false }
      return recognizer.delaysTouchesEnded && recognizer.storedState == .possible && recognizer.isEngaged
    }
  }

  private func deliverToViews(_ frame: [TouchRecord]) {
    var released: [TouchPhase: DeliveryBatch] = [:]
    if releasePending {
      releasePending = false
      released = collectReleasedTouches()
    }
    // The phases the frame's touches are in (a touch-down frame's are all began): the others are
    // not looked for. Looked at again after the views ran (they may set a touch's phase).
    var phases = Self.phases(of: frame)
    for phase in [TouchPhase.began, .moved, .ended, .cancelled] {
      var batch = released[phase] ?? DeliveryBatch()
      if phases & (1 << UInt8(phase.rawValue)) == 0 {
        if !batch.groups.isEmpty {
          deliver(batch, with: phase.method)
          phases = Self.phases(of: frame)
        }
        continue
      }
      for record in frame where record.touch.phase == phase {
        guard let view = record.view, !record.suppressed, !record.done, !record.captured else { continue }
        switch phase {
        case .began:
          let disposition = beganDisposition(record)
          if disposition.taken {
            record.captured = true
            record.done = true
          } else if disposition.delayed {
            record.beganWithheld = true
          } else {
            record.beganDelivered = true
            batch.add(record, to: view)
          }
        case .moved:
          if record.beganDelivered {
            batch.add(record, to: view)
          }
        case .ended:
          if record.beganWithheld || (record.beganDelivered && delaysEnded(record)) {
            record.endWithheld = true
          } else if record.beganDelivered {
            record.done = true
            batch.add(record, to: view)
          }
        default:
          if record.beganDelivered {
            batch.add(record, to: view)
          }
          record.done = true
          record.beganWithheld = false
          record.endWithheld = false
        }
      }
      if !batch.groups.isEmpty {
        deliver(batch, with: phase.method)
        phases = Self.phases(of: frame)
      }
    }
  }

  /// The phases of the touches of `frame`, one bit each (`1 << rawValue`).
  private static func phases(of frame: [TouchRecord]) -> UInt8 {
    var phases: UInt8 = 0
    for record in frame { phases |= 1 << UInt8(record.touch.phase.rawValue) }
    return phases
  }

  /// Marks touches as taken by a recognizer: their views get no more of them.
  func capture(_ touches: [Touch]) {
    for touch in touches { record(of: touch)?.captured = true }
  }

  /// Sends touchesCancelled for captured touches the views had begun.
  func deliverCapturedCancellations() {
    cancelRecords { $0.captured }
  }

  /// Delivers held-back touches no recognizer holds any longer (with the frame's own touches when
  /// this happens while recognizers get a frame).
  func releaseWithheldTouches() {
    guard recordList.contains(where: { $0.beganWithheld || $0.endWithheld }) else { return }
    if collectingReleases {
      releasePending = true
      return
    }
    let batches = collectReleasedTouches()
    for phase in [TouchPhase.began, .ended, .cancelled] {
      guard let batch = batches[phase] else { continue }
      deliver(
        batch, with: phase == .began ? .touchesBegan : phase == .ended ? .touchesEnded : .touchesCancelled)
    }
    forgetFinishedTouchesBetweenFrames()
  }

  /// Released or cancelled by a timer, after the last frame: the records of the touches that ended
  /// go now, not at the next frame (a record holds its touch, and the touch holds this window).
  private func forgetFinishedTouchesBetweenFrames() {
    if !deliveringFrame { removeFinishedRecords(touchesEnded: true) }
  }

  private func collectReleasedTouches() -> [TouchPhase: DeliveryBatch] {
    var began = DeliveryBatch()
    var ended = DeliveryBatch()
    var cancelled = DeliveryBatch()
    for record in recordList where !record.captured && !record.done {
      guard let view = record.view, record.beganWithheld || record.endWithheld else { continue }
      if record.beganWithheld && !delaysBegan(record) {
        record.beganWithheld = false
        record.beganDelivered = true
        began.add(record, to: view)
      }
      if record.endWithheld && !record.beganWithheld && !delaysEnded(record) {
        record.endWithheld = false
        record.done = true
        if record.touch.phase == .cancelled {
          cancelled.add(record, to: view)
        } else {
          ended.add(record, to: view)
        }
      }
    }
    return [.began: began, .ended: ended, .cancelled: cancelled]
  }

  /// Cancels the touches delivered to `view` or its subviews (the view left its superview); when
  /// it leaves the window, the responders it takes with it stop being first responder, and a shake
  /// that began at one of them is cancelled there (seed 003).
  func viewWasRemoved(_ view: View, staysInWindow: Bool) {
    cancelRecords { $0.view?.isDescendant(of: view) == true }
    guard !staysInWindow else { return }
    hostApplication?.respondersLeftWindow { Self.view(of: $0)?.isDescendant(of: view) == true }
  }

  /// Ends the open touches `selected` picks: those their views had begun (and not suppressed) get
  /// touchesCancelled, together, in touch order. While their views hear of it the touches have
  /// phase cancelled (seed 003: a touch found to be part of a gesture is forced to cancelled);
  /// then they get their own phase back, for the recognizer that took them still follows them.
  /// Their `view` stays (seed 004: the view is the one property of a touch that never changes).
  private func cancelRecords(where selected: (TouchRecord) -> Bool) {
    var batch = DeliveryBatch()
    var phases: [(touch: Touch, phase: TouchPhase)] = []
    for record in recordList where !record.done && selected(record) {
      if record.beganDelivered, let view = record.view, !record.suppressed {
        batch.add(record, to: view)
        phases.append((record.touch, record.touch.phase))
        record.touch.phase = .cancelled
      }
      record.done = true
      record.beganWithheld = false
      record.endWithheld = false
    }
    defer { forgetFinishedTouchesBetweenFrames() }
    guard !phases.isEmpty else { return }
    deliver(batch, with: .touchesCancelled)
    for (touch, phase) in phases { touch.phase = phase }
  }

  private func record(of touch: Touch) -> TouchRecord? {
    recordList.first { $0.touch === touch }
  }

  private func removeFinishedRecords(touchesEnded: Bool) {
    guard touchesEnded, !recordList.isEmpty else { return }
    var list = recordList.takeOut()
    var spares = spareSingletons.takeOut()
    list.removeAll { record in
      guard record.touch.phase.isFinal && !record.beganWithheld && !record.endWithheld else { return false }
      // Its set of the touch alone is kept, emptied, for a new record (a set someone else still
      // holds is left to them: emptying it makes a new one).
      if spares.count < 16, var set = record.takeAlone() {
        set.removeAll(keepingCapacity: true)
        spares.append(set)
      }
      return true
    }
    spareSingletons.putBack(&spares)
    recordList.putBack(&list)
  }

  private func deliver(_ batch: DeliveryBatch, with method: TouchMethod) {
    // By index, each group's fields read in place: a group copied out retains all it holds.
    let groups = batch.groups
    for index in groups.indices {
      if !deliveryObservers.isEmpty {
        let group = groups[index]
        let delivery = TouchDelivery(
          method: method, view: group.view, touches: group.touches, event: group.first.event)
        for observer in deliveryObservers { observer(delivery) }
      }
      let view = groups[index].view
      let first = groups[index].first
      let touches = groups[index].more.isEmpty ? first.alone : Set(groups[index].touches)
      let event = first.event
      switch method {
      case .touchesBegan: view.touchesBegan(touches, with: event)
      case .touchesMoved: view.touchesMoved(touches, with: event)
      case .touchesEnded: view.touchesEnded(touches, with: event)
      case .touchesCancelled: view.touchesCancelled(touches, with: event)
      }
    }
  }
}

extension TouchPhase {
  /// The responder method that delivers touches in this phase (stationary ones are not).
  fileprivate var method: TouchMethod {
    switch self {
    case .began: .touchesBegan
    case .moved: .touchesMoved
    case .ended: .touchesEnded
    default: .touchesCancelled
    }
  }
}

/// Touches to deliver, grouped by sequence and view in the order they were added.
private struct DeliveryBatch {
  struct Group {
    var view: View
    /// The first touch's record (a group has one touch, most of the time) and the others'.
    var first: Window.TouchRecord
    var more: [Window.TouchRecord] = []
    /// The view's identity and the touches' sequence, which tell groups apart.
    let key: ObjectIdentifier
    let sequence: Int

    init(view: View, first: Window.TouchRecord) {
      self.view = view
      self.first = first
      key = ObjectIdentifier(view)
      sequence = first.sequence
    }

    var touches: [Touch] { [first.touch] + more.map(\.touch) }
  }
  var groups: [Group] = []

  mutating func add(_ record: Window.TouchRecord, to view: View) {
    // Searched by index, reading two plain fields of each group: a group copied out (as a
    // closure given each one gets it) retains the references it holds.
    let key = ObjectIdentifier(view)
    let sequence = record.sequence
    var index = 0
    while index < groups.count {
      if groups[index].key == key && groups[index].sequence == sequence {
        groups[index].more.append(record)
        return
      }
      index += 1
    }
    if groups.isEmpty { groups.reserveCapacity(16) }
    groups.append(Group(view: view, first: record))
  }
}
