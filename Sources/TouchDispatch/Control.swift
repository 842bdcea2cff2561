import ResponderCore

/// The events a control reports, as UIControl.Event (same bit values).
public struct ControlEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt
  public init(rawValue: UInt) { self.rawValue = rawValue }
  public static let touchDown = ControlEvents(rawValue: 1 << 0)
  public static let touchDownRepeat = ControlEvents(rawValue: 1 << 1)
  public static let touchDragInside = ControlEvents(rawValue: 1 << 2)
  public static let touchDragOutside = ControlEvents(rawValue: 1 << 3)
  public static let touchDragEnter = ControlEvents(rawValue: 1 << 4)
  public static let touchDragExit = ControlEvents(rawValue: 1 << 5)
  public static let touchUpInside = ControlEvents(rawValue: 1 << 6)
  public static let touchUpOutside = ControlEvents(rawValue: 1 << 7)
  public static let touchCancel = ControlEvents(rawValue: 1 << 8)
  public static let valueChanged = ControlEvents(rawValue: 1 << 12)
  public static let primaryActionTriggered = ControlEvents(rawValue: 1 << 13)
  /// Every touch event.
  public static let allTouchEvents = ControlEvents(rawValue: 0x0FFF)
  /// Every event.
  public static let allEvents = ControlEvents(rawValue: 0xFFFF_FFFF)

  static let named: [(ControlEvents, String)] = [
    (.touchDown, "touchDown"), (.touchDownRepeat, "touchDownRepeat"),
    (.touchDragInside, "touchDragInside"), (.touchDragOutside, "touchDragOutside"),
    (.touchDragEnter, "touchDragEnter"), (.touchDragExit, "touchDragExit"),
    (.touchUpInside, "touchUpInside"), (.touchUpOutside, "touchUpOutside"),
    (.touchCancel, "touchCancel"), (.valueChanged, "valueChanged"),
    (.primaryActionTriggered, "primaryActionTriggered"),
  ]

  /// The UIKit names of the events in the set ("touchUpInside").
  public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }

  public var description: String { names.joined(separator: "|") }
}

/// A view that turns touches into control events and sends action messages for them, as UIControl.
///
/// A touch down sends touchDown (and touchDownRepeat when the touch's tapCount is above one);
/// moving sends touchDragInside/Outside, with touchDragEnter/Exit when crossing the edge; lifting
/// sends touchUpInside (then primaryActionTriggered) or touchUpOutside; a cancelled touch sends
/// touchCancel. "Inside" is the bounds grown by `touchMargin` points, as UIKit's controls are
/// forgiving. A control keeps its default action against a gesture recognizer attached to a
/// superview: such a recognizer that overlaps the default action fails (iOS 6 and later; seed
/// 000 lists them: a one-finger single tap on a button or switch, a one-finger pan on a switch's
/// knob parallel to the switch, a one-finger swipe on a slider's knob parallel to the slider).
open class Control: View {
  private enum Target {
    case responder(weak: WeakResponder, action: Action, events: ControlEvents)
    case nilTarget(action: Action, events: ControlEvents)
    case handler(events: ControlEvents, (Control, ControlEvents) -> Void)
  }

  final class WeakResponder {
    weak var responder: Responder?
    init(_ responder: Responder) { self.responder = responder }
  }

  private var targets: [Target] = []
  private var trackingTouch: Touch?
  private var touchWasInside = false
  /// Where the tracked touch went down, in the control's coordinates.
  private(set) var trackingStart: Point?

