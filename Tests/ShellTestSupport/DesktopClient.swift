import DBusTestSupport
import EventLoop
import SystemCalls

/// A client program of a headless desktop (a GTK app, a Wayland probe) whose stdout lines are read
/// on the desktop's loop while a test waits; its stderr goes to `stderrPath` in the desktop's
/// directory. It is killed by the desktop's `stop()`.
public final class DesktopClient {
  public let process: ChildProcess
  /// Every line it printed so far.
  public private(set) var lines: [String] = []
  /// Where its stderr goes.
  public let stderrPath: String
  private let desktop: HeadlessDesktop
  private var source: IOSource?

  /// Starts `arguments` with the desktop's environment plus `environment`; `name` names its
  /// stderr file (`NAME.err`).
  public init(
    _ desktop: HeadlessDesktop, _ arguments: [String], name: String, environment: [String: String] = [:]
  ) throws {
    self.desktop = desktop
    stderrPath = desktop.directory + "/\(name).err"
    process = try desktop.start(
      arguments, environment: environment, stdout: .capture, stderr: .file(stderrPath))
    source = try desktop.loop.register(fd: process.outputDescriptor, events: .readable) { [weak self] _ in
      self?.read()
    }
  }

  deinit { source?.remove() }

  /// Waits until `condition` holds on the lines so far (`timeout` seconds at most); the error
  /// names `what` and quotes what it printed.
  public func waitFor(_ what: String, timeout: Double = 15, _ condition: ([String]) -> Bool) throws {
    guard desktop.loop.run(until: { condition(lines) }, timeout: timeout) else {
      let said = (try? readTextFile(stderrPath)).map { String($0.suffix(2000)) } ?? ""
      throw TestSupportError(
        "\(process.arguments.first ?? "client"): timed out after \(timeout) s waiting for \(what); it printed: \(lines.suffix(20)); stderr: \(said)"
      )
    }
  }

  private func read() {
    if !process.readAvailable() {
      source?.remove()
      source = nil
    }
    lines += process.takeBufferedLines()
  }
}
