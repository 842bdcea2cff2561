import DBus
import EventLoop
import EventTime
import Logging
import SessionWatcher

#if canImport(Glibc)
  import Glibc
#endif

/// The user's session (`SessionWatcher`: logind on the system bus, the screen savers on the
/// session bus), and what it lets the inputs do (`gate`, which the keys, the touchscreen and the
/// motion component observe):
///
/// - inactive (another user's session in front): the keys component and the touchscreen release
///   and close their devices, and take them again when the session is active again;
/// - locked or inactive: no shake is delivered, and the accelerometer is not kept open for shakes
///   (motion streams and orientation go on).
///
/// Without a system bus or logind the session is taken as active and unlocked; the system bus is
/// picked up when it appears.
public final class SessionComponent: ServiceComponent {
  public let componentName = "session"
  /// The watcher, once started.
  public private(set) var watcher: SessionWatcher?
  /// The system bus address used (empty for a given bus).
  public private(set) var systemBusAddress = ""
  private var ownConnection: DBusConnection?
  private let systemBusSource: SystemBusSource
  private let identity: SessionWatcher.Identity
  private let sessionBus: BusComponent?
  private let scheduler: any Scheduler
  private let logger: Logger

  /// Where the system bus comes from.
  private enum SystemBusSource {
    /// Connected on the loop at this address (from the environment when nil).
    case address(String?, EventLoop)
    /// Made elsewhere (nil: there is none).
    case given((any MessageBus)?)
  }
  private var applied = SessionState()
  private var observers: [(SessionState) -> Void] = []
  private var gateObservers: [(InputGate) -> Void] = []

  /// What the session lets the inputs do now.
  public struct InputGate: Equatable, Sendable {
    /// What the input devices (the keys' and the touchscreen's) may do.
    public enum Devices: Equatable, Sendable {
      /// The session is not known yet (logind's first answer, `holdLimit` at most): none is opened.
      case waitingForLogind
      /// The session is in front: they are read.
      case open
      /// Another session is in front: they are released and closed.
      case released
    }
    public var devices: Devices
    /// Why shakes are not delivered ("the screen is locked"), nil while they are.
    public var shakesPaused: String?

    public init(devices: Devices = .open, shakesPaused: String? = nil) {
      self.devices = devices
      self.shakesPaused = shakesPaused
    }
  }

  /// What the inputs may do now (everything until the session starts and holds them).
  public private(set) var gate = InputGate() {
    didSet {
      guard gate != oldValue else { return }
      for observer in gateObservers { observer(gate) }
    }
  }

  /// Calls `observer` with the new gate each time it changes (not with the one it has when the
  /// observer is added: read `gate` then). The inputs observe it from their start, which comes
  /// after the session's.
  public func addGateObserver(_ observer: @escaping (InputGate) -> Void) {
    gateObservers.append(observer)
  }

  /// Follows the session on the system bus at `systemBusAddress` (default:
  /// `DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket) and the screen saver on
  /// `sessionBus`. The system bus is connected on `loop`; `holdLimit` is timed on `scheduler`
  /// (the loop's when nil).
  public init(
    systemBusAddress: String? = nil, identity: SessionWatcher.Identity = .current(),
    sessionBus: BusComponent?, loop: EventLoop, scheduler: (any Scheduler)? = nil, logger: Logger
  ) {
    systemBusSource = .address(systemBusAddress, loop)
    self.scheduler = scheduler ?? loop.scheduler
    self.logger = logger
    self.identity = identity
    self.sessionBus = sessionBus
  }

  /// Follows the session on a bus made elsewhere (an in-memory bus in tests; nil: no system bus),
  /// as the other initializer does.
  public init(
    systemBus: (any MessageBus)?, identity: SessionWatcher.Identity, sessionBus: BusComponent?,
    scheduler: any Scheduler, logger: Logger
  ) {
    systemBusSource = .given(systemBus)
    self.scheduler = scheduler
    self.logger = logger
    self.identity = identity
    self.sessionBus = sessionBus
  }