  /// Disabled controls send no events and pass their touches on.
  public var isEnabled: Bool {
    get { isEnabledStorage }
    set { isEnabledStorage = newValue }
  }
  private var isEnabledStorage: Bool = true
  /// Whether the control is highlighted (a touch is down on it and inside).
  public private(set) var isHighlighted: Bool {
    get { isHighlightedStorage }
    set { isHighlightedStorage = newValue }
  }
  private var isHighlightedStorage: Bool = false
  /// Whether the control is tracking a touch.
  public var isTracking: Bool { trackingTouch != nil }
  /// Whether the tracked touch is inside (bounds grown by `touchMargin`).
  public var isTouchInside: Bool { trackingTouch != nil && touchWasInside }
  /// How far around the bounds a touch still counts as inside, in points (70 by default).
  public var touchMargin: Double {
    get { touchMarginStorage }
    set { touchMarginStorage = newValue }
  }
  private var touchMarginStorage: Double = 70

  // MARK: Target-action

  /// Sends `action` to `target` for `events`; with a nil target the action goes up the responder
  /// chain from the first responder (`Application.sendAction`).
  public func addTarget(_ target: Responder?, action: Action, for events: ControlEvents) {
    if let target {
      targets.append(.responder(weak: WeakResponder(target), action: action, events: events))
    } else {
      targets.append(.nilTarget(action: action, events: events))
    }
  }

  /// Removes `action` (every action when nil) of `target` for `events`.
  public func removeTarget(_ target: Responder?, action: Action?, for events: ControlEvents) {
    targets.removeAll { entry in
      switch entry {
      case .responder(let weak, let entryAction, let entryEvents):
        return (target == nil || weak.responder === target) && (action == nil || action == entryAction)
          && !entryEvents.isDisjoint(with: events)
      case .nilTarget(let entryAction, let entryEvents):
        return target == nil && (action == nil || action == entryAction)
          && !entryEvents.isDisjoint(with: events)
      case .handler:
        return false
      }
    }
  }

  /// Calls `handler` with the control and the single event, for each of `events` it sends.
  public func addHandler(for events: ControlEvents, _ handler: @escaping (Control, ControlEvents) -> Void) {
    targets.append(.handler(events: events, handler))
  }

  /// Sends the action messages for each event of `events`, one event at a time, in UIKit's bit
  /// order.
  public func sendActions(for events: ControlEvents, with event: Event? = nil) {
    for (single, _) in ControlEvents.named where events.contains(single) {
      for entry in targets {
        switch entry {
        case .responder(let weak, let action, let targetEvents) where targetEvents.contains(single):
          guard let responder = weak.responder else { continue }
          if let app = window?.application {
            app.sendAction(action, to: responder, from: self, for: event)
          } else {
            responder.perform(action, sender: self, event: event)
          }
        case .nilTarget(let action, let targetEvents) where targetEvents.contains(single):
          if let app = window?.application {
            app.sendAction(action, to: nil, from: self, for: event)
          } else if let found = self.target(forAction: action, withSender: self) {
            found.perform(action, sender: self, event: event)
          }
        case .handler(let targetEvents, let handler) where targetEvents.contains(single):
          handler(self, single)
        default:
          continue
        }
      }
    }
  }

  // MARK: Tracking (UIControl's hooks)

  /// A touch went down; return false to stop tracking it.
  open func beginTracking(_ touch: Touch, with event: Event?) -> Bool { true }
  /// The tracked touch moved; return false to stop tracking it.
  open func continueTracking(_ touch: Touch, with event: Event?) -> Bool { true }
  /// The tracked touch lifted.
  open func endTracking(_ touch: Touch?, with event: Event?) {}
  /// Tracking was cancelled.
  open func cancelTracking(with event: Event?) {}

  /// The control's primary action, after touchUpInside: sends primaryActionTriggered.
  /// Subclasses that change a value do it here, then call super.
  open func performPrimaryAction(with event: Event?) {
    sendActions(for: .primaryActionTriggered, with: event)
  }

  /// Whether a recognizer attached elsewhere overlaps the control's default action and must give
  /// way to it: a one-finger single tap by default (UIButton's rule). Subclasses with another
  /// default action (a slider's knob) override.
  open func defaultActionOverlaps(_ gestureRecognizer: GestureRecognizer) -> Bool {
    guard let tap = gestureRecognizer as? TapGestureRecognizer else { return false }
    return tap.numberOfTapsRequired == 1 && tap.numberOfTouchesRequired == 1
  }

