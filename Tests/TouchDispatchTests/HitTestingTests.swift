import EventTime
import ResponderCore
import Testing
import TouchDispatch

/// A view that notes every point(inside:) it is asked.
final class ProbedView: View {
  let probes: Log
  init(_ name: String, frame: Rect, probes: Log) {
    self.probes = probes
    super.init(frame: frame)
    identifier = name
  }
  override func point(inside point: Point, with event: Event?) -> Bool {
    let inside = super.point(inside: point, with: event)
    probes.add("\(identifier!) \(inside ? "in" : "out")")
    return inside
  }
}

/// A tab bar that catches touches on a button sticking out of its bounds (seed 002's
/// CYLTabBarController override of hitTest).
final class OverhangingTabBar: View {
  override func hitTest(_ point: Point, with event: Event?) -> View? {
    guard !clipsToBounds, !isHidden, alpha > 0 else { return nil }
    for subview in subviews.reversed() {
      if let hit = subview.hitTest(subview.convert(point, from: self), with: event) { return hit }
    }
    return super.hitTest(point, with: event)
  }
}

/// A bar whose point(inside:) also takes the points of its subviews that stick out of its bounds
/// (seed 002: "也可以重写 pointInside:withEvent: 方法来处理这种情况").
final class GenerousBar: View {
  override func point(inside point: Point, with event: Event?) -> Bool {
    if super.point(inside: point, with: event) { return true }
    return subviews.contains { !$0.isHidden && $0.frame.contains(point) }
  }
}

@Suite struct HitTestingTests {
  /// Seed 000 "Hit-Testing Returns the View Where a Touch Occurred": a touch in E. The touch is in
  /// A, so B and C are checked; not in B but in C, so D and E are checked; not in D but in E; E
  /// is the lowest view containing it, the hit-test view. (B is in front of C, D in front of E,
  /// so the search, front to back, checks them first, in the order the seed tells.)
  @Test func touchInEFindsE() {
    let probes = Log()
    let a = ProbedView("A", frame: Rect(x: 0, y: 0, width: 300, height: 400), probes: probes)
    let b = ProbedView("B", frame: Rect(x: 10, y: 10, width: 280, height: 100), probes: probes)
    let c = ProbedView("C", frame: Rect(x: 10, y: 150, width: 280, height: 240), probes: probes)
    let d = ProbedView("D", frame: Rect(x: 10, y: 10, width: 260, height: 100), probes: probes)
    let e = ProbedView("E", frame: Rect(x: 10, y: 130, width: 260, height: 100), probes: probes)
    a.addSubview(c)
    a.addSubview(b)
    c.addSubview(e)
    c.addSubview(d)
    let hit = a.hitTest(Point(x: 50, y: 320), with: nil)
    #expect(hit === e)
    #expect(probes.take() == ["A in", "B out", "C in", "D out", "E in"])
  }

  /// The same hierarchy in a window, hit by a real touch: the touch's view is E, fixed for the
  /// sequence.
  @Test func touchesGetTheirHitTestView() {
    let h = Harness()
    let a = h.addView("A", 0, 0, 300, 400)
    let c = h.addView("C", 10, 150, 280, 240, to: a)
    h.addView("B", 10, 10, 280, 100, to: a)
    let e = h.addView("E", 10, 130, 260, 100, to: c)
    h.addView("D", 10, 10, 260, 100, to: c)
    h.down(0, 50, 320, at: 1)
    #expect(h.log.take() == ["E touchesBegan 0"])
    #expect(h.input.activeTouches.first?.view === e)
    h.move(0, 200, 20, at: 1.1)  // now over B: still E's touch
    h.up(0, at: 1.2)
    #expect(h.log.take() == ["E touchesMoved 0", "E touchesEnded 0"])
  }

