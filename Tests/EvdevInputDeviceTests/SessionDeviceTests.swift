import DBusTestSupport
import DeviceTestSupport
import EvdevInput
import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import SessionWatcher
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension EvdevInputDeviceTests {
  /// Issue 23 item 3 with real parts: logind is python3-dbusmock's template on a private system
  /// bus, the headset an emulated device under umockdev, the keys component and the session
  /// component the daemon's own.
  @Suite("Fast user switching: the keys follow the logind session")
  struct SessionDeviceTests {
    /// The descriptors of this process open on an emulated evdev node (umockdev's ptys).
    func emulatedNodesOpen() -> Int {
      var count = 0
      guard let dir = opendir("/proc/self/fd") else { return -1 }
      defer { closedir(dir) }
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        var target = [CChar](repeating: 0, count: 256)
        let length = readlink("/proc/self/fd/" + name, &target, target.count - 1)
        guard length > 0 else { continue }
        let path = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.hasPrefix("/dev/pts/") { count += 1 }
      }
      return count
    }

    /// The daemon's session and keys components on a loop of their own, following logind session
    /// `id` of python3-dbusmock (active or not); their log kept.
    struct SessionRig {
      let loop: EventLoop
      let logind: MockLogind
      let store: LogStore
      let harness: LoopService
      let session: SessionComponent
      let keys: KeysComponent

      init(session id: String, active: Bool, config: ResponderdConfig) throws {
        loop = try EventLoop()
        logind = try MockLogind(loop: loop)
        try logind.addSession(id, uid: getuid(), active: active)
        let store = LogStore()
        self.store = store
        let logger = Logger(label: "responderd") { _ in RecordingLogHandler(store: store) }
        harness = try LoopService(config: config, loop: loop, logger: logger)
        session = harness.service.sessionComponent(
          systemBusAddress: logind.address,
          identity: .init(sessionID: id, pid: UInt32(getpid()), uid: getuid()),
          sessionBus: nil)
        keys = harness.service.keysComponent(bus: nil, session: session)
        harness.add(session)
        harness.add(keys)
      }
    }

    @Test(
      "session away: the headset is ungrabbed and closed within 100 ms of PropertiesChanged; back: taken again"
    )
    func inactiveSessionReleasesTheDevices() throws {
      let tb = try Testbed()
      let rig = try SessionRig(
        session: "c1", active: true,
        config: try ResponderdConfig.parse("chain = [\"log\"]\n[log]\nhandles = true\n", file: "test.toml"))
      let (loop, logind, store, harness, session, keys) = (
        rig.loop, rig.logind, rig.store, rig.harness, rig.session, rig.keys
      )
      var dispatches: [DispatchRecord] { harness.records }
      let ptysBefore = emulatedNodesOpen()
      // The kernel's EVIOCGRAB, answered live (the grab lands on the headset: a USB audio device).
      let (headset, grab) = try tb.addLive("headset")
      harness.start()
      defer { harness.stop() }
      func wait(_ what: String, timeout: Double = 5, _ condition: () -> Bool) throws {
        guard loop.run(until: condition, timeout: timeout) else {
          throw TestbedError(
            description: "timed out waiting for \(what); log:\n\(store.all.joined(separator: "\n"))")
        }
      }
      try wait("the session to be followed") { session.watcher?.isFollowingLogind == true }
      #expect(session.state == SessionState(.active, sessionID: "c1"))
      #expect(keys.input?.openDevices.map(\.path) == ["/dev/input/event7"])
      #expect(emulatedNodesOpen() == ptysBefore + 1)
      #expect(grab.isGrabbed)
      // The devices waited for logind's answer, quietly: one "reading" line, no "inactive".
      #expect(!store.all.contains { $0.contains("inactive") || $0.contains("no device") }, "\(store.all)")
      #expect(store.all.filter { $0.hasPrefix("info: evdev: reading /dev/input/event7") }.count == 1)
      let watchedWhileActive = loop.registeredCount
      var closedAt: [String: Seconds] = [:]
      keys.input?.addDeviceObserver { change in
        if case .closed(let path, _) = change { closedAt[path] = loop.scheduler.now }
      }

      // Another user's session comes in front: logind sets Active to false.
      let switched = loop.scheduler.now
      logind.updateSession("c1", ["Active": .bool(false)])
      try wait("the headset to be closed") { closedAt["/dev/input/event7"] != nil }
      let latency = closedAt["/dev/input/event7"]! - switched
      #expect(latency < 0.1, "closed \(Int(latency * 1000)) ms after the session went inactive")
      #expect(!grab.isGrabbed, "released (EVIOCGRAB 0) before closing")
      #expect(keys.deviceStatuses.map(\.reasonCode) == ["session-inactive"])
      #expect(keys.input?.openDevices.isEmpty == true)
      #expect(keys.input?.isSuspended == true)
      // Nothing of the device is open or watched any more.
      #expect(emulatedNodesOpen() == ptysBefore)
      #expect(loop.registeredCount < watchedWhileActive)
      #expect(
        store.all.contains {
          $0.hasPrefix("info: evdev: closed /dev/input/event7 ") && $0.hasSuffix("(session inactive)")
        })
      #expect(
        store.all.contains(
          "info: session: inactive (logind session c1): input devices released and closed, no shakes"))

      // Back in front: the headset is opened and read again.
      logind.updateSession("c1", ["Active": .bool(true)])
      try wait("the headset to be opened again") { keys.input?.openDevices.count == 1 }
      #expect(grab.isGrabbed)
      #expect(keys.input?.isSuspended == false)
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: realtimeNow())
      try wait("the key") { dispatches.count == 1 }
      #expect(dispatches.last?.source == "evdev:/dev/input/event7")
      print(
        "session switch: headset closed \(Int((latency * 1000).rounded())) ms after Active=false was sent")
    }

    @Test("started while another session is in front: the headset is not opened until the session is back")
    func startedInactive() throws {
      let tb = try Testbed()
      let rig = try SessionRig(session: "c2", active: false, config: ResponderdConfig())
      let (loop, logind, store, service, session, keys) = (
        rig.loop, rig.logind, rig.store, rig.harness, rig.session, rig.keys
      )
      try tb.add("headset")
      var opened: [String] = []
      service.start()
      keys.input?.addDeviceObserver { change in
        if case .opened(let device) = change { opened.append(device.path) }
      }
      #expect(loop.run(until: { session.watcher?.isSettled == true }, timeout: 5))
      #expect(session.state.isActive == false)
      #expect(keys.input?.openDevices.isEmpty == true)
      #expect(!store.all.contains { $0.contains("evdev: opened") })

      try logind.updateSessionAndWait("c2", ["Active": .bool(true)])
      #expect(loop.run(until: { keys.input?.openDevices.count == 1 }, timeout: 5))
      #expect(opened == ["/dev/input/event7"])
    }

    @Test("a user service outside any session follows the user's display session (dbusmock's logind)")
    func followsTheDisplaySession() throws {
      let loop = try EventLoop()
      let logind = try MockLogind(loop: loop)
      try logind.addSession("c4", uid: getuid(), active: true)
      try logind.setDisplay(ofUser: getuid(), toSession: "c4")
      let store = LogStore()
      let logger = Logger(label: "responderd") { _ in RecordingLogHandler(store: store) }
      // No XDG_SESSION_ID, and dbusmock's logind has no GetSessionByPID: the Display is the one.
      let service = try LoopService(config: ResponderdConfig(), loop: loop, logger: logger)
      let session = service.service.sessionComponent(
        systemBusAddress: logind.address,
        identity: .init(sessionID: nil, pid: UInt32(getpid()), uid: getuid()), sessionBus: nil)
      service.add(session)
      service.start()
      #expect(loop.run(until: { session.watcher?.isFollowingLogind == true }, timeout: 5))
      #expect(session.watcher?.foundBy == "the user's display session")
      try logind.updateSessionAndWait("c4", ["LockedHint": .bool(true)])
      #expect(loop.run(until: { session.state.isLocked }, timeout: 5))
      #expect(
        store.all.contains(
          "info: session: active, locked (logind) (logind session c4): no shakes (motion streams go on)"))
    }

    @Test("no system bus: one line, and the keys are read as always")
    func noSystemBus() throws {
      let tb = try Testbed()
      let loop = try EventLoop()
      let store = LogStore()
      let logger = Logger(label: "responderd") { _ in RecordingLogHandler(store: store) }
      let missing = "unix:path=/tmp/responderd-no-such-dir-\(getpid())/system_bus_socket"
      let harness = try LoopService(config: ResponderdConfig(), loop: loop, logger: logger)
      let service = harness.service
      let session = service.sessionComponent(
        systemBusAddress: missing, identity: .init(sessionID: "c1", pid: UInt32(getpid()), uid: getuid()),
        sessionBus: nil)
      let keys = service.keysComponent(bus: nil, session: session)
      harness.add(session)
      harness.add(keys)
      let headset = try tb.add("headset")
      harness.start()
      #expect(session.state == SessionState())
      #expect(store.all.filter { $0.contains("session:") }.count == 1)
      #expect(
        store.all.contains(
          "notice: session: no system bus at \(missing): the session is taken as active and unlocked until it appears"
        ))
      var dispatched = 0
      service.events.addDispatchObserver { _ in dispatched += 1 }
      try tb.key(headset, KEY_PLAYPAUSE, 1, at: realtimeNow())
      #expect(loop.run(until: { dispatched == 1 }, timeout: 5))
    }

    func realtimeNow() -> Seconds {
      var realtime = timespec()
      clock_gettime(CLOCK_REALTIME, &realtime)
      return Seconds(realtime.tv_sec) + Seconds(realtime.tv_nsec / 1000) / 1e6
    }
  }
}
