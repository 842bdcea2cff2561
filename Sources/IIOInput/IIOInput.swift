import EventLoop
import EventTime
import Logging
import Motion
import ResponderCore
import SystemCalls

/// Accelerometer samples from IIO through libiio, only while someone wants them.
///
/// `setWanted(true)` opens the first accelerometer (or the configured one) and starts sampling:
/// buffered capture clocked by the device's trigger when it has one, else polled sysfs reads on a
/// timer; udev tells when a sensor appears or goes away. `setWanted(false)` closes everything: no
/// descriptor, no timer, nothing wakes up. Samples are in m/s² in screen coordinates with
/// CLOCK_MONOTONIC timestamps.
///
/// Not thread-safe: use it on the event loop's thread.
public final class IIOInput {
  /// How samples are captured.
  public enum Capture: String, Sendable, CaseIterable {
    /// Buffered when the sensor has a trigger, else polled.
    case auto
    /// Buffered only.
    case buffered
    /// Polled only.
    case polled
  }

  public struct Settings: Equatable, Sendable {
    /// Hz asked from the sensor: the lowest it offers at or above this.
    public var samplingRate: Double = 50
    public var capture: Capture = .auto
    public var rotation: ScreenRotation = .normal
    /// A sensor name ("bmc150_accel") or IIO id ("iio:device0"); empty for the first accelerometer.
    public var device = ""
    /// Buffered capture delivers samples in blocks of about this long.
    public var blockDuration: Seconds = 0.1
    public init() {}
  }

  /// The sensor being sampled.
  public struct Sensor: Equatable, Sendable, CustomStringConvertible {
    public var id: String
    public var name: String
    /// "buffered" or "polled".
    public var mode: String
    /// Samples per second.
    public var rate: Double
    /// Samples per delivered block (1 when polled).
    public var blockSamples: Int
    /// The sampling frequencies the sensor offers, in Hz, lowest first (empty when it does not say).
    public var availableRates: [Double] = []
    public var description: String {
      "\(id) (\(name)), \(mode) at \(formatFrequency(rate)) Hz"
        + (blockSamples > 1 ? " in blocks of \(blockSamples)" : "")
    }
  }

  public let settings: Settings
  /// Hz asked from the sensor now (`settings.samplingRate` until `setSamplingRate(_:)`).
  public private(set) var samplingRate: Double
  /// How long a block of buffered samples lasts now (`settings.blockDuration` until changed).
  public private(set) var blockDuration: Seconds
  private let loop: EventLoop
  private let scheduler: any Scheduler
  private var logger: Logger

  /// What happened to the sensor, for observers.
  public enum SensorChange: Sendable, Equatable {
    /// A sensor was opened.
    case opened(Sensor)
    /// The open sensor stopped delivering: it went away, failed, or sampling was stopped
    /// (`setWanted(false)`); with the time it happened.
    case closed(at: Seconds)
  }

  private var sampleObservers: [(MotionSample) -> Void] = []
  private var sensorObservers: [(SensorChange) -> Void] = []

  /// Calls `observer` with each sample.
  public func addSampleObserver(_ observer: @escaping (MotionSample) -> Void) {
    sampleObservers.append(observer)
  }

  /// Calls `observer` when a sensor is opened or stops delivering.
  public func addSensorObserver(_ observer: @escaping (SensorChange) -> Void) {
    sensorObservers.append(observer)
  }

  public private(set) var isWanted = false
  /// The sensor being sampled, if any.
  public private(set) var sensor: Sensor?

  private var context: IIOContext?
  private var polled: PolledCapture?
  private var buffered: BufferedCapture?
  private var hotplug: IIOHotplug?
  private var reportedMissing = false

  public init(loop: EventLoop, settings: Settings = Settings(), logger: Logger) {
    self.loop = loop
    self.scheduler = loop.scheduler
    self.settings = settings
    self.samplingRate = settings.samplingRate
    self.blockDuration = settings.blockDuration
    self.logger = logger
  }

