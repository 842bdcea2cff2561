import BenchmarkSupport
import DBusTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Start-up times (seconds) of one program: from just before the process is created to the
/// moment this process sees the bus announce the program's well-known name as owned.
struct StartupFigures {
  let name: String
  let busName: String
  var times: [Double] = []
  var median: Double { percentile(times.sorted(), 0.5) }
  var min: Double { times.min() ?? .nan }
  var max: Double { times.max() ?? .nan }
}

/// Starts each variant `starts` times in turn; each start is stopped (SIGTERM, reaped) and its
/// name released before the next.
func measureStartup(bench: Bench, starts: Int) throws -> [StartupFigures] {
  let config = try bench.writeConfig("startup.toml", bench.keysConfig)
  struct Variant {
    var figures: StartupFigures
    var start: () throws -> LoggedProcess
  }
  var variants = [
    Variant(
      figures: StartupFigures(
        name: "responderd (under umockdev: 2 headsets and an accelerometer present)",
        busName: "org.responderd.Daemon1"),
      start: { try bench.startResponderd(config: config) }),
    Variant(
      figures: StartupFigures(
        name: "responderd (no umockdev: no devices)", busName: "org.responderd.Daemon1"),
      start: { try bench.startResponderd(config: config, testbed: false) }),
    Variant(
      figures: StartupFigures(name: "playerctld", busName: "org.mpris.MediaPlayer2.playerctld"),
      start: {
        try LoggedProcess(
          "playerctld", ["playerctld"], environment: bench.environment(testbed: false), loop: bench.loop)
      }),
  ]
  progress("startup: \(starts) starts of each of \(variants.count)")
  for round in 0..<starts + 1 {  // the first round warms the page cache, not counted
    for index in variants.indices {
      let name = variants[index].figures.busName
      let before = bench.ownedAt[name] ?? 0
      let began = monotonicNow()
      let process = try variants[index].start()
      try bench.wait("\(variants[index].figures.name) to own \(name)", timeout: 10) {
        (bench.ownedAt[name] ?? 0) > before || !process.process.isRunning
      }
      try process.checkRunning()
      if round > 0 { variants[index].figures.times.append(bench.ownedAt[name]! - began) }
      process.stop()
      try bench.wait("\(name) to be released", timeout: 10) {
        (bench.releasedAt[name] ?? 0) > (bench.ownedAt[name] ?? 0)
      }
    }
  }
  return variants.map(\.figures)
}
