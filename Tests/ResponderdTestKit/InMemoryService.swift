import DBus
import EventLoop
import EventTime
import Foundation
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit

/// A `Service` for unit tests: on the in-memory bus and virtual time, with a bus component on
/// that bus, the components given or added (in that order, after the bus), every dispatch
/// recorded and every log line kept. Starts nothing outside the test process.
///
/// ```swift
/// let harness = try InMemoryService(config: "chain = [\"log\"]\n")
/// harness.add(harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil))
/// harness.start()
/// let app = harness.bus.connect()
/// ```
public final class InMemoryService {
  /// Virtual time: timers fire when the test advances it.
  public let time: VirtualScheduler
  public let bus: InMemoryBus
  public let service: Service
  /// The service's connection to `bus`, the first component: give it to the components that
  /// serve or call on the bus.
  public let busComponent: BusComponent
  /// What was logged, one line per message ("info: …").
  public let log: RecordingLogHandler.Store
  /// Every dispatched event's record, in order.
  public private(set) var records: [DispatchRecord] = []

  /// `config` is the text of a config file (refused as the daemon refuses it).
  public convenience init(config: String = "", now: Seconds = 50, components: [any ServiceComponent] = [])
    throws
  {
    let time = VirtualScheduler(now: now)
    try self.init(config: config, bus: InMemoryBus(scheduler: time), time: time, components: components)
  }

  /// A service on `bus`, whose messages go through `time` (several services may share one bus).
  public convenience init(
    config: String, bus: InMemoryBus, time: VirtualScheduler, components: [any ServiceComponent] = []
  ) throws {
    try self.init(
      config: ResponderdConfig.parse(config, file: "test.toml"), bus: bus, time: time, components: components)
  }

  /// A service with `config` as given, whose chain may name the handlers of `handlers` (a
  /// downstream daemon's, a test's own), on a bus of its own.
  public convenience init(config: ResponderdConfig, handlers: HandlerRegistry, now: Seconds = 50) throws {
    let time = VirtualScheduler(now: now)
    try self.init(config: config, bus: InMemoryBus(scheduler: time), time: time, handlers: handlers)
  }

  /// A service with `config` on `bus`, whose messages go through `time`.
  public init(
    config: ResponderdConfig, bus: InMemoryBus, time: VirtualScheduler,
    components: [any ServiceComponent] = [],
    handlers: HandlerRegistry = .builtIn
  ) throws {
    self.time = time
    self.bus = bus
    let (logger, store) = recordingLogger()
    log = store
    service = Service(
      config: config, loop: try EventLoop(), scheduler: time, logger: logger, handlers: handlers)
    busComponent = BusComponent(bus: bus.connect(), logger: logger)
    service.add(busComponent)
    for component in components { service.add(component) }
    service.events.addDispatchObserver { [weak self] in self?.records.append($0) }
  }

  /// Calls still under way at the end of a test (a hung application's) hold the service through
  /// their reply handlers: stopping it drops them.
  deinit { service.stop() }

  /// Adds a component after those already there (before `start`).
  public func add(_ component: any ServiceComponent) { service.add(component) }

  /// Starts the service and lets what it does at once happen.
  public func start() {
    service.start()
    settle()
  }

  /// Runs what is due now (replies, signals), without moving time.
  public func settle() { time.advance(by: 0) }
}

/// A swift-log handler that keeps every message, for assertions on what was logged.
public final class RecordingLogHandler: LogHandler, @unchecked Sendable {
  /// The lines logged, shared by the handler's copies.
  public final class Store: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    public init() {}
    public func append(_ line: String) { lock.withLock { lines.append(line) } }
    public var all: [String] { lock.withLock { lines } }
    /// Every line, one after the other.
    public var text: String { all.joined(separator: "\n") }
  }
  public let store: Store
  public var metadata: Logger.Metadata = [:]
  public var logLevel: Logger.Level = .trace
  public init(store: Store) { self.store = store }
  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }
  /// "level: message", then each metadata field (" key=value", sorted by key).
  public func log(event: LogEvent) {
    store.append("\(event.level): \(event.message)\(metadata.logLineFields(merging: event.metadata))")
  }
}

/// A logger that keeps every line in the store it returns.
public func recordingLogger() -> (Logger, RecordingLogHandler.Store) {
  let store = RecordingLogHandler.Store()
  return (Logger(label: "test") { _ in RecordingLogHandler(store: store) }, store)
}

/// A test suite on an `InMemoryService`: the service's parts by their short names.
public protocol InMemoryServiceSuite {
  var harness: InMemoryService { get }
}

extension InMemoryServiceSuite {
  public var time: VirtualScheduler { harness.time }
  public var bus: InMemoryBus { harness.bus }
  public var service: Service { harness.service }
  public var log: RecordingLogHandler.Store { harness.log }
  /// Every dispatched event's record so far.
  public func records() -> [DispatchRecord] { harness.records }
  /// Runs what is due now, without moving time.
  public func settle() { harness.settle() }
}
