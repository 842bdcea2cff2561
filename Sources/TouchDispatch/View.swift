import ResponderCore

/// A rectangular area of a window that receives touches, as UIView.
///
/// A view's `frame` is in its superview's coordinates; its own coordinates are those of `bounds`.
/// `center`, `bounds` and `transform` define where it is: a point `p` of the view is at
/// `transform(p - boundsCenter) + center` in the superview.
open class View: Responder, TouchCoordinateSpace {
  // Public properties are computed over private `xStorage` fields, as in every public class of
  // this module: a touch frame reads them, and a public stored property is checked at run time on
  // every access from another module (HotPathRulesTests; OutOfPlace.swift says why).
  /// The view containing this one, if any. An unowned reference (a weak one would give every view a
  /// side table, which makes each retain of it slower): the superview owns this view and clears it
  /// when it goes away, and reading it after that would stop the program, not read freed memory.
  public private(set) var superview: View? {
    get { superviewStorage }
    set { superviewStorage = newValue }
  }
  private unowned var superviewStorage: View?
  /// The subviews, back to front: the last one is drawn on top and hit-tested first.
  public var subviews: [View] { subviewList }
  private var subviewList: [View] = []
  /// The center of the frame, in the superview's coordinates.
  public var center: Point {
    get { centerStorage }
    set { centerStorage = newValue }
  }
  private var centerStorage: Point
  /// The view's own coordinate space: its origin and size.
  public var bounds: Rect {
    get { boundsStorage }
    set { boundsStorage = newValue }
  }
  private var boundsStorage: Rect
  /// A transform applied around the center (rotation, scale, translation).
  public var transform: AffineTransform {
    get { transformStorage }
    set { transformStorage = newValue }
  }
  private var transformStorage: AffineTransform = .identity
  /// Hidden views, and their subviews, are not hit-tested.
  public var isHidden: Bool {
    get { isHiddenStorage }
    set { isHiddenStorage = newValue }
  }
  private var isHiddenStorage = false
  /// Views that ignore user interaction, and their subviews, are not hit-tested.
  public var isUserInteractionEnabled: Bool {
    get { isUserInteractionEnabledStorage }
    set { isUserInteractionEnabledStorage = newValue }
  }
  private var isUserInteractionEnabledStorage = true
  /// Opacity; views below 0.01 are not hit-tested.
  public var alpha: Double {
    get { alphaStorage }
    set { alphaStorage = newValue }
  }
  private var alphaStorage: Double = 1
  /// Whether content is clipped to the bounds. Hit-testing never finds a subview outside the
  /// bounds either way, as in UIKit.
  public var clipsToBounds: Bool {
    get { clipsToBoundsStorage }
    set { clipsToBoundsStorage = newValue }
  }
  private var clipsToBoundsStorage: Bool = false
  /// Whether the view receives more than one touch at a time (false by default, as UIKit).
  /// Gesture recognizers receive every touch whatever this says.
  public var isMultipleTouchEnabled: Bool {
    get { isMultipleTouchEnabledStorage }
    set { isMultipleTouchEnabledStorage = newValue }
  }
  private var isMultipleTouchEnabledStorage: Bool = false
  /// Whether the view tracks touches only while no other view of the window does, and blocks
  /// touches to other views while it does.
  public var isExclusiveTouch: Bool {
    get { isExclusiveTouchStorage }
    set { isExclusiveTouchStorage = newValue }
  }
  private var isExclusiveTouchStorage: Bool = false
  /// The gesture recognizers attached to this view, in the order they were added.
  public private(set) var gestureRecognizers: [GestureRecognizer] {
    get { gestureRecognizersStorage }
    set { gestureRecognizersStorage = newValue }
  }
  private var gestureRecognizersStorage: [GestureRecognizer] = []
  /// A name for records, logs and tools (the scene id in `responderctl touch replay`).
  public var identifier: String? {
    get { identifierStorage }
    set { identifierStorage = newValue }
  }
  private var identifierStorage: String?

  /// The view controller whose root view this is (unowned, as `superview`: the controller clears it
  /// when it goes away).
  public internal(set) var viewController: ViewController? {
    get { viewControllerStorage }
    set {
      viewControllerStorage = newValue
      hasViewController = newValue != nil
    }
  }
  private unowned var viewControllerStorage: ViewController?
  /// Whether `viewController` is set: `next` reads the reference only then. The flag's accesses
  /// are never checked at run time (storing it releases nothing), unlike the reference's.
  private var hasViewController = false

