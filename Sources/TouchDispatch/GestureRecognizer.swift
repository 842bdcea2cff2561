import EventTime
import ResponderCore

/// The delegate of a gesture recognizer, as UIGestureRecognizerDelegate. Every method is optional.
public protocol GestureRecognizerDelegate: AnyObject {
  /// Asked when the recognizer tries to leave the possible state; false makes it fail.
  func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool
  /// Asked for every new touch before the recognizer sees it; false keeps the touch from it.
  func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool
  /// Whether the two may recognize at the same time (either delegate saying yes is enough).
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer,
    shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
  ) -> Bool
  /// Whether `gestureRecognizer` waits for `otherGestureRecognizer` to fail before recognizing.
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf otherGestureRecognizer: GestureRecognizer
  ) -> Bool
  /// Whether `otherGestureRecognizer` waits for `gestureRecognizer` to fail before recognizing.
  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldBeRequiredToFailBy otherGestureRecognizer: GestureRecognizer
  ) -> Bool
}

extension GestureRecognizerDelegate {
  public func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool { true }
  public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
    true
  }
  public func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer,
    shouldRecognizeSimultaneouslyWith otherGestureRecognizer: GestureRecognizer
  ) -> Bool { false }
  public func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf otherGestureRecognizer: GestureRecognizer
  ) -> Bool { false }
  public func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldBeRequiredToFailBy otherGestureRecognizer: GestureRecognizer
  ) -> Bool { false }
}

/// Turns touches into a gesture, as UIGestureRecognizer. Subclass it for custom gestures: override
/// the touches methods and `reset()`, and set `state`.
///
/// Discrete gestures go possible → recognized (`.ended`) or failed; continuous ones go possible →
/// began → changed… → ended or cancelled (or possible → failed). Every state change sends the
/// action messages, except changes to failed (a continuous gesture's action method sees
/// cancelled, to throw its changes away, as seed 000's rotation sample does). After a final state the recognizer is
/// reset to possible once the touches it was tracking are over (no action for that).
///
/// The window it belongs to arbitrates between recognizers: a recognizer that requires another to
/// fail waits in the possible state until that one fails (and fails if it recognizes); a
/// recognizer that begins or recognizes makes the recognizers sharing its touches fail unless they
/// may recognize simultaneously (`canPrevent`, `canBePrevented`, the delegate).
open class GestureRecognizer: GestureRecognizerIdentity, CustomStringConvertible {
  /// The state of a recognizer, as UIGestureRecognizer.State.
  public enum State: Int, Sendable, CustomStringConvertible {
    case possible, began, changed, ended, cancelled, failed
    /// A discrete gesture was recognized (the same value as `ended`).
    public static let recognized = State.ended

    public var description: String {
      switch self {
      case .possible: "possible"
      case .began: "began"
      case .changed: "changed"
      case .ended: "ended"
      case .cancelled: "cancelled"
      case .failed: "failed"
      }
    }

    /// The state's name in records: "recognized" for a discrete gesture's `.ended`.
    public func name(isDiscrete: Bool) -> String {
      isDiscrete && self == .ended ? "recognized" : description
    }

    /// Whether the state ends the recognizer's sequence (ended/recognized, cancelled, failed).
    public var isFinal: Bool { self == .ended || self == .cancelled || self == .failed }
    /// Whether the gesture is under way or just recognized (began, changed, ended).
    var isRecognizing: Bool { self == .began || self == .changed || self == .ended }
  }

  private struct Target {
    weak var responder: Responder?
    var action: Action
  }

  private final class WeakRecognizer {
    weak var recognizer: GestureRecognizer?
    init(_ recognizer: GestureRecognizer) { self.recognizer = recognizer }
  }

