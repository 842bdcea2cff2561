import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import EventTime
import Foundation
import Logging
import Motion
import ResponderClient
import ResponderCore
import ResponderdTestKit
import SystemCalls
import Testing

@testable import IIOInput
@testable import ResponderConfig
@testable import ResponderdKit

/// The lines a logger wrote, kept for the test to read.
final class LoggedLines: @unchecked Sendable {
  private let lock = NSLock()
  private var kept: [String] = []
  func append(_ line: String) { lock.withLock { kept.append(line) } }
  var lines: [String] { lock.withLock { kept } }
  /// The lines containing `text`.
  func matching(_ text: String) -> [String] { lines.filter { $0.contains(text) } }

  var logger: Logger {
    Logger(label: "test") { [self] _ in LineKeepingLogHandler(store: self) }
  }
}

private struct LineKeepingLogHandler: LogHandler {
  let store: LoggedLines
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .debug
  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }
  func log(event: LogEvent) { store.append("\(event.message)") }
}

/// A handler of the chain that takes motion events and keeps their phases (an event without a
/// phase, which none should be, is kept as began so that it shows).
final class MotionPhaseRecorder: Handler {
  let name: String
  let eventTypes: Set<EventType> = [.motion]
  var phases: [MotionPhase] = []
  init(name: String = "shake-recorder") { self.name = name }
  func handle(_ event: Event, phase: MotionPhase?, decide: @escaping (Bool) -> Void) {
    phases.append(phase ?? .began)
    decide(true)
  }
}

/// The daemon's motion parts on a private bus over the emulated accelerometer, logging into `log`.
final class MotionRig {
  let bed: Testbed
  let bus: PrivateBus
  let loop: EventLoop
  let harness: LoopService
  let motion: MotionComponent
  let api: MotionAPI
  var service: Service { harness.service }
  let log = LoggedLines()
  /// The descriptors the loop watched before the service started.
  let baseline: Int
  /// Realtime minus monotonic seconds (the emulated sensor stamps scans on the realtime clock).
  let offset: Double

  init(
    withDevice: Bool = true, chain: [String] = ["log"], handlers: [any Handler] = [],
    prepare: (Testbed) throws -> Void = { _ in },
    session makeSession: ((Service, BusComponent?) -> SessionComponent)? = nil,
    loop givenLoop: EventLoop? = nil
  ) throws {
    bed = try Testbed(withDevice: withDevice)
    try prepare(bed)
    bus = try PrivateBus()
    loop = try givenLoop ?? EventLoop()
    var config = ResponderdConfig()
    config.chain = chain
    harness = try LoopService(
      config: config, loop: loop, logger: log.logger, busAddress: bus.address, handlers: registry(handlers))
    // Closed at the last want: these tests are of streams and sessions (keeping the sensor open a
    // moment is tested on virtual time, FlappingMotionDeviceTests).
    let session = makeSession?(harness.service, harness.bus)
    if let session { harness.add(session) }
    motion = harness.service.motionComponent(session: session, keepOpen: 0)
    api = harness.service.motionAPI(motion: motion, bus: harness.bus)
    harness.add(
      harness.service.responderAPI(bus: harness.bus, session: session, motionInterest: motion.interest))
    harness.add(motion)
    harness.add(api)
    baseline = loop.registeredCount
    offset = Double(realtimeNanoseconds()) / 1e9 - monotonicNow()
    harness.start()
  }

  var input: IIOInput? { motion.shake?.input as? IIOInput }

  func connect() throws -> DBusConnection {
    let connection = try bus.connect(loop: loop)
    var owner: String?
    let watch = connection.watchNameOwner(ResponderBusAPI.daemonName) { owner = $0 }
    defer { watch.cancel() }
    guard loop.run(until: { owner != nil }, timeout: 5) else { throw TestbedError(description: "no daemon") }
    return connection
  }

  func call(_ connection: DBusConnection, _ method: String, _ arguments: [DBusValue] = []) throws(DBusError)
    -> [DBusValue]
  {
    try connection.callAndWait(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: MotionBusAPI.interface, method: method, arguments: arguments, timeout: 5)
  }

  func property(_ connection: DBusConnection, _ name: String) throws -> DBusValue {
    var result: Result<DBusValue, DBusError>?
    connection.getProperty(
      name, interface: MotionBusAPI.interface, path: ResponderBusAPI.daemonPath,
      destination: ResponderBusAPI.daemonName, timeout: 5
    ) { result = $0 }
    _ = loop.run(until: { result != nil }, timeout: 6)
    return try #require(result).get()
  }

