import EventTime
import ResponderConfig
import ResponderCore
import TouchDispatch

/// Whole-screen gestures: one full-screen view in a window, with a recognizer for each configured
/// gesture, UIKit's rules between them (and `require-to-fail`), calling `perform` when a gesture
/// happens. Pure: feed it touches (a `TouchscreenInput` on its window); the daemon's touch
/// component does, from the configured touchscreen.
///
/// Taps and swipes act when recognized, long presses when they begin, pinches when they end (in
/// or out by the final scale). An edge swipe only takes touches that start within `edgeWidth`
/// points of its edge, and a plain swipe with the same fingers and direction waits for it to fail.
public final class ScreenGestures {
  public let window: Window
  /// The full-screen view the recognizers are attached to.
  public let view: View
  /// The recognizer of each gesture, by name (pinch gestures share one recognizer).
  public private(set) var recognizers: [String: GestureRecognizer] = [:]
  private var delegates: [EdgeFilter] = []

  /// `perform` gets the binding and the time (on the window's clock).
  public init(
    bindings: [TouchGestureBinding], screen: Size, edgeWidth: Double, scheduler: any Scheduler,
    perform: @escaping (TouchGestureBinding, Seconds) -> Void
  ) {
    window = Window(frame: Rect(x: 0, y: 0, width: screen.width, height: screen.height), scheduler: scheduler)
    view = View(frame: window.bounds)
    view.identifier = "screen"
    view.isMultipleTouchEnabled = true
    window.addSubview(view)
    let clock = window.scheduler
    var pinches: [TouchGestureBinding] = []
    for binding in bindings {
      let recognizer: GestureRecognizer
      switch binding.kind {
      case .tap:
        let tap = TapGestureRecognizer { _ in perform(binding, clock.now) }
        tap.numberOfTapsRequired = binding.taps
        tap.numberOfTouchesRequired = binding.fingers
        recognizer = tap
      case .swipe, .edgeSwipe:
        let swipe = SwipeGestureRecognizer { _ in perform(binding, clock.now) }
        swipe.direction = binding.direction
        swipe.numberOfTouchesRequired = binding.fingers
        if let edge = binding.edge {
          let filter = EdgeFilter(edge: edge, width: edgeWidth, screen: screen)
          swipe.delegate = filter
          delegates.append(filter)
        }
        recognizer = swipe
      case .longPress:
        let press = LongPressGestureRecognizer { recognizer in
          if recognizer.state == .began { perform(binding, clock.now) }
        }
        press.numberOfTouchesRequired = binding.fingers
        press.minimumPressDuration = binding.duration
        recognizer = press
      case .pinch:
        pinches.append(binding)
        continue
      }
      recognizer.name = binding.name
      view.addGestureRecognizer(recognizer)
      recognizers[binding.name] = recognizer
    }
    if !pinches.isEmpty {
      let pinch = PinchGestureRecognizer { recognizer in
        guard recognizer.state == .ended, let pinch = recognizer as? PinchGestureRecognizer else { return }
        let direction: TouchGestureBinding.PinchDirection? =
          pinch.scale < 1 ? .in : pinch.scale > 1 ? .out : nil
        for binding in pinches where binding.pinch == direction { perform(binding, clock.now) }
      }
      pinch.name = pinches.map(\.name).joined(separator: "+")
      view.addGestureRecognizer(pinch)
      for binding in pinches { recognizers[binding.name] = pinch }
    }
    for binding in bindings {
      guard let recognizer = recognizers[binding.name] else { continue }
      for name in binding.requireToFail {
        if let other = recognizers[name], other !== recognizer { recognizer.require(toFail: other) }
      }
      if binding.kind == .swipe {
        for edge in bindings
        where edge.kind == .edgeSwipe && edge.fingers == binding.fingers
          && edge.direction == binding.direction
        {
          if let other = recognizers[edge.name] { recognizer.require(toFail: other) }
        }
      }
    }
  }

  /// Gives the screen a new size (it turned: `[touch] rotation = "auto"`): the window and its
  /// view take it, and edge swipes measure their edges on it. Call it between touch sequences.
  public func resize(to screen: Size) {
    window.frame = Rect(x: 0, y: 0, width: screen.width, height: screen.height)
    view.frame = window.bounds
    for filter in delegates { filter.screen = screen }
  }
}

/// Lets an edge swipe take only sequences whose first touch starts near its edge (the other
/// fingers of a multi-finger edge swipe may land anywhere).
final class EdgeFilter: GestureRecognizerDelegate {
  let edge: TouchGestureBinding.Edge
  let width: Double
  var screen: Size

  init(edge: TouchGestureBinding.Edge, width: Double, screen: Size) {
    self.edge = edge
    self.width = width
    self.screen = screen
  }

  func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool {
    if !gestureRecognizer.touches.isEmpty { return true }
    let p = touch.locationInWindow
    switch edge {
    case .left: return p.x < width
    case .right: return p.x >= screen.width - width
    case .top: return p.y < width
    case .bottom: return p.y >= screen.height - width
    }
  }
}
