import BenchmarkSupport
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import Logging
import SoundServer
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// Volume key → sink volume changed: KEY_VOLUMEUP / KEY_VOLUMEDOWN written to an emulated USB
/// headset until the sound server's own change event for the sink (a libpulse subscription of
/// this process), against a real PulseAudio with a null sink, for three setups in turn:
///   floor      - this process's open libpulse connection sets the volume when the key would be
///                written (no device, no reader: the server alone);
///   relay      - the floor with the device: a C process reads the relay's headset with libevdev
///                and sets the volume on its open libpulse connection (what responderd's ratio is
///                taken to);
///   responderd - the daemon owns (grabs) its headset, takes the volume key and sets the volume
///                through libpulse on its event loop;
///   thd        - triggerhappy reads its headset and runs `pactl set-sink-volume @DEFAULT_SINK@ ±5%`.
/// Each round presses up then down in every setup, so the volume stays between 45 and 55 %.
final class VolumeToSink {
  let bench: Bench
  private(set) var summaries: [LatencySummary] = []

  init(bench: Bench) { self.bench = bench }

  static let keyVolumeUp: UInt16 = 115
  static let keyVolumeDown: UInt16 = 114

  /// responderd reads its headset on USB port 2 (event7) and owns it (its ioctls are answered live,
  /// EVIOCGRAB included); thd reads the one on port 3 (event8, not grabbed).
  func run() throws {
    let handler = bench.responderdHeadsetIoctl

    let server = try SoundServerFixture(sinks: [.init("speakers")], loop: bench.loop)
    try server.start()
    defer { server.stop() }
    try server.pactlChecked(["set-sink-volume", "speakers", "50%"])

    // The observer: the server's own change events, and the floor's connection.
    let observer = SoundServerConnection(
      loop: bench.loop, server: server.address, step: 5, applicationName: "EndToEnd",
      logger: Logger(label: "EndToEnd"))
    var changes: [Double] = []
    observer.addObserver { change in
      if case .sinkEvent = change { changes.append(monotonicNow()) }
    }
    observer.start()
    defer { observer.stop() }
    try bench.wait("the benchmark's own sound-server connection", timeout: 10) { observer.state == .ready }

    // The headsets of thd, the relay and the second responderd left alone, as for the key part; a
    // 5 % step as thd's pactl.
    let config = try bench.writeConfig("volume.toml", bench.keysConfig + "\n[volume]\nstep = 5\n")
    let soundEnvironment = ["PULSE_SERVER": server.address, "XDG_RUNTIME_DIR": server.runtimeDirectory]
    let responderd = try LoggedProcess(
      "responderd", [bench.responderdPath, "--allow-root", "--config", config],
      environment: bench.environment(testbed: true).merging(soundEnvironment) { $1 }, loop: bench.loop)
    defer { responderd.stop() }
    try responderd.waitForOutput("bus: owns org.responderd.Daemon1", timeout: 10 * bench.slowdown)
    try bench.wait("responderd to own its volume headset", timeout: 10) { handler.isGrabbed }

    let triggers = bench.bus.directory + "/volume-triggers.conf"
    try writeTextFile(
      triggers,
      "KEY_VOLUMEUP\t1\tpactl set-sink-volume @DEFAULT_SINK@ +5%\nKEY_VOLUMEDOWN\t1\tpactl set-sink-volume @DEFAULT_SINK@ -5%\n"
    )
    let thd = try LoggedProcess(
      "thd", ["thd", "--triggers", triggers, bench.thdHeadset],
      environment: bench.environment(testbed: true).merging(soundEnvironment) { $1 }, loop: bench.loop)
    defer { thd.stop() }
    let relay = try bench.startRelay(player: nil, extraEnvironment: soundEnvironment)
    defer { relay.stop() }
    bench.pass(0.5)
    try thd.checkRunning()

    let devices = bench.devices
    var errors: [String] = []
    func key(_ code: UInt16, _ devnode: String) -> (press: () -> Void, release: () -> Void) {
      (
        {
          do { try devices.writeKey(code, 1, to: devnode) } catch { errors.append("\(error)") }
        },
        {
          do { try devices.writeKey(code, 0, to: devnode) } catch { errors.append("\(error)") }
        }
      )
    }
    func floorPress(_ key: VolumeKey) -> () -> Void {
      {
        observer.press(key) { outcome in if case .changed = outcome {} else { errors.append("\(outcome)") } }
      }
    }
    // Each setup: up, then down.
    var setups: [(name: String, keys: [KeySetup])] = []
    setups.append(
      (
        "floor: the volume set on an open libpulse connection",
        [
          KeySetup(name: "up", press: floorPress(.up), release: {}),
          KeySetup(name: "down", press: floorPress(.down), release: {}),
        ]
      ))
    for (name, node) in [
      ("floor with the device: libevdev → the volume on an open libpulse connection (C)", bench.relayHeadset),
      ("responderd (owned headset → libpulse on its event loop)", bench.responderdHeadset),
      ("peer: thd → `pactl set-sink-volume @DEFAULT_SINK@ ±5%`", bench.thdHeadset),
    ] {
      let up = key(Self.keyVolumeUp, node)
      let down = key(Self.keyVolumeDown, node)
      setups.append(
        (
          name,
          [
            KeySetup(name: "up", press: up.press, release: up.release),
            KeySetup(name: "down", press: down.press, release: down.release),
          ]
        ))
    }

    /// One press: the latency to the first change event, or nil when none came within `timeout`.
    func measure(_ setup: KeySetup, timeout: Double) throws -> Double? {
      let before = changes.count
      let start = monotonicNow()
      setup.press()
      let changed = bench.loop.run(until: { changes.count > before }, timeout: timeout)
      setup.release()
      let latency = changed ? changes[before] - start : nil
      bench.pass(start + bench.options.spacing - monotonicNow())
      try responderd.checkRunning()
      try thd.checkRunning()
      try relay.checkRunning()
      if let error = errors.first { throw BenchmarkError("volume: \(error)") }
      return latency
    }

    // Warm-up: responderd loads libpulse and connects at its first volume key.
    for (name, keys) in setups {
      var working = false
      for _ in 0..<10 where !working {
        working = try measure(keys[0], timeout: 3 * bench.slowdown) != nil
        _ = try measure(keys[1], timeout: 3 * bench.slowdown)
      }
      guard working else {
        throw BenchmarkError(
          "\(name): ten presses and no change event; responderd said:\n\(responderd.output)\nthd said:\n\(thd.output)"
        )
      }
    }
    for _ in 0..<bench.options.warmUp {
      for (_, keys) in setups { for setup in keys { _ = try measure(setup, timeout: 5 * bench.slowdown) } }
    }

    let presses = max(1, bench.options.presses / 2)
    progress(
      "volume → sink: \(presses * 2) presses per setup (up and down), \(setups.count) setups, \(bench.options.spacing) s apart"
    )
    var latencies: [[Double]] = Array(repeating: [], count: setups.count)
    var missed = 0
    for round in 0..<presses {
      for offset in 0..<setups.count {
        let index = (round + offset) % setups.count
        for setup in setups[index].keys {
          if let latency = try measure(setup, timeout: 5 * bench.slowdown) {
            latencies[index].append(latency)
          } else {
            missed += 1
          }
        }
      }
    }
    guard missed == 0 else {
      throw BenchmarkError(
        "volume → sink: \(missed) presses without a change event; responderd said:\n\(responderd.output)")
    }
    summaries = zip(setups, latencies).map { LatencySummary(name: $0.0.name, latencies: $0.1) }
  }
}
