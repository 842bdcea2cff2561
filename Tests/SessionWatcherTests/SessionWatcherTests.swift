import DBus
import EventTime
import Logging
import ResponderdTestKit
import SessionWatcher
import Testing

/// The watcher's logic on in-memory buses and virtual time: how it finds the session, what it
/// follows, what it ignores, and that it never wakes up on its own.
@Suite struct SessionWatcherTests {
  let time = VirtualScheduler(now: 100)
  let system: InMemoryBus
  let session: InMemoryBus
  let log = RecordingLogHandler.Store()
  let uid: UInt32 = 1000
  let pid: UInt32 = 4242

  init() {
    system = InMemoryBus(scheduler: time)
    session = InMemoryBus(scheduler: time)
  }

  /// A started watcher of user `uid`, process `pid`, with `sessionID` as XDG_SESSION_ID, and the
  /// states it reported.
  func watcher(
    sessionID: String? = nil, systemBus: Bool = true, sessionBus: Bool = true
  ) -> (SessionWatcher, () -> [SessionState]) {
    let store = log
    let watcher = SessionWatcher(
      systemBus: systemBus ? system.connect() : nil, sessionBus: sessionBus ? session.connect() : nil,
      identity: .init(sessionID: sessionID, pid: pid, uid: uid),
      logger: Logger(label: "test") { _ in RecordingLogHandler(store: store) })
    let states = StateList()
    watcher.addObserver { states.values.append($0) }
    watcher.start()
    time.advance(by: 0)
    return (watcher, { states.values })
  }

  @Test("XDG_SESSION_ID names the session; Active and LockedHint are followed as logind announces them")
  func followsTheNamedSession() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    let (watcher, states) = watcher(sessionID: "3")
    #expect(logind.asked == ["GetSession 3"])
    #expect(watcher.state == SessionState(.active, sessionID: "3"))
    #expect(watcher.foundBy == "XDG_SESSION_ID")
    #expect(log.all.contains("info: session: following logind session 3 (XDG_SESSION_ID): active"))