  /// The system bus address from the environment, else the standard socket.
  public static func systemBusAddressFromEnvironment() -> String {
    if let value = getenv("DBUS_SYSTEM_BUS_ADDRESS"), value.pointee != 0 { return String(cString: value) }
    return "unix:path=/run/dbus/system_bus_socket"
  }

  /// The session now (active and unlocked before the watcher knows better).
  public var state: SessionState { watcher?.state ?? SessionState() }

  /// Calls `observer` with the new state after each change, once the inputs have followed it.
  public func addObserver(_ observer: @escaping (SessionState) -> Void) {
    observers.append(observer)
  }

  public var dependencies: [ServiceComponent] { sessionBus.map { [$0] } ?? [] }

  public func start() throws {
    var systemBus: (any MessageBus)?
    switch systemBusSource {
    case .given(let bus):
      systemBus = bus
    case .address(let configured, let loop):
      systemBusAddress = configured ?? Self.systemBusAddressFromEnvironment()
      let connection = DBusConnection(waitingFor: systemBusAddress, loop: loop)
      ownConnection = connection
      systemBus = connection
      if connection.state == .disconnected {
        logger.notice(
          "session: no system bus at \(systemBusAddress): the session is taken as active and unlocked until it appears"
        )
      }
    }
    let watcher = SessionWatcher(
      systemBus: systemBus, sessionBus: sessionBus?.connection, identity: identity, logger: logger)
    self.watcher = watcher
    watcher.addObserver { [weak self] state in self?.apply(state) }
    // Until logind has answered, the devices wait (they start after this component): a session
    // that is not in front must never have them read. An answer is a round trip; a bus that
    // does not answer holds them for `holdLimit` seconds at most.
    if systemBus != nil && ownConnection?.state != .disconnected {
      hold()
    }  // (no system bus: nothing to wait for)
    watcher.start()
  }

  /// How long the devices wait for logind's first answer at most.
  public static let holdLimit = 2.0

  private func hold() {
    gate.devices = .waitingForLogind
    let limit = scheduler.schedule(after: Self.holdLimit) { [weak self] in
      guard let self, let watcher = self.watcher, !watcher.isSettled else { return }
      self.logger.notice(
        "session: logind has not answered in \(Int(Self.holdLimit)) s: the input devices are opened meanwhile, and the session is followed once it answers"
      )
      self.release()
    }
    watcher?.whenSettled { [weak self] in
      limit.cancel()
      self?.release()
    }
  }

  /// Ends the hold of `start`: the devices are opened unless the session is inactive.
  private func release() {
    guard gate.devices == .waitingForLogind else { return }
    gate.devices = applied.isActive ? .open : .released
  }

  public func stop() {
    watcher?.stop()
    ownConnection?.close()
    ownConnection = nil
  }

  /// Applies a new state to the inputs; one log line per change.
  private func apply(_ state: SessionState) {
    let before = applied
    applied = state
    var next = gate
    if next.devices != .waitingForLogind {  // (while held, `release` decides)
      next.devices = state.isActive ? .open : .released
    }
    next.shakesPaused =
      switch state.phase {
      case .inactive: "another session is in front"
      case .locked: "the screen is locked"
      case .active: nil
      }
    gate = next
    if state.isActive != before.isActive || state.isLocked != before.isLocked {
      let what: String
      if !state.isActive {
        what = "input devices released and closed, no shakes"
      } else if !before.isActive {
        what =
          state.isLocked
          ? "input devices taken again; no shakes while locked" : "input devices and shakes back"
      } else {
        what = state.isLocked ? "no shakes (motion streams go on)" : "shakes back"
      }
      logger.info("session: \(state)\(state.sessionID.map { " (logind session \($0))" } ?? ""): \(what)")
    }
    for observer in observers { observer(state) }
  }
}
