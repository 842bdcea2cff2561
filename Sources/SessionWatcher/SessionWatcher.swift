import DBus
import EventTime
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// Follows the user's logind session on the system bus (its `Active` and `LockedHint`
/// properties, through `PropertiesChanged`: nothing is polled) and the desktop's screen savers on
/// the session bus (`ActiveChanged` of `org.gnome.ScreenSaver` and `org.freedesktop.ScreenSaver`,
/// for desktops whose locker does not set `LockedHint`).
///
/// The session is found as `loginctl` finds it: `XDG_SESSION_ID` (`GetSession`), else the
/// session of the process (`GetSessionByPID`), else the user's display session (the `Display`
/// property of the logind user, followed when it changes: a user service runs outside any
/// session). Without a system bus, without logind or without a session of the user, the session
/// is taken as active and unlocked, and one line says so.
///
/// Runs on the buses' loop; observers hear every change of `state`.
public final class SessionWatcher {
  /// Who the watcher looks for.
  public struct Identity: Sendable, Equatable {
    /// `XDG_SESSION_ID`, when the process runs inside a session.
    public var sessionID: String?
    public var pid: UInt32
    public var uid: UInt32

    public init(sessionID: String?, pid: UInt32, uid: UInt32) {
      self.sessionID = sessionID
      self.pid = pid
      self.uid = uid
    }

    /// This process: `XDG_SESSION_ID`, its pid and its uid.
    public static func current() -> Identity {
      var sessionID: String?
      if let value = getenv("XDG_SESSION_ID"), value.pointee != 0 { sessionID = String(cString: value) }
      return Identity(sessionID: sessionID, pid: UInt32(getpid()), uid: UInt32(getuid()))
    }
  }

  /// A screen saver followed on the session bus.
  public struct ScreenSaver: Sendable, Equatable {
    public var name: String
    public var path: String
    public var interface: String

    public init(name: String, path: String, interface: String) {
      self.name = name
      self.path = path
      self.interface = interface
    }

    /// GNOME Shell's, and the freedesktop one (KDE Plasma, Xfce, LXQt, cinnamon-screensaver…).
    public static let standard = [
      ScreenSaver(
        name: "org.gnome.ScreenSaver", path: "/org/gnome/ScreenSaver", interface: "org.gnome.ScreenSaver"),
      ScreenSaver(
        name: "org.freedesktop.ScreenSaver", path: "/org/freedesktop/ScreenSaver",
        interface: "org.freedesktop.ScreenSaver"),
    ]
  }

  /// logind's bus name.
  public static let logindName = "org.freedesktop.login1"
  static let managerPath = "/org/freedesktop/login1"
  static let managerInterface = "org.freedesktop.login1.Manager"
  static let sessionInterface = "org.freedesktop.login1.Session"
  static let userInterface = "org.freedesktop.login1.User"

  /// The session now (active and unlocked until logind or a screen saver says otherwise).
  public private(set) var state = SessionState()
  /// How the followed session was found ("XDG_SESSION_ID", "the process's session", "the user's
  /// display session"); nil while no logind session is followed.
  public private(set) var foundBy: String?

  private let systemBus: (any MessageBus)?
  private let sessionBus: (any MessageBus)?
  private let identity: Identity
  private let screenSavers: [ScreenSaver]
  private let callTimeout: Seconds
  private var logger: Logger
  private var observers: [(SessionState) -> Void] = []
  /// Subscriptions kept while started: logind's owner, SessionRemoved, the screen savers.
  private var subscriptions: [DBusSubscription] = []
  /// The followed session's PropertiesChanged, and the user's (for `Display`).
  private var sessionSubscription: DBusSubscription?
  private var userSubscription: DBusSubscription?
  private var sessionPath: String?
  private var logindOwner: String?
  /// Counts searches: answers to an older one are dropped.
  private var generation = 0
  private var screenSaverStates: [String: Bool] = [:]
  /// The screen savers' owners, when they run as the user.
  private var screenSaverOwners: [String: String] = [:]
  /// Owners of another user, logged once each.
  private var refusedScreenSavers = Set<String>()
  /// Whether "taken as active" was logged since a session was last followed.
  private var loggedNoSession = false
  private var started = false

