// EndToEnd: responderd end to end, against the setup users have today, in one run (issue 10).
//
//   swift build -c release --product EndToEnd (and responderd, TouchFrame); .build/release/EndToEnd
//   or scripts/bench, which builds them and prints the markdown table.
//
// Everything runs on a private dbus-daemon with real players (mpv + mpv-mpris) and devices
// emulated by umockdev (the program re-executes itself under umockdev-wrapper; responderd and thd
// are started with the preload library, so they see the same testbed):
//   key     - key → player latency: responderd vs thd + playerctl vs the floors (see KeyToPlayer);
//   idle    - responderd, thd and playerctld sitting idle, from /proc;
//   startup - process start → well-known name owned, responderd and playerctld;
//   motion  - responderd's CPU while it samples the accelerometer at 100 Hz;
//   flap    - responderd's CPU and log while an application's focus flaps (1000 SetActive at 100/s);
//   touch   - the TouchFrame benchmark's per-frame cost;
//   volume  - volume key → the sound server's change event: responderd (an owned headset, libpulse)
//             vs thd + `pactl set-sink-volume` vs the floor, against a real PulseAudio (see Volume);
//   size    - the binaries stripped, the package (--package) and responderd's RSS at start;
//   load    - 20 chatty MPRIS players (browser tabs, PropertiesChanged at 10 Hz each): the CPU of
//             responderd, playerctld and the signal floor (libdbus alone reading them in batches),
//             and key → player with and without them (see Load).
// Every wait is bounded; every process started is stopped and reaped (the run is also the
// subreaper of whatever they leave behind).
import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

reexecUnderUmockdevIfNeeded(name: "EndToEnd")
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--relay" {
  runRelay(device: CommandLine.arguments[2], player: CommandLine.arguments[3])
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--volume-relay" {
  runVolumeRelay(device: CommandLine.arguments[2])
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "--signal-floor",
  let pause = Int32(CommandLine.arguments[2])
{
  runSignalFloor(pauseMilliseconds: pause)
}
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--chatty-players",
  let count = Int(CommandLine.arguments[2]), let rate = Double(CommandLine.arguments[3])
{
  runChattyPlayers(count: count, rate: rate)
}

