import ResponderCore
import TouchDispatch

/// An error in a file given to an offline tool: the file, where in it, and what is wrong.
public struct ToolInputError: Error, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int?
  public var column: Int?
  public var message: String

  public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  /// `FILE:LINE:COLUMN: message`, as compilers write it.
  public var description: String {
    var place = file
    if let line { place += ":\(line)" }
    if let column { place += ":\(column)" }
    return "\(place): \(message)"
  }
}

/// A scene for `responderctl touch replay`: the screen, a view tree and gesture recognizers.
///
/// ```
/// {"screen":{"width":W,"height":H,"rotation":0},
///  "views":[{"id":"A","parent":null,"frame":[x,y,w,h],"hidden":false,"interactive":true,"alpha":1,
///            "clipsToBounds":false,"multipleTouch":false,"exclusiveTouch":false,"control":false,
///            "boundsOrigin":[x,y],"transform":[a,b,c,d,tx,ty]}, …],
///  "recognizers":[{"id":"t2","kind":"tap","view":"A","taps":2,"touches":1,"direction":"right",
///                  "cancelsTouchesInView":true,"delaysTouchesBegan":false,"delaysTouchesEnded":true,
///                  "requireToFail":["…"],"simultaneousWith":["…"]}, …]}
/// ```
/// Views with a null (or no) parent are subviews of the window; siblings are in z-order, the
/// order they appear in. Absent keys take UIKit's defaults (`multipleTouch` false among them).
/// `"viewControllers":[{"id":"vc","view":"A"}]` makes view controllers whose root views are views of
/// the scene (their next responders). A view with `"passesTouches":false` keeps the touches it
/// gets instead of passing them up the responder chain. A control sends action messages to nil
/// targets, up the responder chain, with `"actions":[{"event":"touchUpInside","action":"save"}]`;
/// views and controllers perform those they list in `"performs":["save"]`.
/// `control` is "button" (or true), "switch" or "slider"; `hitArea` ([x, y, w, h] in the view's
/// coordinates) replaces the bounds in `point(inside:)`. A recognizer's `view` may be "window", the
/// window itself; `shouldBegin`, `receiveArea` ([x, y, w, h] on the screen) and `requireFailureOf`
/// are its delegate's answers; `cannotPrevent` and `cannotBePreventedBy` make prevention one-way,
/// and touches beginning in `ignoreArea` ([x, y, w, h] on the screen) are ignored once received.
public struct TouchScene: Equatable {
  public struct Screen: Equatable {
    public var width: Double
    public var height: Double
    public var rotation: TouchRotation
  }

  public struct ViewSpec: Equatable {
    public var id: String
    public var parent: String?
    public var frame: Rect
    public var hidden = false
    public var interactive = true
    public var alpha: Double = 1
    public var clipsToBounds = false
    public var multipleTouch = false
    public var exclusiveTouch = false
    /// The control the view is, if any.
    public var control: ControlKind?
    /// The origin of the view's bounds (a scrolled view), and its transform.
    public var boundsOrigin = ResponderCore.Point.zero
    public var transform = AffineTransform.identity
    /// The area, in the view's coordinates, where points are inside it (`point(inside:)`
    /// overridden): larger than the bounds for a hit area that overhangs; the bounds when nil.
    public var hitArea: Rect?
    /// Whether touches the view gets go on up the responder chain (as UIView's do by default).
    public var passesTouches = true
    /// A control's action messages, each sent to a nil target (up the responder chain) for one
    /// control event.
    public var actions: [(event: String, action: String)] = []
    /// The action messages the view performs.
    public var performs: [String] = []

