import DBus
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import Foundation
import IIOInput
import Motion
import ResponderClient
import ResponderCore
import ResponderdKit
import SessionWatcher
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every record waiting on a stream's socket.
private func records(on fd: Int32) -> [AccelerometerRecord] {
  var records: [AccelerometerRecord] = []
  var buffer = [UInt8](repeating: 0, count: 256)
  while true {
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    if n <= 0 { return records }
    if let record = AccelerometerRecord(bytes: Array(buffer[0..<n])) { records.append(record) }
  }
}

/// Issue 26 item 2 with real parts: logind is python3-dbusmock's template on a private system
/// bus, the accelerometer an emulated IIO device under umockdev. With the screen locked (logind's
/// LockedHint) no shake is delivered and the sensor is not kept open for shakes, while a Motion1
/// stream goes on; unlocked, shakes come back.
@Suite(.serialized) struct SessionMotionDeviceTests {
  /// 1.2 s of shaking (3 Hz, 1.8 g along the screen's x axis), then still: one shake.
  static func shake(_ t: Double) -> (Int, Int, Int) {
    let dynamic = t < 1.2 ? 1.8 * standardGravity * sin(2 * .pi * 3 * t) : 0
    return (0, max(-2048, min(2047, Int((dynamic / 0.009582).rounded()))), 1023)
  }

  fileprivate func rig() throws -> (MotionRig, MockLogind, MotionPhaseRecorder, SessionComponent) {
    let shakes = MotionPhaseRecorder()
    let loop = try EventLoop()
    let logind = try MockLogind(loop: loop)
    try logind.addSession("c1", uid: getuid(), active: true)
    var made: SessionComponent?
    let daemon = try MotionRig(
      chain: [shakes.name], handlers: [shakes],
      session: { service, bus in
        let session = service.sessionComponent(
          systemBusAddress: logind.address,
          identity: .init(sessionID: "c1", pid: UInt32(getpid()), uid: getuid()), sessionBus: bus)
        made = session
        return session
      }, loop: loop)
    let session = try #require(made)
    guard loop.run(until: { session.watcher?.isFollowingLogind == true }, timeout: 5) else {
      throw TestbedError(
        description: "the session was not followed; log:\n\(daemon.log.lines.joined(separator: "\n"))")
    }
    return (daemon, logind, shakes, session)
  }

  /// Sets LockedHint through dbusmock, then runs the loop until the session component has it.
  func setLocked(_ locked: Bool, _ logind: MockLogind, _ daemon: MotionRig, _ session: SessionComponent)
    throws
  {
    try logind.updateSessionAndWait("c1", ["LockedHint": .bool(locked)])
    guard daemon.loop.run(until: { session.state.isLocked == locked }, timeout: 5) else {
      throw TestbedError(description: "the session did not become \(locked ? "locked" : "unlocked")")
    }
  }

  @Test("locked: no shake, the sensor closed for shakes, a Motion1 stream goes on; unlocked: shakes again")
  func lockedScreenGetsNoShake() throws {
    let (daemon, logind, shakes, session) = try rig()
    defer { daemon.stop() }
    #expect(daemon.input?.sensor != nil, "the shake responder opens the sensor")

    try setLocked(true, logind, daemon, session)
    // Nobody else wants motion: closed.
    #expect(daemon.input?.sensor == nil)
    #expect(daemon.motion.wantedBy == nil)
    #expect(daemon.log.matching("iio: shakes paused (the screen is locked): accelerometer closed").count == 1)
    #expect(daemon.log.matching("session: active, locked (logind) (logind session c1): no shakes").count == 1)

    // An application streams: the sensor opens for it, the samples flow, the shake is not delivered.
    let client = try daemon.connect()
    let stream = try daemon.start(client, interval: 0.05)
    #expect(daemon.motion.wantedBy == "1 motion stream")
    var samples: [AccelerometerRecord] = []
    daemon.feed(rate: 62.5, duration: 2, raw: Self.shake, each: { samples += records(on: stream.fd) })
    #expect(shakes.phases == [])
    #expect((38...42).contains(samples.count), "\(samples.count) samples in 2 s at 0.05 s")
    #expect(samples.contains { $0.x > 1 } && samples.contains { $0.x < -1 }, "the stream saw the shaking")

    // Unlocked: the same shake is delivered.
    try setLocked(false, logind, daemon, session)
    #expect(daemon.motion.wantedBy == "\(shakes.name), 1 motion stream")
    daemon.feed(rate: 62.5, duration: 2, raw: Self.shake, each: { samples += records(on: stream.fd) })
    _ = daemon.loop.run(until: { shakes.phases.count >= 2 }, timeout: 2)
    #expect(shakes.phases == [.began, .ended])
    close(stream.fd)
  }

  @Test("the screen locks during a shake: the shake is cancelled, as UIKit cancels on an interruption")
  func lockingCancelsAShake() throws {
    let (daemon, logind, shakes, session) = try rig()
    defer { daemon.stop() }
    var lockSent = false
    // Shake for 4 s; once the shake has begun, the screen locks.
    daemon.feed(
      rate: { _ in 62.5 }, timeout: 10,
      raw: { t in
        let dynamic = 1.8 * standardGravity * sin(2 * .pi * 3 * t)
        return (0, max(-2048, min(2047, Int((dynamic / 0.009582).rounded()))), 1023)
      }, feedingFor: 4,
      each: { t in
        if shakes.phases == [.began], !lockSent {
          lockSent = true
          logind.updateSession("c1", ["LockedHint": .bool(true)])
        }
      },
      until: { _ in shakes.phases.count >= 2 })
    #expect(lockSent)
    #expect(shakes.phases == [.began, .cancelled])
    #expect(session.state.isLocked)
    #expect(daemon.input?.sensor == nil, "closed: only shakes wanted it")
  }
}
