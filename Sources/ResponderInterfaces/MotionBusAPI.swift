import EventTime

/// The names and sample records of responderd's motion API (`org.responderd.Motion1` on
/// `/org/responderd/Daemon1`), shared by the daemon and its clients. docs/apps.md documents it.
///
/// - `StartAccelerometerUpdates(d interval) → h samples, u id` and
///   `StartDeviceMotionUpdates(d interval) → h samples, u id`: a `SOCK_SEQPACKET` socket on which
///   one record per sample arrives (`AccelerometerRecord`, `DeviceMotionRecord`), one every
///   `interval` seconds; closing it stops the stream.
/// - `StopUpdates(u id)`
/// - `BeginGeneratingDeviceOrientationNotifications()`, `EndGeneratingDeviceOrientationNotifications()`:
///   keep the sensor sampling so that `DeviceOrientation` is kept up to date.
/// - properties `AccelerometerAvailable b`, `AccelerometerName s`, `AvailableIntervals ad`,
///   `ShortestInterval d`, `LongestInterval d`, `MaxStreams u`, `Streams u`, `SensorInterval d`,
///   `DeviceOrientation s` (UIDeviceOrientation's case names; PropertiesChanged when it changes).
public enum MotionBusAPI {
  /// The motion interface, on the daemon's object (`ResponderBusAPI.daemonPath`).
  public static let interface = "org.responderd.Motion1"

  /// The shortest interval a client may ask for, in seconds (200 Hz), unless the sensor's highest
  /// rate is lower.
  public static let shortestInterval: Seconds = 0.005
  /// The longest interval a client may ask for, in seconds.
  public static let longestInterval: Seconds = 10
  /// The most streams served at once, all clients together.
  public static let maxStreams = 16

  /// Errors of the motion methods (besides `org.freedesktop.DBus.Error.AccessDenied` and
  /// `org.freedesktop.DBus.Error.InvalidArgs` for an interval out of range).
  public enum ErrorName {
    /// There is no accelerometer (or motion is disabled in the daemon's config).
    public static let noAccelerometer = "org.responderd.Motion1.Error.NoAccelerometer"
    /// `MotionBusAPI.maxStreams` streams are served already.
    public static let tooManyStreams = "org.responderd.Motion1.Error.TooManyStreams"
    /// No stream has this id (or it was started by another connection).
    public static let unknownStream = "org.responderd.Motion1.Error.UnknownStream"
  }
}

/// One accelerometer sample as it travels on a stream: 32 bytes, little-endian.
///
/// | offset | type    | field                                              |
/// |--------|---------|----------------------------------------------------|
/// | 0      | UInt64  | timestamp, ns on CLOCK_MONOTONIC (the sensor's)     |
/// | 8      | Float64 | x, in g                                            |
/// | 16     | Float64 | y, in g                                            |
/// | 24     | Float64 | z, in g                                            |
///
/// Axes and signs are Core Motion's: x toward the right edge, y toward the top edge, z out of the
/// screen, and a device lying still face up reads (0, 0, −1).
public struct AccelerometerRecord: Equatable, Sendable {
  /// The size of a record in bytes.
  public static let size = 32
  public var timestamp: UInt64
  public var x: Double
  public var y: Double
  public var z: Double

  public init(timestamp: UInt64, x: Double, y: Double, z: Double) {
    self.timestamp = timestamp
    self.x = x
    self.y = y
    self.z = z
  }

  /// Seconds since boot (CLOCK_MONOTONIC).
  public var seconds: Seconds { Double(timestamp) / 1e9 }

  /// The record's bytes.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(Self.size)
    appendLittleEndian(timestamp, to: &out)
    for value in [x, y, z] { appendLittleEndian(value.bitPattern, to: &out) }
    return out
  }

  /// Reads a record (nil when `bytes` is not one).
  public init?(bytes: some Collection<UInt8>) {
    let b = Array(bytes)
    guard b.count == Self.size else { return nil }
    self.init(
      timestamp: readLittleEndian(b, 0), x: Double(bitPattern: readLittleEndian(b, 8)),
      y: Double(bitPattern: readLittleEndian(b, 16)), z: Double(bitPattern: readLittleEndian(b, 24)))
  }
}

/// One device-motion sample as it travels on a stream: 56 bytes, little-endian.
///
/// | offset | type    | field                                              |
/// |--------|---------|----------------------------------------------------|
/// | 0      | UInt64  | timestamp, ns on CLOCK_MONOTONIC (the sensor's)     |
/// | 8      | Float64 | gravity x, in g                                    |
/// | 16     | Float64 | gravity y, in g                                    |
/// | 24     | Float64 | gravity z, in g                                    |
/// | 32     | Float64 | user acceleration x, in g                          |
/// | 40     | Float64 | user acceleration y, in g                          |
/// | 48     | Float64 | user acceleration z, in g                          |
///
/// Core Motion's axes and signs (see `AccelerometerRecord`): gravity + user acceleration is the
/// accelerometer's reading.
public struct DeviceMotionRecord: Equatable, Sendable {
  /// The size of a record in bytes.
  public static let size = 56
  public var timestamp: UInt64
  public var gravity: (x: Double, y: Double, z: Double)
  public var userAcceleration: (x: Double, y: Double, z: Double)

  public init(
    timestamp: UInt64, gravity: (x: Double, y: Double, z: Double),
    userAcceleration: (x: Double, y: Double, z: Double)
  ) {
    self.timestamp = timestamp
    self.gravity = gravity
    self.userAcceleration = userAcceleration
  }

  public static func == (a: DeviceMotionRecord, b: DeviceMotionRecord) -> Bool {
    a.timestamp == b.timestamp && a.gravity == b.gravity && a.userAcceleration == b.userAcceleration
  }

  /// Seconds since boot (CLOCK_MONOTONIC).
  public var seconds: Seconds { Double(timestamp) / 1e9 }

  /// The record's bytes.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(Self.size)
    appendLittleEndian(timestamp, to: &out)
    for value in [
      gravity.x, gravity.y, gravity.z, userAcceleration.x, userAcceleration.y, userAcceleration.z,
    ] {
      appendLittleEndian(value.bitPattern, to: &out)
    }
    return out
  }

  /// Reads a record (nil when `bytes` is not one).
  public init?(bytes: some Collection<UInt8>) {
    let b = Array(bytes)
    guard b.count == Self.size else { return nil }
    func double(_ offset: Int) -> Double { Double(bitPattern: readLittleEndian(b, offset)) }
    self.init(
      timestamp: readLittleEndian(b, 0), gravity: (double(8), double(16), double(24)),
      userAcceleration: (double(32), double(40), double(48)))
  }
}

private func appendLittleEndian(_ value: UInt64, to out: inout [UInt8]) {
  for shift in stride(from: 0, to: 64, by: 8) {
    out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
  }
}

private func readLittleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
  var value: UInt64 = 0
  for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
  return value
}