    try logind.setActive("3", false)
    time.advance(by: 0)
    #expect(watcher.state.isActive == false)
    #expect(watcher.state.description == "inactive")
    try logind.setActive("3", true)
    try logind.setLockedHint("3", true)
    time.advance(by: 0)
    #expect(watcher.state.word == "locked")
    #expect(watcher.state.description == "active, locked (logind)")
    try logind.setLockedHint("3", false)
    time.advance(by: 0)
    #expect(states().map(\.word) == ["active", "inactive", "active", "locked", "active"])
    // Idle means idle: nothing is left to wake up (no polling, no pending call).
    #expect(time.pendingCount == 0)
  }

  @Test("without XDG_SESSION_ID: the process's session, else the user's display session")
  func fallsBackToThePIDThenTheDisplay() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("c2", active: false)
    try logind.addSession("5", active: true)
    try logind.addUser(uid, display: "5")
    logind.sessionOfPID[pid] = "c2"
    let (byPID, _) = watcher()
    #expect(byPID.state.sessionID == "c2")
    #expect(byPID.state.isActive == false)
    #expect(byPID.foundBy == "the process's session")

    // A user service runs outside any session: the user's display session is the one.
    logind.sessionOfPID = [:]
    let (byDisplay, _) = watcher(sessionID: "gone")
    #expect(byDisplay.state == SessionState(.active, sessionID: "5"))
    #expect(byDisplay.foundBy == "the user's display session")
    #expect(
      logind.asked.suffix(3) == ["GetSession gone", "GetSessionByPID \(pid)", "GetUser \(uid)"])
  }

  @Test("the user's display session changes: the new one is followed, the old one no longer")
  func followsANewDisplaySession() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("5", active: true)
    try logind.addSession("6", active: false)
    try logind.addUser(uid, display: nil)
    let (watcher, _) = watcher()
    #expect(watcher.state == SessionState())
    #expect(!watcher.isFollowingLogind)
    #expect(log.all.contains { $0.contains("has no graphical session") && $0.contains("taken as active") })

    try logind.setDisplay(of: uid, to: "6")
    time.advance(by: 0)
    #expect(watcher.state == SessionState(.inactive, sessionID: "6"))
    try logind.setDisplay(of: uid, to: "5")
    time.advance(by: 0)
    #expect(watcher.state == SessionState(.active, sessionID: "5"))
    try logind.setActive("6", true)
    try logind.setActive("5", false)
    time.advance(by: 0)
    #expect(watcher.state == SessionState(.inactive, sessionID: "5"))
  }

  @Test("a value announced as invalidated is read again")
  func readsInvalidatedValuesAgain() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    let (watcher, _) = watcher(sessionID: "3")
    try logind.setActiveInvalidating("3", false)
    time.advance(by: 0)
    #expect(watcher.state.isActive == false)
  }

  @Test("PropertiesChanged from another connection than logind is ignored")
  func ignoresImpostors() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    let (watcher, _) = watcher(sessionID: "3")
    let impostor = system.connect()
    try impostor.emitSignal(
      path: FakeLogind.path(ofSession: "3"), interface: "org.freedesktop.DBus.Properties",
      name: "PropertiesChanged",
      arguments: [
        .string("org.freedesktop.login1.Session"), .vardict(["Active": .bool(false)]),
        .array(elementSignature: "s", []),
      ])
    time.advance(by: 0)
    #expect(watcher.state.isActive == true)
  }

  @Test("no system bus, or no logind on it: active and unlocked, said in one line")
  func noLogindMeansActive() throws {
    let (without, _) = watcher(systemBus: false)
    #expect(without.state == SessionState())
    #expect(log.all == ["notice: session: no system bus: the session is taken as active and unlocked"])

    let (waiting, states) = watcher()
    #expect(waiting.state == SessionState())
    #expect(
      log.all.last
        == "notice: session: logind is not on the system bus: the session is taken as active and unlocked")
    // logind starts later: its session is followed from then on.
    let logind = try FakeLogind(bus: system, owningName: false)
    try logind.addSession("3", active: false)
    logind.sessionOfPID[pid] = "3"
    logind.connection.requestName(SessionWatcher.logindName)
    time.advance(by: 0)
    #expect(waiting.state == SessionState(.inactive, sessionID: "3"))
    // logind goes away (restarted, crashed): active again, one line.
    let lines = log.all.count
    logind.connection.leave()
    time.advance(by: 0)
    #expect(waiting.state == SessionState())
    #expect(log.all.count == lines + 1)
    #expect(states().map(\.word) == ["inactive", "active"])
    #expect(time.pendingCount == 0)
  }

  @Test("the session ends: the user's session is looked for again")
  func looksAgainWhenTheSessionEnds() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    try logind.addSession("4", active: false)
    try logind.addUser(uid, display: "4")
    let (watcher, _) = watcher(sessionID: "3")
    #expect(watcher.state.sessionID == "3")
    try logind.removeSession("3")
    time.advance(by: 0)
    #expect(watcher.state == SessionState(.inactive, sessionID: "4"))
    #expect(watcher.foundBy == "the user's display session")
  }

  /// Issue 38: another user's program owning a screen saver's name (a bus shared by users) made
  /// responderd believe the screen locked.
  @Test("a screen saver's name owned by another user is not believed, and that is said once")
  func aScreenSaverOfAnotherUserIsNotBelieved() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    let stranger = try FakeScreenSaver(
      bus: session, SessionWatcher.ScreenSaver.standard[0], active: true, uid: uid + 1)
    let (watcher, _) = watcher(sessionID: "3")
    #expect(!watcher.state.isLocked)
    try stranger.setActive(false)
    try stranger.setActive(true)
    time.advance(by: 0)
    #expect(!watcher.state.isLocked)
    let lines = log.all.filter { $0.contains("org.gnome.ScreenSaver is owned by") }
    #expect(lines.count == 1)
    #expect(
      lines.first?.contains("runs as uid \(uid + 1), not as uid \(uid): not believed") == true, "\(lines)")

    // The user's own screen saver, once the stranger has left, is.
    stranger.connection.leave()
    let own = try FakeScreenSaver(
      bus: session, SessionWatcher.ScreenSaver.standard[0], active: true, uid: uid)
    time.advance(by: 0)
    #expect(watcher.state.isLocked)
    _ = own
  }

  /// Issue 38: GetSession answering after 5 s turned session tracking off for good ("user 0 has
  /// no graphical session"), and a later Active = false was never seen.
  @Test("a logind slow to answer is asked again, and its late answer is taken")
  func aSlowLogindIsAskedAgainAndFollowed() throws {
    let logind = try FakeLogind(bus: system, scheduler: time)
    try logind.addSession("3", active: true)
    logind.getSessionDelay = 5.5
    let (watcher, _) = watcher(sessionID: "3")
    time.advance(by: 5)
    #expect(logind.asked == ["GetSession 3", "GetSession 3"])
    #expect(watcher.foundBy == nil)
    time.advance(by: 6)
    #expect(watcher.foundBy == "XDG_SESSION_ID")
    #expect(watcher.state == SessionState(.active, sessionID: "3"))
    #expect(log.all.contains { $0.contains("logind has not answered GetSession within 5 s: asked again") })
    #expect(!log.all.contains { $0.contains("graphical session") || $0.contains("taken as active") })
    try logind.setActive("3", false)
    time.advance(by: 0)
    #expect(watcher.state.isActive == false)
  }

  @Test("a screen saver's ActiveChanged locks and unlocks; one that leaves the bus unlocks")
  func screenSaversLock() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    let gnome = try FakeScreenSaver(bus: session, SessionWatcher.ScreenSaver.standard[0], uid: uid)
    let (watcher, states) = watcher(sessionID: "3")
    #expect(watcher.state.isLocked == false)
    try gnome.setActive(true)
    time.advance(by: 0)
    #expect(watcher.state.description == "active, locked (screen saver)")
    #expect(watcher.state.isInFront == false)
    try gnome.setActive(false)
    time.advance(by: 0)
    #expect(watcher.state.isInFront)

    // Started while the screen is locked: GetActive says so.
    let freedesktop = try FakeScreenSaver(
      bus: session, SessionWatcher.ScreenSaver.standard[1], active: true, uid: uid)
    time.advance(by: 0)
    #expect(watcher.state.locks.contains(.screenSaver))
    // Both lock; one unlocking leaves the screen locked.
    try gnome.setActive(true)
    try freedesktop.setActive(false)
    time.advance(by: 0)
    #expect(watcher.state.isLocked)
    gnome.connection.leave()
    time.advance(by: 0)
    #expect(!watcher.state.isLocked)
    // (The first "active" is the session found: its id.)
    #expect(states().map(\.word) == ["active", "locked", "active", "locked", "active"])

    // Another program's ActiveChanged under the screen saver's interface is not the screen saver's.
    let impostor = session.connect()
    try impostor.emitSignal(
      path: "/org/gnome/ScreenSaver", interface: "org.gnome.ScreenSaver", name: "ActiveChanged",
      arguments: [.bool(true)])
    time.advance(by: 0)
    #expect(!watcher.state.isLocked)
  }

  @Test("losing a bus forgets what it said: the system bus (active), the session bus (unlocked)")
  func losingABusForgetsItsState() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: false)
    let saver = try FakeScreenSaver(
      bus: session, SessionWatcher.ScreenSaver.standard[0], active: true, uid: uid)
    let systemConnection = system.connect()
    let sessionConnection = session.connect()
    let store = log
    let watcher = SessionWatcher(
      systemBus: systemConnection, sessionBus: sessionConnection,
      identity: .init(sessionID: "3", pid: pid, uid: uid),
      logger: Logger(label: "test") { _ in RecordingLogHandler(store: store) })
    watcher.start()
    time.advance(by: 0)
    #expect(watcher.state == SessionState(.inactive, locks: [.screenSaver], sessionID: "3"))
    sessionConnection.leave()
    #expect(watcher.state == SessionState(.inactive, sessionID: "3"))
    systemConnection.leave()
    #expect(watcher.state == SessionState())
    #expect(
      log.all.last == "notice: session: lost the system bus: the session is taken as active and unlocked")
    #expect(saver.active, "the screen saver itself did not change")
  }

  @Test("after stop nothing is followed")
  func stopStopsFollowing() throws {
    let logind = try FakeLogind(bus: system)
    try logind.addSession("3", active: true)
    let (watcher, states) = watcher(sessionID: "3")
    #expect(states() == [SessionState(.active, sessionID: "3")])
    watcher.stop()
    try logind.setActive("3", false)
    time.advance(by: 0)
    #expect(states().count == 1)
    #expect(watcher.state.isActive)
  }
}

/// The states an observer heard.
final class StateList {
  var values: [SessionState] = []
}