  @Test func frontmostOverlappingSubviewWins() {
    let root = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    let back = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    let front = View(frame: Rect(x: 50, y: 50, width: 50, height: 50))
    root.addSubview(back)
    root.addSubview(front)
    #expect(root.hitTest(Point(x: 60, y: 60), with: nil) === front)
    #expect(root.hitTest(Point(x: 10, y: 10), with: nil) === back)
    root.bringSubviewToFront(back)
    #expect(root.hitTest(Point(x: 60, y: 60), with: nil) === back)
  }

  /// Hidden views, views that ignore user interaction and views with alpha below 0.01 are skipped
  /// together with their subviews; the view behind gets the touch.
  @Test func skippedViews() {
    let root = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    let behind = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    let cover = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    let child = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    root.addSubview(behind)
    root.addSubview(cover)
    cover.addSubview(child)
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) === child)

    cover.isHidden = true
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) === behind)
    cover.isHidden = false
    cover.isUserInteractionEnabled = false
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) === behind)
    cover.isUserInteractionEnabled = true
    cover.alpha = 0.009
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) === behind)
    cover.alpha = 0.01
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) === child)
    child.isUserInteractionEnabled = false
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) === cover)
    root.isHidden = true
    #expect(root.hitTest(Point(x: 5, y: 5), with: nil) == nil)
  }

  /// A subview sticking out of its superview (clipsToBounds false) is not hit outside the
  /// superview's bounds, unless the superview overrides hitTest (seed 002).
  @Test func pointsOutsideTheBoundsNeverHitSubviews() {
    let root = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
    let bar = View(frame: Rect(x: 0, y: 300, width: 400, height: 100))
    let button = View(frame: Rect(x: 150, y: -40, width: 100, height: 80))  // 40 points above the bar
    root.addSubview(bar)
    bar.addSubview(button)
    #expect(!bar.clipsToBounds)
    #expect(root.hitTest(Point(x: 200, y: 320), with: nil) === button)
    #expect(root.hitTest(Point(x: 200, y: 280), with: nil) === root)

    let tabBar = OverhangingTabBar(frame: Rect(x: 0, y: 300, width: 400, height: 100))
    let bigButton = View(frame: Rect(x: 150, y: -40, width: 100, height: 80))
    root.addSubview(tabBar)
    tabBar.addSubview(bigButton)
    #expect(root.hitTest(Point(x: 200, y: 280), with: nil) === bigButton)
  }

  /// Seed 002, 说明 2: a subview sticking out of its superview is not hit there, because the
  /// superview's pointInside:withEvent: says no; overriding pointInside:withEvent: handles it. The
  /// window's hit-test of a real touch honours the override: the touch goes to the button.
  @Test func overridingPointInsideReachesASubviewOutsideTheBounds() {
    let h = Harness()
    let bar = GenerousBar(frame: Rect(x: 0, y: 300, width: 400, height: 100))
    h.window.addSubview(bar)
    let button = h.addView("B", 150, -40, 100, 80, to: bar)  // 40 points above the bar
    #expect(h.window.hitTest(Point(x: 200, y: 280), with: nil) === button)
    #expect(h.window.hitTest(Point(x: 100, y: 280), with: nil) === h.window)  // beside the button
    #expect(h.window.hitTest(Point(x: 100, y: 320), with: nil) === bar)

    h.tap(200, 280, at: 1)
    #expect(h.log.take() == ["B touchesBegan 0", "B touchesEnded 0"])
    button.isHidden = true
    #expect(h.window.hitTest(Point(x: 200, y: 280), with: nil) === h.window)
  }

  @Test func pointInsideUsesBoundsWithMinEdgesIncluded() {
    let view = View(frame: Rect(x: 10, y: 10, width: 20, height: 20))
    #expect(view.point(inside: Point(x: 0, y: 0), with: nil))
    #expect(!view.point(inside: Point(x: 20, y: 5), with: nil))
    #expect(!view.point(inside: Point(x: -0.5, y: 5), with: nil))
  }

  /// Frames are in the superview's coordinates; bounds origins scroll the content; transforms
  /// apply around the center.
  @Test func coordinateConversions() {
    let window = Window(frame: Rect(x: 0, y: 0, width: 400, height: 800), scheduler: VirtualScheduler())
    let outer = View(frame: Rect(x: 100, y: 50, width: 200, height: 200))
    let inner = View(frame: Rect(x: 20, y: 30, width: 50, height: 50))
    window.addSubview(outer)
    outer.addSubview(inner)
    #expect(inner.convert(Point(x: 0, y: 0), to: nil) == Point(x: 120, y: 80))
    #expect(inner.convert(Point(x: 120, y: 80), from: nil) == Point(x: 0, y: 0))
    #expect(inner.convert(Point(x: 5, y: 5), to: outer) == Point(x: 25, y: 35))
    #expect(outer.convert(Point(x: 25, y: 35), to: inner) == Point(x: 5, y: 5))

    outer.bounds.origin = Point(x: 0, y: 100)  // scrolled down by 100
    #expect(inner.convert(Point(x: 0, y: 0), to: nil) == Point(x: 120, y: -20))
    outer.bounds.origin = .zero

    inner.transform = AffineTransform(scaleX: 2, y: 2)  // around its center (45, 55) in outer
    #expect(inner.frame == Rect(x: -5, y: 5, width: 100, height: 100))
    #expect(inner.convert(Point(x: 0, y: 0), to: outer) == Point(x: -5, y: 5))
    #expect(inner.convert(Point(x: -5, y: 5), from: outer) == Point(x: 0, y: 0))
    #expect(window.hitTest(Point(x: 180, y: 110), with: nil) === inner)  // in the scaled area only
    #expect(window.hitTest(Point(x: 98, y: 58), with: nil) === window)  // outside outer: never inner

    inner.transform = AffineTransform(rotationAngle: Double.pi / 2)
    let corner = inner.convert(Point(x: 0, y: 0), to: outer)  // top-left turns to the top-right
    #expect(abs(corner.x - 70) < 1e-9 && abs(corner.y - 30) < 1e-9)
    let back = inner.convert(corner, from: outer)
    #expect(abs(back.x) < 1e-9 && abs(back.y) < 1e-9)
  }

  /// Touch locations follow the view's coordinates: location(in:) and previousLocation(in:).
  @Test func touchLocationsInViews() {
    let h = Harness()
    let view = h.addView("V", 100, 200, 100, 100)
    h.down(0, 110, 220, at: 1)
    h.move(0, 130, 250, at: 1.1)
    let touch = h.input.activeTouches[0]
    #expect(touch.location(in: view) == Point(x: 30, y: 50))
    #expect(touch.previousLocation(in: view) == Point(x: 10, y: 20))
    #expect(touch.location(in: nil) == Point(x: 130, y: 250))
    #expect(touch.location(in: h.window) == Point(x: 130, y: 250))
  }
}