  /// A watcher of `identity`'s session. `systemBus` nil: no system bus (the session is taken as
  /// active); `sessionBus` nil: no screen saver is followed. Calls to logind and the screen
  /// savers give up after `callTimeout` seconds.
  public init(
    systemBus: (any MessageBus)?, sessionBus: (any MessageBus)?, identity: Identity = .current(),
    screenSavers: [ScreenSaver] = ScreenSaver.standard, callTimeout: Seconds = 5, logger: Logger
  ) {
    self.systemBus = systemBus
    self.sessionBus = sessionBus
    self.identity = identity
    self.screenSavers = screenSavers
    self.callTimeout = callTimeout
    self.logger = logger
  }

  deinit { stop() }

  /// Calls `observer` with the new state after every change.
  public func addObserver(_ observer: @escaping (SessionState) -> Void) {
    observers.append(observer)
  }

  /// Whether the watcher knows the session: a logind session was found and read, or it is known
  /// there is none (no system bus, no logind, no session of the user).
  public private(set) var isSettled = false
  private var settledActions: [() -> Void] = []

  /// Runs `action` once the watcher knows the session (at once when it does).
  public func whenSettled(_ action: @escaping () -> Void) {
    if isSettled { action() } else { settledActions.append(action) }
  }

  private func settle() {
    guard !isSettled else { return }
    isSettled = true
    let actions = settledActions
    settledActions.removeAll()
    for action in actions { action() }
  }

  /// Whether a logind session is followed now (found, and its values read).
  public var isFollowingLogind: Bool { foundBy != nil }

  /// Starts following logind and the screen savers (answers come as the loop runs).
  public func start() {
    guard !started else { return }
    started = true
    if let systemBus {
      subscriptions.append(
        systemBus.watchNameOwner(Self.logindName) { [weak self] owner in self?.logindOwnerChanged(owner) })
      subscriptions.append(
        systemBus.onSignal(
          sender: Self.logindName, path: Self.managerPath, interface: Self.managerInterface,
          member: "SessionRemoved"
        ) { [weak self] message in self?.sessionRemoved(message) })
      systemBus.addObserver { [weak self] event in
        guard let self, self.started, case .disconnected = event else { return }
        self.logindOwner = nil
        self.noSession("lost the system bus")
      }
    } else {
      noSession("no system bus")
    }
    if let sessionBus {
      for saver in screenSavers { follow(saver, on: sessionBus) }
      sessionBus.addObserver { [weak self] event in
        // The screen savers are asked again when the bus is back (their owners' watches).
        guard let self, self.started, case .disconnected = event else { return }
        for saver in self.screenSavers { self.screenSaver(saver.name, isActive: false) }
      }
    }
  }

  /// Stops following; the state stays as it was.
  public func stop() {
    started = false
    generation += 1
    for subscription in subscriptions { subscription.cancel() }
    subscriptions.removeAll()
    dropSession()
  }

  // MARK: logind

  private func logindOwnerChanged(_ owner: String?) {
    guard started else { return }
    guard let owner else {
      logindOwner = nil
      noSession("logind is not on the system bus")
      return
    }
    guard owner != logindOwner else { return }
    logindOwner = owner
    locate()
  }

  /// Finds the session: XDG_SESSION_ID, else the process's session, else the user's display.
  private func locate() {
    dropSession()
    generation += 1
    if let id = identity.sessionID, !id.isEmpty {
      callManager("GetSession", [.string(id)]) { [weak self] result in
        guard let self else { return }
        if case .success(let values) = result, let path = values.first?.objectPath {
          self.follow(sessionAt: path, foundBy: "XDG_SESSION_ID")
        } else {
          self.locateByPID()
        }
      }
    } else {
      locateByPID()
    }
  }

  private func locateByPID() {
    callManager("GetSessionByPID", [.uint32(identity.pid)]) { [weak self] result in
      guard let self else { return }
      if case .success(let values) = result, let path = values.first?.objectPath {
        self.follow(sessionAt: path, foundBy: "the process's session")
      } else {
        self.locateByDisplay()
      }
    }
  }

  private func locateByDisplay() {
    callManager("GetUser", [.uint32(identity.uid)]) { [weak self] result in
      guard let self else { return }
      guard case .success(let values) = result, let userPath = values.first?.objectPath else {
        if case .failure(let error) = result {
          self.noSession("logind knows no user \(self.identity.uid) (\(error.message))")
        }
        return
      }
      self.followDisplay(ofUserAt: userPath)
    }
  }

