import DBusTestSupport
import EventLoop
import ShellTestSupport
import TouchScenes

/// One JSON line touch-demo printed (`--log`, `--timings`), with the members the tests read.
public struct DemoLine: CustomStringConvertible {
  /// One touch of a delivery line.
  public struct TouchValue: Equatable {
    public var slot: Int
    public var phase: String
    public var x, y: Double

    public init(slot: Int, phase: String, x: Double, y: Double) {
      (self.slot, self.phase, self.x, self.y) = (slot, phase, x, y)
    }
  }

  public let text: String
  public let members: [String: TouchSceneJSON.Value]

  /// A line that is not JSON (touch-demo's stderr).
  public init(stderr text: String) {
    self.text = text
    members = ["kind": .string("stderr")]
  }

  public init?(_ text: String) {
    guard let node = try? TouchSceneJSON.parse(text), case .object(let list) = node.value else { return nil }
    self.text = text
    members = Dictionary(list.map { ($0.key, $0.node.value) }, uniquingKeysWith: { first, _ in first })
  }

  public var description: String { text }

  public func string(_ key: String) -> String? {
    if case .string(let value)? = members[key] { return value }
    return nil
  }

  public func number(_ key: String) -> Double? {
    if case .number(let value)? = members[key] { return value }
    return nil
  }

  public func numbers(_ key: String) -> [Double]? {
    guard case .array(let items)? = members[key] else { return nil }
    return items.compactMap { if case .number(let value) = $0.value { value } else { nil } }
  }

  public var kind: String? { string("kind") }
  public var id: String? { string("id") }
  public var state: String? { string("state") }
  public var method: String? { string("method") }

  /// The touches of a delivery line (`"kind":"touches"`).
  public var touches: [TouchValue] {
    guard case .array(let items)? = members["touches"] else { return [] }
    return items.compactMap { item in
      guard case .object(let fields) = item.value else { return nil }
      var touch = TouchValue(slot: -1, phase: "", x: .nan, y: .nan)
      for field in fields {
        switch (field.key, field.node.value) {
        case ("slot", .number(let value)): touch.slot = Int(value)
        case ("phase", .string(let value)): touch.phase = value
        case ("x", .number(let value)): touch.x = value
        case ("y", .number(let value)): touch.y = value
        default: break
        }
      }
      return touch
    }
  }
}

/// touch-demo run as a Wayland client of a headless desktop, its JSON lines read on the desktop's
/// loop while a test waits.
public final class TouchDemoClient {
  public let process: ChildProcess
  /// Every line read so far, in order (lines that are not JSON, touch-demo's stderr, included
  /// as `{"kind":"stderr"}`: `text` shows them).
  public private(set) var lines: [DemoLine] = []
  private let desktop: HeadlessDesktop
  private var source: IOSource?

  /// The demo this client runs: touch-demo, touch-demo-gtk or touch-demo-sdl.
  public let program: String

  /// Starts `program` (touch-demo or one of the toolkit examples that print the same lines, built
  /// beside the running executable) with `arguments` and `environment` beside the desktop's;
  /// returns once the compositor configured its window (with `--log`: its `{"kind":"window"}`
  /// line).
  public init(
    _ desktop: HeadlessDesktop, program: String = "touch-demo", arguments: [String],
    environment: [String: String] = [:]
  ) throws {
    self.desktop = desktop
    self.program = program
    process = try desktop.start(
      [try BuiltProducts.path(of: program)] + arguments, environment: environment, stdout: .capture,
      stderr: .capture)
    source = try desktop.loop.register(fd: process.outputDescriptor, events: .readable) { [weak self] _ in
      self?.read()
    }
    if arguments.contains("--log") || arguments.contains("--timings") {
      try waitFor("its window to be configured") { $0.kind == "window" }
    }
  }

  deinit { source?.remove() }

  /// The lines after the first `count`.
  public func lines(after count: Int) -> [DemoLine] { Array(lines.dropFirst(count)) }

  /// Waits until a line after the first `after` satisfies `predicate` (`timeout` seconds at most)
  /// and returns it.
  @discardableResult
  public func waitFor(
    _ what: String, after: Int = 0, timeout: Double = 15, _ predicate: (DemoLine) -> Bool
  ) throws -> DemoLine {
    var found: DemoLine?
    let seen = desktop.loop.run(
      until: {
        found = lines.dropFirst(after).first(where: predicate)
        return found != nil || source == nil
      }, timeout: timeout)
    guard seen, let found else {
      throw TestSupportError(
        "\(program): \(source == nil ? "exited" : "timed out after \(timeout) s") waiting for \(what) "
          + "(\(desktop.compositor.rawValue)); its last lines:\n"
          + lines.suffix(40).map(\.text).joined(separator: "\n"))
    }
    return found
  }

  /// Waits until `condition` holds on the lines after the first `after` (`timeout` seconds at
  /// most).
  public func waitUntil(
    _ what: String, after: Int = 0, timeout: Double = 15, _ condition: ([DemoLine]) -> Bool
  ) throws {
    let held = desktop.loop.run(
      until: { condition(Array(lines.dropFirst(after))) || source == nil }, timeout: timeout)
    guard held, condition(Array(lines.dropFirst(after))) else {
      throw TestSupportError(
        "\(program): \(source == nil ? "exited" : "timed out after \(timeout) s") waiting for \(what) "
          + "(\(desktop.compositor.rawValue)); its last lines:\n"
          + lines.suffix(40).map(\.text).joined(separator: "\n"))
    }
  }

  /// Taps `point` (an empty spot of the window) until touch-demo sees a touch there (10 s at
  /// most; `seen` says which line shows it): a compositor shows a new window and gives it touches
  /// a moment after its first configure (GNOME Shell animates it in).
  public func tapUntilTouched(
    at point: (x: Double, y: Double) = (1000, 60), seen: (DemoLine) -> Bool = { $0.method == "touchesEnded" }
  ) throws {
    let deadline = monotonicNow() + 10
    while true {
      let start = lines.count
      try desktop.tap(x: point.x, y: point.y)
      do {
        try waitFor("a first touch", after: start, timeout: 0.5, seen)
        return
      } catch  where monotonicNow() < deadline {
        continue
      }
    }
  }

  private func read() {
    if !process.readAvailable() {
      source?.remove()
      source = nil
    }
    lines += process.takeBufferedLines().map { DemoLine($0) ?? DemoLine(stderr: $0) }
  }
}
