import DBus
import ResponderdKit
import ResponderdTestKit
import Testing

/// What the session lets the inputs do (`SessionComponent.InputGate`) as logind changes, on the
/// test kit's `FakeLogind` (an in-memory system bus, virtual time): no bus daemon started.
@Suite struct SessionGateTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let system: InMemoryBus
  let logind: FakeLogind
  /// The gates the inputs were given, in order.
  let gates = Recorded<SessionComponent.InputGate>()

  init() throws {
    harness = try InMemoryService()
    system = InMemoryBus(scheduler: harness.time)
    logind = try FakeLogind(bus: system, scheduler: harness.time)
  }

  /// The session component of logind session 3, started.
  func startSession() -> SessionComponent {
    let session = service.sessionComponent(
      systemBus: system.connect(), identity: .init(sessionID: "3", pid: 4242, uid: 1000), sessionBus: nil)
    session.addGateObserver { [gates] in gates.values.append($0) }
    harness.add(session)
    harness.start()
    return session
  }

  @Test func anotherSessionInFrontReleasesTheDevicesAndComingBackOpensThem() throws {
    try logind.addSession("3", active: true)
    let session = startSession()
    #expect(session.gate == .init(devices: .open))
    try logind.setActive("3", false)
    settle()
    #expect(session.gate == .init(devices: .released, shakesPaused: "another session is in front"))
    #expect(
      log.all.contains(
        "info: session: inactive (logind session 3): input devices released and closed, no shakes"))
    try logind.setActive("3", true)
    settle()
    #expect(session.gate == .init(devices: .open))
    #expect(
      gates.values.map(\.devices) == [.waitingForLogind, .open, .released, .open])
  }

  @Test func aLockedScreenPausesShakesAndKeepsTheDevices() throws {
    try logind.addSession("3", active: true)
    let session = startSession()
    try logind.setLockedHint("3", true)
    settle()
    #expect(session.gate == .init(devices: .open, shakesPaused: "the screen is locked"))
    try logind.setLockedHint("3", false)
    settle()
    #expect(session.gate == .init(devices: .open))
  }

  @Test func devicesWaitForASlowLogindTwoSecondsAtMost() throws {
    try logind.addSession("3", active: false)
    logind.getSessionDelay = 3
    let session = startSession()
    #expect(session.gate.devices == .waitingForLogind)
    time.advance(by: SessionComponent.holdLimit)
    #expect(session.gate.devices == .open)
    #expect(log.all.contains { $0.contains("logind has not answered in 2 s") })
    // Its answer comes a second later: the session is not in front, so the devices go.
    time.advance(by: 1)
    #expect(session.gate.devices == .released)
  }
}
