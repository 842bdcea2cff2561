// KeyLatency: how long a key takes from the emulated device to the first responder.
//
// A USB headset is emulated with umockdev (the process re-executes itself under
// umockdev-wrapper when needed). Each press of KEY_PLAYPAUSE (which acts on press) is written to
// the device, and the time until something sees it is measured, for:
//   raw      - a plain read(2) of struct input_event on the same node, in the same event loop
//              (the baseline: the pty, epoll and the loop, nothing of responderd);
//   libevdev - EvdevDevice.read with the mapped-key filter (libevdev, no interpretation);
//   pipeline - responderd's Service with its KeysComponent: udev discovery, libevdev, the key
//              interpreter, the application's queue, up to the first responder's
//              remoteControlReceived.
// Modes alternate in rounds so that drift hits them alike. Usage: KeyLatency [presses per mode]

import CUmockdev
import EvdevInput
import EventLoop
import Logging
import ResponderCore
import Responderd

#if canImport(Glibc)
  import Glibc
#endif

// MARK: Run under umockdev

func underUmockdev() -> Bool {
  guard let preload = getenv("LD_PRELOAD") else { return false }
  return String(cString: preload).contains("umockdev")
}

if !underUmockdev() {
  var arguments = ["umockdev-wrapper"] + CommandLine.arguments
  if !CommandLine.arguments[0].contains("/") {
    arguments[1] = "/proc/self/exe"
  }
  let cArguments = arguments.map { strdup($0) } + [nil]
  execvp("umockdev-wrapper", cArguments)
  writeText("KeyLatency: cannot run umockdev-wrapper (apt-get install umockdev)\n", to: 2)
  exit(1)
}

let pressesPerMode = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 500 : 500
let rounds = 5

// MARK: Clocks

func monotonicNow() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func realtimeNow() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_REALTIME, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

// MARK: The emulated headset

func fixture(_ name: String) -> String {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Benchmarks") { path = String(path[..<slash]) }
  return String(path.dropLast("/Benchmarks".count)) + "/Tests/Fixtures/evdev/" + name
}

func readText(_ path: String) -> String {
  guard let file = fopen(path, "r") else {
    writeText("KeyLatency: cannot read \(path)\n", to: 2)
    exit(1)
  }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = fread(&buffer, 1, buffer.count, file)
    if n == 0 { break }
    bytes.append(contentsOf: buffer[0..<n])
  }
  return String(decoding: bytes, as: UTF8.self)
}

let devnode = "/dev/input/event7"
let testbed = umockdev_testbed_new()!
let root: String = {
  let dir = umockdev_testbed_get_root_dir(testbed)!
  defer { g_free(dir) }
  return String(cString: dir)
}()
mkdir(root + "/dev", 0o755)
mkdir(root + "/dev/input", 0o755)
var gerror: UnsafeMutablePointer<GError>?
guard umockdev_testbed_load_ioctl(testbed, devnode, fixture("headset.ioctl"), &gerror) != 0,
  umockdev_testbed_add_from_string(testbed, readText(fixture("headset.umockdev")), &gerror) != 0
else {
  writeText("KeyLatency: cannot set up the emulated headset\n", to: 2)
  exit(1)
}
let deviceFD = umockdev_testbed_get_dev_fd(testbed, devnode)

/// Writes one struct input_event per entry, at once, stamped with the current CLOCK_REALTIME.
func writeKey(_ code: UInt16, _ value: Int32) {
  let now = realtimeNow()
  let seconds = Int64(now)
  let micros = Int64((now - Double(seconds)) * 1e6)
  var bytes: [UInt8] = []
  func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
  for (type, code, value) in [(UInt16(1), code, value), (UInt16(0), UInt16(0), Int32(0))] {
    append(seconds)
    append(micros)
    append(type)
    append(code)
    append(value)
  }
  _ = bytes.withUnsafeBytes { write(deviceFD, $0.baseAddress, $0.count) }
}

let KEY_PLAYPAUSE: UInt16 = 164

// MARK: Modes

/// Something that reads the headset on `loop` and calls `seen` when a KEY_PLAYPAUSE press arrives.
protocol Mode: AnyObject {
  var name: String { get }
  func open(loop: EventLoop, seen: @escaping () -> Void) throws
  func close()
}

final class RawRead: Mode {
  let name = "raw read(2)"
  private var fd: Int32 = -1
  private var source: IOSource?

  func open(loop: EventLoop, seen: @escaping () -> Void) throws {
    fd = Glibc.open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError("open") }
    let fd = self.fd
    source = try loop.register(fd: fd, events: .readable) { _ in
      var buffer = [UInt8](repeating: 0, count: 24 * 64)
      while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        for offset in stride(from: 0, to: n - 23, by: 24) {
          let type = UInt16(buffer[offset + 16]) | UInt16(buffer[offset + 17]) << 8
          let code = UInt16(buffer[offset + 18]) | UInt16(buffer[offset + 19]) << 8
          let value = buffer[offset + 20]
          if type == 1 && code == KEY_PLAYPAUSE && value == 1 { seen() }
        }
      }
    }
  }

  func close() {
    source?.remove()
    Glibc.close(fd)
  }
}

