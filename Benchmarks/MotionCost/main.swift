// MotionCost: what shake detection costs.
//
// 1. The detector's cost per sample, against a baseline loop that only reads and sums the same
//    samples (same run, same data).
// 2. Under umockdev (umockdev-wrapper .build/release/MotionCost): CPU of the event-loop thread per
//    second of sampling the bmc150 fixture at 100 Hz, polled and buffered, with the detector,
//    against a baseline loop that only wakes up on a 100 Hz timer; and with nobody wanting motion.
//
// Build and run: swift build -c release --product MotionCost && umockdev-wrapper .build/release/MotionCost

import BenchmarkSupport
import CUmockdev
import EventLoop
import EventTime
import Foundation
import IIOInput
import Logging
import Motion
import ResponderCore

func fixed(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

// MARK: 1. Detector cost per sample

/// A day in the life at 100 Hz: a still device with noise, walking, and a 2 s shake every 30 s.
func syntheticTrace(seconds: Double, rate: Double) -> [MotionSample] {
  var generator = SystemRandomNumberGenerator()
  let g = standardGravity
  var samples: [MotionSample] = []
  samples.reserveCapacity(Int(seconds * rate))
  var t = 0.0
  while t < seconds {
    let cycle = t.truncatingRemainder(dividingBy: 30)
    var a = Vector3(0, 0, g)
    if cycle >= 10 && cycle < 20 {  // walking
      a.z += 0.3 * g * sin(2 * .pi * 2 * t)
      a.x += 0.08 * g * sin(.pi * 2 * t)
    } else if cycle >= 25 && cycle < 27 {  // shaking
      a.x += 2 * g * sin(2 * .pi * 3 * (cycle - 25))
    }
    let noise = 0.02 * g
    a =
      a
      + Vector3(
        Double.random(in: -noise...noise, using: &generator),
        Double.random(in: -noise...noise, using: &generator),
        Double.random(in: -noise...noise, using: &generator))
    samples.append(MotionSample(t: t, acceleration: a))
    t += 1 / rate
  }
  return samples
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func detectorCost() {
  let samples = syntheticTrace(seconds: 30_000, rate: 100)  // 3 M samples
  var baselineRuns: [Double] = []
  var detectorRuns: [Double] = []
  var shakes = 0
  var sink = 0.0
  for _ in 0..<5 {
    var start = monotonicSeconds()
    var sum = 0.0
    for sample in samples { sum += sample.x + sample.y + sample.z }
    baselineRuns.append((monotonicSeconds() - start) / Double(samples.count) * 1e9)
    sink += sum

    let scheduler = VirtualScheduler()
    var began = 0
    let detector = ShakeDetector(scheduler: scheduler) { if $0.phase == .began { began += 1 } }
    start = monotonicSeconds()
    for sample in samples { detector.process(sample) }
    detectorRuns.append((monotonicSeconds() - start) / Double(samples.count) * 1e9)
    shakes = began
    sink += detector.dynamic.x
  }
  let baseline = median(baselineRuns)
  let detector = median(detectorRuns)
  print("detector: \(samples.count) samples (\(shakes) shakes found, \(samples.count / 3000) expected)")
  print("  baseline (read and sum each sample): \(fixed(baseline, 2)) ns/sample")
  print(
    "  shake detector:                      \(fixed(detector, 2)) ns/sample  (\(fixed(detector / baseline, 1))× baseline)"
  )
  print("  at 100 Hz: \(fixed(detector * 100 / 1e3, 2)) µs of CPU per second for the detector")
  if sink == 42 { print("") }
}

// MARK: 2. CPU per second of sampling, under umockdev

let sysPath = "/sys/devices/platform/80860F41:01/i2c-1/i2c-BOSC0200:00/iio:device0"

func fixturePath() -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/IIO/iio-accel.umockdev").path
}

func makeTestbed() -> UnsafeMutablePointer<UMockdevTestbed> {
  let testbed = umockdev_testbed_new()!
  var error: UnsafeMutablePointer<GError>?
  guard umockdev_testbed_add_from_file(testbed, fixturePath(), &error) != 0 else {
    fatalError("cannot load \(fixturePath())")
  }
  // Offer 100 Hz, so that the sensor runs at exactly the rate measured.
  umockdev_testbed_set_attribute(
    testbed, sysPath, "in_accel_sampling_frequency_available", "7.81 15.63 31.25 62.5 100 125 250 500 1000\n")
  return testbed
}

struct LoopFigures {
  var cpuPerSecond: Double
  var wakeupsPerSecond: Double
  var samplesPerSecond: Double
}

/// Counts the wake-ups of a loop.
final class WakeupCounter {
  private(set) var count = 0
  init(_ loop: EventLoop) { loop.addWakeupObserver { [self] _ in count += 1 } }
}

/// Runs `loop` for `seconds`, measuring this thread's CPU and the loop's wake-ups.
func measure(_ loop: EventLoop, seconds: Double, samples: () -> Int) -> LoopFigures {
  let wakeups = WakeupCounter(loop)
  let cpu0 = threadCPUSeconds()
  let samples0 = samples()
  let start = monotonicSeconds()
  // Stopped by a timer, so that the measurement itself adds one wake-up, not periodic ones.
  loop.scheduler.schedule(after: seconds) { loop.stop() }
  loop.run()
  let elapsed = monotonicSeconds() - start
  return LoopFigures(
    cpuPerSecond: (threadCPUSeconds() - cpu0) / elapsed, wakeupsPerSecond: Double(wakeups.count) / elapsed,
    samplesPerSecond: Double(samples() - samples0) / elapsed)
}

func describe(_ name: String, _ f: LoopFigures, baseline: LoopFigures?) {
  var line =
    "  \(name.padding(toLength: 34, withPad: " ", startingAt: 0)): \(fixed(f.cpuPerSecond * 1e3, 3)) ms CPU/s (\(fixed(f.cpuPerSecond * 100, 3)) % of a core), "
    + "\(fixed(f.wakeupsPerSecond, 1)) wake-ups/s, \(fixed(f.samplesPerSecond, 1)) samples/s"
  if let baseline, baseline.cpuPerSecond > 0 {
    line += ", \(fixed(f.cpuPerSecond / baseline.cpuPerSecond, 2))× baseline"
  }
  print(line)
}

func samplingCost(seconds: Double) throws {
  var logger = Logger(label: "MotionCost")
  logger.logLevel = .warning
  print("sampling at 100 Hz under umockdev, \(fixed(seconds, 0)) s each (event-loop thread CPU):")

  // Baseline: the same loop waking up on a 100 Hz timer grid and doing nothing else.
  let baselineLoop = try EventLoop()
  var ticks = 0
  var next = baselineLoop.scheduler.now
  func tick() {
    ticks += 1
    next += 0.01
    baselineLoop.scheduler.schedule(at: next) { tick() }
  }
  tick()
  let baseline = measure(baselineLoop, seconds: seconds) { ticks }
  describe("baseline (100 Hz timer, no work)", baseline, baseline: nil)

  for capture in [IIOInput.Capture.polled, .buffered] {
    let testbed = makeTestbed()
    defer { g_object_unref(UnsafeMutableRawPointer(testbed)) }
    let loop = try EventLoop()
    var settings = IIOInput.Settings()
    settings.capture = capture
    settings.samplingRate = 100
    var shakes = 0
    let input = ShakeInput(loop: loop, settings: settings, shake: ShakeSettings(), logger: logger) { _ in
      shakes += 1
    }
    var samples = 0
    input.input.addSampleObserver { _ in samples += 1 }
    input.setWanted(true)
    guard let sensor = input.input.sensor, sensor.rate == 100 else {
      print("  \(capture): the sensor did not open at 100 Hz (\(String(describing: input.input.sensor)))")
      continue
    }
    if capture == .buffered {
      // The sensor's side, on another thread: a block of 10 scans every 100 ms.
      let fd = umockdev_testbed_get_dev_fd(testbed, "/dev/iio:device0")
      let end = monotonicSeconds() + seconds + 0.3
      Thread.detachNewThread {
        var raw: [UInt8] = []
        for _ in 0..<10 { raw += [0xc0, 0x00, 0x50, 0xc2, 0x30, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
        while monotonicSeconds() < end {
          _ = raw.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
          var delay = timespec(tv_sec: 0, tv_nsec: 100_000_000)
          nanosleep(&delay, nil)
        }
      }
    }
    loop.run(until: { samples > 0 }, timeout: 2)
    let figures = measure(loop, seconds: seconds) { samples }
    describe("\(sensor.mode) capture + detector", figures, baseline: baseline)
    input.setWanted(false)

    if capture == .polled {
      let idle = measure(loop, seconds: min(seconds, 2)) { samples }
      describe("nobody wants motion (closed)", idle, baseline: nil)
    }
  }
}

detectorCost()
if ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("libumockdev-preload") == true {
  try samplingCost(seconds: 5)
} else {
  print("sampling cost: run under umockdev-wrapper to measure it")
}