@Suite struct ResponderChainTests {
  /// Seed 004 "Altering the Responder Chain": a view's next responder is its controller when it is
  /// the controller's root view, else its superview; a controller's is the window when its view
  /// is the window's root view, else the presenting controller; the window's is the application.
  @Test func nextResponderRules() {
    let scheduler = VirtualScheduler()
    let app = Application(scheduler: scheduler)
    let window = Window(frame: Rect(x: 0, y: 0, width: 400, height: 800), application: app)
    let root = ViewController()
    window.rootViewController = root
    let container = View(frame: Rect(x: 0, y: 0, width: 400, height: 400))
    let field = View(frame: Rect(x: 10, y: 10, width: 100, height: 30))
    root.view.addSubview(container)
    container.addSubview(field)

    #expect(field.next === container)
    #expect(container.next === root.view)
    #expect(root.view.next === root)
    #expect(root.next === window)
    #expect(window.next === app)
    #expect(app.next == nil)
    #expect(field.application === app)

    let presented = ViewController()
    root.present(presented)
    #expect(presented.view.superview === window)
    #expect(presented.view.next === presented)
    #expect(presented.next === root)
    root.dismiss()
    #expect(presented.view.superview == nil)

    // A child controller's view inside another view: its controller's next is that superview.
    let child = ViewController()
    container.addSubview(child.view)
    #expect(child.view.next === child)
    #expect(child.next === container)

    for responder in [field, container, root.view, root, window] as [Responder] {
      #expect(responder.isPartOfViewHierarchy)
    }
  }

