import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// One way of turning a key press into the player's pause change.
final class KeySetup {
  let name: String
  /// Writes the press (or sends the call, for the floor).
  let press: () -> Void
  /// Writes the release.
  let release: () -> Void
  var latencies: [Double] = []

  init(name: String, press: @escaping () -> Void, release: @escaping () -> Void) {
    self.name = name
    self.press = press
    self.release = release
  }

  /// The floor: no key at all, PlayPause called on `playerName` over an open bus connection; a
  /// failed call's error goes to `failed`.
  static func playPauseCall(
    on connection: DBusConnection, to playerName: String, failed: @escaping (String) -> Void
  ) -> KeySetup {
    KeySetup(
      name: "floor: PlayPause sent on an open bus connection",
      press: {
        connection.call(
          destination: playerName, path: "/org/mpris/MediaPlayer2",
          interface: "org.mpris.MediaPlayer2.Player",
          method: "PlayPause", timeout: 5
        ) { result in
          if case .failure(let error) = result { failed("\(error)") }
        }
      }, release: {})
  }
}

/// Latency figures of one setup (seconds).
struct LatencySummary {
  let name: String
  let count: Int
  let min: Double
  let median: Double
  let p90: Double
  let p99: Double
  let max: Double

  init(name: String, latencies: [Double]) {
    let sorted = latencies.sorted()
    self.name = name
    count = sorted.count
    min = sorted.first ?? .nan
    median = sorted.isEmpty ? .nan : percentile(sorted, 0.5)
    p90 = sorted.isEmpty ? .nan : percentile(sorted, 0.9)
    p99 = sorted.isEmpty ? .nan : percentile(sorted, 0.99)
    max = sorted.last ?? .nan
  }
}

/// Key → player: KEY_PLAYPAUSE written to an emulated headset until mpv's own pause change, for
/// three setups in turn (a press each, every `spacing` seconds, the order rotating each round):
///   floor      - this process's open bus connection sends PlayPause to mpv when the key would be
///                written (no device, no reader: the bus and mpv alone);
///   relay      - the floor with the device: a C process reads its headset with libevdev and sends
///                PlayPause on its open libdbus connection, no reply awaited (the emulated device
///                and a process wake-up: what responderd's ratio is taken to);
///   responderd - the daemon owns its headset (grabbed) and its mpris handler calls the player;
///   shared     - a second daemon reads its headset shared (`grab = "never"`, as before the grab;
///                or the baseline build given with --baseline-responderd), the same way;
///   thd        - triggerhappy reads its headset and runs `playerctl play-pause` (fork, sh, exec).
final class KeyToPlayer {
  let bench: Bench
  private(set) var summaries: [LatencySummary] = []
  /// What the daemon said (for errors and the report).
  private(set) var note = ""

  init(bench: Bench) { self.bench = bench }

  /// Runs the measurement with the processes already started by the caller.
  func run(
    player: Player, playerName: String, relay: LoggedProcess, responderd: LoggedProcess?,
    sharedResponderd: LoggedProcess? = nil, sharedIsBaseline: Bool = false, thd: LoggedProcess
  ) throws {
    let connection = bench.connection
    var callErrors: [String] = []
    let floor = KeySetup.playPauseCall(on: connection, to: playerName) { callErrors.append($0) }
    let devices = bench.devices
    var writeErrors: [String] = []
    func key(_ value: Int32, _ devnode: String) -> () -> Void {
      {
        do { try devices.writeKey(keyPlayPause, value, to: devnode) } catch { writeErrors.append("\(error)") }
      }
    }
    var setups = [floor]
    setups.append(
      KeySetup(
        name:
          "floor with the device: libevdev → PlayPause on an open libdbus connection (C, a process of its own)",
        press: key(1, bench.relayHeadset), release: key(0, bench.relayHeadset)))
    if responderd != nil {
      setups.append(
        KeySetup(
          name: "responderd (evdev → mpris handler → PlayPause), headset owned (grabbed)",
          press: key(1, bench.responderdHeadset), release: key(0, bench.responderdHeadset)))
    }
    if sharedResponderd != nil {
      setups.append(
        KeySetup(
          name: sharedIsBaseline
            ? "baseline responderd build, headset shared"
            : "same, headset shared (grab = \"never\": as before)",
          press: key(1, bench.sharedHeadset), release: key(0, bench.sharedHeadset)))
    }
    setups.append(
      KeySetup(
        name: "peer: thd → `playerctl play-pause`",
        press: key(1, bench.thdHeadset), release: key(0, bench.thdHeadset)))

    func check() throws {
      try responderd?.checkRunning()
      try sharedResponderd?.checkRunning()
      try thd.checkRunning()
      try relay.checkRunning()
      if let error = callErrors.first { throw BenchmarkError("the floor's PlayPause failed: \(error)") }
      if let error = writeErrors.first { throw BenchmarkError("writing a key failed: \(error)") }
    }

    /// One press: the latency, or nil when the player did not change within `timeout`.
    func measure(_ setup: KeySetup, timeout: Double, strict: Bool) throws -> Double? {
      let before = player.pauseChanges.count
      let start = monotonicNow()
      setup.press()
      let changed = bench.loop.run(until: { player.pauseChanges.count > before }, timeout: timeout)
      setup.release()
      let latency = changed ? player.pauseChanges[before].time - start : nil
      bench.pass(start + bench.options.spacing - monotonicNow())
      try check()
      if strict {
        guard changed else {
          throw BenchmarkError(
            "\(setup.name): no pause change within \(timeout) s of the press; responderd said:\n\(responderd?.output ?? "")\nthd said:\n\(thd.output)"
          )
        }
        guard player.pauseChanges.count == before + 1 else {
          throw BenchmarkError(
            "\(setup.name): one press changed the pause state \(player.pauseChanges.count - before) times")
        }
      }
      return latency
    }

    // Warm-up: each setup until it works (the daemons may still be settling), then more presses
    // not counted.
    for setup in setups {
      var working = false
      for _ in 0..<10 where !working {
        working = try measure(setup, timeout: 3 * bench.slowdown, strict: false) != nil
        bench.pass(0.5)
      }
      guard working else {
        throw BenchmarkError(
          "\(setup.name): ten presses and no pause change; responderd said:\n\(responderd?.output ?? "")\nthd said:\n\(thd.output)"
        )
      }
    }
    bench.pass(1)
    for _ in 0..<bench.options.warmUp {
      for setup in setups { _ = try measure(setup, timeout: 5 * bench.slowdown, strict: true) }
    }

    progress(
      "key → player: \(bench.options.presses) presses per setup, \(setups.count) setups, \(bench.options.spacing) s apart (≈ \(Int(Double(bench.options.presses * setups.count) * bench.options.spacing)) s)"
    )
    for round in 0..<bench.options.presses {
      for offset in 0..<setups.count {
        let setup = setups[(round + offset) % setups.count]
        if let latency = try measure(setup, timeout: 5 * bench.slowdown, strict: true) {
          setup.latencies.append(latency)
        }
      }
    }
    summaries = setups.map { LatencySummary(name: $0.name, latencies: $0.latencies) }
    if let path = bench.options.rawPath {
      var csv = "setup,round,seconds\n"
      for setup in setups {
        for (round, latency) in setup.latencies.enumerated() {
          csv += "\"\(setup.name)\",\(round),\(latency)\n"
        }
      }
      try writeTextFile(path, csv)
    }
  }
}
