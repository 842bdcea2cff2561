import BenchmarkSupport
import DBusTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What one process did over the idle window, and its memory at the end.
struct IdleFigures {
  let name: String
  let seconds: Double
  let ticks: Int
  let cpuSeconds: Double
  let voluntarySwitches: Int
  let involuntarySwitches: Int
  let end: ProcessSample
}

/// Idle: nothing happens for `seconds` while the processes sit with their devices open and two
/// players on the bus; each is measured from /proc over the same window.
func measureIdle(bench: Bench, processes: [(String, LoggedProcess)], seconds: Double) throws -> [IdleFigures]
{
  for (_, process) in processes { try process.checkRunning() }
  let start = try processes.map { try ProcessSample(pid: $0.1.pid) }
  let began = monotonicNow()
  progress("idle: \(Int(seconds)) s with nothing happening")
  bench.pass(seconds)
  let elapsed = monotonicNow() - began
  var figures: [IdleFigures] = []
  for (index, (name, process)) in processes.enumerated() {
    try process.checkRunning()
    let end = try ProcessSample(pid: process.pid)
    figures.append(
      IdleFigures(
        name: name, seconds: elapsed, ticks: end.ticks - start[index].ticks,
        cpuSeconds: end.cpuSeconds - start[index].cpuSeconds,
        voluntarySwitches: end.voluntarySwitches - start[index].voluntarySwitches,
        involuntarySwitches: end.involuntarySwitches - start[index].involuntarySwitches, end: end))
  }
  return figures
}
