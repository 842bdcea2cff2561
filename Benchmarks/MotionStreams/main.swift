// MotionStreams: what the motion API costs the daemon, under umockdev.
//
// The daemon's service (bus, responder API, motion component, motion API) runs on this thread
// against the bmc150 fixture at 100 Hz, buffered, a feeder thread writing one scan every 10 ms
// stamped with the time it is written. In one run, each for the same time:
//   - sampling alone: a shake responder wants motion (blocks of 100 ms, as shakes are sampled);
//   - 1 client and 10 clients at 100 Hz (interval 0.01 s), each reading on its own thread (with
//     streams, samples are delivered one by one: 100 wake-ups/s, the price of the latency);
//   - nobody: the sensor closed.
// Figures: CPU of the daemon's thread per second (% of a core), its wake-ups per second, and the
// sample → client latency (the scan's write to the client's recv) p50 and p99, split in three:
// the scan's write to the daemon's wake-up (the kernel, umockdev and the scheduler), the wake-up
// to the sample sent to every client (responderd's own work), and the last send to the client's
// recv (the scheduler again; negative for the clients sent to before the last).
//
// Build and run: swift build -c release --product MotionStreams && umockdev-wrapper .build/release/MotionStreams

import BenchmarkSupport
import CUmockdev
import DBus
import DBusTestSupport
import EventLoop
import Foundation
import Logging
import ResponderClient
import ResponderConfig
import ResponderdKit

