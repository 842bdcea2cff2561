import DBus
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's rule for callers: only processes of its own user are answered, on every object
/// and interface it exports (set as the bus's `callerCheck`: the responder API, the MPRIS proxy
/// player, their properties and introspection alike). A connection's credentials are asked of the
/// bus once (`GetConnectionCredentials`) and kept: a unique name is never given twice on a bus.
public final class SameUserCallers {
  /// Who a caller is.
  public struct Caller: Sendable, Equatable {
    public var uid: UInt32
    public var pid: UInt32?
  }

  private weak var bus: (any MessageBus)?
  private var newCallerObservers: [(String) -> Void] = []
  private let uid: UInt32
  private let logger: Logger
  private var known: [String: Caller] = [:]
  private var asking: [String: [(Result<Caller, DBusError>) -> Void]] = [:]
  /// How many connections' credentials are kept (all forgotten when there are more).
  static let remembered = 512

  /// Checks callers on `bus` against `uid` (the daemon's own user).
  public init(bus: any MessageBus, uid: UInt32 = getuid(), logger: Logger) {
    self.bus = bus
    self.uid = uid
    self.logger = logger
    bus.addObserver { [weak self] event in
      // Another bus (after a reconnection) gives names anew.
      if case .connected = event {
        self?.known.removeAll()
        self?.refusedConnections.removeAll()
      }
    }
  }

  /// Calls `observer` with the unique name of each connection of the daemon's user that calls the
  /// daemon for the first time (once its credentials are known).
  public func addNewCallerObserver(_ observer: @escaping (String) -> Void) {
    newCallerObservers.append(observer)
  }

  /// The check to set as the bus's `callerCheck`.
  public var check: DBusCallerCheck {
    { [weak self] sender, member, done in
      guard let self else { return done(DBusError.disconnected()) }
      self.caller(sender, member: member) { result in
        switch result {
        case .success: done(nil)
        case .failure(let error): done(error)
        }
      }
    }
  }

  /// The caller `sender`, when it runs as the daemon's user; AccessDenied otherwise (logged once
  /// per connection, naming `member`, the call it made).
  public func caller(
    _ sender: String, member: String, then body: @escaping (Result<Caller, DBusError>) -> Void
  ) {
    if let caller = known[sender] { return body(verdict(caller, sender)) }
    if asking[sender] != nil {
      asking[sender]!.append(body)
      return
    }
    guard let bus else { return body(.failure(.disconnected())) }
    asking[sender] = [body]
    bus.call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetConnectionCredentials", arguments: [.string(sender)], timeout: 5
    ) { [weak self] result in
      guard let self else { return }
      let waiting = self.asking.removeValue(forKey: sender) ?? []
      let outcome: Result<Caller, DBusError>
      if case .success(let values) = result, let credentials = values.first?.dictionary,
        let uid = credentials["UnixUserID"]?.uint32
      {
        let caller = Caller(uid: uid, pid: credentials["ProcessID"]?.uint32)
        if self.known.count >= Self.remembered { self.known.removeAll() }
        self.known[sender] = caller
        outcome = self.verdict(caller, sender)
        if caller.uid != self.uid {
          self.logRefusal(of: sender, uid: caller.uid, member: member)
        } else {
          for observer in self.newCallerObservers { observer(sender) }
        }
      } else {
        outcome = .failure(
          DBusError(DBusError.Name.accessDenied, "responderd cannot tell which user \(sender) runs as"))
      }
      for body in waiting { body(outcome) }
    }
  }

  /// Runs `body` with the caller of `call` when it runs as the daemon's user; answers the call
  /// with the error otherwise (AccessDenied).
  func check(_ call: DBusMethodCall, then body: @escaping (Caller) -> Void) {
    caller(call.sender, member: call.member) { result in
      switch result {
      case .success(let caller): body(caller)
      case .failure(let error): call.reply(error: error)
      }
    }
  }

  /// Connections refused, by uid (since the last connection to the bus).
  private var refusedConnections: [UInt32: Int] = [:]

  /// Logs a refused connection: the first of each uid as a warning, then one warning per 100 (a
  /// stranger opening connections in a loop costs a line per 100, not one each); the others at
  /// debug level.
  private func logRefusal(of sender: String, uid: UInt32, member: String) {
    let count = (refusedConnections[uid] ?? 0) + 1
    refusedConnections[uid] = count
    let message: Logger.Message =
      "bus: refused \(member.loggable) from \(sender.loggable): it runs as uid \(uid), not as uid \(self.uid)"
    if count == 1 {
      logger.warning("\(message) (further connections of uid \(uid) are counted, one warning per 100)")
    } else if count % 100 == 0 {
      logger.warning("\(message): \(count) connections of uid \(uid) refused so far")
    } else {
      logger.debug(message)
    }
  }

  private func verdict(_ caller: Caller, _ sender: String) -> Result<Caller, DBusError> {
    guard caller.uid == uid else {
      return .failure(
        DBusError(
          DBusError.Name.accessDenied,
          "\(sender) runs as uid \(caller.uid): responderd (uid \(uid)) answers its own user only"))
    }
    return .success(caller)
  }
}
