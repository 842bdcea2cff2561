import DBusTestSupport
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// What a screen reader reads on a headless desktop started with `Options(accessibility: true)`:
/// the focused widget of the active window, its role, whether it is editable, and its text; the
/// shell's (or any app's) buttons and where they are on the screen, so that a test can tap them
/// through the compositor.
///
/// ```swift
/// let desktop = try HeadlessDesktop.gnomeShell(options: .init(accessibility: true))
/// let reader = try AccessibilityReader(desktop)
/// let field = try reader.waitForFocus("the editor's text") { $0.editable && $0.text == "hello" }
/// let undo = try reader.waitForButton("Undo", in: "gnome-shell")
/// try desktop.tap(x: undo.centerX, y: undo.centerY)
/// ```
///
/// It runs `Tests/Fixtures/wayland/atspi-reader.py` (Debian's python3 with gir1.2-atspi-2.0) as a
/// client of the desktop; every answer is read from the bus when asked, nothing is remembered.
public final class AccessibilityReader {
  /// The focused accessible, as the accessibility bus says.
  public struct Focus: Equatable, Sendable, CustomStringConvertible {
    /// The application's name on the bus (`gnome-text-editor`, `kgx`, `kwrite`).
    public var application: String
    /// Its role (`text`, `terminal`, `password text`, ...).
    public var role: String
    public var name: String
    /// Its state says EDITABLE.
    public var editable: Bool
    /// Its whole text, nil when it has no Text interface.
    public var text: String?

    public var description: String {
      "\(application): \(role) '\(name)'\(editable ? " editable" : "") text \(text.map { "'\($0)'" } ?? "none")"
    }
  }