func realtimeNanoseconds() -> Int64 {
  var t = timespec()
  clock_gettime(CLOCK_REALTIME, &t)
  return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

func fixed(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

let sysPath = "/sys/devices/platform/80860F41:01/i2c-1/i2c-BOSC0200:00/iio:device0"

guard ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("libumockdev-preload") == true else {
  print("MotionStreams: run under umockdev-wrapper")
  exit(0)
}

let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/IIO/iio-accel.umockdev").path
let testbed = umockdev_testbed_new()!
var gerror: UnsafeMutablePointer<GError>?
guard umockdev_testbed_add_from_file(testbed, fixture, &gerror) != 0 else {
  fatalError("cannot load \(fixture)")
}
// Offer 100 Hz, so that the sensor runs at exactly the rate measured.
umockdev_testbed_set_attribute(
  testbed, sysPath, "in_accel_sampling_frequency_available", "7.81 15.63 31.25 62.5 100 125 250 500 1000\n")
let deviceFD = umockdev_testbed_get_dev_fd(testbed, "/dev/iio:device0")

// The sensor's side: one scan every 10 ms, stamped (realtime, the kernel's default) when written.
let feederLock = NSLock()
nonisolated(unsafe) var feeding = true
Thread.detachNewThread {
  var next = monotonicSeconds()
  while feederLock.withLock({ feeding }) {
    var scan: [UInt8] = [0, 0, 0, 0, 0xf0, 0x3f, 0, 0]
    scan += withUnsafeBytes(of: realtimeNanoseconds().littleEndian) { Array($0) }
    _ = scan.withUnsafeBytes { write(deviceFD, $0.baseAddress, $0.count) }
    next += 0.01
    let delay = max(0, next - monotonicSeconds())
    var spec = timespec(tv_sec: 0, tv_nsec: Int(delay * 1e9))
    nanosleep(&spec, nil)
  }
}

let bus = try PrivateBus()
let loop = try EventLoop()
var logger = Logger(label: "MotionStreams")
logger.logLevel = .warning
let config = try ResponderdConfig.parse(
  "chain = [\"command\"]\n[command]\nmotionBegan = [\"true\"]\n[motion]\nsampling-rate = 100\n",
  file: "bench.toml")
let service = Service(config: config, loop: loop, logger: logger)
let busComponent = service.busComponent(address: bus.address)
let motion = service.motionComponent()
for component: ServiceComponent in [
  busComponent, service.responderAPI(bus: busComponent, session: nil, motionInterest: motion.interest),
  motion,
  service.motionAPI(motion: motion, bus: busComponent),
] {
  service.add(component)
}
service.start()
let client = try bus.connect(loop: loop)
try client.waitUntilConnected(timeout: 5)
_ = loop.run(until: { motion.shake?.input.sensor != nil }, timeout: 5)

struct Figures {
  var cpu: Double
  var wakeups: Double
}

@MainActor func measure(seconds: Double) -> Figures {
  var wakeups = 0
  var counting = true
  loop.addWakeupObserver { _ in if counting { wakeups += 1 } }
  let cpu0 = threadCPUSeconds()
  let start = monotonicSeconds()
  loop.scheduler.schedule(after: seconds) { loop.stop() }
  loop.run()
  counting = false
  let elapsed = monotonicSeconds() - start
  return Figures(cpu: (threadCPUSeconds() - cpu0) / elapsed, wakeups: Double(wakeups) / elapsed)
}

/// Latencies in seconds, from every reader thread.
final class Latencies: @unchecked Sendable {
  /// A sample's timestamp (ns, as in its record) and when a client received it (s, monotonic).
  struct Received { var timestamp: UInt64, at: Double }
  private let lock = NSLock()
  private var values: [Received] = []
  func add(_ value: Received) { lock.withLock { values.append(value) } }
  func take() -> [Received] {
    lock.withLock {
      defer { values.removeAll() }; return values
    }
  }
}

let latencies = Latencies()

/// In the daemon (this thread): when the loop last woke up, and for each sample (by its record's
/// timestamp) that wake-up and when the daemon had sent it to every client.
var lastWakeup = 0.0
var daemonTimes: [UInt64: (wakeup: Double, sent: Double)] = [:]
loop.addWakeupObserver { _ in lastWakeup = monotonicSeconds() }
// Added after the motion API's observer, so it runs once the sample has been sent.
motion.shake?.input.addSampleObserver { sample in
  daemonTimes[UInt64(max(0, (sample.t * 1e9).rounded()))] = (lastWakeup, monotonicSeconds())
}
let offsetNanoseconds = realtimeNanoseconds() - Int64(monotonicSeconds() * 1e9)

/// Starts `count` streams at 100 Hz, each read on its own thread; returns their ids and sockets.
@MainActor func startClients(_ count: Int) throws -> [(UInt32, Int32)] {
  var streams: [(UInt32, Int32)] = []
  for _ in 0..<count {
    let reply = try client.callAndWait(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: MotionBusAPI.interface,
      method: "StartAccelerometerUpdates", arguments: [.double(0.01)], timeout: 5)
    guard case .unixFD(let fd) = reply[0], let id = reply[1].uint32 else { fatalError("reply \(reply)") }
    streams.append((id, fd))
    Thread.detachNewThread { [latencies] in
      var buffer = [UInt8](repeating: 0, count: 64)
      while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n == AccelerometerRecord.size, let record = AccelerometerRecord(bytes: buffer[0..<n]) else {
          return
        }
        latencies.add(.init(timestamp: record.timestamp, at: monotonicSeconds()))
      }
    }
  }
  return streams
}

@MainActor func stopClients(_ streams: [(UInt32, Int32)]) {
  // Shutting the sockets down ends the readers and, seen by the daemon, the streams.
  for (_, fd) in streams { shutdown(fd, Int32(SHUT_RDWR)) }
  _ = loop.run(until: { motion.interest.streams.streams == 0 }, timeout: 5)
  for (_, fd) in streams { close(fd) }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
  guard !values.isEmpty else { return .nan }
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Latency (s) from the scan's write to the client's recv, and its three parts.
struct Latency {
  var total: [Double] = []
  var toWakeup: [Double] = []
  var inDaemon: [Double] = []
  var toClient: [Double] = []

  init() {}

  @MainActor init(_ received: [Latencies.Received]) {
    for sample in received {
      total.append(sample.at - Double(sample.timestamp) / 1e9)
      guard let daemon = daemonTimes[sample.timestamp] else { continue }
      toWakeup.append(daemon.wakeup - Double(sample.timestamp) / 1e9)
      inDaemon.append(daemon.sent - daemon.wakeup)
      toClient.append(sample.at - daemon.sent)
    }
  }

  static func describe(_ values: [Double]) -> String {
    "p50 \(fixed(percentile(values, 0.5) * 1e3, 3)) ms, p99 \(fixed(percentile(values, 0.99) * 1e3, 3)) ms"
  }
}

func line(_ name: String, _ f: Figures, baseline: Figures?, latency: Latency = Latency()) {
  var text =
    "  \(name.padding(toLength: 42, withPad: " ", startingAt: 0)): \(fixed(f.cpu * 100, 3)) % of a core, "
    + "\(fixed(f.wakeups, 1)) wake-ups/s"
  if let baseline, baseline.cpu > 0 { text += ", \(fixed(f.cpu / baseline.cpu, 2))× sampling alone" }
  if !latency.total.isEmpty {
    text += ", latency \(Latency.describe(latency.total)) (\(latency.total.count) samples)"
    text +=
      "\n      write → daemon wake-up \(Latency.describe(latency.toWakeup)); wake-up → sent to all \(Latency.describe(latency.inDaemon)); last send → client recv \(Latency.describe(latency.toClient))"
  }
  print(text)
}

let seconds = Double(ProcessInfo.processInfo.environment["MOTION_STREAMS_SECONDS"] ?? "") ?? 5
print("the daemon's thread, 100 Hz buffered under umockdev, \(fixed(seconds, 0)) s each:")
let alone = measure(seconds: seconds)
line("sampling alone (for shakes)", alone, baseline: nil)
let one = try startClients(1)
_ = latencies.take()
let figuresOne = measure(seconds: seconds)
let latencyOne = Latency(latencies.take())
stopClients(one)
let ten = try startClients(10)
_ = latencies.take()
let figuresTen = measure(seconds: seconds)
let latencyTen = Latency(latencies.take())
stopClients(ten)
line("1 client at 100 Hz", figuresOne, baseline: alone, latency: latencyOne)
line("10 clients at 100 Hz", figuresTen, baseline: alone, latency: latencyTen)
print(
  "  10 clients over 1 client: +\(fixed((figuresTen.cpu - figuresOne.cpu) * 100, 3)) points of a core; "
    + "1 client over sampling alone: +\(fixed((figuresOne.cpu - alone.cpu) * 100, 3)) points")

// Nobody: the shake command goes away (a config without it), the sensor closes.
feederLock.withLock { feeding = false }
for component in service.components.reversed() { component.stop() }
let idleService = Service(config: ResponderdConfig(), loop: loop, logger: logger)
let idleMotion = idleService.motionComponent()
idleService.add(idleMotion)
idleService.add(idleService.motionAPI(motion: idleMotion, bus: nil))
idleService.start()
let idle = measure(seconds: min(seconds, 2))
line("nobody (sensor closed)", idle, baseline: nil)
print("  sensor open with nobody: \(idleMotion.shake?.input.sensor != nil)")
// A top-level `let` is never deinitialized: the bus daemon is stopped here, not left running.
for component in idleService.components.reversed() { component.stop() }
bus.stop()
