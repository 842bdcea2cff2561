import DBus
import EventLoop
import ResponderClient

#if canImport(Glibc)
  import Glibc
#endif

/// One sample of a stream from the running responderd.
enum StreamSample {
  case accelerometer(AccelerometerData)
  case deviceMotion(DeviceMotion)
}

/// Reads a stream from the running responderd (org.responderd.Motion1, through `MotionManager`),
/// as `motion watch` and `motion record` do: calls `onSample` with each sample until `seconds`
/// pass, `onSample` returns false, or SIGINT/SIGTERM; throws the daemon's refusal.
func readMotionStream(
  deviceMotion: Bool, interval: Double, seconds: Double?, onSample: @escaping (StreamSample) -> Bool
) throws {
  let link = try DaemonLink.connect()
  let loop = link.loop
  try loop.onSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
  let manager = MotionManager(connection: link.bus)
  var failed: DBusError?
  func deliver(_ sample: StreamSample?, _ error: DBusError?) {
    guard let sample else {
      failed = error
      return loop.stop()
    }
    if !onSample(sample) { loop.stop() }
  }
  if deviceMotion {
    manager.deviceMotionUpdateInterval = interval
    manager.startDeviceMotionUpdates { data, error in deliver(data.map { .deviceMotion($0) }, error) }
  } else {
    manager.accelerometerUpdateInterval = interval
    manager.startAccelerometerUpdates { data, error in deliver(data.map { .accelerometer($0) }, error) }
  }
  var timer: ScheduledTimer?
  if let seconds { timer = loop.scheduler.schedule(after: seconds) { loop.stop() } }
  defer { timer?.cancel() }
  loop.run()
  manager.stopAccelerometerUpdates()
  manager.stopDeviceMotionUpdates()
  link.bus.flush()
  if let failed {
    throw failure(failed.message.isEmpty ? failed.name : failed.message)
  }
}