  /// The iOS 6 rule: a recognizer of a superview overlapping the default action does not begin.
  open override func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool {
    if isEnabled, gestureRecognizer.view !== self, defaultActionOverlaps(gestureRecognizer) { return false }
    return true
  }

  private func isInside(_ touch: Touch) -> Bool {
    let point = touch.location(in: self)
    let area = Rect(
      x: bounds.minX - touchMargin, y: bounds.minY - touchMargin, width: bounds.width + 2 * touchMargin,
      height: bounds.height + 2 * touchMargin)
    return area.contains(point)
  }

  // MARK: Touches

  open override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
    guard isEnabled else { return super.touchesBegan(touches, with: event) }
    // A touch whose end is still held back by a recognizer gives way to the new one.
    if let tracked = trackingTouch, tracked.phase.isFinal { trackingTouch = nil }
    guard trackingTouch == nil, let touch = touches.min(by: { $0.identifier < $1.identifier }) else { return }
    guard beginTracking(touch, with: event) else { return }
    trackingTouch = touch
    trackingStart = touch.location(in: self)
    touchWasInside = true
    isHighlighted = true
    var events: ControlEvents = .touchDown
    if touch.tapCount > 1 { events.insert(.touchDownRepeat) }
    sendActions(for: events, with: event)
  }

  open override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
    guard isEnabled else { return super.touchesMoved(touches, with: event) }
    guard let touch = trackingTouch, touches.contains(touch) else { return }
    guard continueTracking(touch, with: event) else {
      trackingTouch = nil
      isHighlighted = false
      cancelTracking(with: event)
      return
    }
    let inside = isInside(touch)
    var events: ControlEvents = inside ? .touchDragInside : .touchDragOutside
    if inside && !touchWasInside { events.insert(.touchDragEnter) }
    if !inside && touchWasInside { events.insert(.touchDragExit) }
    touchWasInside = inside
    isHighlighted = inside
    sendActions(for: events, with: event)
  }

  open override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
    guard isEnabled else { return super.touchesEnded(touches, with: event) }
    guard let touch = trackingTouch, touches.contains(touch) else { return }
    trackingTouch = nil
    isHighlighted = false
    endTracking(touch, with: event)
    if isInside(touch) {
      sendActions(for: .touchUpInside, with: event)
      performPrimaryAction(with: event)
    } else {
      sendActions(for: .touchUpOutside, with: event)
    }
  }

  open override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
    guard isEnabled else { return super.touchesCancelled(touches, with: event) }
    guard let touch = trackingTouch, touches.contains(touch) else { return }
    trackingTouch = nil
    isHighlighted = false
    cancelTracking(with: event)
    sendActions(for: .touchCancel, with: event)
  }
}

/// A slider, as UISlider: dragging its knob along the track moves `value` between
/// `minimumValue` and `maximumValue` by as much as the finger moves, and sends valueChanged as
/// the value changes (once, at the lift, when not `isContinuous`). A touch off the knob is not
/// tracked.
open class Slider: Control {
  /// The value at the left end of the track (0 by default).
  public var minimumValue: Double {
    get { minimumValueStorage }
    set {
      minimumValueStorage = newValue
      value = valueStorage
    }
  }
  private var minimumValueStorage: Double = 0
  /// The value at the right end of the track (1 by default).
  public var maximumValue: Double {
    get { maximumValueStorage }
    set {
      maximumValueStorage = newValue
      value = valueStorage
    }
  }
  private var maximumValueStorage: Double = 1
  /// The value, kept within `minimumValue`…`maximumValue`.
  public var value: Double {
    get { valueStorage }
    set { valueStorage = min(max(newValue, minimumValue), max(minimumValue, maximumValue)) }
  }
  private var valueStorage: Double = 0
  /// Whether valueChanged is sent as the knob moves (true by default) or once at the lift.
  public var isContinuous: Bool {
    get { isContinuousStorage }
    set { isContinuousStorage = newValue }
  }
  private var isContinuousStorage: Bool = true
  /// The value and the finger's x when the drag began.
  private var dragStart: (value: Double, x: Double)?