  /// Reads the user's `Display` (the session shown on a seat) and follows it; follows its changes.
  private func followDisplay(ofUserAt userPath: String) {
    guard let systemBus, let owner = logindOwner else { return }
    if userSubscription == nil {
      userSubscription = systemBus.onPropertiesChanged(
        sender: owner, path: userPath, interface: Self.userInterface
      ) { [weak self] _, changed, invalidated in
        guard changed["Display"] != nil || invalidated.contains("Display") else { return }
        self?.displayChanged(userPath: userPath)
      }
    }
    askLogind("the user's Display") { timeout, answer in
      systemBus.getProperty(
        "Display", interface: Self.userInterface, path: userPath, destination: owner, timeout: timeout,
        reply: answer)
    } reply: { [weak self] result in
      guard let self else { return }
      switch result {
      case .success(let value):
        // (so): the session's id and path; "/" when the user has no display session.
        guard let fields = value.elements, fields.count == 2, let path = fields[1].objectPath, path != "/"
        else {
          // (The user's Display is still followed: a session shown later is taken then.)
          self.noSession(
            "user \(self.identity.uid) has no graphical session in logind", keepingUserWatch: true)
          return
        }
        self.follow(sessionAt: path, foundBy: "the user's display session")
      case .failure(let error):
        self.noSession("cannot read the user's display session from logind (\(error.message))")
      }
    }
  }

  private func displayChanged(userPath: String) {
    guard started else { return }
    sessionSubscription?.cancel()
    sessionSubscription = nil
    sessionPath = nil
    foundBy = nil
    generation += 1
    followDisplay(ofUserAt: userPath)
  }

  /// Follows the session at `path`: its PropertiesChanged first, then its current values.
  private func follow(sessionAt path: String, foundBy how: String) {
    guard let systemBus, let owner = logindOwner else { return }
    sessionSubscription?.cancel()
    sessionSubscription = systemBus.onPropertiesChanged(
      sender: owner, path: path, interface: Self.sessionInterface
    ) { [weak self] _, changed, invalidated in
      self?.sessionPropertiesChanged(changed, invalidated: invalidated, path: path)
    }
    sessionPath = path
    readSession(at: path) { [weak self] id in
      guard let self else { return }
      self.foundBy = how
      self.loggedNoSession = false
      self.logger.info("session: following logind session \(id) (\(how)): \(self.state)")
    }
  }

  /// Reads Active, LockedHint and Id of the session at `path`; `done` gets its id.
  private func readSession(at path: String, done: ((String) -> Void)? = nil) {
    guard let systemBus, let owner = logindOwner else { return }
    askLogind("the session's properties") { timeout, answer in
      systemBus.getAllProperties(
        interface: Self.sessionInterface, path: path, destination: owner, timeout: timeout, reply: answer)
    } reply: { [weak self] result in
      guard let self, self.sessionPath == path else { return }
      switch result {
      case .success(let properties):
        let id = properties["Id"]?.string ?? path
        var next = self.state
        next.sessionID = id
        if let active = properties["Active"]?.bool { next.seat = active ? .active : .inactive }
        if let locked = properties["LockedHint"]?.bool { next.set(.logind, locked: locked) }
        done?(id)
        self.update(next)
        self.settle()
      case .failure(let error):
        self.noSession("cannot read logind session \(path) (\(error.message))")
      }
    }
  }

  private func sessionPropertiesChanged(_ changed: [String: DBusValue], invalidated: [String], path: String) {
    guard started, sessionPath == path else { return }
    var next = state
    if let active = changed["Active"]?.bool { next.seat = active ? .active : .inactive }
    if let locked = changed["LockedHint"]?.bool { next.set(.logind, locked: locked) }
    update(next)
    if invalidated.contains("Active") || invalidated.contains("LockedHint") { readSession(at: path) }
  }

  private func sessionRemoved(_ message: DBusMessage) {
    guard started, let path = sessionPath, message.arguments.count == 2,
      message.arguments[1].objectPath == path
    else { return }
    logger.info(
      "session: logind session \(state.sessionID ?? path) ended; looking for the user's session again")
    locate()
  }

