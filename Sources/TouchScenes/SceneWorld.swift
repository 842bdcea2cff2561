import EventTime
import ResponderCore
import TouchDispatch

/// The window, views and recognizers a scene describes, reporting what happens as JSON lines (the
/// schema `responderctl touch replay` prints; `touch-demo --log` prints the same).
public final class SceneWorld {
  /// The clock of the lines' `t` and of the recognizers' timers.
  public let scheduler: any Scheduler
  public let application: Application
  public let window: Window
  /// Called with each JSON line, in order.
  public var emit: (String) -> Void = { _ in }
  /// The scene's views by id, and its recognizers by id.
  public private(set) var views: [String: View] = [:]
  public private(set) var recognizers: [String: GestureRecognizer] = [:]
  private var delegates: [SceneDelegate] = []
  private var controllers: [ViewController] = []

  /// Builds the scene's window (the screen's size), views, controllers and recognizers.
  public init(scene: TouchScene, scheduler: any Scheduler) {
    self.scheduler = scheduler
    application = Application(scheduler: scheduler)
    window = Window(
      frame: Rect(x: 0, y: 0, width: scene.screen.width, height: scene.screen.height),
      application: application)
    var views: [String: View] = [:]
    for spec in scene.views {
      let view: View =
        switch spec.control {
        case .button: Button(frame: spec.frame)
        case .switch: Switch(frame: spec.frame)
        case .slider: Slider(frame: spec.frame)
        case nil:
          SceneView(frame: spec.frame, hitArea: spec.hitArea, passesTouches: spec.passesTouches) {
            [unowned self] responder, method, touches in self.reached(responder, method, touches)
          }
        }
      view.identifier = spec.id
      view.bounds.origin = spec.boundsOrigin
      view.transform = spec.transform
      view.isHidden = spec.hidden
      view.isUserInteractionEnabled = spec.interactive
      view.alpha = spec.alpha
      view.clipsToBounds = spec.clipsToBounds
      view.isMultipleTouchEnabled = spec.multipleTouch
      view.isExclusiveTouch = spec.exclusiveTouch
      if let control = view as? Control {
        control.addHandler(for: .allEvents) { [unowned self] control, event in
          self.line([
            ("t", self.time), ("kind", .string("control")), ("view", .string(control.identifier ?? "")),
            ("event", .string(event.description)),
          ])
        }
      }
      if let control = view as? Control {
        for (event, action) in spec.actions {
          control.addTarget(
            nil, action: Action(action), for: TouchScene.controlEventNames[event]!)
        }
      }
      performs(spec.performs, by: view)
      views[spec.id] = view
    }
    for spec in scene.views {
      let parent = spec.parent.flatMap { views[$0] } ?? window
      parent.addSubview(views[spec.id]!)
    }
    for spec in scene.viewControllers {
      let controller = SceneViewController { [unowned self] responder, method, touches in
        self.reached(responder, method, touches)
      }
      controller.identifier = spec.id
      controller.view = views[spec.view]!
      performs(spec.performs, by: controller)
      controllers.append(controller)
    }
    var recognizers: [String: GestureRecognizer] = [:]
    for spec in scene.recognizers {
      let recognizer = Self.make(spec)
      recognizer.name = spec.id
      recognizer.isEnabled = spec.enabled
      recognizer.cancelsTouchesInView = spec.cancelsTouchesInView
      recognizer.delaysTouchesBegan = spec.delaysTouchesBegan
      recognizer.delaysTouchesEnded = spec.delaysTouchesEnded
      (views[spec.view] ?? window).addGestureRecognizer(recognizer)
      recognizers[spec.id] = recognizer
    }
    for spec in scene.recognizers {
      let recognizer = recognizers[spec.id]!
      for other in spec.requireToFail { recognizer.require(toFail: recognizers[other]!) }
      if let rules = (recognizer as? SceneRuled)?.rules {
        rules.cannotPrevent = spec.cannotPrevent.compactMap { recognizers[$0].map(ObjectIdentifier.init) }
        rules.cannotBePreventedBy = spec.cannotBePreventedBy.compactMap {
          recognizers[$0].map(ObjectIdentifier.init)
        }
      }
      if !spec.simultaneousWith.isEmpty || !spec.shouldBegin || spec.receiveArea != nil
        || !spec.requireFailureOf.isEmpty
      {
        let delegate = SceneDelegate(
          simultaneousWith: spec.simultaneousWith.compactMap { recognizers[$0] },
          shouldBegin: spec.shouldBegin,
          receiveArea: spec.receiveArea,
          requireFailureOf: spec.requireFailureOf.compactMap { recognizers[$0] })
        recognizer.delegate = delegate
        delegates.append(delegate)
      }
    }
    self.views = views
    self.recognizers = recognizers
    window.addGestureObserver { [unowned self] observation in
      switch observation {
      case .stateChanged(let recognizer, _, let to):
        self.line([
          ("t", self.time), ("kind", .string("recognizer")), ("id", .string(recognizer.name ?? "")),
          ("state", .string(to.name(isDiscrete: recognizer.isDiscrete))),
        ])
      case .actionSent(let recognizer):
        self.line(
          [
            ("t", self.time), ("kind", .string("action")), ("id", .string(recognizer.name ?? "")),
            ("state", .string(recognizer.stateName)),
          ] + Self.values(of: recognizer))
      }
    }
    window.addDeliveryObserver { [unowned self] delivery in
      // The phase the view sees (cancelled in touchesCancelled: the window sets it); the point on
      // the screen, and in the view's coordinates.
      let touches = delivery.touches.map { touch -> JSON in
        let p = touch.locationInWindow
        let local = touch.location(in: delivery.view)
        return .object([
          ("slot", .number(Double(touch.identifier))), ("phase", .string(touch.phase.description)),
          ("x", .raw(formatNumber(p.x, decimals: 3))), ("y", .raw(formatNumber(p.y, decimals: 3))),
          ("viewX", .raw(formatNumber(local.x, decimals: 3))),
          ("viewY", .raw(formatNumber(local.y, decimals: 3))),
          ("tapCount", .number(Double(touch.tapCount))),
        ])
      }
      self.line([
        ("t", self.time), ("kind", .string("touches")), ("method", .string(delivery.method.rawValue)),
        ("view", .string(delivery.view.identifier ?? "")),
        ("touches", .raw(JSON.array(touches).text(.compact))),
      ])
    }
  }