  var storedState: State = .possible
  /// A transition out of possible that waits for required recognizers to fail.
  var pendingState: State?
  /// The arena of the window while the recognizer is engaged there (cleared at reset, and by the
  /// window when it goes away: this strong reference and the arena's list of engaged recognizers
  /// make a cycle until then).
  var arena: GestureArena? { arenaStorage }
  /// Set with a swap (`setArena`), which releases the old arena outside the access, so that no
  /// access to it needs a run-time check; an `unowned` field's would (see OutOfPlace.swift).
  private var arenaStorage: GestureArena?
  /// Whether the recognizer has received touches since its last reset.
  var isEngaged = false
  /// The touches received since the last reset (ignored ones removed), in arrival order.
  var trackedTouches: [Touch] = []
  private var timers: [ScheduledTimer] = []
  /// The targets of the built-in recognizers' timers, made at their first use.
  private var failTimerTarget: TimerTarget?
  private var beginTimerTarget: TimerTarget?
  private var targets: [Target] = []
  private var handlers: [(GestureRecognizer) -> Void] = []
  private var requiredFailures: [WeakRecognizer] = []
  private var lastLocation: Point = .zero
  /// Whether the failure-requirement hooks are this module's (which answer false): true for the
  /// built-in classes, false for subclasses made elsewhere, which may override them.
  let hasBuiltInFailureHooks: Bool
  /// Whether `canPrevent` and `canBePrevented` are the base class's (true both ways): a pair of
  /// such recognizers never needs ordering. False for taps and for subclasses made elsewhere.
  let hasDefaultPreventionRules: Bool
  /// Whether this is a TapGestureRecognizer itself, whose only rule is not preventing taps that
  /// need more taps.
  let isBuiltInTap: Bool
  /// The frame (`FrameDelivery`'s stamp) in which `deliveryIndex` is the recognizer's place among
  /// the recognizers getting touches.
  var deliveryStamp = -1
  var deliveryIndex = 0
  /// When the recognizer engaged in the gesture under way, relative to the others.
  var engagementOrder = 0
  /// Whether, in the gesture under way, this recognizer may answer failure-requirement questions
  /// (it had a delegate or hooks of its own when it engaged).
  var asksAboutFailureRequirements = false

  /// The view the recognizer is attached to (unowned, as `View.superview`: the view owns the
  /// recognizer and clears this when it goes away).
  public internal(set) var view: View? {
    get { viewStorage }
    set { viewStorage = newValue }
  }
  private unowned var viewStorage: View?
  /// The delegate, asked about beginning, receiving touches and relations to other recognizers.
  public var delegate: (any GestureRecognizerDelegate)? {
    get { mayHaveDelegate ? delegateStorage : nil }
    set {
      delegateStorage = newValue
      mayHaveDelegate = newValue != nil
    }
  }
  private weak var delegateStorage: (any GestureRecognizerDelegate)?
  /// Whether a delegate was set: the weak reference (a look-up in its side table) is only read
  /// then; a touch-down asks each recognizer it reaches.
  private var mayHaveDelegate = false
  /// A name for records and tools (the scene id in `responderctl touch replay`).
  public var name: String? {
    get { nameStorage }
    set { nameStorage = newValue }
  }
  private var nameStorage: String?
  /// Whether the view's touches are cancelled when the gesture is recognized (true by default).
  public var cancelsTouchesInView: Bool {
    get { cancelsTouchesInViewStorage }
    set { cancelsTouchesInViewStorage = newValue }
  }
  private var cancelsTouchesInViewStorage: Bool = true
  /// Whether touches in the began phase are kept from the view while the recognizer is still
  /// possible (false by default).
  public var delaysTouchesBegan: Bool {
    get { delaysTouchesBeganStorage }
    set { delaysTouchesBeganStorage = newValue }
  }
  private var delaysTouchesBeganStorage: Bool = false
  /// Whether touches in the ended phase are kept from the view while the recognizer is still
  /// possible (true by default): they are delivered if it fails, cancelled if it recognizes.
  public var delaysTouchesEnded: Bool {
    get { delaysTouchesEndedStorage }
    set { delaysTouchesEndedStorage = newValue }
  }
  private var delaysTouchesEndedStorage: Bool = true
  /// A disabled recognizer receives no touches; disabling one in progress cancels it.
  public var isEnabled: Bool {
    get { isEnabledStorage }
    set {
      let wasEnabled = isEnabledStorage
      isEnabledStorage = newValue
      if !newValue && wasEnabled { abandon() }
    }
  }
  private var isEnabledStorage = true

