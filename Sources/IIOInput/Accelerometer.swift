import CIIO
import Motion
import ResponderCore

/// An accelerometer found in an IIO context: its x/y/z channels and what converts their readings
/// to m/s² (scale, offset, mount matrix), its sampling frequency, and how it can be read.
struct Accelerometer {
  let device: IIODevice
  let x: IIOChannel
  let y: IIOChannel
  let z: IIOChannel
  /// The timestamp scan element, when the device has one.
  let timestamp: IIOChannel?
  let scale: Vector3
  let offset: Vector3
  let mountMatrix: Matrix3
  /// The device's own trigger (`<name>-dev<N>`) or the one already set; nil when it has none.
  let trigger: IIODevice?
  /// Buffered capture is possible: the three axes are scan elements with a decodable format, and
  /// the device has a trigger.
  var canBuffer: Bool {
    trigger != nil && [x, y, z].allSatisfy { $0.isScanElement && $0.format != nil }
  }

  var id: String { device.id }
  var name: String { device.name }

  /// Every accelerometer of a context (devices with in_accel_x/y/z).
  static func all(in context: IIOContext) -> [Accelerometer] {
    let devices = context.devices
    return devices.compactMap { device in
      guard !device.isTrigger, let x = device.channel("accel_x"), let y = device.channel("accel_y"),
        let z = device.channel("accel_z")
      else { return nil }
      func number(_ channel: IIOChannel, _ name: String, default fallback: Double) -> Double {
        channel.attribute(name).flatMap { Double($0) } ?? fallback
      }
      let scale = Vector3(
        number(x, "scale", default: 1), number(y, "scale", default: 1), number(z, "scale", default: 1))
      let offset = Vector3(
        number(x, "offset", default: 0), number(y, "offset", default: 0), number(z, "offset", default: 0))
      let matrixText =
        x.attribute("mount_matrix") ?? device.attribute("mount_matrix")
        ?? device.attribute("in_mount_matrix") ?? device.attribute("in_accel_mount_matrix")
      let mount = matrixText.flatMap { Matrix3.parseMountMatrix($0) } ?? .identity
      let number = device.id.hasPrefix("iio:device") ? String(device.id.dropFirst(10)) : ""
      let ownTrigger = devices.first { $0.isTrigger && $0.name == "\(device.name)-dev\(number)" }
      var trigger = ownTrigger
      if trigger == nil, let current = device.attribute("trigger/current_trigger"), !current.isEmpty {
        trigger = devices.first { $0.isTrigger && $0.name == current }
      }
      return Accelerometer(
        device: device, x: x, y: y, z: z, timestamp: device.channel("timestamp"), scale: scale,
        offset: offset, mountMatrix: mount, trigger: trigger)
    }
  }

  /// The sampling frequency the device runs at, in Hz (nil when it does not say).
  var samplingFrequency: Double? {
    (device.attribute("sampling_frequency") ?? x.attribute("sampling_frequency")).flatMap { Double($0) }
  }

  /// The frequencies the device offers (empty when it does not say).
  var availableFrequencies: [Double] {
    let text =
      device.attribute("sampling_frequency_available") ?? x.attribute("sampling_frequency_available")
      ?? ""
    return text.split(separator: " ").compactMap { Double($0) }.sorted()
  }

  /// Asks for the lowest available frequency at or above `rate` (the highest one when none is),
  /// and returns the frequency the device then reports (or `rate` when it has no such attribute).
  func setSamplingFrequency(atLeast rate: Double) -> Double {
    let available = availableFrequencies
    let wanted = available.first { $0 >= rate - 1e-6 } ?? available.last ?? rate
    let text = formatFrequency(wanted)
    if (try? device.writeAttribute("sampling_frequency", text)) == nil {
      _ = iio_channel_attr_write(x.pointer, "sampling_frequency", text)
    }
    return samplingFrequency ?? wanted
  }

  /// The converter from raw readings to screen-coordinate samples.
  func converter(rotation: ScreenRotation) -> SampleConverter {
    SampleConverter(scale: scale, offset: offset, mountMatrix: mountMatrix, rotation: rotation)
  }
}

/// "12.5", "125" (the way sysfs takes them).
func formatFrequency(_ value: Double) -> String {
  let rounded = (value * 1000).rounded() / 1000
  if rounded == rounded.rounded() { return String(Int(rounded)) }
  return String(rounded)
}
