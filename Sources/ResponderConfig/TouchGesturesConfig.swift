import ResponderCore
import ShellGestures
import TouchDispatch

/// One whole-screen gesture bound to an action (`[[touch.gesture]]`).
public struct TouchGestureBinding: Equatable {
  /// The kinds of gestures.
  public enum Kind: String, CaseIterable, Equatable {
    case tap
    case swipe
    case edgeSwipe = "edge-swipe"
    case pinch
    case longPress = "long-press"
  }

  /// Which way a pinch goes.
  public enum PinchDirection: String, CaseIterable, Equatable {
    /// Fingers together (scale below 1).
    case `in`
    /// Fingers apart (scale above 1).
    case out
  }

  /// What the gesture does.
  public enum Action: Equatable {
    /// Posts a remote-control event to the application (the first responder, then the chain).
    case event(EventSubtype)
    /// Runs a program, without a shell.
    case command([String])
  }

  /// A screen edge.
  public enum Edge: String, CaseIterable, Equatable {
    case left, right, top, bottom

    /// The direction of a swipe that starts at this edge: away from it.
    var inward: SwipeDirection {
      switch self {
      case .left: .right
      case .right: .left
      case .top: .down
      case .bottom: .up
      }
    }
  }

  public var name: String
  public var kind: Kind
  public var fingers = 1
  /// Taps for a tap gesture.
  public var taps = 1
  /// The direction of a swipe (an edge swipe goes away from its edge).
  public var direction: SwipeDirection = .right
  /// The edge an edge swipe starts at.
  public var edge: Edge?
  public var pinch: PinchDirection?
  /// How long a long press is held (seconds).
  public var duration: Double = 0.5
  public var action: Action
  /// Gestures (by name) that must fail before this one is recognized.
  public var requireToFail: [String] = []
  /// Where the rule is written: the line of its table, of `fingers` and of `edge` (the table's
  /// when absent), for warnings.
  public var lines = Lines()

  /// Lines of a `[[touch.gesture]]` table.
  public struct Lines: Equatable {
    public var table = 0
    public var fingers = 0
    public var edge = 0
    public init() {}
  }

  public init(name: String, kind: Kind, action: Action) {
    self.name = name
    self.kind = kind
    self.action = action
  }
}

/// `[touch]`: whole-screen gestures on the touchscreen, bound to events or commands (like lisgd),
/// with UIKit's recognizers and rules between them.
///
/// ```toml
/// [touch]
/// enabled = true
/// device = ""          # a /dev/input/eventN path or a device name (glob); empty: the first touchscreen
/// rotation = 0         # how the display is turned, clockwise: 0, 90, 180, 270, or "auto"
///                      # (follow the device orientation from the accelerometer)
/// width = 0            # the screen in points; 0: the panel's own units
/// height = 0
/// edge-width = 40      # points from an edge where an edge swipe must start
/// shell = "auto"       # whose touch gestures to leave alone: auto, gnome, gnome-3, kde, phosh,
///                      # hyprland-touch, none
///
/// [[touch.gesture]]
/// name = "next"
/// gesture = "swipe"    # tap, swipe, edge-swipe, pinch, long-press
/// fingers = 3
/// direction = "left"
/// event = "nextTrack"  # or command = ["program", "arg"]
/// ```
public struct TouchGesturesConfig: Equatable {
  public var enabled = true
  public var device = ""
  /// The fixed rotation (0 with `autoRotate`: the panel's natural orientation until the device
  /// orientation is known).
  public var rotation = TouchRotation.degrees0
  /// `rotation = "auto"`: the screen turns with the device orientation (portrait 0, landscapeRight
  /// 90, portraitUpsideDown 180, landscapeLeft 270; flat or unknown keeps the last).
  public var autoRotate = false
  public var width: Double = 0
  public var height: Double = 0
  public var edgeWidth: Double = 40
  /// The desktop shell whose touch gestures the rules give way to (`shell`).
  public var shell = ShellSetting.auto
  public var gestures: [TouchGestureBinding] = []

  /// `shell`: the shell's profile, or "auto".
  public enum ShellSetting: Equatable, Sendable {
    /// The shell found on the session bus (GNOME Shell, Phosh, KWin; none otherwise).
    case auto
    case profile(ShellProfile)

    /// The words `shell` takes.
    public static let words = ["auto"] + ShellProfile.allCases.map(\.rawValue)
  }

  public init() {}

