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
  private final class TouchRecord {
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
  lazy var arena = GestureArena(window: self)
  private var records: [ObjectIdentifier: TouchRecord] = [:]
  private var nextOrder = 0
  private var sequence = 0
  /// Set while recognizers get a frame's touches: touches released then are delivered with the
  /// frame's own, in the same messages.
  private var collectingReleases = false
  private var releasePending = false
  private var gestureObservers: [(GestureObservation) -> Void] = []
  private var deliveryObservers: [(TouchDelivery) -> Void] = []

  /// A window of `application` (its next responder), on the application's scheduler.
  public init(frame: Rect, application: Application) {
    hostApplication = application
    scheduler = application.scheduler
    super.init(frame: frame)
  }

  /// A window with no application (the end of its responder chain), on `scheduler`.
  public init(frame: Rect, scheduler: any Scheduler) {
    hostApplication = nil
    self.scheduler = scheduler
    super.init(frame: frame)
  }

  /// The controller whose view fills the window; its next responder is the window.
  public var rootViewController: ViewController? {
    didSet {
      guard oldValue !== rootViewController else { return }
      if let old = oldValue, old.isViewLoaded, old.view.superview === self { old.view.removeFromSuperview() }
      if let controller = rootViewController {
        controller.view.frame = bounds
        insertSubview(controller.view, at: 0)
      }
    }
  }

  open override var next: Responder? { hostApplication }

  open override var application: Application? { hostApplication }

  /// Makes this window the application's key window (where motion and remote-control events go
  /// when there is no first responder).
  public func makeKey() {
    hostApplication?.keyWindow = self
  }

  /// Calls `observer` for every recognizer state change and action sent in this window.
  public func addGestureObserver(_ observer: @escaping (GestureObservation) -> Void) {
    gestureObservers.append(observer)
  }

  /// Calls `observer` for every delivery of touches to a view, before the view gets it.
  public func addDeliveryObserver(_ observer: @escaping (TouchDelivery) -> Void) {
    deliveryObservers.append(observer)
  }

  func notify(_ observation: GestureObservation) {
    for observer in gestureObservers { observer(observation) }
  }

  /// Whether some touch of this window is on the surface.
  public var isTrackingTouches: Bool {
    records.values.contains { !$0.touch.phase.isFinal }
  }

  // MARK: Event delivery

  /// Delivers the touches of `event` that belong to this window: new touches are hit-tested and
  /// fixed to their view; recognizers get them first, then the views.
  open func sendEvent(_ event: Event) {
    guard event.type == .touches else { return }
    var mine: [Touch] = []
    for touch in event.allTouches where touch.window === self { mine.append(touch) }
    mine.sort { $0.identifier < $1.identifier }
    for touch in mine where touch.phase == .began && records[ObjectIdentifier(touch)] == nil {
      beginTracking(touch, event: event)
    }
    var frame: [TouchRecord] = []
    for touch in mine where touch.phase != .stationary {
      if let record = records[ObjectIdentifier(touch)] { frame.append(record) }
    }
    frame.sort { $0.order < $1.order }

    collectingReleases = true
    deliverToRecognizers(frame, event: event)
    collectingReleases = false
    deliverToViews(frame)
    arena.endOfFrame(touchesEnded: frame.contains { $0.touch.phase.isFinal })
    removeFinishedRecords()
  }

  private func beginTracking(_ touch: Touch, event: Event) {
    if !isTrackingTouches { sequence += 1 }
    var view = hitTest(touch.locationInWindow, with: event)
    if let hit = view {
      for record in records.values where !record.touch.phase.isFinal {
        guard let other = record.view, other !== hit else { continue }
        if hit.isExclusiveTouch || other.isExclusiveTouch {
          view = nil
          break
        }
      }
    }
    touch.assignView(view)
    let record = TouchRecord(touch: touch, order: nextOrder, sequence: sequence, event: event, view: view)
    nextOrder += 1
    records[ObjectIdentifier(touch)] = record
    guard let view else {
      touch.gestureRecognizers = []
      return
    }
    if !view.isMultipleTouchEnabled {
      record.suppressed = records.values.contains { other in
        other !== record && other.view === view && !other.suppressed && !other.touch.phase.isFinal
      }
    }
    var recognizers: [GestureRecognizer] = []
    var current: View? = view
    while let candidate = current {
      for recognizer in candidate.gestureRecognizers where arena.accepts(recognizer) {
        if let delegate = recognizer.delegate, !delegate.gestureRecognizer(recognizer, shouldReceive: touch) {
          continue
        }
        recognizers.append(recognizer)
      }
      current = candidate.superview
    }
    touch.gestureRecognizers = recognizers
    for recognizer in recognizers { arena.engage(recognizer, with: touch) }
  }

  private func deliverToRecognizers(_ frame: [TouchRecord], event: Event) {
    // One pass over the frame: each recognizer still taking touches, with its touches by phase.
    var recognizers: [GestureRecognizer] = []
    var buckets: [ObjectIdentifier: Int] = [:]
    var phases: [[Set<Touch>]] = []
    for record in frame {
      let touch = record.touch
      let slot: Int
      switch touch.phase {
      case .began: slot = 0
      case .moved: slot = 1
      case .ended: slot = 2
      default: slot = 3
      }
      for item in touch.gestureRecognizers {
        guard let recognizer = item as? GestureRecognizer else { continue }
        switch recognizer.storedState {
        case .possible, .began, .changed: break
        default: continue
        }
        let id = ObjectIdentifier(recognizer)
        let index: Int
        if let known = buckets[id] {
          index = known
        } else {
          index = recognizers.count
          buckets[id] = index
          recognizers.append(recognizer)
          phases.append([[], [], [], []])
        }
        phases[index][slot].insert(touch)
      }
    }
    guard !recognizers.isEmpty else { return }
    let ordered = arena.deliveryOrder(recognizers)
    for recognizer in ordered {
      let sets = phases[buckets[ObjectIdentifier(recognizer)]!]
      for slot in 0..<4 where !sets[slot].isEmpty {
        switch recognizer.storedState {
        case .possible, .began, .changed: break
        default: continue
        }
        // A touch the recognizer ignored meanwhile is not given to it.
        let tracked = recognizer.trackedTouches
        var touches = sets[slot]
        if touches.count != tracked.count || !touches.allSatisfy({ t in tracked.contains { $0 === t } }) {
          touches = touches.filter { t in tracked.contains { $0 === t } }
          if touches.isEmpty { continue }
        }
        arena.run {
          switch slot {
          case 0: recognizer.touchesBegan(touches, with: event)
          case 1: recognizer.touchesMoved(touches, with: event)
          case 2: recognizer.touchesEnded(touches, with: event)
          default: recognizer.touchesCancelled(touches, with: event)
          }
        }
      }
    }
  }

  /// A new touch kept by a recognizer already under way that cancels its view's touches (a second
  /// finger during a pan) never reaches the view.
  private func takenByActiveRecognizer(_ record: TouchRecord) -> Bool {
    record.touch.gestureRecognizers.contains { item in
      guard let recognizer = item as? GestureRecognizer else { return false }
      return recognizer.cancelsTouchesInView
        && (recognizer.storedState == .began || recognizer.storedState == .changed)
    }
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
    for phase in [TouchPhase.began, .moved, .ended, .cancelled] {
      var batch = released[phase] ?? DeliveryBatch()
      for record in frame where record.touch.phase == phase {
        guard let view = record.view, !record.suppressed, !record.done, !record.captured else { continue }
        switch phase {
        case .began:
          if takenByActiveRecognizer(record) {
            record.captured = true
            record.done = true
          } else if delaysBegan(record) {
            record.beganWithheld = true
          } else {
            record.beganDelivered = true
            batch.add(record.touch, to: view, sequence: record.sequence, event: record.event)
          }
        case .moved:
          if record.beganDelivered {
            batch.add(record.touch, to: view, sequence: record.sequence, event: record.event)
          }
        case .ended:
          if record.beganWithheld || (record.beganDelivered && delaysEnded(record)) {
            record.endWithheld = true
          } else if record.beganDelivered {
            record.done = true
            batch.add(record.touch, to: view, sequence: record.sequence, event: record.event)
          }
        default:
          if record.beganDelivered {
            batch.add(record.touch, to: view, sequence: record.sequence, event: record.event)
          }
          record.done = true
          record.beganWithheld = false
          record.endWithheld = false
        }
      }
      let method: TouchMethod =
        switch phase {
        case .began: .touchesBegan
        case .moved: .touchesMoved
        case .ended: .touchesEnded
        default: .touchesCancelled
        }
      deliver(batch, with: method)
    }
  }

  /// Marks touches as taken by a recognizer: their views get no more of them.
  func capture(_ touches: [Touch]) {
    for touch in touches { records[ObjectIdentifier(touch)]?.captured = true }
  }

  /// Sends touchesCancelled for captured touches the views had begun.
  func deliverCapturedCancellations() {
    cancelRecords { $0.captured }
  }

  /// Delivers held-back touches no recognizer holds any longer (with the frame's own touches when
  /// this happens while recognizers get a frame).
  func releaseWithheldTouches() {
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
  }

  private func collectReleasedTouches() -> [TouchPhase: DeliveryBatch] {
    var began = DeliveryBatch()
    var ended = DeliveryBatch()
    var cancelled = DeliveryBatch()
    for record in orderedRecords() where !record.captured && !record.done {
      guard let view = record.view, record.beganWithheld || record.endWithheld else { continue }
      if record.beganWithheld && !delaysBegan(record) {
        record.beganWithheld = false
        record.beganDelivered = true
        began.add(record.touch, to: view, sequence: record.sequence, event: record.event)
      }
      if record.endWithheld && !record.beganWithheld && !delaysEnded(record) {
        record.endWithheld = false
        record.done = true
        if record.touch.phase == .cancelled {
          cancelled.add(record.touch, to: view, sequence: record.sequence, event: record.event)
        } else {
          ended.add(record.touch, to: view, sequence: record.sequence, event: record.event)
        }
      }
    }
    return [.began: began, .ended: ended, .cancelled: cancelled]
  }

  /// Cancels the touches delivered to `view` or its subviews (the view left the window).
  func viewWasRemoved(_ view: View) {
    cancelRecords { $0.view?.isDescendant(of: view) == true }
  }

  /// Ends the open touches `selected` picks: those their views had begun (and not suppressed) get
  /// touchesCancelled, together, in touch order.
  private func cancelRecords(where selected: (TouchRecord) -> Bool) {
    var batch = DeliveryBatch()
    for record in orderedRecords() where !record.done && selected(record) {
      if record.beganDelivered, let view = record.view, !record.suppressed {
        batch.add(record.touch, to: view, sequence: record.sequence, event: record.event)
      }
      record.done = true
      record.beganWithheld = false
      record.endWithheld = false
    }
    deliver(batch, with: .touchesCancelled)
  }

  private func orderedRecords() -> [TouchRecord] {
    records.values.sorted { $0.order < $1.order }
  }

  private func removeFinishedRecords() {
    guard !records.isEmpty else { return }
    records = records.filter { _, record in
      !record.touch.phase.isFinal || record.beganWithheld || record.endWithheld
    }
  }

  private func deliver(_ batch: DeliveryBatch, with method: TouchMethod) {
    for group in batch.groups {
      let delivery = TouchDelivery(
        method: method, view: group.view, touches: group.touches, event: group.event)
      for observer in deliveryObservers { observer(delivery) }
      let touches = Set(group.touches)
      switch method {
      case .touchesBegan: group.view.touchesBegan(touches, with: group.event)
      case .touchesMoved: group.view.touchesMoved(touches, with: group.event)
      case .touchesEnded: group.view.touchesEnded(touches, with: group.event)
      case .touchesCancelled: group.view.touchesCancelled(touches, with: group.event)
      }
    }
  }
}

/// Touches to deliver, grouped by sequence and view in the order they were added.
private struct DeliveryBatch {
  struct Group {
    var view: View
    var sequence: Int
    var event: Event
    var touches: [Touch]
  }
  var groups: [Group] = []

  mutating func add(_ touch: Touch, to view: View, sequence: Int, event: Event) {
    if let index = groups.firstIndex(where: { $0.view === view && $0.sequence == sequence }) {
      groups[index].touches.append(touch)
    } else {
      groups.append(Group(view: view, sequence: sequence, event: event, touches: [touch]))
    }
  }
}
