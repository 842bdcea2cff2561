// KeyLatency: how long a key takes from the emulated device to the first responder.
//
// Three devices are emulated with umockdev (the process re-executes itself under umockdev-wrapper
// when needed), each read by one reader in the same event loop:
//   raw      - a USB headset, read with plain read(2) of struct input_event (the baseline: the
//              emulated device's pty, epoll and the loop, nothing of responderd);
//   libevdev - the same headset model on another node, read with EvdevDevice (libevdev with the
//              mapped-key filter, no interpretation);
//   pipeline - a keyboard with media keys, read by responderd's Service with its KeysComponent:
//              udev discovery, libevdev, the key interpreter, the application's queue, up to the
//              first responder's remoteControlReceived.
// Presses of KEY_PLAYPAUSE (which acts on press on these devices) go to the three in turn, so that
// load from the rest of the machine hits them alike; each latency is from just before the write
// to the moment the reader sees the press. Usage: KeyLatency [presses per reader]

import BenchmarkSupport
import DBusTestSupport
import DeviceTestSupport
import EvdevInput
import EventLoop
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

reexecUnderUmockdevIfNeeded(name: "KeyLatency")

let pressesPerMode = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 500 : 500

// MARK: The emulated devices

let devices = UmockdevTestbed()
devices.makeInputDirectory()

/// Adds a fixture device at its own node; returns the node its events are written to.
@MainActor
func addDevice(_ name: String) -> String {
  do {
    return try devices.addEvdevFixture(name).devnode
  } catch {
    writeText("KeyLatency: \(error)\n", to: .standardError)
    exit(1)
  }
}

let KEY_PLAYPAUSE = keyPlayPause
@MainActor
func writeKey(_ devnode: String, _ code: UInt16, _ value: Int32) {
  do {
    try devices.writeKey(code, value, to: devnode)
  } catch {
    writeText("KeyLatency: \(error)\n", to: .standardError)
    exit(1)
  }
}

// MARK: Readers

/// Something that reads one device on `loop` and calls `seen` when a KEY_PLAYPAUSE press arrives.
protocol Reader: AnyObject {
  var name: String { get }
  var devnode: String { get }
  func open(loop: EventLoop, seen: @escaping () -> Void) throws
}

final class RawRead: Reader {
  let name = "raw read(2)"
  let devnode = "/dev/input/event7"

  func open(loop: EventLoop, seen: @escaping () -> Void) throws {
    let fd = try FileDescriptor.openForReading(FilePath(devnode), options: .nonBlocking)
    try loop.register(fd: fd, events: .readable) { _ in
      var buffer = [UInt8](repeating: 0, count: 24 * 64)
      while true {
        guard let n = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) }), n > 0 else { break }
        for offset in stride(from: 0, to: n - 23, by: 24) {
          let type = UInt16(buffer[offset + 16]) | UInt16(buffer[offset + 17]) << 8
          let code = UInt16(buffer[offset + 18]) | UInt16(buffer[offset + 19]) << 8
          if type == 1 && code == KEY_PLAYPAUSE && buffer[offset + 20] == 1 { seen() }
        }
      }
    }
  }
}

final class LibevdevRead: Reader {
  let name = "libevdev"
  let devnode = "/dev/input/event8"
  private var device: EvdevDevice?

  func open(loop: EventLoop, seen: @escaping () -> Void) throws {
    let device = try EvdevDevice(path: devnode)
    self.device = device
    device.disable(type: 4)  // EV_MSC, as the key filter does
    try loop.register(fd: device.fd, events: .readable) { _ in
      _ = device.read(accept: { type, code in type == 0 || code == KEY_PLAYPAUSE }) { frame in
        if frame.events.contains(where: { $0.code == KEY_PLAYPAUSE && $0.value == 1 }) { seen() }
      }
    }
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

final class Pipeline: Reader {
  let name = "responderd pipeline"
  let devnode = "/dev/input/event3"
  private var service: Service?
  private var responder: FirstResponder?

  func open(loop: EventLoop, seen: @escaping () -> Void) throws {
    // The headsets are the baselines' devices: the service leaves them alone.
    let config = try ResponderdConfig.parse(
      "chain = [\"log\"]\n[[keys.device]]\nid = \"0003:046d:0a38\"\nignore = true\n", file: "benchmark")
    let logger = Logger(label: "responderd") { _ in SwiftLogNoOpLogHandler() }
    let service = Service(config: config, loop: loop, logger: logger)
    let keys = service.keysComponent(bus: nil)
    service.add(keys)
    let responder = FirstResponder()
    responder.app = service.application
    responder.onEvent = seen
    service.start()
    responder.becomeFirstResponder()
    guard keys.input?.openDevices.map(\.path) == [devnode] else {
      throw BenchmarkError("pipeline devices: \(keys.input?.openDevices.map(\.path) ?? []), not [\(devnode)]")
    }
    self.service = service
    self.responder = responder
  }
}

// MARK: Measure

let readers: [Reader] = [RawRead(), LibevdevRead(), Pipeline()]
let writers = [addDevice("headset"), addDevice("headset-replugged"), addDevice("keyboard")]
let loop = try EventLoop()
var seen = [Double?](repeating: nil, count: readers.count)
for (index, reader) in readers.enumerated() {
  try reader.open(loop: loop) { seen[index] = monotonicNow() }
}
_ = loop.run(until: { false }, timeout: 0.05)  // settle

var results = [[Double]](repeating: [], count: readers.count)
let warmUp = 20
for press in 0..<(warmUp + pressesPerMode) * readers.count {
  let index = press % readers.count
  seen[index] = nil
  let start = monotonicNow()
  writeKey(writers[index], KEY_PLAYPAUSE, 1)
  guard loop.run(until: { seen[index] != nil }, timeout: 2), let end = seen[index] else {
    writeText(
      "KeyLatency: press \(press) not seen by \(readers[index].name) within 2 s\n", to: .standardError)
    exit(1)
  }
  if press >= warmUp * readers.count { results[index].append(end - start) }
  writeKey(writers[index], KEY_PLAYPAUSE, 0)
  _ = loop.run(until: { false }, timeout: 0.001)  // the release is read before the next press
}

func micro(_ seconds: Double) -> String { "\((seconds * 1e7).rounded() / 10) µs" }

print("KeyLatency: KEY_PLAYPAUSE written to an emulated device (umockdev) until the reader sees it")
print("\(pressesPerMode) presses per reader, interleaved (after \(warmUp) each not counted)\n")
let baseline = results[0].sorted()
let baselineMedian = percentile(baseline, 0.5)
let baselineP99 = percentile(baseline, 0.99)
print(pad("reader", 22) + pad("median", 12) + pad("p99", 12) + pad("median/raw", 12) + "p99/raw")
for (index, reader) in readers.enumerated() {
  let sorted = results[index].sorted()
  let median = percentile(sorted, 0.5)
  let p99 = percentile(sorted, 0.99)
  let ratio = { (value: Double, base: Double) in "\((value / base * 100).rounded() / 100)×" }
  print(
    pad(reader.name, 22) + pad(micro(median), 12) + pad(micro(p99), 12)
      + pad(ratio(median, baselineMedian), 12)
      + ratio(p99, baselineP99))
}
