import EventLoop
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit

/// A `Service` for device and bus tests: on a real event loop and the loop's clock, with the
/// components given or added (in that order), every dispatch recorded; stopped (its components in
/// reverse order) when it goes.
///
/// ```swift
/// let harness = try LoopService(config: config, busAddress: bus.address)
/// harness.add(harness.service.responderAPI(bus: harness.bus, session: nil, motionInterest: nil))
/// harness.start()
/// ```
public final class LoopService {
  public let loop: EventLoop
  public let service: Service
  /// The bus component, first of the components, when the service was given a bus address.
  public let bus: BusComponent?
  /// Every dispatched event's record, in order.
  public private(set) var records: [DispatchRecord] = []

  /// `logger` says nothing unless given. With `busAddress`, a bus component on that bus comes
  /// first (the service's bus). The chain may name `handlers` and the components' handlers.
  public init(
    config: ResponderdConfig, loop: EventLoop? = nil,
    logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, busAddress: String? = nil,
    handlers: HandlerRegistry = .builtIn, components: [any ServiceComponent] = []
  ) throws {
    self.loop = try loop ?? EventLoop()
    let service = Service(config: config, loop: self.loop, logger: logger, handlers: handlers)
    self.service = service
    let bus = busAddress.map { service.busComponent(address: $0) }
    self.bus = bus
    if let bus { service.add(bus) }
    service.events.addDispatchObserver { [weak self] in self?.records.append($0) }
    for component in components { service.add(component) }
  }

  deinit { service.stop() }

  /// Adds a component after those already there (before `start`).
  public func add(_ component: any ServiceComponent) { service.add(component) }

  public func start() { service.start() }

  public func stop() { service.stop() }
}