    public static func == (a: ViewSpec, b: ViewSpec) -> Bool {
      a.id == b.id && a.parent == b.parent && a.frame == b.frame && a.hidden == b.hidden
        && a.interactive == b.interactive && a.alpha == b.alpha && a.clipsToBounds == b.clipsToBounds
        && a.multipleTouch == b.multipleTouch && a.exclusiveTouch == b.exclusiveTouch
        && a.control == b.control && a.boundsOrigin == b.boundsOrigin && a.transform == b.transform
        && a.hitArea == b.hitArea && a.passesTouches == b.passesTouches
        && a.actions.elementsEqual(b.actions, by: ==) && a.performs == b.performs
    }
  }

  /// A view controller whose root view is a view of the scene (its next responder).
  public struct ControllerSpec: Equatable {
    public var id: String
    public var view: String
    /// The action messages the controller performs.
    public var performs: [String] = []
  }

  /// The control events an action can be sent for, by name ("touchUpInside").
  static let controlEventNames: [String: ControlEvents] = {
    var names: [String: ControlEvents] = [:]
    for bit in 0..<32 {
      let event = ControlEvents(rawValue: 1 << UInt(bit))
      if let name = event.names.first { names[name] = event }
    }
    return names
  }()

  /// The controls a view can be.
  public enum ControlKind: String, CaseIterable, Equatable {
    case button, `switch`, slider
  }

  /// The id that names the window itself in a recognizer's `view`.
  public static let windowID = "window"

  public enum Kind: String, CaseIterable, Equatable {
    case tap, longPress, pan, swipe, pinch, rotation
  }

  public struct RecognizerSpec: Equatable {
    public var id: String
    public var kind: Kind
    public var view: String
    public var taps: Int?
    public var touches: Int?
    public var minimumTouches: Int?
    public var maximumTouches: Int?
    public var direction: SwipeDirection?
    public var minimumPressDuration: Double?
    public var allowableMovement: Double?
    public var enabled = true
    public var cancelsTouchesInView = true
    public var delaysTouchesBegan = false
    public var delaysTouchesEnded = true
    public var requireToFail: [String] = []
    public var simultaneousWith: [String] = []
    /// The delegate's answers: whether the recognizer may begin, where (screen coordinates) it
    /// receives touches, and which recognizers it waits for (`shouldRequireFailureOf`).
    public var shouldBegin = true
    public var receiveArea: Rect?
    public var requireFailureOf: [String] = []
    /// One-way prevention: recognizing, this one does not make these fail; these, recognizing,
    /// do not make this one fail.
    public var cannotPrevent: [String] = []
    public var cannotBePreventedBy: [String] = []
    /// Touches that begin here (screen coordinates) are ignored (`ignore(_:for:)`) once received.
    public var ignoreArea: Rect?

    /// Whether the recognizer needs rules of a subclass (prevention, ignoring touches).
    public var hasOwnRules: Bool {
      !cannotPrevent.isEmpty || !cannotBePreventedBy.isEmpty || ignoreArea != nil
    }
  }

  public var screen: Screen
  public var views: [ViewSpec]
  public var viewControllers: [ControllerSpec] = []
  public var recognizers: [RecognizerSpec]

  /// The largest scene file read (4 MiB: about 90,000 views; the scenes of the examples are a
  /// few KiB). Read with `readRegularFile(_:maximumSize:)`, so a larger file, a FIFO or a device is
  /// refused before anything is read.
  public static let maximumFileSize = 4 << 20

  /// How deep views may nest (a view with no parent is 1 deep). Hit-testing, the responder chain
  /// and releasing the views go through every level on the stack: a scene 30,000 deep could
  /// overflow it; app hierarchies are a few dozen deep.
  public static let maximumDepth = 1000

  /// The error for a scene file that is not read (`reason`: why, as `FileRefusal` says it).
  public static func refused(_ file: String, reason: String) -> ToolInputError {
    ToolInputError(file: file, message: "not read as a scene: \(reason)")
  }