  private var time: JSON { .raw(formatNumber(scheduler.now, decimals: 6)) }

  /// What an action method reads of a continuous recognizer: a pan's translation (window
  /// coordinates), a pinch's scale, a rotation's angle in radians.
  private static func values(of recognizer: GestureRecognizer) -> [(String, JSON)] {
    switch recognizer {
    case let pan as PanGestureRecognizer:
      let translation = pan.translation(in: nil)
      return [
        (
          "translation",
          .raw(
            "[\(formatNumber(translation.x, decimals: 3)),\(formatNumber(translation.y, decimals: 3))]")
        ),
        ("touches", .number(Double(pan.numberOfTouches))),
      ]
    case let pinch as PinchGestureRecognizer:
      return [("scale", .raw(formatNumber(pinch.scale, decimals: 4)))]
    case let rotation as RotationGestureRecognizer:
      return [("rotation", .raw(formatNumber(rotation.rotation, decimals: 4)))]
    default:
      return []
    }
  }

  /// `responder` performs `actions`, each reported when performed.
  private func performs(_ actions: [String], by responder: Responder) {
    for action in actions {
      responder.registerAction(Action(action)) { [unowned self, unowned responder] sender, _ in
        self.line([
          ("t", self.time), ("kind", .string("performed")), ("action", .string(action)),
          ("responder", .string(responder.responderName)),
          ("sender", .string((sender as? Responder)?.responderName ?? "")),
        ])
      }
    }
  }

  /// A touch method reached `responder` up the responder chain (past the view the window
  /// delivered the touches to).
  private func reached(_ responder: Responder, _ method: TouchMethod, _ touches: Set<Touch>) {
    let slots = touches.map(\.identifier).sorted().map { JSON.number(Double($0)) }
    line([
      ("t", time), ("kind", .string("responder")), ("method", .string(method.rawValue)),
      ("responder", .string(responder.responderName)), ("slots", .raw(JSON.array(slots).text(.compact))),
    ])
  }

  /// One line: members separated by ", ", keys and values by ":".
  private func line(_ fields: [(String, JSON)]) {
    emit(JSON.object(fields).text(JSON.Layout(comma: ", ", colon: ":")))
  }