  init(_ section: ConfigSection) throws {
    enabled = try section.bool("enabled", default: enabled)
    device = try section.string("device", default: device)
    let mustBe = "'\(section.qualified("rotation"))' must be 0, 90, 180, 270 or \"auto\""
    switch section.anyValue("rotation") {
    case nil: break
    case .integer(let degrees):
      guard let turned = TouchRotation(degrees: Int(degrees)) else {
        throw section.error("rotation", "\(mustBe), not \(degrees)")
      }
      rotation = turned
    case .string("auto"): autoRotate = true
    case .string(let word):
      let hint = suggestion(for: word, among: ["auto"]).map { " (did you mean '\($0)'?)" } ?? ""
      throw section.error("rotation", "\(mustBe), not '\(shown(word))'\(hint)")
    case let other?: throw section.error("rotation", "\(mustBe), not \(other.typeName)")
    }
    width = try section.double("width", default: width, range: 0...100_000)
    height = try section.double("height", default: height, range: 0...100_000)
    edgeWidth = try section.double("edge-width", default: edgeWidth, range: 1...10_000)
    let shellWord = try section.string("shell", default: "auto", allowed: ShellSetting.words)
    shell = ShellProfile(rawValue: shellWord).map(ShellSetting.profile) ?? .auto
    let gestureSections = try section.sections("gesture")
    for gesture in gestureSections {
      let binding = try Self.binding(gesture, index: gestures.count)
      if gestures.contains(where: { $0.name == binding.name }) {
        throw gesture.error("name", "gesture name '\(shown(binding.name))' is used twice")
      }
      gestures.append(binding)
    }
    for (index, binding) in gestures.enumerated() {
      for name in binding.requireToFail where !gestures.contains(where: { $0.name == name }) {
        let names = gestures.map(\.name)
        let hint = suggestion(for: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw gestureSections[index].error(
          "require-to-fail",
          "'\(gestureSections[index].qualified("require-to-fail"))' names no gesture '\(shown(name))'\(hint)")
      }
    }
    if let cycle = Self.requireToFailCycle(gestures) {
      let first = gestureSections[cycle[0]]
      let names = cycle.map { "'\(gestures[$0].name)'" }
      let waits = cycle.indices.dropFirst().map { ", \(names[$0]) for \(names[($0 + 1) % cycle.count])" }
      let description =
        cycle.count == 1
        ? "\(names[0]) waits for itself to fail"
        : "\(names[0]) waits for \(names[1]) to fail" + waits.joined()
      throw first.error(
        "require-to-fail",
        "require-to-fail cycle: \(description); none of them could ever be recognized")
    }
    try section.finish()
  }

  /// The indices of the gestures on a require-to-fail cycle, in order, if there is one.
  static func requireToFailCycle(_ gestures: [TouchGestureBinding]) -> [Int]? {
    let index = Dictionary(gestures.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
    enum Mark { case unvisited, onPath, done }
    var marks = Array(repeating: Mark.unvisited, count: gestures.count)
    var path: [Int] = []
    func visit(_ node: Int) -> [Int]? {
      marks[node] = .onPath
      path.append(node)
      for name in gestures[node].requireToFail {
        guard let next = index[name] else { continue }
        switch marks[next] {
        case .onPath: return Array(path[path.firstIndex(of: next)!...])
        case .unvisited: if let cycle = visit(next) { return cycle }
        case .done: break
        }
      }
      path.removeLast()
      marks[node] = .done
      return nil
    }
    for node in gestures.indices where marks[node] == .unvisited {
      if let cycle = visit(node) { return cycle }
    }
    return nil
  }

  private static func binding(_ section: ConfigSection, index: Int) throws -> TouchGestureBinding {
    let kindName = try section.string(
      "gesture", default: "", allowed: TouchGestureBinding.Kind.allCases.map(\.rawValue))
    guard let kind = TouchGestureBinding.Kind(rawValue: kindName) else {
      throw section.error(
        "gesture", "[[touch.gesture]] needs 'gesture' (tap, swipe, edge-swipe, pinch, long-press)")
    }
    let name = try section.string("name", default: "\(kindName)-\(index + 1)")
    let subtypeName = try section.string("event", default: "")
    let argv = try section.strings("command", default: [])
    let action: TouchGestureBinding.Action
    switch (subtypeName.isEmpty, argv.isEmpty) {
    case (false, true):
      guard let subtype = EventSubtype(name: subtypeName), subtype.eventType == .remoteControl else {
        let names = EventSubtype.remoteControlSubtypes.map(\.name)
        let hint = suggestion(for: subtypeName, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw section.error("event", "unknown remote-control event '\(shown(subtypeName))'\(hint)")
      }
      action = .event(subtype)
    case (true, false):
      guard !argv[0].isEmpty else {
        throw section.error("command", "'\(section.qualified("command"))' must name a program")
      }
      action = .command(argv)
    case (false, false):
      throw section.error("command", "a gesture has either 'event' or 'command', not both")
    case (true, true):
      throw section.error("gesture", "gesture '\(name)' needs 'event' or 'command'")
    }
    var binding = TouchGestureBinding(name: name, kind: kind, action: action)
    switch kind {
    case .tap:
      binding.fingers = try section.int("fingers", default: 1, range: 1...10)
      binding.taps = try section.int("taps", default: 1, range: 1...5)
    case .swipe:
      binding.fingers = try section.int("fingers", default: 1, range: 1...10)
      let direction = try section.string("direction", default: "", allowed: ["right", "left", "up", "down"])
      guard let parsed = SwipeDirection(name: direction) else {
        throw section.error("direction", "a swipe needs 'direction' (right, left, up, down)")
      }
      binding.direction = parsed
    case .edgeSwipe:
      binding.fingers = try section.int("fingers", default: 1, range: 1...10)
      let edgeName = try section.string(
        "edge", default: "", allowed: TouchGestureBinding.Edge.allCases.map(\.rawValue))
      guard let edge = TouchGestureBinding.Edge(rawValue: edgeName) else {
        throw section.error("edge", "an edge swipe needs 'edge' (left, right, top, bottom)")
      }
      binding.edge = edge
      binding.direction = edge.inward
    case .pinch:
      let pinchName = try section.string(
        "pinch", default: "", allowed: TouchGestureBinding.PinchDirection.allCases.map(\.rawValue))
      guard let pinch = TouchGestureBinding.PinchDirection(rawValue: pinchName) else {
        throw section.error("pinch", "a pinch needs 'pinch' (in, out)")
      }
      binding.fingers = 2
      binding.pinch = pinch
    case .longPress:
      binding.fingers = try section.int("fingers", default: 1, range: 1...10)
      binding.duration = try section.seconds("duration", default: binding.duration)
    }
    binding.requireToFail = try section.strings("require-to-fail", default: [])
    binding.lines.table = section.line(of: "")
    binding.lines.fingers = section.line(of: "fingers")
    binding.lines.edge = section.line(of: "edge")
    try section.finish()
    return binding
  }
}
