import BenchmarkSupport
import DeviceTestSupport
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// The figures of a run, printed as markdown.
struct Report {
  var options: Options
  var keyDevice = ""
  var player = ""
  var key: [LatencySummary] = []
  var keyNote = ""
  var volume: [LatencySummary] = []
  var idle: [IdleFigures] = []
  var startup: [StartupFigures] = []
  var motion: [MotionFigures] = []
  /// A focus that flaps (SetActive), beside the reference of the same run.
  var flap: [MotionFigures] = []
  var touch: [TouchFigures] = []
  var touchHeader = ""
  var size: SizeFigures?
  var load: LoadFigures?
  var loadBaseline: LoadFigures?
  var failure: String?

  /// One goal: what it is, what was measured, whether it is met (nil: not measured).
  private struct Goal {
    let goal: String
    let measured: String
    let met: Bool?
  }

  func markdown() -> String {
    var out: [String] = []
    var goals: [Goal] = []
    // Rows of the measurement table (figures without a goal of their own).
    var others: [String] = []
    out.append("Machine: \(machine()); run \(today()).")
    out.append("")

    if !volume.isEmpty {
      out += latencySection(
        "**Volume key → sink**: KEY_VOLUMEUP / KEY_VOLUMEDOWN written to an emulated \(keyDevice) (umockdev; responderd's is owned, EVIOCGRAB) until PulseAudio's own change event for its null sink (a libpulse subscription), \(volume.first!.count) presses per setup (up, down), interleaved, \(fixed(options.spacing * 1000, 0)) ms apart.",
        volume)
      if let responderd = volume.first(where: { $0.name.hasPrefix("responderd") }),
        let device = volume.first(where: { $0.name.hasPrefix("floor with") })
      {
        goals += floorGoals("volume key → sink", responderd, device)
      }
      if let responderd = volume.first(where: { $0.name.hasPrefix("responderd") }), let peer = volume.last {
        goals.append(
          Goal(
            goal: "volume key → sink: responderd faster than thd + pactl at the median",
            measured:
              "\(ms(responderd.median)) vs \(ms(peer.median)) (\(fixed(peer.median / responderd.median, 1))×)",
            met: responderd.median < peer.median))
      }
    }

    if !key.isEmpty {
      out += latencySection(
        "**Key → player**: KEY_PLAYPAUSE written to an emulated \(keyDevice) (umockdev, live injection; the key acts on press there, no click grammar) until \(player)'s own pause change (its JSON IPC), \(key.first!.count) presses per setup, interleaved, \(fixed(options.spacing * 1000, 0)) ms apart.",
        key)
      let floor = key[0].median
      let responderdRow = key.first(where: { $0.name.hasPrefix("responderd") })
      if let responderd = responderdRow, let device = key.first(where: { $0.name.hasPrefix("floor with") }) {
        out.append(
          "At the median, responderd − floor = +\(ms(responderd.median - floor)): the emulated device and the wake-up of a process (floor with the device − floor) take +\(ms(device.median - floor)), responderd's own work (responderd − floor with the device) +\(ms(responderd.median - device.median))."
        )
        out.append("")
      }
      if let responderd = responderdRow,
        let shared = key.first(where: {
          $0.name.hasPrefix("same, headset shared") || $0.name.hasPrefix("baseline")
        })
      {
        out.append(
          "The grab: owned ÷ shared = \(fixed(responderd.median / shared.median, 2))× at the median, \(fixed(responderd.p99 / shared.p99, 2))× at p99 (\(ms(responderd.median)) / \(ms(responderd.p99)) owned, \(ms(shared.median)) / \(ms(shared.p99)) shared)."
        )
        out.append("")
      }
      if let responderd = responderdRow, let device = key.first(where: { $0.name.hasPrefix("floor with") }) {
        goals += floorGoals("key → player", responderd, device)
      }
      if let responderd = responderdRow, let peer = key.last {
        let overFloor = responderd.median - floor
        goals.append(
          Goal(
            goal: "key → player: responderd within 0.3 ms of the floor at the median",
            measured: "+\(ms(overFloor))", met: overFloor <= 0.0003))
        goals.append(
          Goal(
            goal: "key → player: responderd p99 ≤ 2 ms", measured: ms(responderd.p99),
            met: responderd.p99 <= 0.002))
        let ratio = peer.median / responderd.median
        goals.append(
          Goal(
            goal: "key → player: ≥ 8× faster than the peer at the median",
            measured: "\(fixed(ratio, 1))× (\(ms(peer.median)) vs \(ms(responderd.median)))", met: ratio >= 8)
        )
      } else {
        goals.append(Goal(goal: "key → player", measured: keyNote, met: nil))
      }
      if !keyNote.isEmpty {
        out.append(keyNote)
        out.append("")
      }
    }

    if !idle.isEmpty {
      out.append(
        "**Idle**: \(fixed(idle[0].seconds, 0)) s with nothing happening; devices open, two paused mpv players on the bus; from /proc/PID/stat and status."
      )
      out.append("")
      out.append(
        "| process | CPU ticks | CPU time | voluntary switches | VmRSS | RssAnon | RssFile | of which umockdev's preload |"
      )
      out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
      for figures in idle {
        out.append(
          "| \(figures.name) | \(figures.ticks) | \(fixed(figures.cpuSeconds * 1000, 2)) ms | \(figures.voluntarySwitches) | \(mib(figures.end.rss)) | \(mib(figures.end.rssAnon)) | \(mib(figures.end.rssFile)) | \(mib(figures.end.preloadRss)) |"
        )
      }
      out.append("")
      if let responderd = idle.first(where: { $0.name.hasPrefix("responderd") }) {
        goals.append(
          Goal(
            goal: "idle: 0 CPU ticks, ≤ 1 voluntary context switch",
            measured: "\(responderd.ticks) ticks, \(responderd.voluntarySwitches) switches",
            met: responderd.ticks == 0 && responderd.voluntarySwitches <= 1))
        goals.append(
          Goal(
            goal: "idle: RSS ≤ 8 MiB", measured: mib(responderd.end.rss), met: responderd.end.rss <= 8 * 1024)
        )
      }
    }

    if let baseline = loadBaseline, let load, !baseline.cpu.isEmpty, !load.cpu.isEmpty {
      out.append(
        "**Load, before/after**: the same load part run first with the baseline responderd (\(baseline.build)), then with this build."
      )
      out.append("")
      out.append(
        "| | load average (start → end) | responderd | playerctld | signal floor | responderd ÷ playerctld | responderd ÷ signal floor | responderd key median / p99 with the tabs | key p99 without them | Ping with the tabs |"
      )
      out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
      for (index, figures) in [baseline, load].enumerated() {
        let responderd = figures.cpu(of: "responderd")?.cpuPerSecond ?? .nan
        let playerctld = figures.cpu(of: "playerctld")?.cpuPerSecond ?? .nan
        let floor = figures.cpu(of: "signal floor")?.cpuPerSecond ?? .nan
        let key = figures.loaded.last
        out.append(
          "| \(index == 0 ? "before" : "after") | \(fixed(figures.loadAverage.start, 2)) → \(fixed(figures.loadAverage.end, 2)) | \(percent(responderd)) | \(percent(playerctld)) | \(percent(floor)) | \(fixed(responderd / playerctld, 3))× | \(fixed(responderd / floor, 2))× | \(key.map { "\(ms($0.median)) / \(ms($0.p99))" } ?? "") | \(figures.quiet.last.map { ms($0.p99) } ?? "") | \(figures.pingWithTabs.map(ms) ?? "") |"
        )
      }
      out.append("")
    }
    if let load, !load.cpu.isEmpty {
      out.append(
        "**Load**: \(load.tabs) MPRIS players (browser tabs, one process with a bus connection each) each emitting PropertiesChanged (Metadata, Position) \(fixed(load.rate, 0)) times a second, beside a paused mpv; CPU (every thread, clock_getcpuclockid) over \(fixed(load.cpu[0].seconds, 0)) s with nothing else happening; key → player (\(load.quiet.first?.count ?? 0) presses per setup, interleaved) without the tabs, then with them."
      )
      out.append("")
      out.append(
        "The signal floor (`EndToEnd --signal-floor`, C on libdbus) follows the same players with the match rules responderd adds, reads its socket in batches with responderd's pause (\(signalFloorPauseMilliseconds) ms: it blocks until the socket is readable, reads and dispatches until it is empty, then sleeps) and drops every message in its filter: what reading the signals costs libdbus alone. Load average \(fixed(load.loadAverage.start, 2)) at the start of the window, \(fixed(load.loadAverage.end, 2)) at its end."
      )
      out.append("")
      out.append(
        "| process | CPU time | of a core | a signal (\(fixed(load.signalsPerSecond, 0))/s) | voluntary switches | ÷ playerctld | ÷ signal floor |"
      )
      out.append("|---|---:|---:|---:|---:|---:|---:|")
      let reference = load.cpu(of: "playerctld")?.cpuPerSecond ?? .nan
      let floor = load.cpu(of: "signal floor")?.cpuPerSecond ?? .nan
      for figures in load.cpu {
        out.append(
          "| \(figures.name) | \(fixed(figures.cpuSeconds * 1000, 1)) ms | \(percent(figures.cpuPerSecond)) | \(us(figures.cpuPerSecond / load.signalsPerSecond)) | \(figures.voluntarySwitches) | \(fixed(figures.cpuPerSecond / reference, 3))× | \(fixed(figures.cpuPerSecond / floor, 2))× |"
        )
      }
      out.append("")
      if let messages = load.floorMessages, let window = load.cpu(of: "signal floor")?.seconds {
        out.append(
          "The signal floor dropped \(messages) messages in the window (\(fixed(Double(messages) / window, 1)) a second; the tabs send \(fixed(load.signalsPerSecond, 0)))."
        )
        out.append("")
      }
      out.append("| key → player | median | p99 | median with the tabs | p99 with the tabs |")
      out.append("|---|---:|---:|---:|---:|")
      for (quiet, loaded) in zip(load.quiet, load.loaded) {
        out.append(
          "| \(quiet.name) | \(ms(quiet.median)) | \(ms(quiet.p99)) | \(ms(loaded.median)) | \(ms(loaded.p99)) |"
        )
      }
      out.append("")
      if let cpu = load.cpu.first(where: { $0.name == "responderd" }) {
        // Every tab's signal reaches responderd once (the proxies' echoes are filtered by the bus).
        let perMessage = cpu.cpuPerSecond / (Double(load.tabs) * load.rate)
        goals.append(
          Goal(
            goal:
              "load: responderd ≤ 0.5 % of a core (about 25 µs a message) with \(load.tabs) tabs at \(fixed(load.rate, 0)) Hz",
            measured: "\(percent(cpu.cpuPerSecond)) (\(fixed(perMessage * 1e6, 1)) µs a message)",
            met: cpu.cpuPerSecond <= 0.005))
        if let floor = load.cpu(of: "signal floor") {
          // Not a goal: whether 0.5 % is below what libdbus alone costs on this machine now.
          let floorPerMessage = floor.cpuPerSecond / load.signalsPerSecond
          others.append(
            "| load: the signal floor (libdbus alone, read in batches) | \(percent(floor.cpuPerSecond)) of a core, \(us(floorPerMessage)) a message; responderd \(fixed(cpu.cpuPerSecond / floor.cpuPerSecond, 2))× it, \(us(perMessage - floorPerMessage)) a message more |"
          )
        }
        goals.append(
          Goal(
            goal: "load: responderd ≤ 0.025× playerctld's CPU in the same load",
            measured: "\(fixed(cpu.cpuPerSecond / reference, 3))× (playerctld \(percent(reference)))",
            met: cpu.cpuPerSecond / reference <= 0.025))
      }
      if let ping = load.pingWithTabs {
        goals.append(
          Goal(
            goal:
              "load: a call to responderd with the tabs answered within 0.1 s (Peer.Ping after the CPU window)",
            measured: ms(ping), met: ping <= 0.1))
      }
      if let quiet = load.quiet.last, let loaded = load.loaded.last {
        // (The key floor's p99 in the same presses says what the machine did to every process.)
        var floor = ""
        if load.quiet.count > 1, let quietFloor = load.quiet.first, let loadedFloor = load.loaded.first {
          floor = " (the key floor: \(ms(loadedFloor.p99)) vs \(ms(quietFloor.p99)))"
        }
        goals.append(
          Goal(
            goal: "load: responderd key p99 unchanged by the tabs (within 0.5 ms)",
            measured: "\(ms(loaded.p99)) vs \(ms(quiet.p99))\(floor)",
            met: loaded.p99 <= quiet.p99 + 0.0005))
      }
    }

    if !startup.isEmpty {
      for figures in startup {
        others.append(
          "| start-up → \(figures.busName) owned: \(figures.name) | \(ms(figures.median)) (min \(ms(figures.min)), max \(ms(figures.max)), \(figures.times.count) starts) |"
        )
      }
      let worst = startup.filter { $0.name.hasPrefix("responderd") }.map(\.median).max() ?? .nan
      goals.append(Goal(goal: "start-up ≤ 150 ms (median)", measured: ms(worst), met: worst <= 0.150))
      // The second pass's goals: no slower than playerctld to the bus name with no devices, and
      // within 10 ms with the two headsets and the accelerometer.
      let bare = startup.first { $0.name.hasPrefix("responderd (no umockdev") }
      if let bare, let peer = startup.first(where: { $0.name == "playerctld" }) {
        let ratio = bare.median / peer.median
        goals.append(
          Goal(
            goal: "start-up, no devices: ≤ playerctld's (median)",
            measured: "\(fixed(ratio, 2))× (\(ms(bare.median)) vs \(ms(peer.median)))", met: ratio <= 1))
      }
      if let devices = startup.first(where: { $0.name.hasPrefix("responderd (under umockdev") }) {
        goals.append(
          Goal(
            goal: "start-up, 2 headsets and an accelerometer: ≤ 10 ms (median)", measured: ms(devices.median),
            met: devices.median <= 0.010))
      }
    }
    if !motion.isEmpty {
      for figures in motion {
        others.append(
          "| motion at 100 Hz: \(figures.name) | \(percent(figures.cpuPerSecond)) of a core, \(fixed(figures.wakeupsPerSecond, 1)) wake-ups/s\(figures.detail.isEmpty ? "" : " (\(figures.detail))") |"
        )
      }
      let worst = motion.filter { $0.name.hasPrefix("responderd") }.map(\.cpuPerSecond).max() ?? .nan
      goals.append(
        Goal(goal: "motion: ≤ 1 % of a core at 100 Hz", measured: percent(worst), met: worst <= 0.01))
    }
    if flap.count == 2 {
      for figures in flap {
        others.append(
          "| motion: \(figures.name) | \(percent(figures.cpuPerSecond)) of a core, \(fixed(figures.wakeupsPerSecond, 1)) wake-ups/s (\(figures.detail)) |"
        )
      }
      let cost = flap[1].cpuPerSecond
      goals.append(
        Goal(goal: "focus flapping at 100/s: ≤ 5 % of a core", measured: percent(cost), met: cost <= 0.05))
    }
    if !touch.isEmpty {
      for figures in touch {
        others.append(
          "| touch frame (10 touches, 1000 views): \(figures.name) | median \(us(figures.median)), p99 \(us(figures.p99)) |"
        )
      }
      let p99 = touch.first { $0.name == "window, 30 recognizers" }?.p99 ?? .nan
      goals.append(Goal(goal: "touch: per-frame p99 ≤ 20 µs", measured: us(p99), met: p99 <= 20e-6))
    }
    if let size {
      others.append("| `responderctl`, stripped | \(mb(size.responderctl)) (\(size.responderctl) bytes) |")
      others.append("| `responderd`, stripped | \(mb(size.responderd)) (\(size.responderd) bytes) |")
      if let package = size.package {
        others.append("| the Debian package (\(size.packagePath)) | \(mb(package)) (\(package) bytes) |")
      }
      others.append("| `responderd` VmRSS 1.5 s after a start with no devices | \(mib(size.rssAtStart)) |")
      goals.append(
        Goal(
          goal: "size: `responderctl` ≤ 15 MB (stripped)", measured: mb(size.responderctl),
          met: size.responderctl <= 15_000_000))
      goals.append(
        Goal(
          goal: "size: the package ≤ 8 MB", measured: size.package.map(mb) ?? "no package given (--package)",
          met: size.package.map { $0 <= 8_000_000 }))
      goals.append(
        Goal(
          goal: "size: `responderd` RSS at start ≤ 8 MiB", measured: mib(size.rssAtStart),
          met: size.rssAtStart <= 8 * 1024))
    }
    if !others.isEmpty {
      out.append("| measurement | result |")
      out.append("|---|---|")
      out += others
      out.append("")
    }

    if !goals.isEmpty {
      out.append("| goal | measured | met |")
      out.append("|---|---|---|")
      for goal in goals {
        out.append(
          "| \(goal.goal) | \(goal.measured) | \(goal.met.map { $0 ? "met" : "**not met**" } ?? "not measured") |"
        )
      }
      out.append("")
    }
    if let failure {
      out.append("**The run failed**: \(failure)")
      out.append("")
    }
    return out.joined(separator: "\n")
  }

