import DBus
import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A private bus with the real `responderd` process on it (started with `--allow-root`, so that it
/// also runs in CI containers as root), a loop and a connection of the test.
///
/// ```swift
/// let fixture = try DaemonFixture(config: "chain = [\"command\", \"log\"]\n")
/// let result = try fixture.run([BuiltProducts.path(of: "responderctl"), "status"])
/// ```
///
/// The daemon's stderr is collected in `log` while the loop runs. Everything waits with bounded,
/// event-driven loops; the daemon is stopped (SIGTERM) and reaped on `deinit`.
public final class DaemonFixture {
  public let bus: PrivateBus
  public let loop: EventLoop
  /// The test's own connection.
  public let connection: DBusConnection
  /// The daemon process.
  public private(set) var daemon: ChildProcess
  /// The config file the daemon reads.
  public let configPath: String
  /// The daemon's unique bus name.
  public private(set) var daemonName = ""
  /// What the daemon wrote on stdout and stderr so far (read while the loop runs).
  public private(set) var log = ""
  private var source: IOSource?

  /// Writes `config` and starts the daemon; returns once it owns `org.responderd.Daemon1`.
  /// With `busForAllUsers`, processes of other users may connect to the bus too (to check that
  /// the daemon refuses them).
  /// The daemon's environment besides the session bus: `DBUS_SYSTEM_BUS_ADDRESS` (no system bus
  /// unless a test gives one, so that no test follows the machine's own logind) and what the test
  /// adds.
  public private(set) var environment: [String: String]

  /// With `systemBus`, the daemon follows logind on that bus (a `MockLogind`'s address).
  public init(
    config: String = "chain = [\"command\", \"log\"]\n", busForAllUsers: Bool = false, timeout: Double = 10,
    systemBus: String? = nil, environment: [String: String] = [:]
  ) throws {
    bus = try PrivateBus(start: !busForAllUsers)
    if busForAllUsers {
      let open = PrivateBus.config(directory: bus.directory, listen: bus.address)
        .replacing(
          "<policy context=\"default\">", with: "<policy context=\"default\">\n    <allow user=\"*\"/>")
      try writeTextFile(bus.configPath, open)
      chmod(bus.directory, 0o755)
      try bus.start()
    }
    loop = try EventLoop()
    configPath = bus.directory + "/config.toml"
    try writeTextFile(configPath, config)
    self.environment = environment.merging(
      ["DBUS_SYSTEM_BUS_ADDRESS": systemBus ?? "unix:path=\(bus.directory)/no-system-bus/socket"]
    ) { own, _ in own }
    daemon = try Self.startDaemon(configPath: configPath, bus: bus, environment: self.environment)
    connection = try bus.connect(loop: loop)
    try watchDaemon(timeout: timeout)
  }

  private static func startDaemon(configPath: String, bus: PrivateBus, environment: [String: String]) throws
    -> ChildProcess
  {
    try ChildProcess(
      [try BuiltProducts.path(of: "responderd"), "--allow-root", "--config", configPath],
      environment: bus.environment.merging(["XDG_CONFIG_HOME": bus.directory]) { $1 }.merging(environment) {
        $1
      },
      stdout: .capture, stderr: .capture)
  }

  /// Collects the daemon's output and waits until it owns its name.
  private func watchDaemon(timeout: Double) throws {
    source = try loop.register(fd: daemon.outputDescriptor, events: .readable) { [weak self] _ in
      self?.readLog()
    }
    try waitFor("responderd to own org.responderd.Daemon1", timeout: timeout) {
      log.contains("bus: owns org.responderd.Daemon1")
    }
    daemonName =
      try connection.callAndWait(
        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        method: "GetNameOwner", arguments: [.string("org.responderd.Daemon1")], timeout: 5
      ).first?.string ?? ""
  }

  /// Starts a new daemon after `stopDaemon()` (its log starts afresh), with `environment` added
  /// to its own (a desktop's `WAYLAND_DISPLAY` and `XDG_RUNTIME_DIR`, started after the daemon).
  public func startDaemonAgain(timeout: Double = 10, environment extra: [String: String] = [:]) throws {
    source?.remove()
    source = nil
    log = ""
    environment.merge(extra) { $1 }
    daemon = try Self.startDaemon(configPath: configPath, bus: bus, environment: environment)
    try watchDaemon(timeout: timeout)
  }

  deinit {
    source?.remove()
    daemon.terminate()
  }

  private func readLog() {
    let open = daemon.readAvailable()
    log += daemon.takeBufferedOutput()
    if !open {
      source?.remove()
      source = nil
    }
  }

  /// Runs the loop until `condition` holds; throws a clear error after `timeout` seconds.
  public func waitFor(_ what: String, timeout: Double = 5, _ condition: () -> Bool) throws {
    guard loop.run(until: condition, timeout: timeout) else {
      throw TestSupportError("timed out after \(timeout) s waiting for \(what); responderd said:\n\(log)")
    }
  }

  /// Runs a command to completion with this bus as its session bus while the loop serves.
  public func run(_ arguments: [String], timeout: Double = 10) throws -> CommandResult {
    try ChildProcess.run(arguments, environment: bus.environment, loop: loop, timeout: timeout)
  }

  /// Calls the daemon's `SendEvent` without waiting, as a script sending many events at once does:
  /// `answered` gets, once the loop runs, the handler's name ("" when dropped) or the call's error.
  public func sendEvent(
    _ type: String, _ subtype: String, phase: String = "", timeout: Double = 10,
    answered: @escaping (Result<[DBusValue], DBusError>) -> Void
  ) {
    connection.call(
      destination: "org.responderd.Daemon1", path: "/org/responderd/Daemon1",
      interface: "org.responderd.Daemon1", method: "SendEvent",
      arguments: [.string(type), .string(subtype), .string(phase)], timeout: timeout, reply: answered)
  }

  /// Stops the daemon with SIGTERM and returns its wait status.
  @discardableResult
  public func stopDaemon() throws -> Int32 {
    daemon.signal(SIGTERM)
    try waitFor("responderd to exit", timeout: 10) { !daemon.isRunning }
    readLog()
    return try daemon.waitForExit(timeout: 1)
  }
}