  private static func make(_ spec: TouchScene.RecognizerSpec) -> GestureRecognizer {
    // With rules of its own (one-way prevention, ignored touches), a subclass of the kind.
    let rules = spec.hasOwnRules ? SceneRules(ignoreArea: spec.ignoreArea) : nil
    switch spec.kind {
    case .tap:
      let tap = rules.map(SceneTapGestureRecognizer.init) ?? TapGestureRecognizer()
      if let taps = spec.taps { tap.numberOfTapsRequired = taps }
      if let touches = spec.touches { tap.numberOfTouchesRequired = touches }
      return tap
    case .longPress:
      let press = rules.map(SceneLongPressGestureRecognizer.init) ?? LongPressGestureRecognizer()
      if let taps = spec.taps { press.numberOfTapsRequired = taps }
      if let touches = spec.touches { press.numberOfTouchesRequired = touches }
      if let duration = spec.minimumPressDuration { press.minimumPressDuration = duration }
      if let movement = spec.allowableMovement { press.allowableMovement = movement }
      return press
    case .pan:
      let pan = rules.map(ScenePanGestureRecognizer.init) ?? PanGestureRecognizer()
      if let minimum = spec.minimumTouches { pan.minimumNumberOfTouches = minimum }
      if let maximum = spec.maximumTouches { pan.maximumNumberOfTouches = maximum }
      return pan
    case .swipe:
      let swipe = rules.map(SceneSwipeGestureRecognizer.init) ?? SwipeGestureRecognizer()
      if let direction = spec.direction { swipe.direction = direction }
      if let touches = spec.touches { swipe.numberOfTouchesRequired = touches }
      return swipe
    case .pinch:
      return rules.map(ScenePinchGestureRecognizer.init) ?? PinchGestureRecognizer()
    case .rotation:
      return rules.map(SceneRotationGestureRecognizer.init) ?? RotationGestureRecognizer()
    }
  }

}

/// A recognizer's delegate with the scene's answers: recognizing simultaneously with the listed
/// ones, beginning at all, receiving touches in an area of the screen only, waiting for the
/// listed ones to fail.
final class SceneDelegate: GestureRecognizerDelegate {
  private let simultaneousWith: [ObjectIdentifier]
  private let shouldBegin: Bool
  private let receiveArea: Rect?
  private let requireFailureOf: [ObjectIdentifier]

  init(
    simultaneousWith: [GestureRecognizer], shouldBegin: Bool, receiveArea: Rect?,
    requireFailureOf: [GestureRecognizer]
  ) {
    self.simultaneousWith = simultaneousWith.map(ObjectIdentifier.init)
    self.shouldBegin = shouldBegin
    self.receiveArea = receiveArea
    self.requireFailureOf = requireFailureOf.map(ObjectIdentifier.init)
  }

  func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool { shouldBegin }

  func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
    receiveArea?.contains(touch.locationInWindow) ?? true
  }

  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRecognizeSimultaneouslyWith other: GestureRecognizer
  ) -> Bool {
    simultaneousWith.contains(ObjectIdentifier(other))
  }

  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer, shouldRequireFailureOf other: GestureRecognizer
  ) -> Bool {
    requireFailureOf.contains(ObjectIdentifier(other))
  }
}

/// A view of a scene: `point(inside:)` may be an area of its own rather than its bounds; touches
/// that reach it up the responder chain are reported, and go on up unless it keeps them.
final class SceneView: View {
  let hitArea: Rect?
  let passesTouches: Bool
  let report: (Responder, TouchMethod, Set<Touch>) -> Void

  init(
    frame: Rect, hitArea: Rect?, passesTouches: Bool,
    report: @escaping (Responder, TouchMethod, Set<Touch>) -> Void
  ) {
    self.hitArea = hitArea
    self.passesTouches = passesTouches
    self.report = report
    super.init(frame: frame)
  }

  override func point(inside point: ResponderCore.Point, with event: Event?) -> Bool {
    hitArea?.contains(point) ?? super.point(inside: point, with: event)
  }

  /// Reports a touch method that came up the chain; whether to pass it on.
  private func reached(_ method: TouchMethod, _ touches: Set<Touch>) -> Bool {
    if touches.contains(where: { $0.view !== self }) { report(self, method, touches) }
    return passesTouches
  }

  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
    if reached(.touchesBegan, touches) { super.touchesBegan(touches, with: event) }
  }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
    if reached(.touchesMoved, touches) { super.touchesMoved(touches, with: event) }
  }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
    if reached(.touchesEnded, touches) { super.touchesEnded(touches, with: event) }
  }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
    if reached(.touchesCancelled, touches) { super.touchesCancelled(touches, with: event) }
  }
}

/// A view controller of a scene: the touch methods that reach it are reported, and go on up.
final class SceneViewController: ViewController {
  let report: (Responder, TouchMethod, Set<Touch>) -> Void

  init(report: @escaping (Responder, TouchMethod, Set<Touch>) -> Void) {
    self.report = report
    super.init()
  }

  override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
    report(self, .touchesBegan, touches)
    super.touchesBegan(touches, with: event)
  }
  override func touchesMoved(_ touches: Set<Touch>, with event: Event?) {
    report(self, .touchesMoved, touches)
    super.touchesMoved(touches, with: event)
  }
  override func touchesEnded(_ touches: Set<Touch>, with event: Event?) {
    report(self, .touchesEnded, touches)
    super.touchesEnded(touches, with: event)
  }
  override func touchesCancelled(_ touches: Set<Touch>, with event: Event?) {
    report(self, .touchesCancelled, touches)
    super.touchesCancelled(touches, with: event)
  }
}

