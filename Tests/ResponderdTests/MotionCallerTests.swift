import DBus
import EventLoop
import EventTime
import Glibc
import ResponderClient
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import Testing

/// Motion1 answers the daemon's own user only (issue 18: "Only the session's user is answered"):
/// another user's process gets AccessDenied from every method and property, and nothing changes.
@Suite struct MotionCallerTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let api: MotionAPI
  /// Not started: its interest counts the streams, and there is no accelerometer.
  let motion: MotionComponent

  init() throws {
    harness = try InMemoryService()
    motion = harness.service.motionComponent()
    api = harness.service.motionAPI(motion: motion, bus: harness.busComponent)
    harness.add(api)
    harness.start()
  }

  /// Calls Motion1 (or the Properties interface on its object) as `connection`; the result.
  func call(
    _ connection: InMemoryBusConnection, _ method: String, _ arguments: [DBusValue] = [],
    interface: String = MotionBusAPI.interface
  ) -> Result<[DBusValue], DBusError>? {
    var result: Result<[DBusValue], DBusError>?
    connection.call(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath, interface: interface,
      method: method, arguments: arguments, timeout: 5
    ) { result = $0 }
    time.advance(by: 0)
    return result
  }

  static let properties = "org.freedesktop.DBus.Properties"
  static let calls: [(String, [DBusValue], String)] = [
    ("StartAccelerometerUpdates", [.double(0.1)], MotionBusAPI.interface),
    ("StartDeviceMotionUpdates", [.double(0.02)], MotionBusAPI.interface),
    // A bad interval too: refused as a stranger's call, not answered about its argument.
    ("StartAccelerometerUpdates", [.double(0)], MotionBusAPI.interface),
    ("StartDeviceMotionUpdates", [.double(1e9)], MotionBusAPI.interface),
    ("StopUpdates", [.uint32(1)], MotionBusAPI.interface),
    ("BeginGeneratingDeviceOrientationNotifications", [], MotionBusAPI.interface),
    ("EndGeneratingDeviceOrientationNotifications", [], MotionBusAPI.interface),
    ("Get", [.string(MotionBusAPI.interface), .string("DeviceOrientation")], properties),
    ("Get", [.string(MotionBusAPI.interface), .string("AccelerometerName")], properties),
    ("GetAll", [.string(MotionBusAPI.interface)], properties),
  ]

  @Test func anotherUserGetsAccessDeniedFromEveryMethodAndProperty() throws {
    let stranger = bus.connect(uid: getuid() &+ 1)
    for (method, arguments, interface) in Self.calls {
      let result = call(stranger, method, arguments, interface: interface)
      guard case .failure(let error)? = result else {
        Issue.record("\(method) \(arguments): \(String(describing: result))")
        continue
      }
      #expect(error.name == DBusError.Name.accessDenied, "\(method): \(error)")
      #expect(error.message.contains("responderd (uid \(getuid())) answers its own user only"), "\(error)")
    }
    // Nothing was started for it: no stream, no orientation watcher, the sensor not wanted.
    #expect(api.streamCount == 0)
    #expect(motion.interest.streams == MotionStreamDemand())
    #expect(!motion.interest.isWanted)
    #expect(log.all.contains { $0.contains("refused org.responderd.Motion1.StartAccelerometerUpdates") })
  }

  /// Issue 27: each refused connection logged a warning: a stranger opening connections in a loop
  /// filled the journal. The first of a uid is a warning, then one per 100.
  @Test func refusedConnectionsOfOneUserCostAWarningPerHundred() throws {
    for _ in 0..<250 {
      let stranger = bus.connect(uid: getuid() &+ 1)
      _ = call(stranger, "BeginGeneratingDeviceOrientationNotifications")
      stranger.leave()
    }
    let warnings = log.all.filter { $0.hasPrefix("warning: bus: refused") }
    #expect(warnings.count == 3, "\(warnings)")
    #expect(
      warnings.first?.hasSuffix(
        "(further connections of uid \(getuid() &+ 1) are counted, one warning per 100)") == true)
    #expect(warnings.last?.hasSuffix(": 200 connections of uid \(getuid() &+ 1) refused so far") == true)
    #expect(log.all.count { $0.hasPrefix("debug: bus: refused") } == 247)
  }

  /// The same calls from the daemon's own user pass the check: the methods answer what they do
  /// (here, with a motion component that is not started: no accelerometer), the properties read.
  @Test func itsOwnUserIsAnswered() throws {
    let own = bus.connect()
    if case .failure(let error)? = call(own, "StartAccelerometerUpdates", [.double(0.1)]) {
      #expect(error.name == MotionBusAPI.ErrorName.noAccelerometer, "\(error)")
    } else {
      Issue.record("StartAccelerometerUpdates answered without an accelerometer")
    }
    #expect(try call(own, "BeginGeneratingDeviceOrientationNotifications")?.get() == [])
    #expect(motion.interest.streams.orientationWatchers == 1 && motion.interest.isWanted)
    // Not "by the chain": the chain (the default one) wants no motion here.
    #expect(log.all.contains { $0.hasSuffix("motion: wanted") }, "\(log.all)")
    #expect(!log.all.contains { $0.contains("by the chain") }, "\(log.all)")
    let orientation = try call(
      own, "Get", [.string(MotionBusAPI.interface), .string("DeviceOrientation")], interface: Self.properties)?
      .get()
    #expect(orientation == [.variant(.string("unknown"))])
    #expect(try call(own, "EndGeneratingDeviceOrientationNotifications")?.get() == [])
    #expect(!motion.interest.isWanted)
  }
}