  /// Starts a stream; its socket (non-blocking) and id.
  func start(_ connection: DBusConnection, _ method: String = "StartAccelerometerUpdates", interval: Double)
    throws -> (fd: Int32, id: UInt32)
  {
    let reply = try call(connection, method, [.double(interval)])
    guard reply.count == 2, case .unixFD(let fd) = reply[0], let id = reply[1].uint32 else {
      throw TestbedError(description: "unexpected reply \(reply)")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return (fd, id)
  }

  /// Feeds scans at `rate` Hz for `duration` s as they happen, with `raw(t)` (t from the start);
  /// `each` runs every loop turn. Returns the monotonic start time.
  @discardableResult
  func feed(
    rate: Double, duration: Double, raw: (Double) -> (Int, Int, Int) = { _ in (0, 0, 1023) },
    each: () -> Void = {}, delivered: () -> Bool = { true }
  ) -> Double {
    // Fed for `duration`, then until `delivered()` says the last scans came through (on a loaded
    // machine the daemon reads the last of them later than 50 ms after), at most 5 s more.
    feed(
      rate: { _ in rate }, timeout: duration + 5, raw: raw, feedingFor: duration, each: { _ in each() },
      until: { $0 > duration + 0.05 && delivered() })
  }

  /// Feeds scans at 100 Hz for `duration` s while `child` runs and prints, then waits for it to
  /// exit: all it printed, and its exit code (nil when a signal ended it).
  func run(_ child: ChildProcess, feedingFor duration: Double) throws -> (output: String, exitCode: Int32?) {
    var output = ""
    feed(
      rate: 100, duration: duration,
      each: {
        child.readAvailable()
        output += child.takeBufferedOutput()
      })
    let status = try child.waitForExit(timeout: 5)
    output += try child.readToEnd(timeout: 2)
    return (output, ChildProcess.exitCode(status))
  }

  /// Feeds scans as they happen, `raw(t)` at `rate(t)` Hz (t from the start) for `feedingFor` s,
  /// until `until(t)` says so; `each(t)` runs every loop turn. Returns the monotonic start time.
  @discardableResult
  func feed(
    rate: @escaping (Double) -> Double, timeout: Double, raw: (Double) -> (Int, Int, Int),
    feedingFor: Double = .infinity, each: (Double) -> Void = { _ in }, until: (Double) -> Bool
  ) -> Double {
    bed.feed(
      on: loop, rate: rate, timeout: timeout, raw: raw, feedingFor: feedingFor, clockOffset: offset,
      each: each,
      until: until)
  }

  /// Stops the service's components, then the bus (its dbus-daemon is not left running even
  /// should something still hold the rig).
  func stop() {
    for component in service.components.reversed() { component.stop() }
    bus.stop()
  }
}

/// The Python motion example (examples/python-motion/motion_watch.py).
let pythonMotionExample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/python-motion")

/// An input on `loop` that polls the sensor (at `rate` Hz; else the settings' default rate).
func polledInput(on loop: EventLoop, rate: Double? = nil) -> IIOInput {
  var settings = IIOInput.Settings()
  settings.capture = .polled
  if let rate { settings.samplingRate = rate }
  return IIOInput(loop: loop, settings: settings, logger: testLogger)
}

/// Every record waiting on a stream's socket.
func drainRecords(_ fd: Int32) -> [[UInt8]] {
  var records: [[UInt8]] = []
  var buffer = [UInt8](repeating: 0, count: 256)
  while true {
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    if n <= 0 { return records }
    records.append(Array(buffer[0..<n]))
  }
}

/// The built-in handlers and `handlers`, each by its name.
func registry(_ handlers: [any Handler]) -> HandlerRegistry {
  handlers.reduce(HandlerRegistry.builtIn) { registry, handler in
    registry.merging(HandlerRegistry(handler.name) { _ in handler })
  }
}

/// A service with the motion component alone (no bus), `handlers` available to its chain; not
/// started.
func motionOnlyService(
  chain: [String], loop: EventLoop, handlers: [any Handler] = [], logger: Logger = testLogger,
  keepOpenScheduler: (any Scheduler)? = nil
) throws -> (LoopService, MotionComponent) {
  var config = ResponderdConfig()
  config.chain = chain
  let harness = try LoopService(config: config, loop: loop, logger: logger, handlers: registry(handlers))
  let motion = harness.service.motionComponent(keepOpenScheduler: keepOpenScheduler)
  harness.add(motion)
  return (harness, motion)
}
