// In-process D-Bus method-call round trip (this module, on the event loop) to a real MPRIS
// player (mpv with mpv-mpris) on a private bus, next to one `playerctl play-pause` process
// measured in the same run.
//
//   swift build -c release --product DBusRoundTrip && .build/release/DBusRoundTrip [CALLS]
//
// Needs dbus-daemon, mpv, /usr/lib/mpv-mpris/mpris.so, sox and playerctl.
import DBus
import DBusTestSupport
import EventLoop

#if canImport(Glibc)
  import Glibc
#endif

func fail(_ message: String) -> Never {
  let text = "DBusRoundTrip: \(message)\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  exit(1)
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
  sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

func ms(_ seconds: Double) -> String {
  let value = (seconds * 1_000_000).rounded() / 1000
  return "\(value) ms"
}

let calls = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2000 : 2000
let playerctlRuns = 20

do {
  let bus = try PrivateBus()
  let audio = bus.directory + "/long.ogg"
  let sox = try ChildProcess(
    ["sox", "-n", "-r", "8000", "-c", "1", audio, "synth", "900", "sine", "440", "vol", "0.2"], stdout: .null,
    stderr: .inherit)
  guard ChildProcess.exitedSuccessfully(try sox.waitForExit(timeout: 60)) else { fail("sox failed") }

  let loop = try EventLoop()
  let connection = try bus.connect(loop: loop)
  var player: String?
  connection.onNameOwnerChanged(namespace: "org.mpris.MediaPlayer2") { change in
    if change.newOwner != nil, player == nil { player = change.newOwner }
  }
  _ = try connection.callAndWait(
    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
    method: "GetId", timeout: 5)
  let mpv = try ChildProcess(
    [
      "mpv", "--no-config", "--idle=yes", "--ao=null", "--vo=null", "--script=/usr/lib/mpv-mpris/mpris.so",
      "--no-terminal", "--pause", audio,
    ], environment: bus.environment, stdout: .null, stderr: .null)
  guard loop.run(until: { player != nil }, timeout: 20), let player else {
    fail("mpv did not appear on the bus within 20 s")
  }

  // In-process: Properties.Get(PlaybackStatus), one call at a time, each waiting for its reply.
  var samples: [Double] = []
  samples.reserveCapacity(calls)
  for index in 0..<(calls + 100) {
    var done = false
    let start = monotonicNow()
    connection.call(
      destination: player, path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties",
      method: "Get", arguments: ["org.mpris.MediaPlayer2.Player", "PlaybackStatus"], timeout: 5
    ) { result in
      if case .failure(let error) = result { fail("call failed: \(error)") }
      done = true
    }
    while !done { loop.runOnce(timeout: -1) }
    if index >= 100 { samples.append(monotonicNow() - start) }  // the first 100 warm up
  }
  samples.sort()

  // Baseline: one playerctl process per call (an even number, so the player ends as it began).
  var processes: [Double] = []
  for _ in 0..<playerctlRuns {
    let start = monotonicNow()
    let playerctl = try ChildProcess(
      ["playerctl", "-p", "mpv", "play-pause"], environment: bus.environment, stdout: .null, stderr: .inherit)
    let status = try playerctl.waitForExit(timeout: 10)
    processes.append(monotonicNow() - start)
    guard ChildProcess.exitedSuccessfully(status) else { fail("playerctl failed (status \(status))") }
  }
  processes.sort()

  let median = percentile(samples, 0.5)
  let processMedian = percentile(processes, 0.5)
  print("in-process round trip to mpv (Properties.Get), \(samples.count) calls:")
  print("  median \(ms(median))  p99 \(ms(percentile(samples, 0.99)))  max \(ms(samples.last!))")
  print("playerctl play-pause process, \(processes.count) runs:")
  print("  median \(ms(processMedian))  p99 \(ms(percentile(processes, 0.99)))")
  print("ratio (playerctl median / in-process median): \(Int((processMedian / median).rounded()))x")
  mpv.terminate()
  connection.close()
} catch {
  fail("\(error)")
}
