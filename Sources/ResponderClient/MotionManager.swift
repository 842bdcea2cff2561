import DBus
import EventLoop
import EventTime
import ResponderCore
import ResponderInterfaces
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// An acceleration in g, Core Motion's axes and signs: x toward the right edge of the screen, y
/// toward its top edge, z out of the screen; lying still face up reads (0, 0, −1).
public struct Acceleration: Equatable, Sendable, CustomStringConvertible {
  public var x: Double
  public var y: Double
  public var z: Double
  public init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }
  public var description: String { "(\(x), \(y), \(z))" }
}

/// One accelerometer sample (Core Motion's `CMAccelerometerData`).
public struct AccelerometerData: Equatable, Sendable {
  /// Seconds since boot (CLOCK_MONOTONIC): the sensor's own time of the sample.
  public var timestamp: Seconds
  public var acceleration: Acceleration
  public init(timestamp: Seconds, acceleration: Acceleration) {
    self.timestamp = timestamp
    self.acceleration = acceleration
  }
}

/// One device-motion sample (Core Motion's `CMDeviceMotion`, without attitude and rotation rate:
/// responderd reads an accelerometer only).
public struct DeviceMotion: Equatable, Sendable {
  /// Seconds since boot (CLOCK_MONOTONIC).
  public var timestamp: Seconds
  /// Gravity, in g.
  public var gravity: Acceleration
  /// The acceleration the user gives the device (the reading minus gravity), in g.
  public var userAcceleration: Acceleration
  public init(timestamp: Seconds, gravity: Acceleration, userAcceleration: Acceleration) {
    self.timestamp = timestamp
    self.gravity = gravity
    self.userAcceleration = userAcceleration
  }
}

/// Accelerometer and device-motion updates from responderd, named after Core Motion's
/// `CMMotionManager`, and the device orientation (`UIDevice.orientation`).
///
/// ```swift
/// let motion = MotionManager(session: session)
/// motion.accelerometerUpdateInterval = 0.02
/// motion.startAccelerometerUpdates { data, error in
///   if let data { print(data.acceleration.z) }
/// }
/// ```
///
/// Samples come on a socket of their own (never on the bus) and handlers run on the connection's
/// event loop. A handler gets an error (and no data) once when the stream cannot start or ends
/// (the daemon went away); start again to resume.
public final class MotionManager {
  public let connection: DBusConnection
  /// Seconds between accelerometer samples (Core Motion's name); read when updates start.
  public var accelerometerUpdateInterval: Seconds = 0.1
  /// Seconds between device-motion samples; read when updates start.
  public var deviceMotionUpdateInterval: Seconds = 0.1
  /// How long calls to the daemon may take (seconds).
  public var timeout: Seconds = 5

  /// The device orientation, kept up to date between `beginGeneratingDeviceOrientationNotifications()`
  /// and `endGeneratingDeviceOrientationNotifications()` (unknown otherwise).
  public private(set) var deviceOrientation: DeviceOrientation = .unknown

  private final class Stream {
    var fd: Int32 = -1
    var id: UInt32 = 0
    var source: IOSource?
  }
  private var accelerometerStream: Stream?
  private var deviceMotionStream: Stream?
  private var orientationSubscription: DBusSubscription?
  private var orientationObservers: [(DeviceOrientation) -> Void] = []

  public init(connection: DBusConnection) {
    self.connection = connection
  }

  /// A manager on the session's bus connection.
  public convenience init(session: ClientSession) {
    self.init(connection: session.connection)
  }

  deinit {
    stopAccelerometerUpdates()
    stopDeviceMotionUpdates()
  }

  /// Whether accelerometer updates are running.
  public var isAccelerometerActive: Bool { accelerometerStream != nil }
  /// Whether device-motion updates are running.
  public var isDeviceMotionActive: Bool { deviceMotionStream != nil }

  /// Starts accelerometer updates every `accelerometerUpdateInterval`.
  public func startAccelerometerUpdates(handler: @escaping (AccelerometerData?, DBusError?) -> Void) {
    stopAccelerometerUpdates()
    let stream = Stream()
    accelerometerStream = stream
    start("StartAccelerometerUpdates", interval: accelerometerUpdateInterval, stream: stream, size: 32) {
      bytes, error in
      guard let bytes, let record = AccelerometerRecord(bytes: bytes) else { return handler(nil, error) }
      handler(
        AccelerometerData(
          timestamp: record.seconds, acceleration: Acceleration(x: record.x, y: record.y, z: record.z)),
        nil)
    }
  }

  /// Starts device-motion updates every `deviceMotionUpdateInterval`.
  public func startDeviceMotionUpdates(handler: @escaping (DeviceMotion?, DBusError?) -> Void) {
    stopDeviceMotionUpdates()
    let stream = Stream()
    deviceMotionStream = stream
    start("StartDeviceMotionUpdates", interval: deviceMotionUpdateInterval, stream: stream, size: 56) {
      bytes, error in
      guard let bytes, let record = DeviceMotionRecord(bytes: bytes) else { return handler(nil, error) }
      let g = record.gravity
      let u = record.userAcceleration
      handler(
        DeviceMotion(
          timestamp: record.seconds, gravity: Acceleration(x: g.x, y: g.y, z: g.z),
          userAcceleration: Acceleration(x: u.x, y: u.y, z: u.z)), nil)
    }
  }