  /// The knob, where the value puts it along the track.
  public var knobRect: Rect {
    let range = maximumValue - minimumValue
    return knob(in: bounds, at: range > 0 ? (value - minimumValue) / range : 0)
  }

  open override func beginTracking(_ touch: Touch, with event: Event?) -> Bool {
    let point = touch.location(in: self)
    guard knobRect.contains(point) else { return false }
    dragStart = (value, point.x)
    return true
  }

  open override func continueTracking(_ touch: Touch, with event: Event?) -> Bool {
    guard let start = dragStart else { return false }
    let travel = bounds.width - knobRect.width
    guard travel > 0 else { return true }
    let old = value
    value = start.value + (touch.location(in: self).x - start.x) / travel * (maximumValue - minimumValue)
    if isContinuous && value != old { sendActions(for: .valueChanged, with: event) }
    return true
  }

  open override func endTracking(_ touch: Touch?, with event: Event?) {
    if let touch { _ = continueTracking(touch, with: event) }
    if !isContinuous, let start = dragStart, value != start.value {
      sendActions(for: .valueChanged, with: event)
    }
    dragStart = nil
  }

  open override func cancelTracking(with event: Event?) {
    dragStart = nil
  }

  /// A one-finger swipe that starts on the knob, parallel to the slider (seed 000: "A single
  /// finger swipe on the knob of a UISlider, in a direction parallel to the slider"). The
  /// slider tracks only touches that start on its knob. (Taps are not its default action.)
  open override func defaultActionOverlaps(_ gestureRecognizer: GestureRecognizer) -> Bool {
    guard let swipe = gestureRecognizer as? SwipeGestureRecognizer, swipe.numberOfTouchesRequired == 1,
      isTracking, let direction = swipe.recognizedDirection
    else { return false }
    return direction == .left || direction == .right
  }
}

/// A push button: a control whose primary action is a tap (touchUpInside).
open class Button: Control {}

/// An on/off switch: a tap, or a drag of its knob, toggles `isOn` and sends valueChanged, then
/// primaryActionTriggered.
open class Switch: Control {
  /// The state of the switch.
  public var isOn: Bool {
    get { isOnStorage }
    set { isOnStorage = newValue }
  }
  private var isOnStorage: Bool = false

  /// The knob, at the left end when off, at the right end when on.
  public var knobRect: Rect { knob(in: bounds, at: isOn ? 1 : 0) }

  /// A one-finger single tap (the button's rule), or a one-finger pan that starts on the knob and
  /// runs parallel to the switch (seed 000: "A single finger pan gesture on the knob of a
  /// UISwitch, in a direction parallel to the switch").
  open override func defaultActionOverlaps(_ gestureRecognizer: GestureRecognizer) -> Bool {
    if super.defaultActionOverlaps(gestureRecognizer) { return true }
    guard let pan = gestureRecognizer as? PanGestureRecognizer, pan.numberOfTouches == 1, isTracking,
      let start = trackingStart, knobRect.contains(start)
    else { return false }
    let moved = pan.translation(in: self)
    return abs(moved.x) >= abs(moved.y)
  }

  open override func performPrimaryAction(with event: Event?) {
    isOn.toggle()
    sendActions(for: .valueChanged, with: event)
    super.performPrimaryAction(with: event)
  }
}

/// The knob of a switch or slider: a square as high as the control (or as wide, if narrower),
/// `fraction` of the way along it.
private func knob(in bounds: Rect, at fraction: Double) -> Rect {
  let side = min(bounds.width, bounds.height)
  return Rect(
    x: bounds.minX + (bounds.width - side) * min(max(fraction, 0), 1), y: bounds.midY - side / 2,
    width: side, height: side)
}