  /// Reads a scene; errors name the file, line and column, the key and the problem. Text longer
  /// than `maximumFileSize` is refused as such, before it is parsed.
  public static func parse(_ text: String, file: String) throws -> TouchScene {
    guard text.utf8.count <= maximumFileSize else {
      throw refused(
        file, reason: "it is \(text.utf8.count) bytes long, more than the \(maximumFileSize) a scene may have"
      )
    }
    var top = try SceneObjectReader(parsing: text, file: file)
    guard let screenNode = top.take("screen") else { throw top.error("missing key 'screen'") }
    var screenReader = try SceneObjectReader(node: screenNode, path: "screen", file: file)
    let width = try screenReader.requiredNumber("width", positive: true)
    let height = try screenReader.requiredNumber("height", positive: true)
    var rotation = TouchRotation.degrees0
    if let node = screenReader.take("rotation") {
      let degrees = try screenReader.int(node, "rotation")
      guard let value = TouchRotation(degrees: degrees) else {
        throw screenReader.error(at: node, "rotation: expected 0, 90, 180 or 270, found \(degrees)")
      }
      rotation = value
    }
    try screenReader.finish()
    let screen = Screen(width: width, height: height, rotation: rotation)

    var views: [ViewSpec] = []
    var viewNodes: [String: TouchSceneJSON.Node] = [:]
    for (index, node) in try top.array("views").enumerated() {
      var reader = try SceneObjectReader(node: node, path: "views[\(index)]", file: file)
      let id = try reader.requiredString("id")
      guard id != windowID else {
        throw reader.error("id: '\(windowID)' names the window itself (a recognizer's view may be it)")
      }
      if let previous = viewNodes[id] {
        throw reader.error("duplicate view id '\(id)' (first at line \(previous.line))")
      }
      viewNodes[id] = node
      var view = ViewSpec(id: id, frame: .zero)
      if let parent = reader.take("parent"), parent.value != .null {
        view.parent = try reader.string(parent, "parent")
      }
      guard let frameNode = reader.take("frame") else { throw reader.error("missing key 'frame'") }
      guard case .array(let items) = frameNode.value, items.count == 4 else {
        throw reader.error(at: frameNode, "frame: expected [x, y, width, height]")
      }
      var numbers: [Double] = []
      for item in items {
        guard case .number(let value) = item.value else {
          throw reader.error(at: item, "frame: expected numbers")
        }
        numbers.append(value)
      }
      guard numbers[2] >= 0, numbers[3] >= 0 else {
        throw reader.error(at: frameNode, "frame: width and height must not be negative")
      }
      view.frame = Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
      view.hidden = try reader.bool("hidden", default: false)
      view.interactive = try reader.bool("interactive", default: true)
      view.alpha = try reader.number("alpha", default: 1)
      view.clipsToBounds = try reader.bool("clipsToBounds", default: false)
      view.multipleTouch = try reader.bool("multipleTouch", default: false)
      view.exclusiveTouch = try reader.bool("exclusiveTouch", default: false)
      if let node = reader.take("control") {
        switch node.value {
        case .bool(let flag): view.control = flag ? .button : nil
        case .string(let name):
          guard let kind = ControlKind(rawValue: name) else {
            let names = ControlKind.allCases.map(\.rawValue)
            throw reader.error(
              at: node,
              "control: unknown control '\(name)'\(didYouMean(name, names)) (one of \(names.joined(separator: ", ")))"
            )
          }
          view.control = kind
        default:
          throw reader.error(at: node, "control: expected \"button\", \"switch\", \"slider\" or true/false")
        }
      }
      if let node = reader.take("boundsOrigin") {
        let numbers = try reader.numbers(node, "boundsOrigin", count: 2, shape: "[x, y]")
        view.boundsOrigin = ResponderCore.Point(x: numbers[0], y: numbers[1])
      }
      view.passesTouches = try reader.bool("passesTouches", default: true)
      view.performs = try reader.strings("performs")
      for (actionIndex, actionNode) in try reader.array("actions").enumerated() {
        guard view.control != nil else {
          throw reader.error(at: actionNode, "actions: only a control sends actions")
        }
        var actionReader = try SceneObjectReader(
          node: actionNode, path: "views[\(index)].actions[\(actionIndex)]", file: file)
        let eventName = try actionReader.requiredString("event")
        guard TouchScene.controlEventNames[eventName] != nil else {
          let names = TouchScene.controlEventNames.keys.sorted()
          throw actionReader.error(
            "event: unknown control event '\(eventName)'\(didYouMean(eventName, names)) (one of \(names.joined(separator: ", ")))"
          )
        }
        view.actions.append((eventName, try actionReader.requiredString("action")))
        try actionReader.finish()
      }
      if let node = reader.take("hitArea") {
        let n = try reader.numbers(node, "hitArea", count: 4, shape: "[x, y, width, height]")
        guard view.control == nil else { throw reader.error(at: node, "hitArea: not for a control") }
        view.hitArea = Rect(x: n[0], y: n[1], width: n[2], height: n[3])
      }
      if let node = reader.take("transform") {
        let n = try reader.numbers(node, "transform", count: 6, shape: "[a, b, c, d, tx, ty]")
        view.transform = AffineTransform(a: n[0], b: n[1], c: n[2], d: n[3], tx: n[4], ty: n[5])
      }
      try reader.finish()
      views.append(view)
    }
    // Each view's ancestors are walked up to one already known to reach the window: every view
    // is walked once, however deep the nesting. Each view's depth is kept on the way.
    var parents: [String: String] = [:]
    for view in views { parents[view.id] = view.parent }
    var reachesWindow: Set<String> = []
    var depths: [String: Int] = [:]
    for (index, view) in views.enumerated() {
      guard let parent = view.parent else { continue }
      let reader = try SceneObjectReader(node: viewNodes[view.id]!, path: "views[\(index)]", file: file)
      let parentNode = reader.members.first { $0.key == "parent" }!.node
      guard viewNodes[parent] != nil else {
        throw reader.error(at: parentNode, "parent: no view '\(parent)' in the scene")
      }
      var path: [String] = [view.id]
      var seen: Set<String> = [view.id]
      var current: String? = parent
      while let ancestor = current, !reachesWindow.contains(ancestor) {
        guard seen.insert(ancestor).inserted else {
          throw reader.error(
            at: parentNode, "parent: '\(view.id)' would be inside itself (through '\(parent)')")
        }
        path.append(ancestor)
        current = parents[ancestor]
      }
      reachesWindow.formUnion(path)
      var depth = current.flatMap { depths[$0] } ?? 0
      for id in path.reversed() {
        depth += 1
        depths[id] = depth
      }
      guard depth <= Self.maximumDepth else {
        throw reader.error(
          at: parentNode,
          "parent: '\(view.id)' is \(depth) views deep, more than the \(Self.maximumDepth) a scene may nest (hit-testing and the responder chain go through each level)"
        )
      }
    }

    var controllers: [ControllerSpec] = []
    var controllerIDs: Set<String> = []
    var controllerOfView: [String: String] = [:]
    for (index, node) in try top.array("viewControllers").enumerated() {
      var reader = try SceneObjectReader(node: node, path: "viewControllers[\(index)]", file: file)
      let id = try reader.requiredString("id")
      guard viewNodes[id] == nil, controllerIDs.insert(id).inserted else {
        throw reader.error("duplicate id '\(id)' (views and view controllers share ids)")
      }
      guard let viewNode = reader.take("view") else { throw reader.error("missing key 'view'") }
      let viewID = try reader.string(viewNode, "view")
      guard viewNodes[viewID] != nil else {
        throw reader.error(at: viewNode, "view: no view '\(viewID)' in the scene")
      }
      if let other = controllerOfView[viewID] {
        throw reader.error(at: viewNode, "view: '\(viewID)' is already the view of '\(other)'")
      }
      controllerOfView[viewID] = id
      let performs = try reader.strings("performs")
      try reader.finish()
      controllers.append(ControllerSpec(id: id, view: viewID, performs: performs))
    }

    var recognizers: [RecognizerSpec] = []
    var recognizerNodes: [String: TouchSceneJSON.Node] = [:]
    var references: [(reader: SceneObjectReader, node: TouchSceneJSON.Node, key: String, ids: [String])] = []
    for (index, node) in try top.array("recognizers").enumerated() {
      var reader = try SceneObjectReader(node: node, path: "recognizers[\(index)]", file: file)
      let id = try reader.requiredString("id")
      if let previous = recognizerNodes[id] {
        throw reader.error("duplicate recognizer id '\(id)' (first at line \(previous.line))")
      }
      recognizerNodes[id] = node
      guard let kindNode = reader.take("kind") else { throw reader.error("missing key 'kind'") }
      let kindName = try reader.string(kindNode, "kind")
      guard let kind = Kind(rawValue: kindName) else {
        let names = Kind.allCases.map(\.rawValue)
        throw reader.error(
          at: kindNode,
          "kind: unknown kind '\(kindName)'\(didYouMean(kindName, names)) (one of \(names.joined(separator: ", ")))"
        )
      }
      guard let viewNode = reader.take("view") else { throw reader.error("missing key 'view'") }
      let viewID = try reader.string(viewNode, "view")
      guard viewNodes[viewID] != nil || viewID == windowID else {
        throw reader.error(at: viewNode, "view: no view '\(viewID)' in the scene")
      }
      var spec = RecognizerSpec(id: id, kind: kind, view: viewID)
      switch kind {
      case .tap:
        spec.taps = try reader.optionalCount("taps", minimum: 1)
        spec.touches = try reader.optionalCount("touches", minimum: 1)
      case .longPress:
        spec.taps = try reader.optionalCount("taps", minimum: 0)
        spec.touches = try reader.optionalCount("touches", minimum: 1)
        spec.minimumPressDuration = try reader.optionalNumber("minimumPressDuration")
        spec.allowableMovement = try reader.optionalNumber("allowableMovement")
      case .pan:
        spec.minimumTouches = try reader.optionalCount("minimumTouches", minimum: 1)
        spec.maximumTouches = try reader.optionalCount("maximumTouches", minimum: 1)
        if let touches = try reader.optionalCount("touches", minimum: 1) {
          spec.minimumTouches = spec.minimumTouches ?? touches
          spec.maximumTouches = spec.maximumTouches ?? touches
        }
      case .swipe:
        spec.touches = try reader.optionalCount("touches", minimum: 1)
        if let node = reader.take("direction") {
          spec.direction = try reader.direction(node)
        }
      case .pinch, .rotation:
        break
      }
      spec.enabled = try reader.bool("enabled", default: true)
      spec.cancelsTouchesInView = try reader.bool("cancelsTouchesInView", default: true)
      spec.delaysTouchesBegan = try reader.bool("delaysTouchesBegan", default: false)
      spec.delaysTouchesEnded = try reader.bool("delaysTouchesEnded", default: true)
      spec.shouldBegin = try reader.bool("shouldBegin", default: true)
      if let node = reader.take("receiveArea") {
        let n = try reader.numbers(node, "receiveArea", count: 4, shape: "[x, y, width, height]")
        spec.receiveArea = Rect(x: n[0], y: n[1], width: n[2], height: n[3])
      }
      if let node = reader.take("ignoreArea") {
        let n = try reader.numbers(node, "ignoreArea", count: 4, shape: "[x, y, width, height]")
        spec.ignoreArea = Rect(x: n[0], y: n[1], width: n[2], height: n[3])
      }
      for key in [
        "requireToFail", "simultaneousWith", "requireFailureOf", "cannotPrevent", "cannotBePreventedBy",
      ] {
        guard let listNode = reader.take(key) else { continue }
        guard case .array(let items) = listNode.value else {
          throw reader.error(at: listNode, "\(key): expected a list of recognizer ids")
        }
        var ids: [String] = []
        for item in items { ids.append(try reader.string(item, key)) }
        references.append((reader, listNode, key, ids))
        switch key {
        case "requireToFail": spec.requireToFail = ids
        case "simultaneousWith": spec.simultaneousWith = ids
        case "requireFailureOf": spec.requireFailureOf = ids
        case "cannotPrevent": spec.cannotPrevent = ids
        default: spec.cannotBePreventedBy = ids
        }
      }
      try reader.finish(kind: kind)
      recognizers.append(spec)
    }
    for reference in references {
      for (index, id) in reference.ids.enumerated() where recognizerNodes[id] == nil {
        guard case .array(let items) = reference.node.value else { continue }
        throw reference.reader.error(at: items[index], "\(reference.key): no recognizer '\(id)' in the scene")
      }
    }
    try top.finish()
    return TouchScene(screen: screen, views: views, viewControllers: controllers, recognizers: recognizers)
  }
}