  /// Stops accelerometer updates.
  public func stopAccelerometerUpdates() {
    if let stream = accelerometerStream { end(stream) }
    accelerometerStream = nil
  }

  /// Stops device-motion updates.
  public func stopDeviceMotionUpdates() {
    if let stream = deviceMotionStream { end(stream) }
    deviceMotionStream = nil
  }

  /// Keeps `deviceOrientation` up to date (the daemon samples the accelerometer for it).
  public func beginGeneratingDeviceOrientationNotifications() {
    guard orientationSubscription == nil else { return }
    orientationSubscription = connection.onPropertiesChanged(
      path: ResponderBusAPI.daemonPath, interface: MotionBusAPI.interface
    ) { [weak self] _, changed, _ in
      if let name = changed["DeviceOrientation"]?.string { self?.orientationChanged(name) }
    }
    daemonCall("BeginGeneratingDeviceOrientationNotifications") { [weak self] _ in
      guard let self else { return }
      self.connection.getProperty(
        "DeviceOrientation", interface: MotionBusAPI.interface, path: ResponderBusAPI.daemonPath,
        destination: ResponderBusAPI.daemonName, timeout: self.timeout
      ) { [weak self] result in
        if case .success(let value) = result, let name = value.string { self?.orientationChanged(name) }
      }
    }
  }

  /// Stops following the orientation; `deviceOrientation` becomes unknown.
  public func endGeneratingDeviceOrientationNotifications() {
    guard let subscription = orientationSubscription else { return }
    subscription.cancel()
    orientationSubscription = nil
    daemonCall("EndGeneratingDeviceOrientationNotifications") { _ in }
    orientationChanged(DeviceOrientation.unknown.rawValue)
  }

  /// Calls `observer` with the new orientation each time `deviceOrientation` changes.
  public func addDeviceOrientationObserver(_ observer: @escaping (DeviceOrientation) -> Void) {
    orientationObservers.append(observer)
  }

  // MARK: Streams

  private func orientationChanged(_ name: String) {
    let orientation = DeviceOrientation(rawValue: name) ?? .unknown
    guard orientation != deviceOrientation else { return }
    deviceOrientation = orientation
    for observer in orientationObservers { observer(orientation) }
  }

  private func daemonCall(
    _ method: String, _ arguments: [DBusValue] = [], reply: @escaping (Result<[DBusValue], DBusError>) -> Void
  ) {
    connection.call(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: MotionBusAPI.interface,
      method: method, arguments: arguments, timeout: timeout, reply: reply)
  }

  private func start(
    _ method: String, interval: Seconds, stream: Stream, size: Int,
    deliver: @escaping ([UInt8]?, DBusError?) -> Void
  ) {
    daemonCall(method, [.double(interval)]) { [weak self, weak stream] result in
      let values: [DBusValue]
      switch result {
      case .failure(let error): return deliver(nil, error)
      case .success(let v): values = v
      }
      guard values.count == 2, case .unixFD(let fd) = values[0], let id = values[1].uint32 else {
        return deliver(nil, DBusError(DBusError.Name.failed, "unexpected reply to \(method): \(values)"))
      }
      // Stopped (or started again) before the reply came: give the stream back.
      guard let self, let stream, self.accelerometerStream === stream || self.deviceMotionStream === stream
      else {
        close(fd)
        self?.daemonCall("StopUpdates", [.uint32(id)]) { _ in }
        return
      }
      stream.fd = fd
      stream.id = id
      do {
        stream.source = try self.connection.loop.register(fd: FileDescriptor(rawValue: fd), events: .readable)
        {
          [weak self, weak stream] _ in
          guard let self, let stream else { return }
          if !self.read(stream, size: size, deliver: deliver) {
            self.end(stream, tellDaemon: false)
            if self.accelerometerStream === stream { self.accelerometerStream = nil }
            if self.deviceMotionStream === stream { self.deviceMotionStream = nil }
            deliver(nil, DBusError(DBusError.Name.disconnected, "responderd ended the motion stream"))
          }
        }
      } catch {
        self.end(stream)
        deliver(nil, DBusError(DBusError.Name.failed, "cannot watch the motion stream: \(error)"))
      }
    }
  }

  /// Reads the records waiting; false when the daemon closed the stream.
  private func read(_ stream: Stream, size: Int, deliver: ([UInt8]?, DBusError?) -> Void) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 256)
    while stream.fd >= 0 {
      let n = buffer.withUnsafeMutableBytes { recv(stream.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if n == 0 { return false }
      if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
      if n == size { deliver(Array(buffer[0..<n]), nil) }
    }
    return true
  }

  private func end(_ stream: Stream, tellDaemon: Bool = true) {
    stream.source?.remove()
    stream.source = nil
    if stream.fd >= 0 {
      close(stream.fd)
      stream.fd = -1
      // Closing the socket ends the stream already; StopUpdates says so at once.
      if tellDaemon { daemonCall("StopUpdates", [.uint32(stream.id)]) { _ in } }
    }
  }
}
