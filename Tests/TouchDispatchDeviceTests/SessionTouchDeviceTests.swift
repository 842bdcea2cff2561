import DBusTestSupport
import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import SessionWatcher
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The touchscreen follows the logind session (python3-dbusmock's template on a private system
/// bus): closed when another user's session comes in front, opened again when it is back.
extension TouchDispatchDeviceTests {
  @Suite("The touchscreen and the logind session") struct SessionTouchDeviceTests {
    @Test func inactiveSessionClosesTheTouchscreen() throws {
      let testbed = try TouchscreenTestbed()
      let config = try ResponderdConfig.parse(
        swipeRule("next", fingers: 3, "left", "nextTrack"), file: "test.toml")
      let loop = try EventLoop()
      let logind = try MockLogind(loop: loop)
      try logind.addSession("c1", uid: getuid(), active: true)
      let harness = try LoopService(config: config, loop: loop)
      let session = harness.service.sessionComponent(
        systemBusAddress: logind.address,
        identity: .init(sessionID: "c1", pid: UInt32(getpid()), uid: getuid()), sessionBus: nil)
      let component = harness.service.touchGesturesComponent(
        desktop: nil, session: session, motion: nil, motionAPI: nil)
      harness.add(session)
      harness.add(component)
      harness.start()
      defer { harness.stop() }
      #expect(loop.run(until: { component.source != nil }, timeout: 5))
      #expect(component.source?.device.path == testbed.devnode)

      let switched = loop.scheduler.now
      logind.updateSession("c1", ["Active": .bool(false)])
      #expect(loop.run(until: { component.source == nil }, timeout: 5))
      let latency = loop.scheduler.now - switched
      #expect(latency < 0.1, "closed \(Int(latency * 1000)) ms after the session went inactive")
      #expect(component.isSuspended)

      logind.updateSession("c1", ["Active": .bool(true)])
      #expect(loop.run(until: { component.source != nil }, timeout: 5))
      #expect(component.source?.device.path == testbed.devnode)
    }
  }
}