  private func callManager(
    _ method: String, _ arguments: [DBusValue], reply: @escaping (Result<[DBusValue], DBusError>) -> Void
  ) {
    guard let systemBus, let owner = logindOwner else { return }
    askLogind(method) { timeout, answer in
      systemBus.call(
        destination: owner, path: Self.managerPath, interface: Self.managerInterface, method: method,
        arguments: arguments, timeout: timeout, reply: answer)
    } reply: {
      reply($0)
    }
  }

  /// The longest logind is waited for, in one call.
  static let longestCallTimeout: Seconds = 60

  /// Makes a call to logind (`call`, given its timeout and the answer's handler). When logind does
  /// not answer in time (busy at start-up) it is asked again, waiting twice as long each time (a
  /// minute at most): its late answer is taken, never read as "no such session". `reply` gets the
  /// answer of the current search only.
  private func askLogind<T>(
    _ what: String, timeout: Seconds? = nil,
    _ call: @escaping (Seconds, @escaping (Result<T, DBusError>) -> Void) -> Void,
    reply: @escaping (Result<T, DBusError>) -> Void
  ) {
    let asked = generation
    let timeout = timeout ?? callTimeout
    call(timeout) { [weak self] result in
      guard let self, self.started, self.generation == asked else { return }
      if case .failure(let error) = result, error.name == DBusError.Name.noReply {
        let longer = min(timeout * 2, Self.longestCallTimeout)
        self.logger.notice(
          "session: logind has not answered \(what) within \(Int(timeout.rounded())) s: asked again, waiting up to \(Int(longer.rounded())) s"
        )
        return self.askLogind(what, timeout: longer, call, reply: reply)
      }
      reply(result)
    }
  }

  private func dropSession() {
    sessionSubscription?.cancel()
    sessionSubscription = nil
    userSubscription?.cancel()
    userSubscription = nil
    sessionPath = nil
    foundBy = nil
  }

  /// No logind session to follow: active and unlocked as far as logind goes; said once.
  private func noSession(_ reason: String, keepingUserWatch: Bool = false) {
    generation += 1
    let userWatch = userSubscription
    userSubscription = nil
    dropSession()
    if keepingUserWatch {
      userSubscription = userWatch
    } else {
      userWatch?.cancel()
    }
    if !loggedNoSession {
      loggedNoSession = true
      logger.notice("session: \(reason): the session is taken as active and unlocked")
    }
    var next = state
    next.seat = .active
    next.set(.logind, locked: false)
    next.sessionID = nil
    update(next)
    settle()
  }

  // MARK: Screen savers

  private func follow(_ saver: ScreenSaver, on bus: any MessageBus) {
    subscriptions.append(
      bus.onSignal(sender: saver.name, interface: saver.interface, member: "ActiveChanged") {
        [weak self] message in
        guard let self, let active = message.arguments.first?.bool,
          let owner = self.screenSaverOwners[saver.name], message.sender == owner
        else { return }
        self.screenSaver(saver.name, isActive: active)
      })
    // Another user's program owning the name (a bus shared by users) is not the screen saver.
    let refused: (String, UInt32?) -> Void = { [weak self] owner, uid in
      guard let self, self.refusedScreenSavers.insert(owner).inserted else { return }
      self.logger.notice(
        "session: \(saver.name) is owned by \(owner), which \(uid.map { "runs as uid \($0)" } ?? "runs as a user the bus cannot tell"), not as uid \(self.identity.uid): not believed"
      )
    }
    subscriptions.append(
      bus.watchNameOwner(saver.name, runningAs: identity.uid, refused: refused) {
        [weak self, weak bus] owner in
        guard let self, self.started else { return }
        self.screenSaverOwners[saver.name] = owner
        guard let owner, let bus else {
          self.screenSaver(saver.name, isActive: false)
          return
        }
        bus.call(
          destination: owner, path: saver.path, interface: saver.interface, method: "GetActive",
          timeout: self.callTimeout
        ) { [weak self] result in
          // A screen saver that cannot say is taken as inactive.
          guard let self, self.started, case .success(let values) = result, let active = values.first?.bool
          else { return }
          self.screenSaver(saver.name, isActive: active)
        }
      })
  }

  private func screenSaver(_ name: String, isActive active: Bool) {
    guard started else { return }
    screenSaverStates[name] = active
    var next = state
    next.set(.screenSaver, locked: screenSaverStates.values.contains(true))
    update(next)
  }

  private func update(_ next: SessionState) {
    guard next != state else { return }
    state = next
    for observer in observers { observer(next) }
  }
}