  /// Seed 004: the application's delegate is its next responder when it is a responder outside
  /// the view hierarchy, and never a view.
  @Test func applicationDelegate() {
    let app = Application(scheduler: VirtualScheduler())
    let delegate = Responder()
    app.delegate = delegate
    #expect(app.next === delegate)
    let view = View()
    app.delegate = view
    #expect(app.next == nil)
  }

  /// Seed 004 "Determining an Event's First Responder": the first responder of a touch event is
  /// the view in which the touch occurred, whoever is the application's first responder; a shake
  /// goes to the designated first responder.
  @Test func touchesGoToTheHitTestViewNotTheFirstResponder() {
    final class Field: View {
      var got: [String] = []
      override var canBecomeFirstResponder: Bool { true }
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { got.append("touchesBegan") }
      override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { got.append("touchesEnded") }
      override func motionBegan(_ motion: EventSubtype, with event: Event?) { got.append("motionBegan") }
    }
    let h = Harness()
    let field = Field(frame: Rect(x: 0, y: 0, width: 400, height: 100))
    h.window.addSubview(field)
    h.addView("V", 0, 200, 400, 200)
    #expect(field.becomeFirstResponder())
    #expect(h.app.firstResponder === field)

    h.tap(100, 300, at: 1)
    #expect(h.log.take() == ["V touchesBegan 0", "V touchesEnded 0"])
    #expect(field.got.isEmpty)
    h.app.post(.motion(timestamp: 2))
    #expect(field.got == ["motionBegan"])
    h.tap(100, 50, at: 3)
    #expect(field.got == ["motionBegan", "touchesBegan", "touchesEnded"])
  }

