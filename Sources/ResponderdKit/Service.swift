import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore

#if canImport(Glibc)
  import Glibc
#endif

/// A part of the service with a life of its own: an input source, the bus connection, the API.
public protocol ServiceComponent: AnyObject {
  /// A short name for logs ("evdev", "iio", "bus").
  var componentName: String { get }
  /// The handlers it brings to the chain (the MPRIS component's `mpris`); none by default.
  var handlers: HandlerRegistry { get }
  /// The components it was given and uses, which start before it (the bus before what serves on
  /// it).
  var dependencies: [ServiceComponent] { get }
  /// Starts the component, with what it was given when it was made. It logs, in one line, what
  /// it found or did not find, and keeps running when what it needs is missing (a device plugged
  /// in later, a bus that appears).
  func start() throws
  /// Stops it and releases its descriptors.
  func stop()
  /// Called each time a component added after this one has started (before the loop runs): the
  /// bus moves its handshake on, so that the daemon's name is owned while the others start.
  func laterComponentStarted()
}

extension ServiceComponent {
  public var handlers: HandlerRegistry { HandlerRegistry() }
  public func laterComponentStarted() {}
}

/// The responderd service: one event loop, the application and its chain of handlers, and the
/// components that feed it.
public final class Service {
  /// The configuration the service was started with.
  public let config: ResponderdConfig
  /// The one event loop every component and timer runs on.
  public let loop: EventLoop
  /// The clock of every timer of the service (the loop's; virtual time in tests).
  public let scheduler: Scheduler
  /// The application: event queue, first responder, dispatch.
  public let application: Application
  /// The handlers after the first responder, in the config's `chain` order.
  public let chain: HandlerChain
  /// Where components and handlers log.
  public let logger: Logger
  /// The components, in the order they were added: the order they start in (and stop in, reversed).
  public private(set) var components: [ServiceComponent] = []
  /// The handlers the service was made with (its components bring more: see `handlers`).
  private let ownHandlers: HandlerRegistry
  /// Whether `start()` was called: components are added before.
  private var started = false
  /// Where the components post events and publish what happened, and who hears of it.
  public let events: ServiceEvents
  /// What `run()` ends with: 0, or the code given to `stopRunning(exitCode:)`.
  public private(set) var exitCode: Int32 = 0

  /// A service without components; add them (`add(_:)`, `StandardComponents`) and start it.
  /// Its timers run on `scheduler` (the loop's when nil); its chain may name `handlers` and those
  /// of its components.
  public init(
    config: ResponderdConfig, loop: EventLoop, scheduler: Scheduler? = nil, logger: Logger,
    handlers: HandlerRegistry = .builtIn
  ) {
    self.config = config
    ownHandlers = handlers
    self.loop = loop
    self.scheduler = scheduler ?? loop.scheduler
    self.logger = logger
    application = Application(scheduler: self.scheduler)
    application.beginReceivingRemoteControlEvents()
    chain = HandlerChain(application: application)
    events = ServiceEvents(application: application, logger: logger)
  }

  /// Adds a component, before `start()` (which starts it).
  public func add(_ component: ServiceComponent) {
    precondition(!started, "\(component.componentName): components are added before the service starts")
    components.append(component)
  }

  /// The handlers the chain may name: the service's own and those its components bring.
  public var handlers: HandlerRegistry {
    components.reduce(ownHandlers) { $0.merging($1.handlers) }
  }

  /// The programs the service started (the `command` handler's), reaped on the loop.
  public private(set) lazy var children = ChildProcesses(loop: loop)

  /// Builds the chain from the config and starts every component. A component that fails to
  /// start is logged and left out; the service keeps running.
  public func start() {
    started = true
    let context = HandlerContext(config: config, scheduler: scheduler, logger: logger, children: children)
    let (handlers, missing) = self.handlers.makeHandlers(for: config.chain, in: context)
    for name in missing {
      logger.notice("handler '\(name)' is not available in this build; left out of the chain")
    }
    chain.setHandlers(handlers)
    logger.info("chain: \((chain.responders.map(\.responderName) + ["dropped"]).joined(separator: " → "))")
    for (index, component) in components.enumerated() {
      do {
        try component.start()
      } catch {
        logger.error("\(component.componentName): \(error)")
      }
      for earlier in components[..<index] { earlier.laterComponentStarted() }
    }
  }

  /// Runs until SIGTERM or SIGINT, then stops every component and returns.
  ///
  /// Signals: SIGPIPE is ignored (a reader of stderr that goes away costs log lines, not the
  /// service); SIGHUP checks the config file again and logs whether it would be accepted (the
  /// running service keeps its config: restart it to apply a new one); SIGUSR1 and SIGUSR2 are
  /// logged and ignored.
  public func run() throws {
    signal(SIGPIPE, SIG_IGN)
    try loop.onSignals([SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]) { [weak self] signal in
      guard let self else { return }
      switch signal {
      case SIGHUP:
        self.checkConfigAgain()
      case SIGUSR1, SIGUSR2:
        self.logger.notice("received SIGUSR\(signal == SIGUSR1 ? 1 : 2): ignored (it has no meaning here)")
      default:
        self.logger.info("received \(signal == SIGTERM ? "SIGTERM" : "SIGINT"), stopping")
        self.loop.stop()
      }
    }
    start()
    loop.run()
    stop()
  }

  /// Makes `run()` return with `exitCode` (the service cannot go on: another responderd owns its
  /// name).
  public func stopRunning(exitCode: Int32) {
    self.exitCode = exitCode
    loop.stop()
  }

  /// Stops every component, the last added first: each closes its descriptors and connection,
  /// which drops the calls and timers still under way (and what they hold).
  public func stop() {
    for component in components.reversed() { component.stop() }
    children.endAll()
  }

  /// SIGHUP: reads the config file again and says whether it would be accepted.
  private func checkConfigAgain() {
    let path = config.file
    guard path != ResponderdConfig().file else {
      logger.notice("received SIGHUP: running on the built-in defaults, no config file to check")
      return
    }
    do {
      _ = try ResponderdConfig.load(path: path)
      logger.notice(
        "received SIGHUP: \(path) is valid; the service keeps the config it started with until it is restarted (systemctl --user restart responderd)"
      )
    } catch {
      logger.error("received SIGHUP: \(error); the service keeps the config it started with")
    }
  }
}
