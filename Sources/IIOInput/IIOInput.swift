import EventLoop
import EventTime
import Logging
import Motion
import ResponderCore
import SystemCalls
import SystemPackage

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

    /// A sensor `id` (`name`) sampled in `mode` ("buffered", "polled") at `rate` Hz.
    public init(
      id: String, name: String, mode: String, rate: Double, blockSamples: Int = 1,
      availableRates: [Double] = []
    ) {
      self.id = id
      self.name = name
      self.mode = mode
      self.rate = rate
      self.blockSamples = blockSamples
      self.availableRates = availableRates
    }

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
    /// The open sensor was reopened to run at another rate or block size (a stream came or went):
    /// the same sensor goes on delivering, so what was learnt from its samples still holds.
    case reconfigured(Sensor)
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

  /// Called when an IIO device is added or removed, or the sensor opens or closes (what `probe()`
  /// answers may have changed). While it is set, a udev monitor watches IIO devices: a netlink
  /// descriptor on the loop, which wakes nothing up until a device changes.
  public var onAvailabilityChange: (() -> Void)? {
    didSet { updateHotplug() }
  }

  private var deviceObservers: [(_ action: String, _ id: String) -> Void] = []

  /// Calls `observer` with each IIO device that udev says was added, removed, changed, bound or
  /// unbound ("add", "iio:device1") while udev is watched: while the sensor is wanted or open, or
  /// availability is observed (another sensor beside the accelerometer comes and goes there too).
  public func addDeviceObserver(_ observer: @escaping (_ action: String, _ id: String) -> Void) {
    deviceObservers.append(observer)
  }

  /// For tests: an error each polled read answers instead of the sensor's value (nil: read it).
  var polledReadFault: (() -> Errno?)? {
    didSet { polled?.readFault = polledReadFault }
  }

  public private(set) var isWanted = false
  /// The sensor being sampled, if any (also while it is kept open after the last want: see
  /// `release(keepingOpenFor:on:)`).
  public private(set) var sensor: Sensor?
  /// Whether the sensor is open only because it is kept for a moment after the last want: its
  /// samples go to nobody, and it closes when `keepOpenTimer` fires.
  public var isKeptOpen: Bool { !isWanted && sensor != nil && keepOpenTimer != nil }
  private var keepOpenTimer: ScheduledTimer?
  /// Samples taken before this time (CLOCK_MONOTONIC) are not delivered: the sensor was opened
  /// or wanted again then.
  private var deliverFrom: Seconds = -.infinity
  /// How much older than `deliverFrom` a sample may be and still be delivered: the first block
  /// after opening may hold scans taken a moment before, and arrival times are spread back over
  /// a block (too short for a shake).
  static let staleSlack: Seconds = 0.25

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
    // A sensor kept open for nobody runs on as it is: it is reconfigured if wanted again.
    guard isWanted else { return }
    applySampling()
  }

  /// Reopens the open sensor when it does not run at `samplingRate` in blocks of `blockDuration`.
  private func applySampling() {
    guard let sensor else { return }
    let offered =
      sensor.availableRates.first { $0 >= samplingRate - 1e-6 } ?? sensor.availableRates.last ?? samplingRate
    let block = sensor.mode == "buffered" ? Self.blockSamples(rate: sensor.rate, duration: blockDuration) : 1
    guard abs(offered - sensor.rate) > 1e-6 || block != sensor.blockSamples else { return }
    logger.info(
      "iio: \(sensor.id): sampling at \(formatFrequency(offered)) Hz, blocks of \(formatSeconds(blockDuration))"
    )
    // Reopened quietly: observers are told of a reconfiguration, not of a loss and a new sensor
    // (a shake under way goes on, gravity estimates stay), unless it does not open again.
    let now = scheduler.now
    close(reason: "sampling change", notify: false)
    if let reopened = open(notify: false), reopened.id == sensor.id {
      for observer in sensorObservers { observer(.reconfigured(reopened)) }
    } else {
      for observer in sensorObservers { observer(.closed(at: now)) }
      onAvailabilityChange?()
      if let sensor = self.sensor {
        for observer in sensorObservers { observer(.opened(sensor)) }
      }
    }
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
      if !wanted && keepOpenTimer != nil {
        // Kept open after the last want: closed now.
        close(reason: "not wanted")
        updateHotplug()
      }
      return
    }
    isWanted = wanted
    if wanted {
      updateHotplug()
      if let kept = sensor, keepOpenTimer != nil {
        resume(kept)
      } else {
        open()
      }
    } else {
      // (A missing sensor is said once until one is found, however often it is wanted.)
      close(reason: "not wanted")
      updateHotplug()
    }
  }

  /// Not wanted any more, but the sensor stays open for `seconds` on `scheduler` (as
  /// iio-sensor-proxy keeps a driver for a moment after its last claim): a want within that time
  /// takes it as it is, with no new IIO context, so a focus that flaps does not reopen it each
  /// time. Observers are told it closed (a shake under way is cancelled) and get no sample until
  /// it is wanted again, then are told it opened (what was learnt from the samples before starts
  /// afresh). Without a sensor open it closes at once, as `setWanted(false)`.
  public func release(keepingOpenFor seconds: Seconds, on scheduler: any Scheduler) {
    guard isWanted else { return }
    guard seconds > 0, let kept = sensor else { return setWanted(false) }
    isWanted = false
    let now = self.scheduler.now
    for observer in sensorObservers { observer(.closed(at: now)) }
    keepOpenTimer?.cancel()
    keepOpenTimer = scheduler.schedule(after: seconds) { [weak self] in
      guard let self, !self.isWanted else { return }
      self.keepOpenTimer = nil
      self.logger.debug("iio: \(kept.id) not wanted again within \(formatSeconds(seconds)): closing it")
      self.close(reason: "not wanted")
      self.updateHotplug()
    }
  }

  /// Takes the sensor kept open as it is: the samples go to the observers again.
  private func resume(_ kept: Sensor) {
    keepOpenTimer?.cancel()
    keepOpenTimer = nil
    logger.debug("iio: \(kept.id) wanted again while kept open: sampled as it is")
    deliverFrom = scheduler.now
    for observer in sensorObservers { observer(.opened(kept)) }
    applySampling()
  }

  /// Watches udev while sampling is wanted (or the sensor kept open) or availability is
  /// observed; not otherwise.
  private func updateHotplug() {
    let needed = isWanted || sensor != nil || onAvailabilityChange != nil
    if needed, hotplug == nil {
      do {
        hotplug = try IIOHotplug(loop: loop) { [weak self] action, name in
          self?.hotplugEvent(action: action, name: name)
        }
      } catch {
        logger.warning("iio: no hotplug (\(error)); sensors plugged in later are not seen")
      }
    } else if !needed, let watcher = hotplug {
      watcher.stop()
      hotplug = nil
    }
  }

  private func hotplugEvent(action: String, name: String) {
    if action == "add" || action == "remove" || action == "bind" || action == "unbind" {
      onAvailabilityChange?()
    }
    for observer in deviceObservers { observer(action, name) }
    if !isWanted, let sensor, sensor.id == name, action == "remove" {
      // Kept open for nobody, and gone: closed now.
      close(reason: "removed")
      updateHotplug()
      return
    }
    guard isWanted else { return }
    if let sensor, sensor.id == name, action == "remove" {
      logger.notice("iio: \(sensor.id) (\(sensor.name)) removed")
      close(reason: "removed")
    } else if sensor == nil, action == "add" || action == "change" || action == "bind" {
      open()
    }
  }

  @discardableResult
  private func open(notify: Bool = true) -> Sensor? {
    guard sensor == nil else { return sensor }
    let context: IIOContext
    do {
      context = try IIOContext()
    } catch {
      report("iio: no IIO context (\(error)); waiting for a sensor")
      return nil
    }
    let candidates = Accelerometer.all(in: context).filter { accelerometer in
      settings.device.isEmpty || accelerometer.name == settings.device || accelerometer.id == settings.device
    }
    guard let accelerometer = candidates.first else {
      report(
        settings.device.isEmpty
          ? "iio: no accelerometer found; waiting for one"
          : "iio: no accelerometer '\(settings.device)' found; waiting for it")
      return nil
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
        return nil
      }
      useBuffer = true
    case .polled: useBuffer = false
    }
    let deliver: (MotionSample) -> Void = { [weak self] sample in
      // Samples of a sensor kept open after the last want go to nobody, nor do those taken
      // before it was (last) wanted: scans left in the device's buffer from an earlier time.
      // (Looked at while the first blocks are read, when such scans come: a clock that moves
      // later is the sensor's own business.)
      guard let self, self.isWanted else { return }
      let fresh =
        self.scheduler.now - self.deliverFrom > 0.5 || sample.t >= self.deliverFrom - Self.staleSlack
      guard fresh else { return }
      for observer in self.sampleObservers { observer(sample) }
    }
    // (Reopened at another rate, the same sensor goes on: what it delivers is not stale.)
    if notify { deliverFrom = scheduler.now }
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
          let busy = (error as? SystemError)?.errno == .resourceBusy
          let message =
            "iio: \(accelerometer.id): buffered capture failed (\(error))"
            + (busy ? ": another program (iio-sensor-proxy?) holds its buffer" : "")
          logger.log(level: settings.capture == .auto ? .notice : .error, "\(message)")
        }
      }
      // With `capture = "auto"`, a buffer that cannot be set up (sysfs read-only under the
      // systemd unit, a busy buffer) falls back to polled reads; `buffered` insists.
      guard opened != nil || settings.capture == .auto else { return nil }
      if opened == nil {
        logger.notice("iio: \(accelerometer.id): falling back to polled capture (reads of in_accel_*_raw)")
      }
    }
    if opened == nil {
      let capture = PolledCapture(
        accelerometer: accelerometer, scheduler: scheduler, rate: rate, converter: converter,
        onSample: deliver, onFailure: fail)
      capture.logger = { [logger] in logger.notice("\($0)") }
      capture.readFault = polledReadFault
      capture.start()
      polled = capture
      opened = Sensor(
        id: accelerometer.id, name: accelerometer.name, mode: "polled", rate: rate, blockSamples: 1,
        availableRates: availableRates)
    }
    guard let opened else { return nil }
    sensor = opened
    self.context = context
    logger.info("iio: sampling \(opened)")
    if notify {
      for observer in sensorObservers { observer(.opened(opened)) }
      onAvailabilityChange?()
    }
    return opened
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

  private func close(reason: String, notify: Bool = true) {
    guard let closed = sensor else { return }
    if notify {
      keepOpenTimer?.cancel()
      keepOpenTimer = nil
    }
    polled?.stop()
    polled = nil
    buffered?.stop()
    buffered = nil
    context = nil
    sensor = nil
    logger.debug("iio: closed \(closed.id) (\(reason))")
    guard notify else { return }
    let now = scheduler.now
    for observer in sensorObservers { observer(.closed(at: now)) }
    onAvailabilityChange?()
  }

  private func report(_ message: String) {
    guard !reportedMissing else { return }
    reportedMissing = true
    logger.notice("\(message)")
  }
}