/// " (did you mean 'x'?)" for the nearest of `candidates` within two edits, else "".
func didYouMean(_ word: String, _ candidates: [String]) -> String {
  func distance(_ a: [Character], _ b: [Character]) -> Int {
    var previous = Array(0...b.count)
    for (i, ca) in a.enumerated() {
      var current = [i + 1]
      for (j, cb) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }
  let scored = candidates.map { ($0, distance(Array(word.lowercased()), Array($0.lowercased()))) }
  guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return "" }
  return " (did you mean '\(best.0)'?)"
}

/// Reads one JSON object of the scene, remembering which keys were read.
public struct SceneObjectReader {
  public let node: TouchSceneJSON.Node
  public let members: [TouchSceneJSON.Member]
  public let path: String
  public let file: String
  /// Per member, whether a `take` read it; and the keys asked for, in order (for "did you mean").
  /// An array, not a set: a view takes some 20 keys, and hashing each was most of a big scene's
  /// parse.
  private var used: [Bool]
  private var asked: [String] = []

  public init(node: TouchSceneJSON.Node, path: String, file: String) throws {
    self.node = node
    self.path = path
    self.file = file
    guard case .object(let members) = node.value else {
      self.members = []
      self.used = []
      throw ToolInputError(
        file: file, line: node.line, column: node.column,
        message: "\(path.isEmpty ? "the scene" : path): expected an object")
    }
    self.members = members
    self.used = Array(repeating: false, count: members.count)
  }