  /// A view with the given frame (in its future superview's coordinates).
  public init(frame: Rect = .zero) {
    centerStorage = frame.center
    boundsStorage = Rect(origin: .zero, size: Size(width: frame.width, height: frame.height))
    super.init()
  }

  deinit {
    for subview in subviewList { subview.superview = nil }
    for recognizer in gestureRecognizers { recognizer.view = nil }
  }

  /// The rectangle the view occupies in its superview: the bounding box of its transformed bounds.
  /// Setting it sets `center` and the size of `bounds`.
  public var frame: Rect {
    get {
      if transform.isIdentity {
        return Rect(
          x: center.x - bounds.width / 2, y: center.y - bounds.height / 2, width: bounds.width,
          height: bounds.height)
      }
      let local = Rect(
        x: -bounds.width / 2, y: -bounds.height / 2, width: bounds.width, height: bounds.height)
      let box = local.applying(transform)
      return Rect(x: box.minX + center.x, y: box.minY + center.y, width: box.width, height: box.height)
    }
    set {
      center = newValue.center
      bounds.size = Size(width: newValue.width, height: newValue.height)
    }
  }

  /// The window at the root of this view's hierarchy, if any.
  public var window: Window? {
    var current: View? = self
    while let view = current {
      if let window = view as? Window { return window }
      current = view.superview
    }
    return nil
  }

  // MARK: Hierarchy

  /// Adds `view` on top of the other subviews (removing it from its old superview first).
  public func addSubview(_ view: View) {
    insertSubview(view, at: subviews.count)
  }

  /// Inserts `view` at `index` in the subviews (0 is the back).
  public func insertSubview(_ view: View, at index: Int) {
    precondition(view !== self, "a view cannot be its own subview")
    if view.superview === self, let old = subviewList.firstIndex(where: { $0 === view }) {
      var list = subviewList.takeOut()
      list.remove(at: old)
      subviewList.putBack(&list)
    } else {
      view.detach(movingTo: window)
    }
    var list = subviewList.takeOut()
    list.insert(view, at: max(0, min(index, list.count)))
    subviewList.putBack(&list)
    view.superview = self
  }

  /// Removes the view from its superview. Touches the window was delivering to it, or to its
  /// subviews, are cancelled.
  public func removeFromSuperview() {
    detach(movingTo: nil)
  }

  /// Takes the view out of its superview, on its way to `destination` (nil: out of every window).
  /// Staying in its window, it and its subviews keep first-responder status and a shake under way.
  private func detach(movingTo destination: Window?) {
    guard let parent = superview else { return }
    let window = self.window
    var list = parent.subviewList.takeOut()
    list.removeAll { $0 === self }
    parent.subviewList.putBack(&list)
    superview = nil
    window?.viewWasRemoved(self, staysInWindow: window === destination)
  }

  /// Moves a subview to the front.
  public func bringSubviewToFront(_ view: View) {
    guard view.superview === self else { return }
    insertSubview(view, at: subviews.count)
  }

  /// Moves a subview to the back.
  public func sendSubviewToBack(_ view: View) {
    guard view.superview === self else { return }
    insertSubview(view, at: 0)
  }

  /// Whether this view is `view` or one of its descendants.
  public func isDescendant(of view: View) -> Bool {
    var current: View? = self
    while let candidate = current {
      if candidate === view { return true }
      current = candidate.superview
    }
    return false
  }

  // MARK: Gesture recognizers