  /// Where a widget is on the screen (monitor pixels at scale 1).
  public struct Extents: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public var centerX: Double { Double(x) + Double(width) / 2 }
    public var centerY: Double { Double(y) + Double(height) / 2 }
  }

  private let desktop: HeadlessDesktop
  private let process: ChildProcess
  private let fifo: FileDescriptor
  private let errors: String

  /// Starts the reader on `desktop` (which must have the accessibility bus).
  public init(_ desktop: HeadlessDesktop) throws {
    guard desktop.options.accessibility else {
      throw TestSupportError(
        "the desktop has no accessibility bus: start it with Options(accessibility: true)")
    }
    self.desktop = desktop
    let path = desktop.directory + "/atspi-reader.in"
    unlink(path)
    guard mkfifo(path, 0o600) == 0 else { throw TestSupportError("mkfifo \(path): errno \(errno)") }
    fifo = try systemCall("open") { try FileDescriptor.open(path, .readWrite, options: .closeOnExec) }
    errors = desktop.directory + "/atspi-reader.err"
    process = try desktop.start(
      ["/usr/bin/python3", HeadlessDesktop.fixture("atspi-reader.py"), path], stdout: .capture,
      stderr: .file(errors))
    guard let line = try process.readLine(timeout: 30), line == "ready" else {
      throw TestSupportError("atspi-reader.py did not start: \(HeadlessDesktop.tail(errors))")
    }
  }

  deinit {
    try? fifo.close()
    process.terminate(grace: 2)
  }

  /// Sets `org.a11y.Status.IsEnabled`, as a screen reader does when it starts: Qt apps started
  /// after it publish their widgets.
  public func enable() throws { _ = try send("enable") }

  /// The names of the applications on the accessibility bus.
  public func applications() throws -> [String] {
    try send("apps").split(separator: "|").map(String.init)
  }

  /// The focused accessible of the active window; nil when no window is active or nothing in it
  /// has the focus.
  public func focus() throws -> Focus? {
    let fields = try send("focus").split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 5 else { return nil }
    return Focus(
      application: try Self.decode(fields[0]), role: try Self.decode(fields[1]),
      name: try Self.decode(fields[2]),
      editable: fields[3] == "1", text: fields[4] == "-" ? nil : try Self.decode(fields[4]))
  }

  /// Where the showing push button named `name` is (the first found) in the application named
  /// `application` on the bus (nil: any), nil when none shows. A notification's buttons are the
  /// notification server's: `gnome-shell`, `plasmashell`.
  public func button(_ name: String, in application: String? = nil) throws -> Extents? {
    let fields = try send("button \(application ?? "*") \(name)").split(separator: " ").compactMap { Int($0) }
    guard fields.count == 4 else { return nil }
    return Extents(x: fields[0], y: fields[1], width: fields[2], height: fields[3])
  }

  /// Presses the showing push button named `name` through its accessible action (as a screen
  /// reader does, without the compositor).
  public func press(_ name: String, in application: String? = nil) throws {
    _ = try send("press \(application ?? "*") \(name)")
  }

  /// Polls until the focus satisfies `condition` (`timeout` seconds at most); returns it. The
  /// error names `what` and says what the focus was last.
  @discardableResult
  public func waitForFocus(_ what: String, timeout: Double = 30, _ condition: (Focus) -> Bool) throws -> Focus
  {
    var last: Focus?
    var failure: (any Error)?
    let found = desktop.loop.run(
      until: {
        do {
          last = try focus()
          failure = nil
        } catch {
          failure = error
        }
        return last.map(condition) ?? false
      }, timeout: timeout)
    guard found, let last else {
      let applications = (try? applications().joined(separator: ", ")) ?? "?"
      throw TestSupportError(
        "timed out after \(timeout) s waiting for \(what) on the accessibility bus; the focus was \(last.map(String.init(describing:)) ?? "nowhere")\(failure.map { " (\($0))" } ?? ""); applications on the bus: \(applications)"
      )
    }
    return last
  }

  /// Polls until a push button named `name` shows and stays where it is (the same extents read
  /// twice in a row: a notification slides in), `timeout` seconds at most; returns where.
  public func waitForButton(_ name: String, in application: String? = nil, timeout: Double = 30) throws
    -> Extents
  {
    var found: Extents?
    var previous: Extents?
    guard
      desktop.loop.run(
        until: {
          previous = found
          found = try? button(name, in: application)
          return found != nil && found == previous
        }, timeout: timeout),
      let found
    else {
      throw TestSupportError(
        "timed out after \(timeout) s waiting for a button '\(name)' on the accessibility bus (\(desktop.compositor.rawValue))"
      )
    }
    return found
  }

  /// Polls until no push button named `name` shows (`timeout` seconds at most).
  public func waitForNoButton(_ name: String, in application: String? = nil, timeout: Double = 30) throws {
    guard desktop.loop.run(until: { (try? button(name, in: application)) == .some(nil) }, timeout: timeout)
    else {
      throw TestSupportError(
        "the button '\(name)' still shows after \(timeout) s (\(desktop.compositor.rawValue))")
    }
  }

  private func send(_ command: String) throws -> String {
    let bytes = Array((command + "\n").utf8)
    _ = try systemCall("write") { try bytes.withUnsafeBytes { try fifo.writeAll($0) } }
    guard let answer = try process.readLine(timeout: 60) else {
      throw TestSupportError("atspi-reader.py exited at '\(command)': \(HeadlessDesktop.tail(errors))")
    }
    if answer == "ok" { return "" }
    if answer.hasPrefix("ok ") { return String(answer.dropFirst(3)) }
    throw TestSupportError("atspi-reader.py: '\(command)': \(answer)")
  }

  /// Text the reader sent as hexadecimal UTF-8 (so that spaces and newlines stay in one field).
  static func decode(_ hex: String) throws -> String {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
      guard let byte = UInt8(hex[index..<next], radix: 16) else {
        throw TestSupportError("atspi-reader.py: not hexadecimal: \(hex)")
      }
      bytes.append(byte)
      index = next
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension AccessibilityReader {
  /// Why the reader cannot run here (for `.enabled(if:)`), nil when it can.
  public static var missing: String? {
    if access("/usr/libexec/at-spi-bus-launcher", X_OK) != 0 {
      return "at-spi2-core is not installed (scripts/deps test): no accessibility bus"
    }
    for architecture in ["x86_64-linux-gnu", "aarch64-linux-gnu"]
    where access("/usr/lib/\(architecture)/girepository-1.0/Atspi-2.0.typelib", R_OK) == 0 {
      return nil
    }
    return "gir1.2-atspi-2.0 is not installed (scripts/deps test): the test cannot read the accessibility bus"
  }
}