  /// A reader of the top object of `text`, a JSON file; a syntax error names the file, the line
  /// and the column.
  public init(parsing text: String, file: String) throws {
    let root: TouchSceneJSON.Node
    do {
      root = try TouchSceneJSON.parse(text)
    } catch let error as TouchSceneJSON.SyntaxError {
      throw ToolInputError(file: file, line: error.line, column: error.column, message: error.message)
    }
    try self.init(node: root, path: "", file: file)
  }

  private func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  public func error(_ message: String) -> ToolInputError {
    ToolInputError(
      file: file, line: node.line, column: node.column,
      message: path.isEmpty ? message : "\(path): \(message)")
  }

  public func error(at node: TouchSceneJSON.Node, _ message: String) -> ToolInputError {
    ToolInputError(
      file: file, line: node.line, column: node.column, message: path.isEmpty ? message : "\(path).\(message)"
    )
  }

  public mutating func take(_ key: String) -> TouchSceneJSON.Node? {
    asked.append(key)
    guard let index = members.firstIndex(where: { $0.key == key }) else { return nil }
    used[index] = true
    return members[index].node
  }

  public func string(_ node: TouchSceneJSON.Node, _ key: String) throws -> String {
    guard case .string(let value) = node.value else { throw error(at: node, "\(key): expected a string") }
    return value
  }