  /// The floor targets: responderd at most 1.1× the floor that reads the same device at the
  /// median, at most 1.5× at p99.
  private func floorGoals(_ path: String, _ responderd: LatencySummary, _ floor: LatencySummary) -> [Goal] {
    let median = responderd.median / floor.median
    let p99 = responderd.p99 / floor.p99
    return [
      Goal(
        goal: "\(path): responderd ≤ 1.1× the floor that reads the same device (median)",
        measured: "\(fixed(median, 2))× (\(ms(responderd.median)) vs \(ms(floor.median)))", met: median <= 1.1
      ),
      Goal(
        goal: "\(path): responderd ≤ 1.5× the floor that reads the same device (p99)",
        measured: "\(fixed(p99, 2))× (\(ms(responderd.p99)) vs \(ms(floor.p99)))", met: p99 <= 1.5),
    ]
  }

  /// `intro`, then a table of the setups' latencies, each median also as a ratio to the first
  /// setup's (the floor).
  private func latencySection(_ intro: String, _ summaries: [LatencySummary]) -> [String] {
    let floor = summaries[0].median
    return [
      intro, "",
      "| setup | min | median | p90 | p99 | max | median ÷ floor |", "|---|---:|---:|---:|---:|---:|---:|",
    ]
      + summaries.map { summary in
        "| \(summary.name) | \(ms(summary.min)) | \(ms(summary.median)) | \(ms(summary.p90)) | \(ms(summary.p99)) | \(ms(summary.max)) | \(fixed(summary.median / floor, 2))× |"
      } + [""]
  }

  private func ms(_ seconds: Double) -> String { "\(fixed(seconds * 1000, seconds < 0.1 ? 3 : 1)) ms" }
  private func us(_ seconds: Double) -> String { "\(fixed(seconds * 1e6, 1)) µs" }
  private func mb(_ bytes: Int) -> String { "\(fixed(Double(bytes) / 1e6, 1)) MB" }
  private func mib(_ kilobytes: Int) -> String { "\(fixed(Double(kilobytes) / 1024, 1)) MiB" }
  private func percent(_ fraction: Double) -> String { "\(fixed(fraction * 100, 2)) %" }

  private func machine() -> String {
    var system = utsname()
    uname(&system)
    let kernel = withUnsafeBytes(of: system.release) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    var os = "Linux"
    if let release = try? readTextFile("/etc/os-release") {
      for line in release.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
        os = String(line.dropFirst("PRETTY_NAME=".count)).replacing("\"", with: "")
      }
    }
    return "\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, \(os), kernel \(kernel)"
  }

  private func today() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
  }
}