  public init() {
    let kind = ObjectIdentifier(type(of: self))
    hasBuiltInFailureHooks = Self.builtInKinds.contains(kind)
    isBuiltInTap = kind == ObjectIdentifier(TapGestureRecognizer.self)
    hasDefaultPreventionRules = hasBuiltInFailureHooks && !isBuiltInTap
  }

  deinit {
    cancelTimers()
  }

  private static let builtInKinds: [ObjectIdentifier] = [
    ObjectIdentifier(GestureRecognizer.self), ObjectIdentifier(TapGestureRecognizer.self),
    ObjectIdentifier(LongPressGestureRecognizer.self), ObjectIdentifier(PanGestureRecognizer.self),
    ObjectIdentifier(SwipeGestureRecognizer.self), ObjectIdentifier(PinchGestureRecognizer.self),
    ObjectIdentifier(RotationGestureRecognizer.self),
  ]

  /// A recognizer that sends `action` to `target` on every state change.
  public convenience init(target: Responder, action: Action) {
    self.init()
    addTarget(target, action: action)
  }

  /// A recognizer that calls `handler` on every state change.
  public convenience init(handler: @escaping (GestureRecognizer) -> Void) {
    self.init()
    addHandler(handler)
  }

  /// Whether this is a discrete gesture (recognized once) rather than a continuous one.
  /// Used for names in records: a discrete `.ended` is "recognized".
  open var isDiscrete: Bool { false }

  /// The current state. Subclasses set it; the window decides what the change leads to (a
  /// recognizer that must wait for another one to fail stays possible until then).
  public var state: State {
    get { storedState }
    set {
      if let arena {
        arena.request(self, newValue)
      } else {
        applyDetached(newValue)
      }
    }
  }

  /// The name of the current state, "recognized" for a discrete gesture's `.ended`.
  public var stateName: String { storedState.name(isDiscrete: isDiscrete) }

  // MARK: Target-action

  /// Sends `action` to `target` on every state change (except to failed).
  public func addTarget(_ target: Responder, action: Action) {
    targets.append(Target(responder: target, action: action))
  }

  /// Stops sending `action` (every action when nil) to `target` (every target when nil).
  public func removeTarget(_ target: Responder?, action: Action?) {
    targets.removeAll { entry in
      (target == nil || entry.responder === target) && (action == nil || entry.action == action)
    }
  }

  /// Calls `handler` on every state change (except to failed).
  public func addHandler(_ handler: @escaping (GestureRecognizer) -> Void) {
    handlers.append(handler)
  }

  func sendActions() {
    for target in targets {
      target.responder?.perform(target.action, sender: self, event: nil)
    }
    for handler in handlers { handler(self) }
  }

  // MARK: Relations

  /// Makes this recognizer wait, in the possible state, until `other` fails; if `other`
  /// recognizes, this one fails.
  public func require(toFail other: GestureRecognizer) {
    guard other !== self, !requiredFailures.contains(where: { $0.recognizer === other }) else { return }
    var list = requiredFailures.takeOut()
    list.append(WeakRecognizer(other))
    requiredFailures.putBack(&list)
    arena?.relationsPossible = true
  }

  /// Whether `require(toFail:)` was called for some recognizer.
  var hasRequiredFailures: Bool { !requiredFailures.isEmpty }

  /// Whether `require(toFail:)` was called for `other`.
  public func requiresFailure(of other: GestureRecognizer) -> Bool {
    requiredFailures.contains { $0.recognizer === other }
  }

  /// Whether this recognizer, recognizing, makes `preventedGestureRecognizer` fail (true by default).
  open func canPrevent(_ preventedGestureRecognizer: GestureRecognizer) -> Bool { true }

  /// Whether `preventingGestureRecognizer`, recognizing, makes this one fail (true by default).
  open func canBePrevented(by preventingGestureRecognizer: GestureRecognizer) -> Bool { true }

  /// Subclass hook: whether this recognizer waits for `other` to fail (false by default).
  open func shouldRequireFailure(of other: GestureRecognizer) -> Bool { false }

  /// Subclass hook: whether `other` waits for this recognizer to fail (false by default).
  open func shouldBeRequiredToFail(by other: GestureRecognizer) -> Bool { false }

  // MARK: Touches (for subclasses)