final class LibevdevRead: Mode {
  let name = "libevdev"
  private var device: EvdevDevice?
  private var source: IOSource?

  func open(loop: EventLoop, seen: @escaping () -> Void) throws {
    let device = try EvdevDevice(path: devnode)
    self.device = device
    for type: UInt16 in [4] { device.disable(type: type) }  // EV_MSC, as the key filter does
    source = try loop.register(fd: device.fd, events: .readable) { _ in
      _ = device.read(accept: { type, code in type == 0 || code == KEY_PLAYPAUSE }) { frame in
        if frame.events.contains(where: { $0.code == KEY_PLAYPAUSE && $0.value == 1 }) { seen() }
      }
    }
  }

  func close() {
    source?.remove()
    device?.close()
  }
}

/// The first responder: notes when each remote-control event reaches it.
final class FirstResponder: Responder {
  var onEvent: (() -> Void)?
  weak var app: Application?
  override var next: Responder? { app }
  override var canBecomeFirstResponder: Bool { true }
  override func remoteControlReceived(with event: Event?) { onEvent?() }
}

final class Pipeline: Mode {
  let name = "responderd pipeline"
  private var service: Service?

  func open(loop: EventLoop, seen: @escaping () -> Void) throws {
    let config = try ResponderdConfig.parse("chain = [\"log\"]\n", file: "benchmark")
    let logger = Logger(label: "responderd") { _ in SwiftLogNoOpLogHandler() }
    let service = Service(config: config, loop: loop, logger: logger)
    service.add(KeysComponent())
    let responder = FirstResponder()
    responder.app = service.application
    responder.onEvent = seen
    service.start()
    responder.becomeFirstResponder()
    self.service = service
    withExtendedLifetime(responder) {}
    retained = responder
  }
  private var retained: FirstResponder?

  func close() {
    service?.components.forEach { $0.stop() }
    service = nil
    retained = nil
  }
}

// MARK: Measure

func measure(_ mode: Mode, presses: Int, into latencies: inout [Double]) throws {
  let loop = try EventLoop()
  var seenAt: Double?
  try mode.open(loop: loop) { seenAt = monotonicNow() }
  defer { mode.close() }
  // Let the device settle (open, udev, first wake-ups).
  _ = loop.run(until: { false }, timeout: 0.02)
  for index in 0..<presses {
    seenAt = nil
    let start = monotonicNow()
    writeKey(KEY_PLAYPAUSE, 1)
    guard loop.run(until: { seenAt != nil }, timeout: 2), let end = seenAt else {
      throw SystemError("press \(index) of \(mode.name) not seen within 2 s", errno: 0)
    }
    latencies.append(end - start)
    writeKey(KEY_PLAYPAUSE, 0)
    _ = loop.run(until: { false }, timeout: 0.001)  // the release is read before the next press
  }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
  let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
  return sorted[index]
}

func micro(_ seconds: Double) -> String {
  let tenths = (seconds * 1e7).rounded() / 10
  return "\(tenths) µs"
}

let modes: [Mode] = [RawRead(), LibevdevRead(), Pipeline()]
var results = [[Double]](repeating: [], count: modes.count)
do {
  for (index, mode) in modes.enumerated() {  // warm-up, not counted
    var ignored: [Double] = []
    try measure(mode, presses: 20, into: &ignored)
    _ = index
  }
  for _ in 0..<rounds {
    for (index, mode) in modes.enumerated() {
      try measure(mode, presses: pressesPerMode / rounds, into: &results[index])
    }
  }
} catch {
  writeText("KeyLatency: \(error)\n", to: 2)
  exit(1)
}

print("KeyLatency: KEY_PLAYPAUSE written to an emulated USB headset (umockdev) → seen by the reader")
print("\(results[0].count) presses per mode, \(rounds) alternating rounds\n")
let baseline = results[0].sorted()
let baselineMedian = percentile(baseline, 0.5)
let baselineP99 = percentile(baseline, 0.99)
func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
print(pad("mode", 22) + pad("median", 12) + pad("p99", 12) + pad("median/raw", 12) + "p99/raw")
for (index, mode) in modes.enumerated() {
  let sorted = results[index].sorted()
  let median = percentile(sorted, 0.5)
  let p99 = percentile(sorted, 0.99)
  let ratio = { (value: Double, base: Double) in "\((value / base * 100).rounded() / 100)×" }
  print(
    pad(mode.name, 22) + pad(micro(median), 12) + pad(micro(p99), 12) + pad(ratio(median, baselineMedian), 12)
      + ratio(p99, baselineP99))
}
let pipeline = results[2].sorted()
print(
  "\nresponderd adds \(micro(percentile(pipeline, 0.5) - baselineMedian)) at the median over the raw read.")
umockdev_testbed_disable(testbed)