  /// Attaches a gesture recognizer (detaching it from its old view first).
  public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
    if let old = recognizer.view {
      if old === self { return }
      old.removeGestureRecognizer(recognizer)
    }
    var list = gestureRecognizersStorage.takeOut()
    list.append(recognizer)
    gestureRecognizersStorage.putBack(&list)
    recognizer.view = self
  }

  /// Detaches a gesture recognizer; one in progress is cancelled.
  public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
    guard recognizer.view === self else { return }
    recognizer.abandon()
    var list = gestureRecognizersStorage.takeOut()
    list.removeAll { $0 === recognizer }
    gestureRecognizersStorage.putBack(&list)
    recognizer.view = nil
  }

  /// Asked when a gesture recognizer attached to this view, or one that would take touches away
  /// from it, tries to leave the possible state; false makes it fail. True by default.
  open func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool { true }

  // MARK: Hit-testing

  /// Whether `point` (in this view's coordinates) is inside the view: inside `bounds` by default.
  open func point(inside point: Point, with event: Event?) -> Bool {
    bounds.contains(point)
  }

  /// The farthest descendant of this view (or the view itself) that contains `point`, in this
  /// view's coordinates; nil when the point is outside. Hidden views, views that ignore user
  /// interaction and views with alpha below 0.01 are skipped with their subviews; subviews are
  /// searched front to back; a point outside the bounds never hits a subview.
  open func hitTest(_ point: Point, with event: Event?) -> View? {
    guard isUserInteractionEnabled, !isHidden, alpha >= 0.01, self.point(inside: point, with: event)
    else { return nil }
    // A copy of the list: an override may change the hierarchy meanwhile.
    let subviews = self.subviews
    var index = subviews.count
    while index > 0 {
      index -= 1
      let subview = subviews[index]
      let local = subview.pointFromSuperview(point)
      // A plain view (neither method overridden) that the point misses is not asked.
      if type(of: subview) == View.self && !subview.isHitAsPlainView(at: local) { continue }
      if let hit = subview.hitTest(local, with: event) { return hit }
    }
    return self
  }

  /// Whether this view's own test passes for `point`, as `hitTest` and `point(inside:)` of this
  /// class make it.
  private func isHitAsPlainView(at point: Point) -> Bool {
    isUserInteractionEnabledStorage && !isHiddenStorage && alphaStorage >= 0.01
      && boundsStorage.contains(point)
  }

  // MARK: Coordinates

  /// A point of this view in its superview's coordinates.
  @inline(__always)
  public final func pointToSuperview(_ point: Point) -> Point {
    if transform.isIdentity {
      return Point(
        x: point.x - bounds.origin.x - bounds.size.width / 2 + center.x,
        y: point.y - bounds.origin.y - bounds.size.height / 2 + center.y)
    }
    let local = Point(
      x: point.x - bounds.origin.x - bounds.size.width / 2,
      y: point.y - bounds.origin.y - bounds.size.height / 2)
    let moved = local.applying(transform)
    return Point(x: moved.x + center.x, y: moved.y + center.y)
  }

  /// A point of the superview in this view's coordinates.
  @inline(__always)
  public final func pointFromSuperview(_ point: Point) -> Point {
    let offset = Point(x: point.x - center.x, y: point.y - center.y)
    let local = transform.isIdentity ? offset : offset.applying(transform.inverted())
    return Point(
      x: local.x + bounds.origin.x + bounds.size.width / 2,
      y: local.y + bounds.origin.y + bounds.size.height / 2)
  }

  /// The root of the hierarchy (a window, or a view with no superview) and `point` in its
  /// coordinates.
  private func toRoot(_ point: Point) -> (root: View, point: Point) {
    var view = self
    var p = point
    while let parent = view.superview {
      p = view.pointToSuperview(p)
      view = parent
    }
    return (view, p)
  }

  /// Converts a point of this view to the coordinates of `view` (of this view's window when nil).
  /// Views in different windows convert through the windows' frames (screen coordinates).
  public func convert(_ point: Point, to view: View?) -> Point {
    let (root, rootPoint) = toRoot(point)
    guard let view else { return rootPoint }
    return view.convert(rootPoint, fromRoot: root)
  }

  /// Converts a point of `view` (of this view's window when nil) to this view's coordinates.
  public func convert(_ point: Point, from view: View?) -> Point {
    guard let view else { return convert(point, fromRoot: nil) }
    let (root, rootPoint) = view.toRoot(point)
    return convert(rootPoint, fromRoot: root)
  }

  /// Converts a point of the root view `root` (this view's own root when nil) to this view's
  /// coordinates.
  private func convert(_ rootPoint: Point, fromRoot root: View?) -> Point {
    var chain: [View] = []
    var view = self
    while let parent = view.superview {
      chain.append(view)
      view = parent
    }
    var p = rootPoint
    if let root, view !== root, let from = root as? Window, let to = view as? Window {
      p = to.pointFromSuperview(from.pointToSuperview(p))
    }
    for step in chain.reversed() { p = step.pointFromSuperview(p) }
    return p
  }

  /// Converts a rectangle of this view to `view`'s coordinates (its bounding box there).
  public func convert(_ rect: Rect, to view: View?) -> Rect {
    Rect(boundingBoxOf: rect.corners.map { convert($0, to: view) })
  }

  /// Touch locations are kept in window coordinates.
  public func convertFromWindow(_ point: Point) -> Point {
    convert(point, from: nil)
  }

  // MARK: Responder

  /// The view controller when this is its root view, else the superview.
  open override var next: Responder? {
    if hasViewController, let viewController { return viewController }
    return superview
  }

  open override var isPartOfViewHierarchy: Bool { true }

  open override var responderName: String { identifier ?? typeName }

  /// The class name, computed once (dispatch records ask for names on every touch frame).
  private lazy var typeName = String(describing: type(of: self))
}