  public func int(_ node: TouchSceneJSON.Node, _ key: String) throws -> Int {
    guard case .number(let value) = node.value, value == value.rounded(), abs(value) < 1e9 else {
      throw error(at: node, "\(key): expected a whole number")
    }
    return Int(value)
  }

  public mutating func requiredString(_ key: String) throws -> String {
    guard let node = take(key) else { throw error("missing key '\(key)'") }
    let value = try string(node, key)
    guard !value.isEmpty else { throw error(at: node, "\(key): must not be empty") }
    return value
  }

  public mutating func requiredNumber(_ key: String, positive: Bool) throws -> Double {
    guard let node = take(key) else { throw error("missing key '\(key)'") }
    guard case .number(let value) = node.value else { throw error(at: node, "\(key): expected a number") }
    if positive && value <= 0 { throw error(at: node, "\(key): must be above 0") }
    return value
  }

  public mutating func number(_ key: String, default value: Double) throws -> Double {
    try optionalNumber(key) ?? value
  }

  public mutating func optionalNumber(_ key: String) throws -> Double? {
    guard let node = take(key) else { return nil }
    guard case .number(let value) = node.value else { throw error(at: node, "\(key): expected a number") }
    guard value >= 0 else { throw error(at: node, "\(key): must not be negative") }
    return value
  }

