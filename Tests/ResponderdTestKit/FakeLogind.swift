import DBus
import EventTime
import SessionWatcher

/// logind as the watcher sees it on the system bus (`org.freedesktop.login1`): the manager's
/// GetSession, GetSessionByPID and GetUser, sessions with Active, LockedHint and Id, users with
/// Display; a change is announced with PropertiesChanged as logind announces it.
///
/// Beside `MockLogind` (DBusTestSupport) on purpose: that one is python-dbusmock's model of logind,
/// written by others, on a private system bus the service reaches by address through libdbus (the
/// device tests and the service's session tests). This one is on the in-memory bus and virtual
/// time, for the unit tests, and has what dbusmock's template has not: GetSessionByPID and
/// answers that come late (`getSessionDelay`, on virtual time); it also records the calls asked.
public final class FakeLogind {
  public let connection: InMemoryBusConnection
  /// Sessions by id.
  public private(set) var sessions: [String: DBusExportedObject] = [:]
  private var values: [String: (active: Bool, locked: Bool)] = [:]
  /// The session each pid runs in (GetSessionByPID).
  public var sessionOfPID: [UInt32: String] = [:]
  /// Each user's display session (nil: "/").
  private var displays: [UInt32: String] = [:]
  private var users: [UInt32: DBusExportedObject] = [:]
  /// Methods asked, in order ("GetSession 3").
  public private(set) var asked: [String] = []

  /// How long GetSession takes to answer (on `scheduler`), as a logind slow at start-up does.
  public var getSessionDelay: Seconds = 0
  private let scheduler: Scheduler?

  /// logind on `bus` (owning its name unless `owningName` is false: a system without logind);
  /// late answers are timed on `scheduler`.
  public init(bus: InMemoryBus, owningName: Bool = true, scheduler: Scheduler? = nil) throws {
    self.scheduler = scheduler
    connection = bus.connect(uid: 0, pid: 1)
    try connection.export(
      path: "/org/freedesktop/login1",
      interfaces: [
        DBusInterface(
          "org.freedesktop.login1.Manager",
          methods: [
            .replyLater("GetSession", in: "s", out: "o") { [unowned self] call in
              let id = call.arguments[0].string ?? ""
              self.asked.append("GetSession \(id)")
              let answer = { [unowned self] in
                guard self.sessions[id] != nil else {
                  return call.reply(
                    error: DBusError("org.freedesktop.login1.NoSuchSession", "No session '\(id)' known"))
                }
                call.reply([.objectPath(Self.path(ofSession: id))])
              }
              guard let scheduler = self.scheduler, self.getSessionDelay > 0 else { return answer() }
              _ = scheduler.schedule(after: self.getSessionDelay, answer)
            },
            DBusMethod("GetSessionByPID", in: "u", out: "o") { [unowned self] call in
              let pid = call.arguments[0].uint32 ?? 0
              self.asked.append("GetSessionByPID \(pid)")
              guard let id = self.sessionOfPID[pid] else {
                throw DBusError(
                  "org.freedesktop.login1.NoSessionForPID", "PID \(pid) does not belong to any known session")
              }
              return [.objectPath(Self.path(ofSession: id))]
            },
            DBusMethod("GetUser", in: "u", out: "o") { [unowned self] call in
              let uid = call.arguments[0].uint32 ?? 0
              self.asked.append("GetUser \(uid)")
              guard self.users[uid] != nil else {
                throw DBusError("org.freedesktop.login1.NoSuchUser", "No user \(uid) known")
              }
              return [.objectPath("/org/freedesktop/login1/user/_\(uid)")]
            },
          ])
      ])
    if owningName { connection.requestName(SessionWatcher.logindName) }
  }

  /// logind escapes ids in paths ("3" is "_33"); the watcher must ask, not build paths.
  public static func path(ofSession id: String) -> String {
    "/org/freedesktop/login1/session/" + id.utf8.map { "_" + String($0, radix: 16) }.joined()
  }

