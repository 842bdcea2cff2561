import CIIO
import CSystemShims
import EventLoop
import EventTime
import Motion
import ResponderCore
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Reads an accelerometer through its IIO buffer, clocked by its trigger: the x/y/z (and
/// timestamp) scan elements are enabled, the buffer is read in blocks when the kernel says a
/// block is ready (the watermark), and each scan is decoded from its scan_elements type.
final class BufferedCapture {
  private let accelerometer: Accelerometer
  private let loop: EventLoop
  private let converter: SampleConverter
  private let rate: Double
  private let blockSamples: Int
  private let onSample: (MotionSample) -> Void
  private let onFailure: (SystemError) -> Void
  private var buffer: OpaquePointer?
  private var source: IOSource?
  private var formats: (x: ScanElementFormat, y: ScanElementFormat, z: ScanElementFormat)
  private var timestampFormat: ScanElementFormat?
  private var timestampClock = "realtime"
  private var warnedAboutTimestamps = false
  private var lastTime: Seconds = -.infinity
  var logger: ((String) -> Void)?
  /// Samples decoded so far.

  init?(
    accelerometer: Accelerometer, loop: EventLoop, rate: Double, blockSamples: Int,
    converter: SampleConverter, onSample: @escaping (MotionSample) -> Void,
    onFailure: @escaping (SystemError) -> Void
  ) {
    guard let x = accelerometer.x.format, let y = accelerometer.y.format, let z = accelerometer.z.format
    else { return nil }
    self.accelerometer = accelerometer
    self.loop = loop
    self.rate = rate
    self.blockSamples = max(1, blockSamples)
    self.converter = converter
    self.onSample = onSample
    self.onFailure = onFailure
    formats = (x, y, z)
  }

  func start() throws {
    let device = accelerometer.device
    for channel in [accelerometer.x, accelerometer.y, accelerometer.z] {
      rsp_iio_channel_enable(channel.pointer)
    }
    if let timestamp = accelerometer.timestamp, timestamp.isScanElement, let format = timestamp.format {
      rsp_iio_channel_enable(timestamp.pointer)
      timestampFormat = format
      // Ask for CLOCK_MONOTONIC timestamps; the kernel's default is realtime.
      if device.attribute("current_timestamp_clock") != nil {
        try? device.writeAttribute("current_timestamp_clock", "monotonic")
      }
      timestampClock = device.attribute("current_timestamp_clock") ?? "realtime"
    }
    if let trigger = accelerometer.trigger {
      let result = rsp_iio_device_set_trigger(device.pointer, trigger.pointer)
      if result < 0 {
        throw SystemError("set trigger \(trigger.name) on \(device.id)", errno: Errno(rawValue: -result))
      }
    }
    // Wake up once per block, not once per scan (before the buffer is enabled).
    if rsp_iio_device_buffer_attr_write_longlong(device.pointer, "watermark", Int64(blockSamples)) < 0 {
      _ = try? device.writeAttribute("buffer/watermark", String(blockSamples))
    }
    errno = 0
    guard let buffer = rsp_iio_device_create_buffer(device.pointer, blockSamples, false) else {
      let error = Errno.last
      disableChannels()
      throw SystemError(
        "iio_device_create_buffer(\(device.id))", errno: error.rawValue == 0 ? .ioError : error)
    }
    self.buffer = buffer
    _ = rsp_iio_buffer_set_blocking_mode(buffer, false)
    let fd = rsp_iio_buffer_get_poll_fd(buffer)
    guard fd >= 0 else {
      stop()
      throw SystemError("iio_buffer_get_poll_fd(\(device.id))", errno: Errno(rawValue: -fd))
    }
    source = try loop.register(fd: FileDescriptor(rawValue: fd), events: .readable) { [weak self] events in
      self?.readable(events)
    }
  }

  func stop() {
    source?.remove()
    source = nil
    if let buffer {
      rsp_iio_buffer_destroy(buffer)  // Disables the buffer.
      self.buffer = nil
    }
    disableChannels()
  }

  private func disableChannels() {
    for channel in [accelerometer.x, accelerometer.y, accelerometer.z] {
      rsp_iio_channel_disable(channel.pointer)
    }
    if let timestamp = accelerometer.timestamp { rsp_iio_channel_disable(timestamp.pointer) }
  }

  private func readable(_ events: IOEvents) {
    guard let buffer else { return }
    // Read what is there (non-blocking), whole blocks or the last part of one.
    while true {
      let count = rsp_iio_buffer_refill(buffer)
      if count == 0 { break }
      if count < 0 {
        let error = Errno(rawValue: Int32(-count))
        if error == .resourceTemporarilyUnavailable { break }
        onFailure(SystemError("iio_buffer_refill(\(accelerometer.id))", errno: error))
        return
      }
      decode(buffer)
      // An observer of a sample may have stopped the capture (the last stream's client gone): the
      // buffer is destroyed, and nothing more is read.
      guard self.buffer == buffer else { return }
      if count < blockSamples * Int(rsp_iio_buffer_step(buffer)) { break }
    }
    if events.isGone {
      onFailure(SystemError("read \(accelerometer.id)", errno: .operationNotSupportedByDevice))
    }
  }

  private func decode(_ buffer: OpaquePointer) {
    let step = rsp_iio_buffer_step(buffer)
    guard step > 0, let end = rsp_iio_buffer_end(buffer).map(UnsafeRawPointer.init),
      let x = rsp_iio_buffer_first(buffer, accelerometer.x.pointer).map(UnsafeRawPointer.init),
      let y = rsp_iio_buffer_first(buffer, accelerometer.y.pointer).map(UnsafeRawPointer.init),
      let z = rsp_iio_buffer_first(buffer, accelerometer.z.pointer).map(UnsafeRawPointer.init)
    else { return }
    let timestamp: UnsafeRawPointer? =
      timestampFormat != nil && accelerometer.timestamp != nil
      ? rsp_iio_buffer_first(buffer, accelerometer.timestamp!.pointer).map(UnsafeRawPointer.init) : nil
    let count = (end - x) / step
    guard count > 0 else { return }
    let now = rsp_monotonic_now()
    let clockOffset = offsetToMonotonic()
    for index in 0..<count {
      // Stopped by an observer of the previous sample: the block's memory is gone.
      guard self.buffer == buffer else { return }
      let offset = index * step
      let raw = Vector3(
        Double(formats.x.value(at: x + offset)), Double(formats.y.value(at: y + offset)),
        Double(formats.z.value(at: z + offset)))
      // The scan's own timestamp when it is on a known clock and plausible; else when it arrived,
      // spread back over the block at the sampling period.
      var t = now - Double(count - 1 - index) / rate
      if let timestamp, let format = timestampFormat, let clockOffset {
        let stamped = Double(format.value(at: timestamp + offset)) / 1e9 - clockOffset
        if stamped <= now + 0.5 && stamped >= now - 10 {
          t = stamped
        } else if !warnedAboutTimestamps {
          warnedAboutTimestamps = true
          logger?(
            "\(accelerometer.id): scan timestamps are not on the \(timestampClock) clock; using arrival times"
          )
        }
      }
      t = max(t, lastTime)
      lastTime = t
      onSample(converter.sample(t: t, raw: raw))
    }
  }

  /// Seconds to subtract from a timestamp on the device's clock to get CLOCK_MONOTONIC.
  private func offsetToMonotonic() -> Double? {
    let clock: clockid_t
    switch timestampClock {
    case "monotonic", "monotonic_raw": return 0
    case "realtime": clock = CLOCK_REALTIME
    case "boottime": clock = CLOCK_BOOTTIME
    default: return nil
    }
    var other = timespec()
    clock_gettime(clock, &other)
    return Double(other.tv_sec) + Double(other.tv_nsec) / 1e9 - rsp_monotonic_now()
  }
}