  /// Seed 004, figure 1 "Responder chains in an app": a touch nobody handles goes from the view
  /// where it occurred to its superview, the window's root view, the owning view controller, the
  /// window, the application and, the delegate being a responder outside the chain, the app
  /// delegate. Each passes it on by calling the default implementation.
  @Test func anUnhandledTouchReachesEveryResponderUpToTheAppDelegate() {
    final class Trail {
      var names: [String] = []
    }
    final class PassingView: View {
      let trail: Trail
      init(_ name: String, frame: Rect, trail: Trail) {
        self.trail = trail
        super.init(frame: frame)
        identifier = name
      }
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        trail.names.append(identifier!)
        super.touchesBegan(touches, with: event)
      }
    }
    final class PassingController: ViewController {
      let trail: Trail
      init(view: View, trail: Trail) {
        self.trail = trail
        super.init(view: view)
      }
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        trail.names.append("controller")
        super.touchesBegan(touches, with: event)
      }
    }
    final class PassingWindow: Window {
      var trail: Trail?
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        trail?.names.append("window")
        super.touchesBegan(touches, with: event)
      }
    }
    final class PassingApplication: Application {
      var trail: Trail?
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        trail?.names.append("application")
        super.touchesBegan(touches, with: event)
      }
    }
    final class AppDelegate: Responder {
      var trail: Trail?
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) {
        trail?.names.append("delegate")
      }
    }
    let trail = Trail()
    let scheduler = VirtualScheduler()
    let app = PassingApplication(scheduler: scheduler)
    app.trail = trail
    let delegate = AppDelegate()
    delegate.trail = trail
    app.delegate = delegate
    let window = PassingWindow(frame: Rect(x: 0, y: 0, width: 400, height: 800), application: app)
    window.trail = trail
    let root = PassingView("root", frame: .zero, trail: trail)
    let controller = PassingController(view: root, trail: trail)
    window.rootViewController = controller
    let parent = PassingView("parent", frame: Rect(x: 0, y: 0, width: 200, height: 200), trail: trail)
    let field = PassingView("field", frame: Rect(x: 10, y: 10, width: 100, height: 30), trail: trail)
    root.addSubview(parent)
    parent.addSubview(field)
    let input = TouchInput(window: window)
    input.process([ContactSample(slot: 0, location: Point(x: 20, y: 20))], at: 1)
    #expect(
      trail.names == ["field", "parent", "root", "controller", "window", "application", "delegate"])
    input.process([], at: 1.1)
  }

  /// Seed 003, UIWindow sendEvent: "window 对象将触摸事件调度到发生触摸的 view，并将其他类型的事件分派到最合适的
  /// 目标对象", and an app may call it to dispatch an event it made to the window's responder chain.
  /// A shake, a remote-control event or a press sent to a window goes to its first responder (the
  /// focused responder for a press) when that is in the window, else to the window itself, and up
  /// the chain from there; each delivery is recorded.
  @Test func aWindowSendsOtherEventsToItsFirstResponder() {
    final class Field: View {
      var got: [String] = []
      override var canBecomeFirstResponder: Bool { true }
      override func motionBegan(_ motion: EventSubtype, with event: Event?) { got.append("motionBegan") }
      override func remoteControlReceived(with event: Event?) { got.append("remote:\(event!.subtype)") }
      override func pressesBegan(_ presses: Set<Press>, with event: Event?) { got.append("pressesBegan") }
    }
    let h = Harness()
    var records: [DispatchRecord] = []
    h.app.addDispatchObserver { records.append($0) }
    h.app.beginReceivingRemoteControlEvents()
    h.window.identifier = "window"
    let field = Field(frame: Rect(x: 0, y: 0, width: 400, height: 100))
    field.identifier = "field"
    h.window.addSubview(field)

    h.window.sendEvent(.motion(timestamp: 1))
    #expect(records.last?.receivedBy == ["window", "application"])
    #expect(records.last?.wasDropped == true)

    #expect(field.becomeFirstResponder())
    h.window.sendEvent(.motion(timestamp: 2))
    h.window.sendEvent(.remoteControl(.remoteControlPause, timestamp: 3))
    h.window.sendEvent(Event(type: .presses, timestamp: 4, presses: [Press(type: .select, timestamp: 4)]))
    #expect(field.got == ["motionBegan", "remote:pause", "pressesBegan"])
    #expect(records.suffix(3).map(\.handledBy) == ["field", "field", "field"])

    // The application's first responder in another window is not this window's.
    let other = Window(frame: Rect(x: 0, y: 0, width: 100, height: 100), application: h.app)
    let elsewhere = Field(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    other.addSubview(elsewhere)
    #expect(elsewhere.becomeFirstResponder())
    h.window.sendEvent(.motion(timestamp: 5))
    #expect(field.got.count == 3 && elsewhere.got.isEmpty)
    #expect(records.last?.receivedBy == ["window", "application"])
    other.sendEvent(.motion(timestamp: 6))
    #expect(elsewhere.got == ["motionBegan"])
  }

  /// A touch a view does not handle goes up the chain: superview, controller, window, application.
  @Test func unhandledTouchesTravelUpTheChain() {
    final class Catcher: Responder {
      var got: [String] = []
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { got.append("began") }
      override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { got.append("ended") }
    }
    final class CatchingController: ViewController {
      var got: [String] = []
      override func touchesBegan(_ touches: Set<Touch>, with event: Event?) { got.append("began") }
      override func touchesEnded(_ touches: Set<Touch>, with event: Event?) { got.append("ended") }
    }
    let h = Harness()
    let controller = CatchingController()
    h.window.rootViewController = controller
    let plain = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
    controller.view.addSubview(plain)
    h.tap(10, 10, at: 1)
    #expect(controller.got == ["began", "ended"])
  }
}