  /// A session `id` (not locked), active or not.
  public func addSession(_ id: String, active: Bool) throws {
    values[id] = (active, false)
    let object = try connection.export(
      path: Self.path(ofSession: id),
      interfaces: [
        DBusInterface(
          "org.freedesktop.login1.Session",
          properties: [
            DBusProperty("Id", changeSignal: .constant, get: { id }),
            DBusProperty("Active", get: { [unowned self] in self.values[id]?.active ?? false }),
            DBusProperty("LockedHint", get: { [unowned self] in self.values[id]?.locked ?? false }),
          ])
      ])
    sessions[id] = object
  }

  /// A user `uid` whose display session is `display` (nil: none).
  public func addUser(_ uid: UInt32, display: String?) throws {
    displays[uid] = display
    users[uid] = try connection.export(
      path: "/org/freedesktop/login1/user/_\(uid)",
      interfaces: [
        DBusInterface(
          "org.freedesktop.login1.User",
          properties: [
            DBusProperty(
              "Display", signature: "(so)",
              get: { [unowned self] in
                let id = self.displays[uid] ?? nil
                return .structure([
                  .string(id ?? ""), .objectPath(id.map { Self.path(ofSession: $0) } ?? "/"),
                ])
              })
          ])
      ])
  }

  /// Changes the user's display session and announces it.
  public func setDisplay(of uid: UInt32, to id: String?) throws {
    displays[uid] = id
    try users[uid]?.propertiesChanged(interface: "org.freedesktop.login1.User", ["Display"])
  }

  /// Sets Active and announces it (PropertiesChanged with the value, as logind does).
  public func setActive(_ id: String, _ active: Bool) throws {
    values[id]?.active = active
    try sessions[id]?.propertiesChanged(interface: "org.freedesktop.login1.Session", ["Active"])
  }

  /// Sets LockedHint and announces it.
  public func setLockedHint(_ id: String, _ locked: Bool) throws {
    values[id]?.locked = locked
    try sessions[id]?.propertiesChanged(interface: "org.freedesktop.login1.Session", ["LockedHint"])
  }

  /// Changes Active but announces it as invalidated (the name without the value).
  public func setActiveInvalidating(_ id: String, _ active: Bool) throws {
    values[id]?.active = active
    try sessions[id]?.emitPropertiesChanged(
      interface: "org.freedesktop.login1.Session", changed: [:], invalidated: ["Active"])
  }

  /// The session ends (logout): SessionRemoved, and its object goes.
  public func removeSession(_ id: String) throws {
    let path = Self.path(ofSession: id)
    sessions.removeValue(forKey: id)?.unexport()
    values[id] = nil
    try connection.emitSignal(
      path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", name: "SessionRemoved",
      arguments: [.string(id), .objectPath(path)])
  }
}

/// A desktop's screen saver on the session bus: GetActive and ActiveChanged.
public final class FakeScreenSaver {
  public let connection: InMemoryBusConnection
  public let saver: SessionWatcher.ScreenSaver
  public private(set) var active: Bool
  private var object: DBusExportedObject?

  /// A screen saver run by `uid`.
  public init(bus: InMemoryBus, _ saver: SessionWatcher.ScreenSaver, active: Bool = false, uid: UInt32) throws
  {
    connection = bus.connect(uid: uid)
    self.saver = saver
    self.active = active
    object = try connection.export(
      path: saver.path,
      interfaces: [
        DBusInterface(
          saver.interface,
          methods: [DBusMethod("GetActive", out: "b") { [unowned self] _ in [.bool(self.active)] }],
          signals: [DBusSignalInfo("ActiveChanged", signature: "b")])
      ])
    connection.requestName(saver.name)
  }

  /// Sets the screen saver on or off and announces it (ActiveChanged).
  public func setActive(_ active: Bool) throws {
    self.active = active
    try object?.emit(interface: saver.interface, signal: "ActiveChanged", arguments: [.bool(active)])
  }
}
