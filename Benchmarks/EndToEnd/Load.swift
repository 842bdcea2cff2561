import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// CPU of one process over the load window.
struct LoadCPU {
  let name: String
  let seconds: Double
  let cpuSeconds: Double
  let voluntarySwitches: Int
  var cpuPerSecond: Double { cpuSeconds / seconds }
}

/// The figures of the load part.
struct LoadFigures {
  var tabs = 0
  var rate = 0.0
  /// Which responderd ("this build", or a baseline's path).
  var build = ""
  var cpu: [LoadCPU] = []
  /// Key → player without the tabs, then with them (floor and responderd each).
  var quiet: [LatencySummary] = []
  var loaded: [LatencySummary] = []
  /// How long a call to responderd (`Peer.Ping`) took right after the CPU window: a daemon that
  /// reads less than the tabs send leaves the rest queued in the bus, and calls wait behind it.
  var pingWithTabs: Double?
  /// The messages the signal floor dropped in the CPU window (it reads what responderd reads).
  var floorMessages: Int?
  /// The machine's 1-minute load average at the start and the end of the CPU window.
  var loadAverage: (start: Double, end: Double) = (.nan, .nan)

  /// The CPU of `name` over the window (nil when it was not measured).
  func cpu(of name: String) -> LoadCPU? { cpu.first { $0.name == name } }
  /// The signals the tabs send in a second (every one reaches responderd and the floor once).
  var signalsPerSecond: Double { Double(tabs) * rate }
}

/// The 1-minute load average (/proc/loadavg), NaN when unreadable.
func oneMinuteLoadAverage() -> Double {
  (try? readTextFile("/proc/loadavg")).flatMap { $0.split(separator: " ").first }.flatMap { Double($0) }
    ?? .nan
}

/// The pause of the signal floor between batches: responderd's `DBusConnection.batchingDelay`.
let signalFloorPauseMilliseconds = 50

