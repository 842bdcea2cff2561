import BenchmarkSupport
import DBusTestSupport

/// One line of TouchFrame's table: per-frame times in seconds.
struct TouchFigures {
  let name: String
  let median: Double
  let p99: Double
}

/// Touch: runs the TouchFrame benchmark (built next to this one) and takes its all-frames table
/// (10 touches, 1000 views, 30 recognizers, against hit-testing alone) and the 30-recognizer
/// figures of moving, touch-down and lift frames.
func measureTouch(bench: Bench, sequences: Int) throws -> (figures: [TouchFigures], header: String) {
  progress("touch: TouchFrame, \(sequences) sequences")
  let result = try ChildProcess.run(
    [try BuiltProducts.path(of: "TouchFrame"), String(sequences)], loop: bench.loop, timeout: 600)
  guard result.exitCode == 0 else { throw BenchmarkError("TouchFrame failed: \(result)") }
  var figures: [TouchFigures] = []
  var section = ""
  for line in result.output.split(separator: "\n") {
    if line.hasPrefix("moving frames only") { section = ", moving frames only" }
    if line.hasPrefix("touch-down frames only") { section = ", touch-down frames only" }
    if line.hasPrefix("lift frames only") { section = ", lift frames only" }
    guard
      line.hasPrefix("hit-test only") || line.hasPrefix("window, ")
        || (!section.isEmpty && line.hasPrefix("  window, 30 recognizers"))
    else { continue }
    let line = line.drop { $0 == " " }
    // "NAME   MEDIAN µs   P99 µs   MEAN µs   FRAMES/S"
    let columns = line.split(separator: "  ", omittingEmptySubsequences: true).map {
      $0.trimmingPrefix(" ")
    }
    guard columns.count >= 3, let median = microseconds(String(columns[1])),
      let p99 = microseconds(String(columns[2]))
    else { throw BenchmarkError("unexpected TouchFrame line: \(line)") }
    figures.append(TouchFigures(name: String(columns[0]) + section, median: median, p99: p99))
  }
  guard figures.count == 6 else { throw BenchmarkError("unexpected TouchFrame output:\n\(result.output)") }
  let header = result.output.split(separator: "\n").first.map(String.init) ?? ""
  return (figures, header)
}

/// "12.3 µs" in seconds.
private func microseconds(_ text: String) -> Double? {
  guard text.hasSuffix(" µs"), let value = Double(text.dropLast(3)) else { return nil }
  return value / 1e6
}
