import DBus
import DBusTestSupport
import EventLoop
import Logging
import MPRIS
// MPRISRoundTrip: how long a remote-control action takes to reach a real mpv player, in
// process, next to the usual baseline, one `playerctl play-pause` process, measured in the same
// run on the same private bus and player.
//
//   swift build -c release --product MPRISRoundTrip && .build/release/MPRISRoundTrip [calls]
//
// Figures (each over `calls` round trips, 1000 by default, after 50 warm-up ones):
//   Get        Properties.Get(PlaybackStatus) on mpv: the bare bus round trip
//   PlayPause  Player.PlayPause on mpv, reply awaited (what the mpris handler sends)
//   chain      togglePlayPause posted to the application, through the mpris handler to mpv and
//              back to a dispatch record "handled by mpris"
//   playerctl  `playerctl -p <mpv> play-pause`, process start to exit (fewer runs: 50)
import ResponderConfig
import ResponderCore
import ResponderdKit

#if canImport(Glibc)
  import Glibc
#endif

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Sorted samples in seconds, summarized in milliseconds.
struct Summary {
  let name: String
  let samples: [Double]
  init(_ name: String, _ samples: [Double]) {
    self.name = name
    self.samples = samples.sorted()
  }
  func quantile(_ q: Double) -> Double {
    samples[min(samples.count - 1, Int((Double(samples.count) * q).rounded(.down)))]
  }
  var median: Double { quantile(0.5) }
  var p99: Double { quantile(0.99) }
  var mean: Double { samples.reduce(0, +) / Double(samples.count) }
  var line: String {
    "\(name.padding(10)) n=\(String(samples.count).padding(5)) median \(ms(median)) ms  p99 \(ms(p99)) ms  mean \(ms(mean)) ms"
  }
}

func ms(_ seconds: Double) -> String {
  let value = (seconds * 1000 * 1000).rounded() / 1000
  return String(value)
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}

func wait(_ what: String, on loop: EventLoop, timeout: Double = 15, _ condition: () -> Bool) throws {
  guard loop.run(until: condition, timeout: timeout) else {
    throw BenchmarkError("timed out after \(timeout) s waiting for \(what)")
  }
}

/// A 900 s sine made once with sox (shared with the tests' cache in $TMPDIR).
func audioFile() throws -> String {
  let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  let dir = "\(base)/responderd-test-audio-v1"
  let file = "\(dir)/one.ogg"
  if access(file, R_OK) == 0 { return file }
  mkdir(dir, 0o755)
  let partial = "\(dir)/partial-\(getpid()).ogg"
  let sox = try ChildProcess(
    ["sox", "-n", "-r", "8000", "-c", "1", partial, "synth", "900", "sine", "440", "vol", "0.2"],
    stdout: .null, stderr: .null)
  guard ChildProcess.exitedSuccessfully(try sox.waitForExit(timeout: 120)) else {
    throw BenchmarkError("sox failed")
  }
  rename(partial, file)
  return file
}

func run() throws {
  let calls = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1000 : 1000
  let warmUp = 50
  let processRuns = 50

  let bus = try PrivateBus()
  let mpv = try ChildProcess(
    [
      "mpv", "--no-config", "--idle=yes", "--ao=null", "--vo=null", "--script=/usr/lib/mpv-mpris/mpris.so",
      "--no-terminal", "--pause", try audioFile(),
    ], environment: bus.environment, stdout: .null, stderr: .null)
  defer { mpv.terminate(grace: 2) }

  let loop = try EventLoop()
  let client = try bus.connect(loop: loop)
  var owner: String?
  let name = "org.mpris.MediaPlayer2.mpv"
  let watch = client.watchNameOwner(name) { owner = $0 }
  try wait("mpv on the bus", on: loop) { owner != nil }
  watch.cancel()
  let player = owner!

  func timed(_ count: Int, _ body: (@escaping () -> Void) -> Void) throws -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
      var done = false
      let start = monotonicNow()
      body { done = true }
      try wait("a reply", on: loop, timeout: 5) { done }
      samples.append(monotonicNow() - start)
    }
    return samples
  }

  func get(_ done: @escaping () -> Void) {
    client.getProperty(
      "PlaybackStatus", interface: MPRISNames.playerInterface, path: MPRISNames.objectPath,
      destination: player,
      timeout: 5
    ) { result in
      if case .failure(let error) = result { fatalError("Get failed: \(error)") }
      done()
    }
  }
  func playPause(_ done: @escaping () -> Void) {
    client.call(
      destination: player, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: "PlayPause",
      timeout: 5
    ) { result in
      if case .failure(let error) = result { fatalError("PlayPause failed: \(error)") }
      done()
    }
  }

  _ = try timed(warmUp, get)
  let getSamples = try timed(calls, get)
  _ = try timed(warmUp, playPause)
  let playPauseSamples = try timed(calls, playPause)

  // The whole path: an in-process service with the bus and MPRIS components.
  var config = ResponderdConfig()
  config.chain = ["mpris", "log"]
  let service = Service(
    config: config, loop: loop, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
  let busComponent = service.busComponent(address: bus.address)
  service.add(busComponent)
  let mpris = service.mprisComponent(bus: busComponent)
  service.add(mpris)
  var handled = 0
  var dropped = 0
  service.events.addDispatchObserver { record in
    if record.handledBy == "mpris" { handled += 1 } else { dropped += 1 }
  }
  service.start()
  try wait("the service to select mpv", on: loop) { mpris.tracker.selector.selectedID == player }
  func chain(_ done: @escaping () -> Void) {
    let before = handled + dropped
    service.application.post(.remoteControl(.remoteControlTogglePlayPause, timestamp: loop.scheduler.now))
    _ = loop.run(until: { handled + dropped > before }, timeout: 5)
    done()
  }
  _ = try timed(warmUp, chain)
  let chainSamples = try timed(calls, chain)
  guard dropped == 0 else { throw BenchmarkError("\(dropped) events were not handled by mpris") }

  // The baseline: one playerctl process per action.
  var processSamples: [Double] = []
  for _ in 0..<processRuns {
    let start = monotonicNow()
    let result = try ChildProcess.run(
      ["playerctl", "-p", "mpv", "play-pause"], environment: bus.environment, loop: loop, timeout: 10)
    processSamples.append(monotonicNow() - start)
    guard result.exitCode == 0 else { throw BenchmarkError("playerctl failed: \(result)") }
  }
  for component in service.components.reversed() { component.stop() }

  let summaries = [
    Summary("Get", getSamples), Summary("PlayPause", playPauseSamples), Summary("chain", chainSamples),
    Summary("playerctl", processSamples),
  ]
  print("MPRISRoundTrip: in-process round trips to a real mpv vs one playerctl process (same bus, same run)")
  for summary in summaries { print(summary.line) }
  let baseline = summaries[3].median
  for summary in summaries.prefix(3) {
    let ratio = (baseline / summary.median * 10).rounded() / 10
    print("playerctl play-pause median / \(summary.name) median = \(ratio)x")
  }
}

do {
  try run()
} catch {
  print("MPRISRoundTrip: \(error)")
  exit(1)
}