  /// Asks the sensor for `rate` Hz (the lowest it offers at or above it), delivered in blocks of
  /// about `blockDuration` (0: each sample as it comes); an open sensor is reopened when that
  /// changes how it runs.
  public func setSampling(rate: Double, blockDuration: Seconds) {
    guard rate != samplingRate || blockDuration != self.blockDuration else { return }
    samplingRate = rate
    self.blockDuration = blockDuration
    guard let sensor else { return }
    let offered = sensor.availableRates.first { $0 >= rate - 1e-6 } ?? sensor.availableRates.last ?? rate
    let block = sensor.mode == "buffered" ? Self.blockSamples(rate: sensor.rate, duration: blockDuration) : 1
    guard abs(offered - sensor.rate) > 1e-6 || block != sensor.blockSamples else { return }
    logger.info(
      "iio: \(sensor.id): sampling at \(formatFrequency(offered)) Hz, blocks of \(formatSeconds(blockDuration))"
    )
    close(reason: "sampling change")
    open()
  }

  private static func blockSamples(rate: Double, duration: Seconds) -> Int {
    max(1, Int((rate * duration).rounded()))
  }

  /// The accelerometer this input would open (the configured one, else the first), with the
  /// rates it offers; nil when there is none. Reads sysfs without opening the sensor.
  public func probe() -> (id: String, name: String, availableRates: [Double])? {
    if let sensor { return (sensor.id, sensor.name, sensor.availableRates) }
    guard let context = try? IIOContext() else { return nil }
    let accelerometer = Accelerometer.all(in: context).first { accelerometer in
      settings.device.isEmpty || accelerometer.name == settings.device || accelerometer.id == settings.device
    }
    return accelerometer.map { ($0.id, $0.name, $0.availableFrequencies) }
  }

  /// How late a sample may be delivered after its timestamp (a block, and a period of slack).
  public var latency: Seconds {
    guard let sensor else { return blockDuration }
    return Double(sensor.blockSamples + 1) / sensor.rate
  }

  /// Opens the sensor when `wanted` and closes it when not. Asked again while wanted, it tries
  /// again to open a sensor that failed (a driver refusing reads while another program holds its
  /// buffer) or was not there.
  public func setWanted(_ wanted: Bool) {
    guard wanted != isWanted else {
      if wanted && sensor == nil { open() }
      return
    }
    isWanted = wanted
    if wanted {
      do {
        hotplug = try IIOHotplug(loop: loop) { [weak self] action, name in
          self?.hotplugEvent(action: action, name: name)
        }
      } catch {
        logger.warning("iio: no hotplug (\(error)); sensors plugged in later are not seen")
      }
      open()
    } else {
      close(reason: "not wanted")
      hotplug?.stop()
      hotplug = nil
      reportedMissing = false
    }
  }

  private func hotplugEvent(action: String, name: String) {
    guard isWanted else { return }
    if let sensor, sensor.id == name, action == "remove" {
      logger.notice("iio: \(sensor.id) (\(sensor.name)) removed")
      close(reason: "removed")
    } else if sensor == nil, action == "add" || action == "change" || action == "bind" {
      open()
    }
  }

