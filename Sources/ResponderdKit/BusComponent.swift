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
  /// The session-bus connection, once started.
  public private(set) var connection: DBusConnection?
  /// The address used (from the environment, else `/run/user/UID/bus`).
  public private(set) var address = ""
  private var setups: [(DBusConnection) -> Void] = []
  private var connectedHandlers: [(DBusConnection) -> Void] = []
  private var logger = Logger(label: "responderd")

  private let configuredAddress: String?

  /// A bus component for the session bus (from the environment), or for `address` when given.
  public init(address: String? = nil) { configuredAddress = address }

  /// Runs `setup` once with the connection (at once when it exists): export objects, subscribe.
  public func withConnection(_ setup: @escaping (DBusConnection) -> Void) {
    if let connection { setup(connection) } else { setups.append(setup) }
  }

  /// Runs `handler` after every (re)connection, once names and subscriptions are restored.
  public func onConnected(_ handler: @escaping (DBusConnection) -> Void) {
    connectedHandlers.append(handler)
  }

  public func start(in service: Service) throws {
    logger = service.logger
    address =
      configuredAddress ?? (try? DBusConnection.sessionBusAddress()) ?? "unix:path=/run/user/\(getuid())/bus"
    let connection = DBusConnection(waitingFor: address, loop: service.loop)
    self.connection = connection
    connection.onConnected = { [weak self, unowned connection] in
      guard let self else { return }
      self.logger.info("bus: connected to the session bus as \(connection.uniqueName ?? "?")")
      for handler in self.connectedHandlers { handler(connection) }
    }
    connection.onDisconnected = { [weak self] error in
      self?.logger.warning("bus: lost the session bus (\(error.message)); reconnecting when it is back")
    }
    connection.onNameAcquired = { [weak self] name in
      guard !name.hasPrefix(":") else { return }  // the unique name, announced at every connection
      self?.logger.info("bus: owns \(name)")
    }
    connection.onNameLost = { [weak self] name in
      self?.logger.warning("bus: lost the name \(name) to another connection")
    }
    connection.requestName(Self.daemonName) { [weak self] result in
      switch result {
      case .success(let outcome) where outcome.isOwner:
        break  // logged by onNameAcquired, after every reconnection too
      case .success:
        self?.logger.error("bus: \(Self.daemonName) is owned by another responderd; not taking it over")
      case .failure(let error):
        self?.logger.error("bus: cannot own \(Self.daemonName): \(error.message)")
      }
    }
    for setup in setups { setup(connection) }
    setups.removeAll()
    if connection.state == .disconnected {
      logger.notice("bus: no session bus found at \(address); connecting when it appears")
    }
  }

  public func stop() {
    connection?.close()
  }
}
