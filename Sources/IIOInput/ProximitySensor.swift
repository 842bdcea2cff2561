import CUdev

/// An IIO proximity sensor (`in_proximity_raw`, as on phones beside the earpiece), read the way
/// iio-sensor-proxy reads it: something is near when the raw value is above the sensor's near
/// level, udev's `PROXIMITY_NEAR_LEVEL` (from systemd's 60-sensor.hwdb or a local rule), else the
/// kernel's `in_proximity_nearlevel`. A sensor without a near level is not used: there is no
/// device-independent default. Near holds down to 10 % below the level and far up to 10 % above
/// it, so a reading at the level does not flicker.
///
/// Open only while it is needed: `open()` finds it, releasing the instance closes it. Each
/// `isNear()` is one sysfs read; nothing runs in between.
public final class ProximitySensor: ProximityReading {
  /// "iio:device1".
  public let id: String
  /// The driver's name ("vcnl4040").
  public let name: String
  /// The raw reading above which something is near.
  public let nearLevel: Int64
  /// Whether the last reading was near.
  public private(set) var near = false
  /// The last raw reading.
  public private(set) var lastReading: Int64?

  private let context: IIOContext
  private let channel: IIOChannel

  private init(id: String, name: String, nearLevel: Int64, context: IIOContext, channel: IIOChannel) {
    self.id = id
    self.name = name
    self.nearLevel = nearLevel
    self.context = context
    self.channel = channel
  }

  /// Finds the first IIO proximity sensor (a device with an `in_proximity_raw` or
  /// `in_proximity0_raw` channel).
  public static func open() -> ProximityDiscovery {
    guard let context = try? IIOContext() else { return .none }
    for device in context.devices where !device.isTrigger {
      guard let channel = device.channel("proximity") ?? device.channel("proximity0"),
        channel.attributeFileName("raw") != nil
      else { continue }
      let level =
        udevProperty("PROXIMITY_NEAR_LEVEL", of: device.id).flatMap { Int64($0) }
        ?? channel.attribute("nearlevel").flatMap { Int64($0) } ?? 0
      guard level > 0 else { return .withoutNearLevel(id: device.id, name: device.name) }
      return .sensor(
        ProximitySensor(
          id: device.id, name: device.name, nearLevel: level, context: context, channel: channel))
    }
    return .none
  }

  /// Reads the sensor: whether something is near now.
  @discardableResult
  public func isNear() throws -> Bool {
    let raw = try channel.readInteger("raw")
    lastReading = raw
    near = Self.isNear(raw: raw, level: nearLevel, wasNear: near)
    return near
  }

  /// iio-sensor-proxy's rule, with its margin: above 90 % of the level stays near, above 110 %
  /// becomes near.
  static func isNear(raw: Int64, level: Int64, wasNear: Bool) -> Bool {
    Double(raw) > Double(level) * (wasNear ? 0.9 : 1.1)
  }
}

/// A proximity sensor as the motion component reads it: whether something is near now.
/// `ProximitySensor` is the real one (IIO); the test kit's `FakeProximitySensor` is a double
/// that is covered, uncovered, fails to read or is unplugged.
public protocol ProximityReading: AnyObject {
  /// "iio:device1".
  var id: String { get }
  /// The driver's name ("vcnl4040").
  var name: String { get }
  /// The raw reading above which something is near.
  var nearLevel: Int64 { get }
  /// Whether the last reading was near.
  var near: Bool { get }
  /// The last raw reading.
  var lastReading: Int64? { get }
  /// Reads the sensor: whether something is near now (throws `SystemError` when it cannot).
  @discardableResult func isNear() throws -> Bool
}

/// What was found of a proximity sensor: one to read, one without a near level (named, not
/// used), or none.
public enum ProximityDiscovery {
  case sensor(any ProximityReading)
  case withoutNearLevel(id: String, name: String)
  case none
}

/// Where the motion component finds its proximity sensor (`IIOProximitySensors`; the test kit's
/// `FakeProximitySensor`).
public protocol ProximitySensors: AnyObject {
  /// Looks for a proximity sensor now, and opens it.
  func find() -> ProximityDiscovery
}

/// The IIO devices' proximity sensors (`ProximitySensor.open()`).
public final class IIOProximitySensors: ProximitySensors {
  public init() {}
  public func find() -> ProximityDiscovery { ProximitySensor.open() }
}

/// A udev property of an IIO device ("iio:device1"), nil when udev does not know it or it has none.
private func udevProperty(_ name: String, of sysname: String) -> String? {
  guard let udev = udev_new() else { return nil }
  defer { udev_unref(udev) }
  guard let device = udev_device_new_from_subsystem_sysname(udev, "iio", sysname) else { return nil }
  defer { udev_device_unref(device) }
  return udev_device_get_property_value(device, name).map { String(cString: $0) }
}