/// The rules a scene gives a recognizer beyond its kind's: one-way prevention, touches ignored.
final class SceneRules {
  let ignoreArea: Rect?
  var cannotPrevent: [ObjectIdentifier] = []
  var cannotBePreventedBy: [ObjectIdentifier] = []

  init(ignoreArea: Rect?) { self.ignoreArea = ignoreArea }

  func canPrevent(_ other: GestureRecognizer) -> Bool { !cannotPrevent.contains(ObjectIdentifier(other)) }

  func canBePrevented(by other: GestureRecognizer) -> Bool {
    !cannotBePreventedBy.contains(ObjectIdentifier(other))
  }

  /// The touches `recognizer` keeps: those beginning in the ignore area it ignores.
  func keep(_ touches: Set<Touch>, for recognizer: GestureRecognizer, event: Event) -> Set<Touch> {
    guard let ignoreArea else { return touches }
    var kept = touches
    for touch in touches where ignoreArea.contains(touch.locationInWindow) {
      recognizer.ignore(touch, for: event)
      kept.remove(touch)
    }
    return kept
  }
}

/// A recognizer of a scene with rules of its own.
protocol SceneRuled: GestureRecognizer {
  var rules: SceneRules { get }
}

final class SceneTapGestureRecognizer: TapGestureRecognizer, SceneRuled {
  let rules: SceneRules
  init(rules: SceneRules) {
    self.rules = rules
    super.init()
  }
  override func canPrevent(_ other: GestureRecognizer) -> Bool {
    rules.canPrevent(other) && super.canPrevent(other)
  }
  override func canBePrevented(by other: GestureRecognizer) -> Bool {
    rules.canBePrevented(by: other) && super.canBePrevented(by: other)
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let kept = rules.keep(touches, for: self, event: event)
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}

final class SceneLongPressGestureRecognizer: LongPressGestureRecognizer, SceneRuled {
  let rules: SceneRules
  init(rules: SceneRules) {
    self.rules = rules
    super.init()
  }
  override func canPrevent(_ other: GestureRecognizer) -> Bool {
    rules.canPrevent(other) && super.canPrevent(other)
  }
  override func canBePrevented(by other: GestureRecognizer) -> Bool {
    rules.canBePrevented(by: other) && super.canBePrevented(by: other)
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let kept = rules.keep(touches, for: self, event: event)
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}

final class ScenePanGestureRecognizer: PanGestureRecognizer, SceneRuled {
  let rules: SceneRules
  init(rules: SceneRules) {
    self.rules = rules
    super.init()
  }
  override func canPrevent(_ other: GestureRecognizer) -> Bool {
    rules.canPrevent(other) && super.canPrevent(other)
  }
  override func canBePrevented(by other: GestureRecognizer) -> Bool {
    rules.canBePrevented(by: other) && super.canBePrevented(by: other)
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let kept = rules.keep(touches, for: self, event: event)
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}

final class SceneSwipeGestureRecognizer: SwipeGestureRecognizer, SceneRuled {
  let rules: SceneRules
  init(rules: SceneRules) {
    self.rules = rules
    super.init()
  }
  override func canPrevent(_ other: GestureRecognizer) -> Bool {
    rules.canPrevent(other) && super.canPrevent(other)
  }
  override func canBePrevented(by other: GestureRecognizer) -> Bool {
    rules.canBePrevented(by: other) && super.canBePrevented(by: other)
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let kept = rules.keep(touches, for: self, event: event)
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}

final class ScenePinchGestureRecognizer: PinchGestureRecognizer, SceneRuled {
  let rules: SceneRules
  init(rules: SceneRules) {
    self.rules = rules
    super.init()
  }
  override func canPrevent(_ other: GestureRecognizer) -> Bool {
    rules.canPrevent(other) && super.canPrevent(other)
  }
  override func canBePrevented(by other: GestureRecognizer) -> Bool {
    rules.canBePrevented(by: other) && super.canBePrevented(by: other)
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let kept = rules.keep(touches, for: self, event: event)
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}

final class SceneRotationGestureRecognizer: RotationGestureRecognizer, SceneRuled {
  let rules: SceneRules
  init(rules: SceneRules) {
    self.rules = rules
    super.init()
  }
  override func canPrevent(_ other: GestureRecognizer) -> Bool {
    rules.canPrevent(other) && super.canPrevent(other)
  }
  override func canBePrevented(by other: GestureRecognizer) -> Bool {
    rules.canBePrevented(by: other) && super.canBePrevented(by: other)
  }
  override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
    let kept = rules.keep(touches, for: self, event: event)
    if !kept.isEmpty { super.touchesBegan(kept, with: event) }
  }
}
