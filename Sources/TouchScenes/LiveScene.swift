import EventTime
import ResponderCore
import TouchDispatch

/// A scene live in an app's window, whatever draws it (touch-demo's shared memory, GTK's cairo,
/// SDL's renderer): every recognizer acts on its view (a pan moves it, a pinch scales it, a
/// rotation turns it, a long press highlights it, a tap of two or more taps puts every view back;
/// a control toggles its colour), and `shapes` says what to draw.
public final class LiveScene {
  /// A view as the window shows it: its bounds' corners in window points, and its colour.
  public struct Shape: Equatable {
    public var corners: [Point]
    /// 0xAARRGGBB.
    public var color: UInt32
  }

  /// The window, its views and recognizers, and the JSON lines (`world.emit`).
  public let world: SceneWorld
  /// Called whenever what `shapes` returns may have changed: the app redraws.
  public var onChange: () -> Void = {}
  /// Each view's centre and transform as the scene gave them.
  private var original: [ObjectIdentifier: (center: Point, transform: AffineTransform)] = [:]
  /// What a gesture in progress started from, per view.
  private var startCenter: [ObjectIdentifier: Point] = [:]
  private var highlighted: Set<ObjectIdentifier> = []
  private var toggled: Set<ObjectIdentifier> = []
  private var order: [View] = []
  private var turns: [ObjectIdentifier: Turn] = [:]

  /// The scene the demos show without `--scene` (the format of `responderctl touch replay`): a
  /// card that pans, a square that pinches and rotates, a button, a pad that highlights on a long
  /// press, and a double tap anywhere that puts everything back.
  public static let builtIn = """
    {"screen": {"width": 800, "height": 600},
     "views": [
       {"id": "card", "frame": [60, 80, 260, 160]},
       {"id": "square", "frame": [470, 110, 200, 200], "multipleTouch": true},
       {"id": "button", "frame": [60, 420, 220, 90], "control": "button"},
       {"id": "pad", "frame": [470, 400, 200, 130]}
     ],
     "recognizers": [
       {"id": "pan", "kind": "pan", "view": "card"},
       {"id": "pinch", "kind": "pinch", "view": "square", "simultaneousWith": ["rotate"]},
       {"id": "rotate", "kind": "rotation", "view": "square", "simultaneousWith": ["pinch"]},
       {"id": "press", "kind": "longPress", "view": "pad"},
       {"id": "reset", "kind": "tap", "view": "window", "taps": 2}
     ]}
    """

  /// The window's background, 0xAARRGGBB.
  public static let background: UInt32 = 0xFFF1_F2F4
  private static let palette: [UInt32] = [0xFF3B_82F6, 0xFFF5_9E0B, 0xFF10_B981, 0xFF8B_5CF6, 0xFF64_748B]

  public init(scene: TouchScene, scheduler: any Scheduler) {
    world = SceneWorld(scene: scene, scheduler: scheduler)
    collect(world.window)
    for view in order { original[ObjectIdentifier(view)] = (view.center, view.transform) }
    for recognizer in world.recognizers.values {
      recognizer.addHandler { [unowned self] recognizer in self.act(recognizer) }
    }
    for case let control as Control in order {
      control.addHandler(for: .allEvents) { [unowned self] control, event in
        if event.contains(.touchUpInside) {
          let id = ObjectIdentifier(control)
          if toggled.remove(id) == nil { toggled.insert(id) }
        }
        onChange()
      }
    }
  }

  /// The window's size in points changed (the compositor configured it).
  public func resize(to size: Size) {
    world.window.frame = Rect(origin: .zero, size: size)
    onChange()
  }

  /// The visible views, back to front, as the window shows them.
  public var shapes: [Shape] {
    var shapes: [Shape] = []
    for (index, view) in order.enumerated() where !isHidden(view) {
      let id = ObjectIdentifier(view)
      var color = Self.palette[index % Self.palette.count]
      if let control = view as? Control {
        color = toggled.contains(id) ? 0xFFEF_4444 : 0xFF10_B981
        if control.isTouchInside { color = Self.darker(color) }
      } else if highlighted.contains(id) {
        color = 0xFFFA_CC15
      }
      let b = view.bounds
      let corners = [
        Point(x: b.origin.x, y: b.origin.y), Point(x: b.origin.x + b.size.width, y: b.origin.y),
        Point(x: b.origin.x + b.size.width, y: b.origin.y + b.size.height),
        Point(x: b.origin.x, y: b.origin.y + b.size.height),
      ]
      shapes.append(Shape(corners: corners.map { view.convert($0, to: nil) }, color: color))
    }
    return shapes
  }

