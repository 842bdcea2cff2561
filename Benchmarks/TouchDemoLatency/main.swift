// TouchDemoLatency: touch-demo as a client of a real, headless GNOME Shell 43, touches injected
// as the compositor gets them from a touchscreen.
//   - frame → action: from the moment touch-demo's Wayland socket is readable (a wl_touch frame
//     arrived) to the pan recognizer's action, as touch-demo measures it (`--timings`), over
//     `drags` one-finger drags of 30 frames each;
//   - the baseline, in the same run: the same frames through TouchInput into the same scene in
//     this process (TouchDispatch's own cost, no Wayland), timed the same way;
//   - idle: touch-demo's context switches (/proc/PID/status, voluntary and not) and CPU ticks over
//     `idle-seconds` with its window open and nothing touched, as wake-ups a minute.
// Run: swift build -c release --product TouchDemoLatency --product touch-demo \
//        && .build/release/TouchDemoLatency [drags] [idle-seconds]
import BenchmarkSupport
import DBusTestSupport
import EventTime
import ResponderCore
import ShellTestSupport
import SystemCalls
import TouchDemoTestSupport
import TouchDispatch
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
let drags = arguments.first.flatMap { Int($0) } ?? 20
let idleSeconds = arguments.dropFirst().first.flatMap { Double($0) } ?? 60
let steps = 30

/// The scene: a board with a pan, far larger than the screen (touch-demo moves it with each pan,
/// and it still lies under the next), below a strip with a tap on top (touch-demo fullscreen; the
/// tap says the window takes touches).
let sceneText = """
  {"screen": {"width": 1280, "height": 800},
   "views": [{"id": "board", "frame": [-20000, -20000, 40000, 40000]}, {"id": "strip", "frame": [0, 0, 1280, 100]}],
   "recognizers": [{"id": "ready", "kind": "tap", "view": "strip"}, {"id": "pan", "kind": "pan", "view": "board"}]}
  """

func report(_ name: String, _ values: [Double]) -> (median: Double, p99: Double) {
  let sorted = values.sorted()
  let median = percentile(sorted, 0.5)
  let p99 = percentile(sorted, 0.99)
  print(
    "\(pad(name, 34)) n=\(pad(String(sorted.count), 5)) median \(fixed(median * 1e6, 1)) µs  "
      + "p99 \(fixed(p99 * 1e6, 1)) µs  max \(fixed((sorted.last ?? 0) * 1e6, 1)) µs")
  return (median, p99)
}

/// The baseline: the drags' frames through TouchInput in this process, each timed from the call
/// to the pan's action.
func baseline() throws -> [Double] {
  let scene = try TouchScene.parse(sceneText, file: "benchmark scene")
  let scheduler = VirtualScheduler(now: 0)
  let world = SceneWorld(scene: scene, scheduler: scheduler)
  let input = TouchInput(window: world.window)
  var actionAt = 0.0
  world.recognizers["pan"]?.addHandler { _ in actionAt = monotonicNow() }
  var samples: [Double] = []
  var time = 1.0
  for _ in 0..<drags {
    for step in 0...steps + 1 {
      time += 0.016
      scheduler.advance(to: time)
      let contacts =
        step > steps ? [] : [ContactSample(slot: 0, location: Point(x: 200, y: 300 + 10 * Double(step)))]
      actionAt = 0
      let start = monotonicNow()
      input.process(contacts, at: time)
      if actionAt > 0 { samples.append(actionAt - start) }
    }
    time += 1
  }
  return samples
}

do {
  if let missing = HeadlessDesktop.missing(.gnomeShell) { throw BenchmarkError(missing) }
  let desktop = try HeadlessDesktop.gnomeShell(width: 1280, height: 800)
  defer { desktop.stop() }
  let sceneFile = desktop.directory + "/scene.json"
  try writeTextFile(sceneFile, sceneText)
  try desktop.warmUp()
  let demo = try TouchDemoClient(
    desktop, arguments: ["--scene", sceneFile, "--timings", "--fullscreen"])
  try demo.waitFor("the window fullscreen") { $0.kind == "window" && $0.members["fullscreen"] == .bool(true) }
  try demo.tapUntilTouched { $0.kind == "timing" && $0.id == "ready" }

  var wayland: [Double] = []
  for drag in 0..<drags {
    let start = demo.lines.count
    // At a finger's pace (60 frames a second), as the compositor would get them from a panel.
    try desktop.drag(
      fingers: [((200, 300), (200, 300 + 10 * Double(steps)))], steps: steps, duration: Double(steps) / 60)
    try demo.waitFor("drag \(drag)'s pan to end", after: start) { $0.kind == "timing" && $0.state == "ended" }
    wayland += demo.lines(after: start).filter { $0.kind == "timing" && $0.id == "pan" }.compactMap {
      $0.number("readToAction")
    }
  }
  let inProcess = try baseline()
  print("touch-demo under GNOME Shell 43 (headless), \(drags) drags of \(steps) frames")
  let live = report("wl_touch frame → pan action", wayland)
  let base = report("baseline: TouchInput → pan action", inProcess)
  print("ratio p99 \(fixed(live.p99 / base.p99, 2))×, median \(fixed(live.median / base.median, 2))×")
  print("goal: p99 ≤ 1 ms: \(live.p99 <= 0.001 ? "met" : "not met") (\(fixed(live.p99 * 1000, 3)) ms)")

  // Idle: the window open, nothing touched.
  let pid = demo.process.pid
  let before = try ProcessSample(pid: pid)
  let began = monotonicNow()
  desktop.loop.run(until: { false }, timeout: idleSeconds)
  let after = try ProcessSample(pid: pid)
  let elapsed = monotonicNow() - began
  let switches =
    after.voluntarySwitches - before.voluntarySwitches + after.involuntarySwitches
    - before.involuntarySwitches
  let perMinute = Double(switches) * 60 / elapsed
  print(
    "idle \(fixed(elapsed, 1)) s: \(switches) wake-ups (\(fixed(perMinute, 1)) a minute), "
      + "\(after.ticks - before.ticks) CPU ticks; goal 0: \(switches == 0 ? "met" : "not met")")
} catch {
  writeText("TouchDemoLatency: \(error)\n", to: .standardError)
  exit(1)
}
