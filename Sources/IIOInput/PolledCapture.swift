import EventTime
import Motion
import ResponderCore
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Reads an accelerometer by polling its `in_accel_*_raw` sysfs attributes on a timer (the event
/// loop's timers, through the scheduler), at the configured rate.
///
/// The three attribute files are opened once and read with pread(2) at offset 0 (sysfs makes the
/// value anew at every read from the start): one system call per axis and sample, where libiio's
/// attribute read opens a stdio stream, reads and closes it each time. When the files cannot be
/// opened that way, the axes are read through libiio.
///
/// A read refused with EBUSY or EAGAIN is not a failure: many drivers (bmc150 and most others,
/// through `iio_device_claim_direct_mode`) refuse direct reads while another program
/// (iio-sensor-proxy) holds the sensor's buffer. That sample is skipped, the timer keeps to its
/// grid, and samples resume as soon as reads are answered again; one line is logged when reads are
/// refused and one when they are answered again. Other errors (ENODEV: unplugged) are failures.
final class PolledCapture {
  private let accelerometer: Accelerometer
  private let scheduler: any Scheduler
  private let converter: SampleConverter
  private let period: Seconds
  private let onSample: (MotionSample) -> Void
  private let onFailure: (SystemError) -> Void
  private var timer: ScheduledTimer?
  /// Between `start()` and `stop()`.
  private var isRunning = false
  private var nextDeadline: Seconds = 0
  /// Samples read so far.
  /// The x, y, z raw attribute files, open while capturing (empty: read through libiio).
  private var rawFiles: [FileDescriptor] = []
  /// Told what to log (the refused and resumed reads).
  var logger: ((String) -> Void)?
  /// For tests: an error each read answers instead of the attribute's value (nil: read it).
  var readFault: (() -> Errno?)?
  /// When reads began to be refused (nil while they are answered), and the samples skipped since.
  private var refusedSince: Seconds?
  private var skipped = 0

  init(
    accelerometer: Accelerometer, scheduler: any Scheduler, rate: Double, converter: SampleConverter,
    onSample: @escaping (MotionSample) -> Void, onFailure: @escaping (SystemError) -> Void
  ) {
    self.accelerometer = accelerometer
    self.scheduler = scheduler
    self.converter = converter
    self.period = 1 / rate
    self.onSample = onSample
    self.onFailure = onFailure
  }

  /// Starts reading: the first sample on the next turn of the loop, then one per period.
  func start() {
    isRunning = true
    openRawFiles()
    nextDeadline = scheduler.now
    timer = scheduler.schedule(at: nextDeadline) { [weak self] in self?.tick() }
  }

  func stop() {
    isRunning = false
    timer?.cancel()
    timer = nil
    closeRawFiles()
  }

  deinit { closeRawFiles() }

  private func openRawFiles() {
    closeRawFiles()
    let directory = "/sys/bus/iio/devices/\(accelerometer.id)/"
    for channel in [accelerometer.x, accelerometer.y, accelerometer.z] {
      guard let name = channel.attributeFileName("raw") else { break }
      guard let file = try? FileDescriptor.openForReading(FilePath(directory + name)) else { break }
      rawFiles.append(file)
    }
    if rawFiles.count != 3 { closeRawFiles() }
  }

  private func closeRawFiles() {
    for file in rawFiles { try? file.close() }
    rawFiles = []
  }

  /// The three raw readings: pread on the open files, else libiio's attribute reads.
  private func readRaw() throws -> Vector3 {
    if let fault = readFault?() { throw SystemError("read \(accelerometer.id) raw", errno: fault) }
    guard rawFiles.count == 3 else {
      return Vector3(
        Double(try accelerometer.x.readInteger("raw")), Double(try accelerometer.y.readInteger("raw")),
        Double(try accelerometer.z.readInteger("raw")))
    }
    return Vector3(try readInteger(rawFiles[0]), try readInteger(rawFiles[1]), try readInteger(rawFiles[2]))
  }

  /// An integer attribute read from the start of an open sysfs file ("-512\n").
  private func readInteger(_ file: FileDescriptor) throws(SystemError) -> Double {
    var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    let count = try systemCall("read \(accelerometer.id) raw") {
      try withUnsafeMutableBytes(of: &buffer) { try file.read(fromAbsoluteOffset: 0, into: $0) }
    }
    guard count > 0 else { throw SystemError("read \(accelerometer.id) raw", errno: .ioError) }
    return try withUnsafeBytes(of: &buffer) { bytes throws(SystemError) in
      var value: Int64 = 0
      var negative = false
      var digits = 0
      for (index, byte) in bytes.prefix(count).enumerated() {
        if index == 0 && byte == UInt8(ascii: "-") {
          negative = true
        } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
          value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
          digits += 1
        } else {
          break
        }
      }
      guard digits > 0 else {
        throw SystemError("read \(accelerometer.id) raw (not a number)", errno: .invalidArgument)
      }
      return Double(negative ? -value : value)
    }
  }

  /// A refused read that another may not be: the driver is busy (its buffer runs for another
  /// program).
  static func isTransient(_ errno: Errno) -> Bool {
    errno == .resourceBusy || errno == .resourceTemporarilyUnavailable
  }

  private func tick() {
    timer = nil
    let now = scheduler.now
    do {
      let raw = try readRaw()
      if let since = refusedSince {
        logger?(
          "iio: \(accelerometer.id): direct reads answered again after \(formatSeconds(now - since)) s (\(skipped) samples skipped); sampling resumed"
        )
        refusedSince = nil
        skipped = 0
      }
      onSample(converter.sample(t: now, raw: raw))
    } catch let error as SystemError where Self.isTransient(error.errno) {
      if refusedSince == nil {
        refusedSince = now
        logger?(
          "iio: \(accelerometer.id): direct reads refused (\(error.errno == .resourceBusy ? "EBUSY" : "EAGAIN")) while another program holds its buffer; retrying at the sampling rate"
        )
      }
      skipped += 1
    } catch let error as SystemError {
      onFailure(error)
      return
    } catch {
      return
    }
    // Keep to the rate's grid; after a stall, start again from now rather than catch up.
    nextDeadline += period
    if nextDeadline <= scheduler.now { nextDeadline = scheduler.now + period }
    // (Not when an observer of the sample stopped the capture.)
    if timer == nil, isRunning {
      timer = scheduler.schedule(at: nextDeadline) { [weak self] in self?.tick() }
    }
  }
}
