import ResponderCore

/// Manages a view hierarchy, as UIViewController: it is the next responder of its root view.
///
/// Its own next responder is the window when its view is the window's root view, else the view
/// controller that presented it, else its view's superview (a child controller's view).
open class ViewController: Responder {
  private var loadedView: View?

  /// The view controller that presented this one, if any.
  public private(set) var presentingViewController: ViewController? {
    get { presentingViewControllerStorage }
    set { presentingViewControllerStorage = newValue }
  }
  private weak var presentingViewControllerStorage: ViewController?
  /// The view controller this one presented, if any.
  public private(set) var presentedViewController: ViewController? {
    get { presentedViewControllerStorage }
    set { presentedViewControllerStorage = newValue }
  }
  private var presentedViewControllerStorage: ViewController?
  /// A name for records and logs.
  public var identifier: String? {
    get { identifierStorage }
    set { identifierStorage = newValue }
  }
  private var identifierStorage: String?

  /// A controller whose root view is `view`, or a view `loadView()` makes on first use.
  public init(view: View? = nil) {
    super.init()
    if let view { self.view = view }
  }

  deinit {
    // The loaded view's controller is always this one (`view`'s setter keeps it so); it is not
    // read here: an unowned reference to an object being deinitialized cannot be read.
    loadedView?.viewController = nil
  }

  /// The root view; loaded with `loadView()` on first use.
  public var view: View {
    get {
      if let loadedView { return loadedView }
      loadView()
      if loadedView == nil { self.view = View() }
      return loadedView!
    }
    set {
      loadedView?.viewController = nil
      newValue.viewController?.loadedView = nil
      loadedView = newValue
      newValue.viewController = self
    }
  }

  /// Whether the root view exists.
  public var isViewLoaded: Bool { loadedView != nil }

  /// Creates the root view; the default makes an empty `View`. Overrides set `view`.
  open func loadView() {
    view = View()
  }

  /// Presents `controller` over this one: its view goes on top of the window, filling it, and
  /// its next responder becomes this controller.
  public func present(_ controller: ViewController) {
    controller.presentingViewController = self
    presentedViewController = controller
    if let window = loadedView?.window {
      controller.view.frame = window.bounds
      window.addSubview(controller.view)
    }
  }

  /// Dismisses the controller this one presented (and the ones it presented).
  public func dismiss() {
    guard let presented = presentedViewController else { return }
    presented.dismiss()
    presented.loadedView?.removeFromSuperview()
    presented.presentingViewController = nil
    presentedViewController = nil
  }

  open override var next: Responder? {
    guard let view = loadedView else { return presentingViewController }
    if let window = view.superview as? Window, window.rootViewController === self { return window }
    if let presentingViewController { return presentingViewController }
    return view.superview
  }

  open override var isPartOfViewHierarchy: Bool { true }

  open override var responderName: String { identifier ?? typeName }

  private lazy var typeName = String(describing: type(of: self))
}