  /// New touches for this recognizer. Subclasses override; the base does nothing.
  open func touchesBegan(_ touches: Set<Touch>, with event: Event) {}
  /// Touches that moved.
  open func touchesMoved(_ touches: Set<Touch>, with event: Event) {}
  /// Touches that lifted.
  open func touchesEnded(_ touches: Set<Touch>, with event: Event) {}
  /// Touches the system cancelled.
  open func touchesCancelled(_ touches: Set<Touch>, with event: Event) {}

  /// Called when the recognizer returns to possible: subclasses clear their gesture state here.
  /// Timers made with `schedule(after:_:)` are cancelled before.
  open func reset() {}

  /// Stops this recognizer from receiving `touch`; the window no longer keeps the touch from
  /// the view on its behalf.
  public func ignore(_ touch: Touch, for event: Event) {
    if let arena {
      arena.ignore(touch, by: self)
    } else {
      var list = trackedTouches.takeOut()
      list.removeAll { $0 === touch }
      trackedTouches.putBack(&list)
      touch.removeGestureRecognizer(self)
    }
  }

  /// The touches the recognizer is tracking that are still on the surface, in arrival order.
  public var activeTouches: [Touch] { trackedTouches.filter { !$0.phase.isFinal } }

  /// The centroid and number of the touches still down, leaving out `excluded` (no array made).
  func activeCentroid(excluding excluded: Set<Touch>? = nil) -> (point: Point, count: Int) {
    var x = 0.0
    var y = 0.0
    var count = 0
    for touch in trackedTouches where !touch.phase.isFinal {
      if let excluded, excluded.contains(touch) { continue }
      x += touch.locationInWindow.x
      y += touch.locationInWindow.y
      count += 1
    }
    let n = Double(max(count, 1))
    return (Point(x: x / n, y: y / n), count)
  }

  /// Every touch received since the last reset (not ignored), in arrival order.
  public var touches: [Touch] { trackedTouches }

  /// The number of touches involved: those still down, or after they lifted, those of the gesture.
  open var numberOfTouches: Int {
    let active = trackedTouches.reduce(0) { $0 + ($1.phase.isFinal ? 0 : 1) }
    return active > 0 ? active : trackedTouches.count
  }

  /// The centroid of the touches still down (or of the last touches) in `view`'s coordinates
  /// (window coordinates when nil).
  open func location(in view: View?) -> Point {
    let active = activeTouches
    let set = active.isEmpty ? trackedTouches : active
    if !set.isEmpty { lastLocation = Self.centroid(set) }
    guard let view else { return lastLocation }
    return view.convert(lastLocation, from: nil)
  }

  /// The location of one of the touches (`index` in `activeTouches`, or in `touches` once they
  /// all lifted).
  public func location(ofTouch index: Int, in view: View?) -> Point {
    let active = activeTouches
    let set = active.isEmpty ? trackedTouches : active
    guard set.indices.contains(index) else { return location(in: view) }
    let point = set[index].locationInWindow
    guard let view else { return point }
    return view.convert(point, from: nil)
  }

  static func centroid<Touches: Collection<Touch>>(_ touches: Touches) -> Point {
    var x = 0.0
    var y = 0.0
    for touch in touches {
      x += touch.locationInWindow.x
      y += touch.locationInWindow.y
    }
    let n = Double(max(touches.count, 1))
    return Point(x: x / n, y: y / n)
  }

  // MARK: Time

  /// The scheduler of the window the recognizer is in.
  public var scheduler: (any Scheduler)? { arena?.scheduler ?? view?.window?.scheduler }

  /// The current time on the window's clock (0 outside a window).
  public var now: Seconds { scheduler?.now ?? 0 }