  public mutating func optionalCount(_ key: String, minimum: Int) throws -> Int? {
    guard let node = take(key) else { return nil }
    let value = try int(node, key)
    guard value >= minimum else { throw error(at: node, "\(key): must be at least \(minimum)") }
    return value
  }

  public mutating func bool(_ key: String, default value: Bool) throws -> Bool {
    guard let node = take(key) else { return value }
    guard case .bool(let flag) = node.value else { throw error(at: node, "\(key): expected true or false") }
    return flag
  }

  /// A list of strings (empty when the key is absent).
  public mutating func strings(_ key: String) throws -> [String] {
    try array(key).map { try string($0, key) }
  }

  /// A list of exactly `count` numbers (`shape` names them in errors).
  public func numbers(_ node: TouchSceneJSON.Node, _ key: String, count: Int, shape: String) throws
    -> [Double]
  {
    guard case .array(let items) = node.value, items.count == count else {
      throw error(at: node, "\(key): expected \(shape)")
    }
    return try items.map { item in
      guard case .number(let value) = item.value else { throw error(at: item, "\(key): expected numbers") }
      return value
    }
  }

  public mutating func array(_ key: String) throws -> [TouchSceneJSON.Node] {
    guard let node = take(key) else { return [] }
    guard case .array(let items) = node.value else { throw error(at: node, "\(key): expected a list") }
    return items
  }

  public func direction(_ node: TouchSceneJSON.Node) throws -> SwipeDirection {
    var names: [TouchSceneJSON.Node] = []
    switch node.value {
    case .string: names = [node]
    case .array(let items) where !items.isEmpty: names = items
    default:
      throw error(at: node, "direction: expected \"right\", \"left\", \"up\", \"down\" or a list of them")
    }
    var result: SwipeDirection = []
    for item in names {
      let name = try string(item, "direction")
      guard let single = SwipeDirection(name: name) else {
        throw error(
          at: item,
          "direction: unknown direction '\(name)'\(didYouMean(name, ["right", "left", "up", "down"]))")
      }
      result.insert(single)
    }
    return result
  }

  /// Refuses keys nobody read (for a recognizer, keys that do not apply to its kind).
  public func finish(kind: TouchScene.Kind? = nil) throws {
    for (index, member) in members.enumerated() where !used[index] {
      var known: [String] = []
      for key in asked where !known.contains(key) { known.append(key) }
      var message = "unknown key '\(member.key)'"
      let hint = didYouMean(member.key, known)
      if !hint.isEmpty {
        message += hint
      } else if let kind {
        message += " for a \(kind.rawValue) recognizer"
      }
      throw ToolInputError(
        file: file, line: member.line, column: member.column,
        message: path.isEmpty ? message : "\(path): \(message)")
    }
  }
}
