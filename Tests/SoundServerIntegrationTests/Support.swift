import DBusTestSupport
import EventLoop
import Logging
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import SoundServer

/// Every log message, kept for inspection.
final class LogLines: @unchecked Sendable {
  private(set) var lines: [String] = []
  func append(_ line: String) { lines.append(line) }
  /// The lines of `level` or above that contain `text`.
  func count(_ text: String, atLeast level: Logger.Level = .notice) -> Int {
    lines.filter { line in
      guard let colon = line.firstIndex(of: ":"),
        let lineLevel = Logger.Level(rawValue: String(line[..<colon]))
      else { return false }
      return lineLevel >= level && line.contains(text)
    }.count
  }
}

struct KeepingLogHandler: LogHandler {
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace
  let lines: LogLines
  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }
  func log(event: LogEvent) { lines.append("\(event.level.rawValue): \(event.message)") }
}

func keepingLogger(_ lines: LogLines) -> Logger {
  Logger(label: "test") { _ in KeepingLogHandler(lines: lines) }
}

/// Waits for a press's outcome, the loop running meanwhile (bounded).
func outcome(
  within timeout: Double = 10, loop: EventLoop, _ press: (@escaping (VolumeOutcome) -> Void) -> Void
) throws -> VolumeOutcome {
  var result: VolumeOutcome?
  press { result = $0 }
  guard loop.run(until: { result != nil }, timeout: timeout), let result else {
    throw TestSupportError("no answer to a volume key within \(timeout) s")
  }
  return result
}

/// Runs the loop until `condition` holds; fails after `timeout` seconds with `what`.
func wait(_ what: String, loop: EventLoop, timeout: Double = 10, until condition: () -> Bool) throws {
  guard loop.run(until: condition, timeout: timeout) else {
    throw TestSupportError("\(what) did not happen within \(timeout) s")
  }
}

/// A started service with the volume component alone, on `config`, for `server`.
func volumeService(config: String, server: String, loop: EventLoop, logger: Logger) throws -> (
  LoopService, VolumeComponent
) {
  let harness = try LoopService(
    config: try ResponderdConfig.parse(config, file: "test.toml"), loop: loop, logger: logger)
  let component = harness.service.volumeComponent(keys: nil, server: server)
  harness.add(component)
  harness.start()
  return (harness, component)
}