/// Shakes from the accelerometer: an `AccelerometerSource` (`IIOInput`) feeding a `ShakeDetector`.
public final class ShakeInput {
  public let input: any AccelerometerSource
  public let detector: ShakeDetector

  /// Shakes from the IIO accelerometer (`IIOInput`) on `loop`.
  /// - Parameter onShake: called with each began, ended and cancelled.
  public convenience init(
    loop: EventLoop, settings: IIOInput.Settings, shake: ShakeSettings, logger: Logger,
    onShake: @escaping (ShakeEvent) -> Void
  ) {
    self.init(
      input: IIOInput(loop: loop, settings: settings, logger: logger), scheduler: loop.scheduler,
      shake: shake,
      onShake: onShake)
  }

  /// Shakes from `input`'s samples, decided on `scheduler`'s clock.
  /// - Parameter onShake: called with each began, ended and cancelled.
  public init(
    input: any AccelerometerSource, scheduler: any Scheduler, shake: ShakeSettings,
    onShake: @escaping (ShakeEvent) -> Void
  ) {
    self.input = input
    detector = ShakeDetector(settings: shake, scheduler: scheduler, onEvent: onShake)
    input.addSampleObserver { [detector] sample in detector.process(sample) }
    input.addSensorObserver { [detector, unowned input] change in
      switch change {
      case .opened:
        detector.reset()
        detector.lateSampleAllowance = input.latency
      case .reconfigured:
        // The same sensor at another rate: a shake under way goes on.
        detector.lateSampleAllowance = input.latency
      case .closed(let time): detector.sensorLost(at: time)
      }
    }
  }

  /// Samples while `wanted`; a shake under way when it stops is cancelled.
  public func setWanted(_ wanted: Bool) { input.setWanted(wanted) }
}