  private func open() {
    guard sensor == nil else { return }
    let context: IIOContext
    do {
      context = try IIOContext()
    } catch {
      report("iio: no IIO context (\(error)); waiting for a sensor")
      return
    }
    let candidates = Accelerometer.all(in: context).filter { accelerometer in
      settings.device.isEmpty || accelerometer.name == settings.device || accelerometer.id == settings.device
    }
    guard let accelerometer = candidates.first else {
      report(
        settings.device.isEmpty
          ? "iio: no accelerometer found; waiting for one"
          : "iio: no accelerometer '\(settings.device)' found; waiting for it")
      return
    }
    reportedMissing = false
    let converter = accelerometer.converter(rotation: settings.rotation)
    let rate = accelerometer.setSamplingFrequency(atLeast: samplingRate)
    let availableRates = accelerometer.availableFrequencies
    let useBuffer: Bool
    switch settings.capture {
    case .auto: useBuffer = accelerometer.canBuffer
    case .buffered:
      guard accelerometer.canBuffer else {
        report("iio: \(accelerometer.id) (\(accelerometer.name)) has no trigger for buffered capture")
        return
      }
      useBuffer = true
    case .polled: useBuffer = false
    }
    let deliver: (MotionSample) -> Void = { [weak self] sample in
      guard let self else { return }
      for observer in self.sampleObservers { observer(sample) }
    }
    let fail: (SystemError) -> Void = { [weak self] error in self?.failed(error) }
    var opened: Sensor?
    if useBuffer {
      let block = Self.blockSamples(rate: rate, duration: blockDuration)
      if let capture = BufferedCapture(
        accelerometer: accelerometer, loop: loop, rate: rate, blockSamples: block, converter: converter,
        onSample: deliver, onFailure: fail)
      {
        capture.logger = { [logger] in logger.notice("\($0)") }
        do {
          try capture.start()
          buffered = capture
          opened = Sensor(
            id: accelerometer.id, name: accelerometer.name, mode: "buffered", rate: rate, blockSamples: block,
            availableRates: availableRates)
        } catch {
          logger.error("iio: \(accelerometer.id): buffered capture failed (\(error))")
        }
      }
      // With `capture = "auto"`, a buffer that cannot be set up (sysfs read-only under the
      // systemd unit, a busy buffer) falls back to polled reads; `buffered` insists.
      guard opened != nil || settings.capture == .auto else { return }
      if opened == nil { logger.notice("iio: \(accelerometer.id): falling back to polled capture") }
    }
    if opened == nil {
      let capture = PolledCapture(
        accelerometer: accelerometer, scheduler: scheduler, rate: rate, converter: converter,
        onSample: deliver, onFailure: fail)
      capture.start()
      polled = capture
      opened = Sensor(
        id: accelerometer.id, name: accelerometer.name, mode: "polled", rate: rate, blockSamples: 1,
        availableRates: availableRates)
    }
    guard let opened else { return }
    sensor = opened
    self.context = context
    logger.info("iio: sampling \(opened)")
    for observer in sensorObservers { observer(.opened(opened)) }
  }

  private func failed(_ error: SystemError) {
    guard let sensor else { return }
    logger.notice("iio: \(sensor.id) (\(sensor.name)) stopped: \(error)")
    // Stop from the loop, not from inside the capture's own callback.
    loop.runSoon { [weak self] in
      guard let self, self.sensor == sensor else { return }
      self.close(reason: "failed")
    }
  }

  private func close(reason: String) {
    guard let closed = sensor else { return }
    polled?.stop()
    polled = nil
    buffered?.stop()
    buffered = nil
    context = nil
    sensor = nil
    logger.debug("iio: closed \(closed.id) (\(reason))")
    let now = scheduler.now
    for observer in sensorObservers { observer(.closed(at: now)) }
  }

  private func report(_ message: String) {
    guard !reportedMissing else { return }
    reportedMissing = true
    logger.notice("\(message)")
  }
}

/// Shakes from the accelerometer: an `IIOInput` feeding a `ShakeDetector`.
public final class ShakeInput {
  public let input: IIOInput
  public let detector: ShakeDetector

  /// - Parameter onShake: called with each began, ended and cancelled.
  public init(
    loop: EventLoop, settings: IIOInput.Settings, shake: ShakeSettings, logger: Logger,
    onShake: @escaping (ShakeEvent) -> Void
  ) {
    input = IIOInput(loop: loop, settings: settings, logger: logger)
    detector = ShakeDetector(settings: shake, scheduler: loop.scheduler, onEvent: onShake)
    input.addSampleObserver { [detector] sample in detector.process(sample) }
    input.addSensorObserver { [detector, unowned input] change in
      switch change {
      case .opened:
        detector.reset()
        detector.lateSampleAllowance = input.latency
      case .closed(let time): detector.sensorLost(at: time)
      }
    }
  }

  /// Samples while `wanted`; a shake under way when it stops is cancelled.
  public func setWanted(_ wanted: Bool) { input.setWanted(wanted) }
}