  /// The line the demos print with `--log` when the compositor configured the window (not a line
  /// `touch replay` prints; the first one says the window is configured).
  public func windowLine(size: Size, scale: Double, fullscreen: Bool) -> String {
    "{\"t\":\(world.scheduler.now), \"kind\":\"window\", \"width\":\(size.width), \"height\":\(size.height), "
      + "\"scale\":\(scale), \"fullscreen\":\(fullscreen)}"
  }

  private func collect(_ view: View) {
    for subview in view.subviews {
      order.append(subview)
      collect(subview)
    }
  }

  /// What a recognizer's action does to its view.
  private func act(_ recognizer: GestureRecognizer) {
    guard let view = recognizer.view else { return }
    let id = ObjectIdentifier(view)
    switch recognizer {
    case let pan as PanGestureRecognizer:
      switch pan.state {
      case .began: startCenter[id] = view.center
      case .changed, .ended:
        let start = startCenter[id] ?? view.center
        let translation = pan.translation(in: view.superview)
        view.center = Point(x: start.x + translation.x, y: start.y + translation.y)
      case .cancelled: view.center = startCenter[id] ?? view.center  // a cancelled drag puts it back
      default: break
      }
    case let pinch as PinchGestureRecognizer:
      gesture(view, pinch.state, \.scale, pinch.scale)
    case let rotation as RotationGestureRecognizer:
      gesture(view, rotation.state, \.angle, rotation.rotation)
    case let press as LongPressGestureRecognizer:
      switch press.state {
      case .began: highlighted.insert(id)
      case .ended, .cancelled, .failed: highlighted.remove(id)
      default: break
      }
    case let tap as TapGestureRecognizer where tap.numberOfTapsRequired >= 2:
      turns.removeAll()
      for view in order {
        guard let start = original[ObjectIdentifier(view)] else { continue }
        view.transform = start.transform
        view.center = start.center
      }
      toggled.removeAll()
    default: break
    }
    onChange()
  }

  /// A view's pinch and rotation: the transform before them, times the scale and the angle the
  /// gestures in progress have made (a uniform scale and a rotation commute, so the two gestures
  /// compose in any order).
  private struct Turn {
    var base: AffineTransform
    var scale: Double = 1
    var angle: Double = 0
    var transform: AffineTransform {
      base.concatenating(AffineTransform(scaleX: scale, y: scale)).concatenating(
        AffineTransform(rotationAngle: angle))
    }
  }

  /// A pinch (`\.scale`) or a rotation (`\.angle`) changed `view` to `value`: an ended gesture's
  /// value joins the base, a cancelled one's is taken back.
  private func gesture(
    _ view: View, _ state: GestureRecognizer.State, _ component: WritableKeyPath<Turn, Double>,
    _ value: Double
  ) {
    let id = ObjectIdentifier(view)
    var turn = turns[id] ?? Turn(base: view.transform)
    let identity: Double = component == \Turn.scale ? 1 : 0
    switch state {
    case .began, .changed: turn[keyPath: component] = value
    case .ended:
      var alone = Turn(base: turn.base)
      alone[keyPath: component] = value
      turn.base = alone.transform
      turn[keyPath: component] = identity
    case .cancelled: turn[keyPath: component] = identity
    default: return
    }
    turns[id] = turn
    view.transform = turn.transform
  }

  private func isHidden(_ view: View) -> Bool {
    var current: View? = view
    while let view = current {
      if view.isHidden || view.alpha <= 0 { return true }
      current = view.superview
    }
    return false
  }

  private static func darker(_ color: UInt32) -> UInt32 {
    let r = (color >> 16) & 0xFF
    let g = (color >> 8) & 0xFF
    let b = color & 0xFF
    return 0xFF00_0000 | (r * 3 / 4) << 16 | (g * 3 / 4) << 8 | (b * 3 / 4)
  }
}