  /// Runs `action` after `delay` seconds, unless the recognizer is reset first.
  @discardableResult
  public func schedule(after delay: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer? {
    schedule(after: delay) { _ in action() }
  }

  /// Runs `action` with this recognizer after `delay` seconds, unless it is reset first.
  func schedule(after delay: Seconds, _ action: @escaping (GestureRecognizer) -> Void) -> ScheduledTimer? {
    schedule(after: delay, target: TimerTarget(recognizer: self, action: action))
  }

  /// Fails the recognizer after `delay` unless it has left possible by then (a tap and a long press
  /// set one per finger: the target is made once).
  func failIfStillPossible(after delay: Seconds) -> ScheduledTimer? {
    if let target = failTimerTarget { return schedule(after: delay, target: target) }
    let target = TimerTarget(recognizer: self) { recognizer in
      if recognizer.state == .possible { recognizer.state = .failed }
    }
    _ = exchange(&failTimerTarget, target)
    return schedule(after: delay, target: target)
  }

  /// Begins the recognizer after `delay` unless it has left possible by then (a long press's
  /// press: the target is made once).
  func beginIfStillPossible(after delay: Seconds) -> ScheduledTimer? {
    if let target = beginTimerTarget { return schedule(after: delay, target: target) }
    let target = TimerTarget(recognizer: self) { recognizer in
      if recognizer.state == .possible { recognizer.state = .began }
    }
    _ = exchange(&beginTimerTarget, target)
    return schedule(after: delay, target: target)
  }

  /// Runs `target` after `delay` seconds, unless the recognizer is reset first. The timer's
  /// closure captures the target alone, which is then its context: no allocation for it.
  private func schedule(after delay: Seconds, target: TimerTarget) -> ScheduledTimer? {
    guard let scheduler else { return nil }
    let timer = scheduler.schedule(after: delay) { target.fire() }
    var timers = self.timers.takeOut()
    if timers.contains(where: { $0.isCancelled }) { timers.removeAll { $0.isCancelled } }
    timers.append(timer)
    self.timers.putBack(&timers)
    return timer
  }

  func setArena(_ arena: GestureArena?) {
    var arena = arena
    swap(&arena, &arenaStorage)
  }

  func cancelTimers() {
    for timer in timers { timer.cancel() }
    var list = timers.takeOut()
    list.removeAll(keepingCapacity: true)
    timers.putBack(&list)
  }

  // MARK: Internals

  /// The state change when the recognizer is in no window: legal transitions apply at once.
  private func applyDetached(_ newValue: State) {
    guard Self.isLegal(from: storedState, to: newValue) else { return }
    storedState = newValue
    if newValue != .failed { sendActions() }
  }

  static func isLegal(from old: State, to new: State) -> Bool {
    switch (old, new) {
    case (.possible, .began), (.possible, .ended), (.possible, .failed): true
    case (.began, .changed), (.changed, .changed): true
    case (.began, .ended), (.changed, .ended), (.began, .cancelled), (.changed, .cancelled): true
    default: false
    }
  }

  /// Takes the recognizer out of the gesture under way (removed from its view or disabled).
  func abandon() {
    if storedState == .began || storedState == .changed {
      state = .cancelled
    } else if storedState == .possible && isEngaged {
      state = .failed
    }
  }

  /// Returns to possible: timers cancelled, touches forgotten, `reset()` called.
  func performReset() {
    cancelTimers()
    setArena(nil)
    storedState = .possible
    pendingState = nil
    isEngaged = false
    for touch in trackedTouches { touch.removeGestureRecognizer(self) }
    var list = trackedTouches.takeOut()
    list.removeAll(keepingCapacity: true)
    trackedTouches.putBack(&list)
    reset()
  }

  public var description: String {
    let kind = String(describing: type(of: self))
    return name.map { "\(kind)(\($0), \(stateName))" } ?? "\(kind)(\(stateName))"
  }
}

/// What a recognizer's timer runs: an action with the recognizer. The recognizer is held
/// `unowned`: its timers are cancelled when it resets or goes away, so it is alive when one fires
/// (a weak reference would make every retain of the recognizer slower).
final class TimerTarget {
  unowned let recognizer: GestureRecognizer
  let action: (GestureRecognizer) -> Void

  init(recognizer: GestureRecognizer, action: @escaping (GestureRecognizer) -> Void) {
    self.recognizer = recognizer
    self.action = action
  }

  func fire() {
    // Held while the action runs (it may take the recognizer off its view).
    let recognizer = self.recognizer
    withExtendedLifetime(recognizer) {
      if let arena = recognizer.arena {
        arena.run { action(recognizer) }
      } else {
        action(recognizer)
      }
    }
  }
}
