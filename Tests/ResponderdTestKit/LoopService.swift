import EventLoop
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit

/// A `Service` for device tests: on a real event loop and the loop's clock, with the components
/// given (in that order), every dispatch recorded; stopped (its components in reverse order) when
/// it goes.
///
/// ```swift
/// let touch = TouchGesturesComponent()
/// let harness = try LoopService(config: config, components: [touch])
/// harness.start()
/// ```
public final class LoopService {
  public let loop: EventLoop
  public let service: Service
  /// Every dispatched event's record, in order.
  public private(set) var records: [DispatchRecord] = []

  /// `logger` says nothing unless given. With `busAddress`, a bus component on that bus comes
  /// first (the service's bus).
  public init(
    config: ResponderdConfig, loop: EventLoop? = nil,
    logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, busAddress: String? = nil,
    components: [any ServiceComponent] = []
  ) throws {
    self.loop = try loop ?? EventLoop()
    service = Service(config: config, loop: self.loop, logger: logger)
    service.addDispatchObserver { [weak self] in self?.records.append($0) }
    if let busAddress {
      let bus = BusComponent(address: busAddress)
      service.bus = bus
      service.add(bus)
    }
    for component in components { service.add(component) }
  }

  deinit { service.stop() }

  public func start() { service.start() }

  public func stop() { service.stop() }
}