let options: Options
do {
  options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch let error as OptionError {
  if let message = error.message {
    writeText("EndToEnd: \(message)\n\(Options.usage)\n", to: .standardError)
    exit(64)
  }
  print(Options.usage)
  exit(0)
}

/// Runs the parts asked for, filling `report`; the processes started here are stopped on return.
func runParts(_ options: Options, _ report: inout Report) throws {
  let bench = try Bench(options: options)
  report.keyDevice = bench.headsetName
  if options.phases.contains("key") || options.phases.contains("idle") {
    let (player, playerName) = try bench.startPlayer(1)
    report.player = "mpv \(mpvVersion()) with mpv-mpris"
    let config = try bench.writeConfig("keys.toml", bench.keysConfig)
    let responderd = try bench.startResponderd(config: config)
    try responderd.waitForOutput("bus: owns org.responderd.Daemon1", timeout: 10 * bench.slowdown)
    try responderd.waitForOutput("evdev: opened \(bench.responderdHeadset)", timeout: 10 * bench.slowdown)
    let thd = try bench.startThd()
    let relay = try bench.startRelay(player: playerName)
    bench.pass(0.5)
    try thd.checkRunning()
    let hasMPRIS = !responderd.output.contains("handler 'mpris' is not available")

    if options.phases.contains("key") {
      // The grab is what this responderd does with its headset; a second one reads another headset
      // shared, as every device was read before the grab (or as the baseline build does).
      guard bench.responderdHeadsetIoctl.isGrabbed else {
        throw BenchmarkError("responderd did not grab \(bench.responderdHeadset):\n\(responderd.output)")
      }
      // The second daemon only for a baseline build: this one exits when another owns its name.
      var shared: LoggedProcess?
      if let baseline = options.baselineResponderd {
        let sharedConfig = try bench.writeConfig("keys-shared.toml", bench.sharedKeysConfig(baseline: true))
        let second = try bench.startResponderd(config: sharedConfig, path: baseline)
        try second.waitForOutput("evdev: opened \(bench.sharedHeadset)", timeout: 10 * bench.slowdown)
        guard !bench.sharedHeadsetIoctl.isGrabbed else {
          throw BenchmarkError("the second responderd grabbed \(bench.sharedHeadset):\n\(second.output)")
        }
        shared = second
      }
      let measurement = KeyToPlayer(bench: bench)
      if !hasMPRIS {
        report.keyNote =
          "responderd not measured: this build has no mpris handler (\"handler 'mpris' is not available in this build\")."
      }
      try measurement.run(
        player: player, playerName: playerName, relay: relay, responderd: hasMPRIS ? responderd : nil,
        sharedResponderd: hasMPRIS ? shared : nil, sharedIsBaseline: options.baselineResponderd != nil,
        thd: thd)
      report.key = measurement.summaries
      shared?.stop()
    }

    if options.phases.contains("idle") {
      if player.paused == false {
        let before = player.pauseChanges.count
        bench.connection.call(
          destination: playerName, path: "/org/mpris/MediaPlayer2",
          interface: "org.mpris.MediaPlayer2.Player",
          method: "Pause", timeout: 5
        ) { _ in }
        try bench.wait("mpv to pause", timeout: 5) { player.pauseChanges.count > before }
      }
      let (secondPlayer, _) = try bench.startPlayer(2)
      let playerctld = try bench.startPlayerctld()
      bench.pass(3)  // everyone takes in the new player and playerctld
      report.idle = try measureIdle(
        bench: bench,
        processes: [
          ("responderd (1 headset + accelerometer present)", responderd), ("thd (1 headset)", thd),
          ("playerctld", playerctld),
        ], seconds: options.idleSeconds)
      playerctld.stop()
      withExtendedLifetime(secondPlayer) {}
    }
    bench.pass(0.5)  // the last playerctl has exited
    thd.stop()
    relay.stop()
    responderd.stop()
    withExtendedLifetime(player) {}
  }
  if options.phases.contains("startup") {
    report.startup = try measureStartup(bench: bench, starts: options.starts)
  }
  if options.phases.contains("motion") {
    report.motion = try measureMotion(bench: bench, seconds: options.motionSeconds)
  }
  if options.phases.contains("flap") {
    report.flap = try measureFlap(bench: bench, toggles: 1000, rate: 100)
  }
  if options.phases.contains("load") {
    if let baseline = options.baselineResponderd {
      report.loadBaseline = try measureLoad(
        bench: bench, responderd: baseline, tabs: options.loadTabs, rate: options.loadRate,
        seconds: options.loadSeconds, presses: options.loadPresses)
    }
    report.load = try measureLoad(
      bench: bench, responderd: nil, tabs: options.loadTabs, rate: options.loadRate,
      seconds: options.loadSeconds, presses: options.loadPresses)
  }
  if options.phases.contains("volume") {
    let measurement = VolumeToSink(bench: bench)
    try measurement.run()
    report.volume = measurement.summaries
  }
  if options.phases.contains("size") {
    report.size = try measureSize(bench: bench, package: options.packagePath)
  }
  if options.phases.contains("touch") {
    let (figures, _) = try measureTouch(bench: bench, sequences: options.touchSequences)
    report.touch = figures
  }
}

/// mpv's version ("0.35.1").
func mpvVersion() -> String {
  guard let mpv = try? ChildProcess(["mpv", "--no-config", "--version"], stdout: .capture, stderr: .null),
    let line = try? mpv.readLine(timeout: 10)
  else { return "" }
  _ = try? mpv.waitForExit(timeout: 10)
  return line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
}

becomeSubreaper()
var report = Report(options: options)
var status: Int32 = 0
do {
  try runParts(options, &report)
} catch {
  report.failure = "\(error)"
  status = 1
}
reapRemainingChildren()
print(report.markdown())
exit(status)
