import BenchmarkSupport
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import EventTime

#if canImport(Glibc)
  import Glibc
#endif

/// CPU over a window: seconds of CPU per second, wake-ups (voluntary context switches) per second.
struct MotionFigures {
  let name: String
  let cpuPerSecond: Double
  let wakeupsPerSecond: Double
  let detail: String
}

/// Motion: responderd sampling the emulated accelerometer at 100 Hz (a `[command]` shake command
/// makes the chain want motion), polled and buffered, measured from outside over `seconds`; beside
/// MotionCost's baseline, an event loop that only wakes up on a 100 Hz timer grid (this thread).
func measureMotion(bench: Bench, seconds: Double) throws -> [MotionFigures] {
  var figures: [MotionFigures] = []

  // Baseline: a loop of this process waking up at 100 Hz, doing nothing else.
  let baselineLoop = try EventLoop()
  var next = baselineLoop.scheduler.now
  var ticks = 0
  func tick() {
    ticks += 1
    next += 0.01
    baselineLoop.scheduler.schedule(at: next) { tick() }
  }
  tick()
  var wakeups = 0
  baselineLoop.addWakeupObserver { _ in wakeups += 1 }
  let cpu0 = threadCPUSeconds()
  let began = monotonicNow()
  progress("motion: baseline, \(Int(seconds)) s")
  baselineLoop.scheduler.schedule(after: seconds) { baselineLoop.stop() }
  baselineLoop.run()
  let elapsed = monotonicNow() - began
  figures.append(
    MotionFigures(
      name: "baseline: an event loop waking at 100 Hz, no work",
      cpuPerSecond: (threadCPUSeconds() - cpu0) / elapsed,
      wakeupsPerSecond: Double(wakeups) / elapsed, detail: "\(ticks) ticks"))

  for capture in ["polled", "buffered"] {
    let config = try bench.writeConfig(
      "motion-\(capture).toml",
      bench.motionConfig(
        """
        # EndToEnd: the accelerometer sampled at 100 Hz (a shake command makes the chain want motion).
        chain = ["command", "log"]
        [command]
        motionBegan = ["true"]

        """, rate: 100, capture: capture))
    let responderd = try bench.startResponderd(config: config)
    try responderd.waitForOutput("iio: sampling", timeout: 10)
    let line =
      responderd.output.split(separator: "\n").first { $0.contains("iio: sampling") }.map(String.init) ?? ""
    var feeding = capture == "buffered"
    if feeding {
      // The sensor's side: a block of 10 scans (x, y, z, padding, timestamp) every 100 ms.
      let fd = bench.devices.deviceFD(Bench.accelerometerNode).rawValue
      var block: [UInt8] = []
      for _ in 0..<10 { block += [0xc0, 0x00, 0x50, 0xc2, 0x30, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
      var due = bench.loop.scheduler.now
      func feed() {
        guard feeding else { return }
        _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        due += 0.1
        bench.loop.scheduler.schedule(at: due) { feed() }
      }
      feed()
    }
    bench.pass(1)
    try responderd.checkRunning()
    progress("motion: responderd, \(capture), \(Int(seconds)) s")
    let start = try ProcessSample(pid: responderd.pid)
    let began = monotonicNow()
    bench.pass(seconds)
    let end = try ProcessSample(pid: responderd.pid)
    let elapsed = monotonicNow() - began
    feeding = false
    try responderd.checkRunning()
    responderd.stop()
    figures.append(
      MotionFigures(
        name: "responderd, \(capture) capture + shake detector",
        cpuPerSecond: (end.cpuSeconds - start.cpuSeconds) / elapsed,
        wakeupsPerSecond: Double(end.voluntarySwitches - start.voluntarySwitches) / elapsed,
        detail: line.split(separator: " ", maxSplits: 1).last.map(String.init) ?? line))
  }
  return figures
}
