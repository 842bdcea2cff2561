import DBus
import EventLoop
import Logging
import ResponderConfig

#if canImport(Glibc)
  import Glibc
#endif

/// The service's one session-bus connection. It starts without a bus when there is none, picks it
/// up when it appears, reconnects when it goes away, and owns `org.responderd.Daemon1` each time.
/// Other components export their objects and subscribe through `withConnection`, once: exported
/// objects, subscriptions and names survive reconnections.
public final class BusComponent: ServiceComponent {
  public let componentName = "bus"
  /// The daemon's well-known name.
  public static let daemonName = "org.responderd.Daemon1"
  /// The session-bus connection, once started (a `DBusConnection`, or the bus given to `init(bus:)`).
  public private(set) var connection: (any MessageBus)?
  /// The address used (from the environment, else `/run/user/UID/bus`; empty for a given bus).
  public private(set) var address = ""
  /// The caller check on everything the daemon exports: processes of the daemon's user only.
  public private(set) var callers: SameUserCallers?
  private var setups: [(any MessageBus) -> Void] = []
  private let logger: Logger
  private let anotherDaemonRuns: () -> Void
  private let source: Source

  /// Where the connection comes from.
  private enum Source {
    /// The session bus at this address (from the environment when nil), connected on the loop.
    case address(String?, EventLoop)
    /// A bus made elsewhere.
    case given(any MessageBus)
  }

  /// A bus component for the session bus (from the environment), or for `address` when given,
  /// connected on `loop`; `anotherDaemonRuns` is called when another responderd owns the name
  /// (the daemon stops).
  public init(
    address: String? = nil, loop: EventLoop, logger: Logger, anotherDaemonRuns: @escaping () -> Void = {}
  ) {
    source = .address(address, loop)
    self.logger = logger
    self.anotherDaemonRuns = anotherDaemonRuns
  }

  /// A bus component on a bus made elsewhere (an in-memory bus in tests).
  public init(bus: any MessageBus, logger: Logger) {
    source = .given(bus)
    self.logger = logger
    anotherDaemonRuns = {}
  }

  public var dependencies: [ServiceComponent] { [] }

  /// Runs `setup` once with the connection (at once when it exists): export objects, subscribe,
  /// add observers of the connection (`.connected` comes after every reconnection, once names
  /// and subscriptions are restored).
  public func withConnection(_ setup: @escaping (any MessageBus) -> Void) {
    if let connection { setup(connection) } else { setups.append(setup) }
  }

  public func start() throws {
    let connection: any MessageBus
    switch source {
    case .given(let bus):
      connection = bus
    case .address(let configured, let loop):
      address =
        configured ?? (try? DBusConnection.sessionBusAddress()) ?? "unix:path=/run/user/\(getuid())/bus"
      connection = DBusConnection(waitingFor: address, loop: loop)
    }
    self.connection = connection
    let callers = SameUserCallers(bus: connection, logger: logger)
    self.callers = callers
    connection.callerCheck = callers.check
    connection.addObserver { [weak self, unowned connection] event in
      guard let self else { return }
      switch event {
      case .connected:
        self.logger.info("bus: connected to the session bus as \(connection.uniqueName ?? "?")")
      case .disconnected(let error):
        self.logger.warning("bus: lost the session bus (\(error.message)); reconnecting when it is back")
      case .nameAcquired(let name):
        guard !name.hasPrefix(":") else { return }  // the unique name, announced at every connection
        self.logger.info("bus: owns \(name)")
      case .nameLost(let name):
        self.logger.warning("bus: lost the name \(name) to another connection")
      }
    }
    connection.requestName(Self.daemonName) { [weak self] result in
      switch result {
      case .success(let outcome) where outcome.isOwner:
        break  // logged at .nameAcquired, after every reconnection too
      case .success:
        // One responderd per session, as other single-instance daemons: the one running serves.
        let bus = (self?.address).map { $0.isEmpty ? "" : " on \($0)" } ?? ""
        self?.logger.critical(
          "bus: another responderd already owns \(Self.daemonName)\(bus): exiting (responderctl status tells about it)"
        )
        self?.anotherDaemonRuns()
      case .failure(let error):
        self?.logger.error("bus: cannot own \(Self.daemonName): \(error.message)")
      }
    }
    for setup in setups { setup(connection) }
    setups.removeAll()
    if let real = connection as? DBusConnection, real.state == .disconnected {
      logger.notice("bus: no session bus found at \(address); connecting when it appears")
    }
  }

  /// Runs `action` once the connection has registered and asked for the daemon's name (at its
  /// first `.connected` or `.disconnected`), or at once when it is not registering now: what can
  /// wait (opening devices) does not delay the name, which is when clients take the daemon as up.
  public func afterNameRequested(_ action: @escaping () -> Void) {
    guard let real = connection as? DBusConnection, real.state == .connecting else { return action() }
    var done = false
    real.addObserver { event in
      guard !done else { return }
      switch event {
      case .connected, .disconnected:
        done = true
        action()
      case .nameAcquired, .nameLost: break
      }
    }
  }

  /// Moves the connection's handshake on (a poll, no wait): Hello and the daemon's name go out
  /// while the other components start, not after; what the bus answers waits for the loop, which
  /// runs once they all have started (a call to the daemon is answered by a started daemon).
  public func laterComponentStarted() {
    (connection as? DBusConnection)?.advanceHandshake()
  }

  public func stop() {
    (connection as? DBusConnection)?.close()
  }
}
