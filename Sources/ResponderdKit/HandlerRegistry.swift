import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore

/// What a handler is made with when the service builds its chain: the config, the clock, the
/// logger and the programs the service runs (not the service itself).
public struct HandlerContext {
  /// The configuration the service was started with (each handler reads its own section).
  public let config: ResponderdConfig
  /// The clock of the handler's timers.
  public let scheduler: any Scheduler
  /// Where the handler logs.
  public let logger: Logger
  /// The programs the service starts and reaps (the `command` handler's).
  public let children: ChildProcesses

  public init(config: ResponderdConfig, scheduler: any Scheduler, logger: Logger, children: ChildProcesses) {
    self.config = config
    self.scheduler = scheduler
    self.logger = logger
    self.children = children
  }
}

/// The handlers a service can put in its chain, each by the name the config's `chain` gives it.
///
/// The registry is a value, complete before the service starts: the service's own (`builtIn`, or
/// what it was made with) and those its components bring (`ServiceComponent.handlers`, such as
/// the MPRIS component's `mpris`). A name registered twice is a programming error.
public struct HandlerRegistry {
  /// Makes a handler when the chain is built.
  public typealias Factory = (HandlerContext) -> Handler

  private var factories: [String: Factory] = [:]

  /// An empty registry.
  public init() {}

  /// The handlers every service has: `log` and `command`.
  public static var builtIn: HandlerRegistry {
    var registry = HandlerRegistry()
    registry.register("log") { context in
      EventLogHandler(settings: context.config.log, logger: context.logger)
    }
    registry.register("command") { context in
      CommandHandler(settings: context.config.command, children: context.children, logger: context.logger)
    }
    return registry
  }

  /// One handler, by its name.
  public init(_ name: String, _ factory: @escaping Factory) {
    register(name, factory)
  }

  /// The names it has, sorted.
  public var names: [String] { factories.keys.sorted() }

  /// Whether it has a handler named `name`.
  public func contains(_ name: String) -> Bool { factories[name] != nil }

  /// Adds a handler; `name` must not be registered yet.
  public mutating func register(_ name: String, _ factory: @escaping Factory) {
    precondition(factories[name] == nil, "handler '\(name)' is registered twice")
    factories[name] = factory
  }

  /// This registry and `other`'s handlers; no name may be in both.
  public func merging(_ other: HandlerRegistry) -> HandlerRegistry {
    var merged = self
    for (name, factory) in other.factories { merged.register(name, factory) }
    return merged
  }

  /// Makes the handlers `chain` names, in its order; the names it has no handler for are returned
  /// apart (`missing`), in the chain's order.
  public func makeHandlers(for chain: [String], in context: HandlerContext) -> (
    handlers: [Handler], missing: [String]
  ) {
    var handlers: [Handler] = []
    var missing: [String] = []
    for name in chain {
      if let make = factories[name] {
        handlers.append(make(context))
      } else {
        missing.append(name)
      }
    }
    return (handlers, missing)
  }
}