/// Load (issue 16): `tabs` MPRIS players (`EndToEnd --chatty-players`, browser tabs) each emitting
/// PropertiesChanged `rate` times a second. Measures, in one run beside a paused mpv: the key →
/// player latency (floor and responderd, interleaved) without the tabs, then with them (playerctld
/// and the floor, references for the CPU window, run only for it); and the
/// CPU of responderd, playerctld and the signal floor (`EndToEnd --signal-floor`: libdbus alone,
/// following the same players with the same rules and reading in batches with the same pause) over
/// `seconds` while the tabs chatter and nothing else happens.
/// `responderd`: another build's path (a baseline), nil for this one.
func measureLoad(
  bench: Bench, responderd path: String?, tabs: Int, rate: Double, seconds: Double, presses: Int
) throws -> LoadFigures {
  var figures = LoadFigures(tabs: tabs, rate: rate, build: path ?? "this build")
  let (player, playerName) = try bench.startPlayer(path == nil ? 3 : 4)
  let config = try bench.writeConfig("load.toml", bench.keysConfig)
  let responderd = try bench.startResponderd(config: config, path: path)
  try responderd.waitForOutput("bus: owns org.responderd.Daemon1", timeout: 10 * bench.slowdown)
  try responderd.waitForOutput("evdev: opened \(bench.responderdHeadset)", timeout: 10 * bench.slowdown)
  bench.pass(1)

  let connection = bench.connection
  var callErrors: [String] = []
  var writeErrors: [String] = []
  let devices = bench.devices
  func key(_ value: Int32) -> () -> Void {
    {
      do { try devices.writeKey(keyPlayPause, value, to: bench.responderdHeadset) } catch {
        writeErrors.append("\(error)")
      }
    }
  }
  func setups() -> [KeySetup] {
    [
      KeySetup.playPauseCall(on: connection, to: playerName) { callErrors.append($0) },
      KeySetup(name: "responderd (evdev → mpris handler → PlayPause)", press: key(1), release: key(0)),
    ]
  }
  func press(_ setups: [KeySetup], count: Int, record: Bool) throws {
    for round in 0..<count {
      for offset in 0..<setups.count {
        let setup = setups[(round + offset) % setups.count]
        let before = player.pauseChanges.count
        let start = monotonicNow()
        setup.press()
        let changed = bench.loop.run(
          until: { player.pauseChanges.count > before }, timeout: 5 * bench.slowdown)
        setup.release()
        try responderd.checkRunning()
        if let error = callErrors.first { throw BenchmarkError("the floor's PlayPause failed: \(error)") }
        if let error = writeErrors.first { throw BenchmarkError("writing a key failed: \(error)") }
        guard changed else {
          throw BenchmarkError(
            "load: \(setup.name): no pause change within 5 s of the press; responderd said:\n\(responderd.output)"
          )
        }
        if record { setup.latencies.append(player.pauseChanges[before].time - start) }
        bench.pass(start + bench.options.spacing - monotonicNow())
      }
    }
  }

  progress("load: \(presses) presses per setup without the tabs")
  let quiet = setups()
  try press(quiet, count: 5, record: false)
  try press(quiet, count: presses, record: true)
  figures.quiet = quiet.map { LatencySummary(name: $0.name, latencies: $0.latencies) }

  // playerctld is a reference for the CPU window, not part of a user's load: it runs only for the
  // window, so that the presses with the tabs run beside the same processes as those without.
  let playerctld = try bench.startPlayerctld()

  let chatty = try LoggedProcess(
    "chatty players",
    [try BuiltProducts.path(of: "EndToEnd"), "--chatty-players", "\(tabs)", "\(rate)"],
    environment: bench.environment(testbed: false), loop: bench.loop)
  try chatty.waitForOutput("ready", timeout: 20)
  // The floor follows the players responderd follows (the paused mpv and the tabs), in the same
  // environment as responderd (umockdev's preload wraps some of the calls both make).
  let floor = try LoggedProcess(
    "signal floor",
    [try BuiltProducts.path(of: "EndToEnd"), "--signal-floor", "\(signalFloorPauseMilliseconds)", playerName]
      + (1...tabs).map { "org.mpris.MediaPlayer2.tab\($0)" },
    environment: bench.environment(testbed: true), loop: bench.loop)
  try floor.waitForOutput("ready", timeout: 20)
  bench.pass(3)  // everyone takes in the tabs
  try chatty.checkRunning()

  progress("load: \(Int(seconds)) s of \(tabs) tabs × \(rate) PropertiesChanged/s, nothing else")
  let processes = [("responderd", responderd), ("playerctld", playerctld), ("signal floor", floor)]
  for (_, process) in processes { try process.checkRunning() }
  let droppedBefore = try droppedCount(of: floor, reports: 1, bench: bench)
  let loadAtStart = oneMinuteLoadAverage()
  let start = try processes.map { try ProcessSample(pid: $0.1.pid) }
  let began = monotonicNow()
  bench.pass(seconds)
  let elapsed = monotonicNow() - began
  figures.loadAverage = (loadAtStart, oneMinuteLoadAverage())
  for (index, (name, process)) in processes.enumerated() {
    try process.checkRunning()
    let end = try ProcessSample(pid: process.pid)
    figures.cpu.append(
      LoadCPU(
        name: name, seconds: elapsed, cpuSeconds: end.cpuSeconds - start[index].cpuSeconds,
        voluntarySwitches: end.voluntarySwitches - start[index].voluntarySwitches))
  }
  figures.floorMessages = try droppedCount(of: floor, reports: 2, bench: bench) - droppedBefore
  floor.stop()
  playerctld.stop()

  let pingSent = monotonicNow()
  var pinged: Double?
  connection.call(
    destination: "org.responderd.Daemon1", path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping",
    timeout: 60
  ) { _ in pinged = monotonicNow() }
  try bench.wait("responderd's answer to Ping", timeout: 61) { pinged != nil }
  figures.pingWithTabs = pinged.map { $0 - pingSent }

  progress("load: \(presses) presses per setup with the tabs")
  let loaded = setups()
  try press(loaded, count: 5, record: false)
  try press(loaded, count: presses, record: true)
  figures.loaded = loaded.map { LatencySummary(name: $0.name, latencies: $0.latencies) }
  try chatty.checkRunning()

  chatty.stop()
  responderd.stop()
  bench.pass(0.5)  // the names are released before the next part
  withExtendedLifetime(player) {}
  return figures
}

/// Asks the signal floor how many messages it dropped so far (SIGUSR1) and waits for its
/// `reports`-th answer.
private func droppedCount(of floor: LoggedProcess, reports: Int, bench: Bench) throws -> Int {
  kill(floor.pid, SIGUSR1)
  func counts() -> [Int] {
    floor.output.split(separator: "\n").compactMap { line in
      line.hasPrefix("dropped ") ? Int(line.dropFirst("dropped ".count)) : nil
    }
  }
  try bench.wait("the signal floor's count", timeout: 5) { counts().count >= reports }
  return counts()[reports - 1]
}
