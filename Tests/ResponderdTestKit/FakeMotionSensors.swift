import EventTime
import IIOInput
import Motion
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// An accelerometer in process, for the motion component (`AccelerometerSource`): a sensor that
/// is plugged in or not, opened while wanted, and moved on virtual time (held still, shaken), each
/// sample delivered as time reaches it. It keeps a sensor open after the last want as `IIOInput`
/// does, and tells of sensor devices coming and going (its own and `FakeProximitySensor`'s) while
/// it watches for them (wanted, open, or availability observed), as udev does for `IIOInput`.
///
/// ```swift
/// let accelerometer = FakeAccelerometer(time: harness.time)
/// let motion = harness.service.motionComponent(accelerometer: accelerometer)
/// accelerometer.shake()  // still, a shake back and forth, still: began, then ended
/// ```
public final class FakeAccelerometer: AccelerometerSource {
  /// A bmc150 as `IIOInput` opens it polled: 50 Hz, one sample a delivery.
  public static let bmc150 = IIOInput.Sensor(
    id: "iio:device0", name: "bmc150_accel", mode: "polled", rate: 50, availableRates: [12.5, 25, 50, 100])

  /// The clock samples are taken on: moving the device advances it.
  public let time: VirtualScheduler
  /// The sensor plugged in now (nil: none).
  public private(set) var pluggedIn: IIOInput.Sensor?
  public private(set) var isWanted = false
  public private(set) var sensor: IIOInput.Sensor?
  /// How many times a sensor was opened (not counting one kept open and wanted again).
  public private(set) var opens = 0
  /// The rate and block duration last asked for.
  public private(set) var sampling: (rate: Double, blockDuration: Seconds) = (50, 0.1)
  /// The samples delivered to the observers.
  public private(set) var delivered = 0
  public var onAvailabilityChange: (() -> Void)?
  private var keepOpenTimer: ScheduledTimer?
  private var sampleObservers: [(MotionSample) -> Void] = []
  private var sensorObservers: [(IIOInput.SensorChange) -> Void] = []
  private var deviceObservers: [(String, String) -> Void] = []

  /// An accelerometer on `time`, with `sensor` plugged in (nil: none yet).
  public init(time: VirtualScheduler, sensor: IIOInput.Sensor? = FakeAccelerometer.bmc150) {
    self.time = time
    pluggedIn = sensor
  }

  public var isKeptOpen: Bool { !isWanted && sensor != nil && keepOpenTimer != nil }
  public var latency: Seconds { sensor.map { 1 / $0.rate } ?? sampling.blockDuration }

  public func addSampleObserver(_ observer: @escaping (MotionSample) -> Void) {
    sampleObservers.append(observer)
  }
  public func addSensorObserver(_ observer: @escaping (IIOInput.SensorChange) -> Void) {
    sensorObservers.append(observer)
  }
  public func addDeviceObserver(_ observer: @escaping (String, String) -> Void) {
    deviceObservers.append(observer)
  }

  public func setWanted(_ wanted: Bool) {
    if wanted == isWanted {
      if wanted, sensor == nil { open() }
      if !wanted, keepOpenTimer != nil { close() }
      return
    }
    isWanted = wanted
    if wanted {
      if let kept = sensor, keepOpenTimer != nil {
        keepOpenTimer?.cancel()
        keepOpenTimer = nil
        tell(.opened(kept))
      } else {
        open()
      }
    } else {
      close()
    }
  }

  public func setSampling(rate: Double, blockDuration: Seconds) {
    sampling = (rate, blockDuration)
    guard isWanted, let open = sensor else { return }
    let offered = self.rate(for: open)
    guard offered != open.rate else { return }
    sensor?.rate = offered
    tell(.reconfigured(sensor!))
  }

  public func release(keepingOpenFor seconds: Seconds, on scheduler: any Scheduler) {
    guard isWanted else { return }
    guard seconds > 0, sensor != nil else { return setWanted(false) }
    isWanted = false
    tell(.closed(at: time.now))
    keepOpenTimer?.cancel()
    keepOpenTimer = scheduler.schedule(after: seconds) { [weak self] in
      guard let self, !self.isWanted else { return }
      self.close()
    }
  }

  public func probe() -> (id: String, name: String, availableRates: [Double])? {
    pluggedIn.map { ($0.id, $0.name, $0.availableRates) }
  }

  // MARK: The test's hands

  /// Plugs `sensor` in: opened at once when sampling is wanted.
  public func plugIn(_ sensor: IIOInput.Sensor = FakeAccelerometer.bmc150) {
    pluggedIn = sensor
    deviceEvent("add", id: sensor.id)
    if isWanted, self.sensor == nil { open() }
  }

  /// Unplugs the sensor: an open one stops delivering (its observers are told it closed).
  public func unplug() {
    guard let gone = pluggedIn else { return }
    pluggedIn = nil
    if sensor != nil {
      sensor = nil
      keepOpenTimer?.cancel()
      keepOpenTimer = nil
      tell(.closed(at: time.now))
    }
    deviceEvent("remove", id: gone.id)
  }

  /// A sensor device `id` was added or removed ("add", "remove"), told to the observers while
  /// devices are watched.
  public func deviceEvent(_ action: String, id: String) {
    guard isWanted || sensor != nil || onAvailabilityChange != nil else { return }
    onAvailabilityChange?()
    for observer in deviceObservers { observer(action, id) }
  }

  /// Moves the device for `duration`: a sample of `acceleration` (in m/s², at the seconds since
  /// the move began) at each of the sensor's periods, time advanced to it first. Without a sensor
  /// open (or wanted) time passes and nothing is delivered.
  public func move(for duration: Seconds, _ acceleration: (Seconds) -> Vector3) {
    let period = 1 / (sensor?.rate ?? pluggedIn?.rate ?? 50)
    let start = time.now
    var index = 1.0
    while index * period <= duration + 1e-9 {
      time.advance(to: start + index * period)
      if isWanted, sensor != nil {
        let sample = MotionSample(t: time.now, acceleration: acceleration(index * period))
        delivered += 1
        for observer in sampleObservers { observer(sample) }
      }
      index += 1
    }
  }

  /// Lies still, face up, for `duration`.
  public func lieStill(for duration: Seconds) {
    move(for: duration) { _ in Vector3(0, 0, standardGravity) }
  }

  /// A shake back and forth along x: `amplitude` g at `frequency` Hz for `duration` (as
  /// Tests/Fixtures/Motion/make-traces.py writes them), face up.
  public func shakeBackAndForth(frequency: Double = 3, amplitude: Double = 2, for duration: Seconds = 1.5) {
    move(for: duration) { t in
      Vector3(amplitude * standardGravity * sin(2 * .pi * frequency * t), 0, standardGravity)
    }
  }

  /// A whole shake as a user makes one: a second still, a shake of 1.5 s, two seconds still.
  public func shake() {
    lieStill(for: 1)
    shakeBackAndForth()
    lieStill(for: 2)
  }

  private func rate(for sensor: IIOInput.Sensor) -> Double {
    sensor.availableRates.first { $0 >= sampling.rate - 1e-6 } ?? sensor.availableRates.last ?? sensor.rate
  }

  private func open() {
    guard sensor == nil, var opened = pluggedIn else { return }
    opened.rate = rate(for: opened)
    sensor = opened
    opens += 1
    tell(.opened(opened))
    onAvailabilityChange?()
  }

  private func close() {
    keepOpenTimer?.cancel()
    keepOpenTimer = nil
    guard sensor != nil else { return }
    sensor = nil
    tell(.closed(at: time.now))
    onAvailabilityChange?()
  }

  private func tell(_ change: IIOInput.SensorChange) {
    for observer in sensorObservers { observer(change) }
  }
}

/// A proximity sensor in process (`ProximityReading`, and where the motion component finds it:
/// `ProximitySensors`): covered or not, a read that fails, unplugged. Near and far follow
/// iio-sensor-proxy's rule as `ProximitySensor` does (10 % either side of the near level).
public final class FakeProximitySensor: ProximityReading, ProximitySensors {
  public let id: String
  public let name: String
  public let nearLevel: Int64
  /// The raw value the sensor reads now.
  public var raw: Int64 = 0
  /// Something is over the sensor (a pocket, an ear): it reads twice its near level, else 0.
  public var isCovered: Bool {
    get { raw > nearLevel }
    set { raw = newValue ? nearLevel * 2 : 0 }
  }
  /// An error each read fails with (nil: it reads).
  public var readFailure: Errno?
  public private(set) var isPluggedIn = true
  public private(set) var lastReading: Int64?
  /// How many times it was read, and looked for.
  public private(set) var reads = 0
  public private(set) var finds = 0
  public private(set) var near = false
  /// The accelerometer whose device watch tells of this sensor coming and going (udev's).
  private weak var watch: FakeAccelerometer?

  /// A sensor `id` (`name`) that reads near above `nearLevel`; `watch` tells when it is
  /// unplugged or plugged in again.
  public init(
    id: String = "iio:device1", name: String = "vcnl4040", nearLevel: Int64 = 200,
    watch: FakeAccelerometer? = nil
  ) {
    self.id = id
    self.name = name
    self.nearLevel = nearLevel
    self.watch = watch
  }

  public func find() -> ProximityDiscovery {
    finds += 1
    guard isPluggedIn else { return .none }
    return nearLevel > 0 ? .sensor(self) : .withoutNearLevel(id: id, name: name)
  }

  @discardableResult
  public func isNear() throws -> Bool {
    reads += 1
    guard isPluggedIn else { throw SystemError("read \(id) raw", errno: .operationNotSupportedByDevice) }
    if let readFailure { throw SystemError("read \(id) raw", errno: readFailure) }
    lastReading = raw
    near = Double(raw) > Double(nearLevel) * (near ? 0.9 : 1.1)
    return near
  }

  /// Unplugged: reads fail, and the device watch says it was removed.
  public func unplug() {
    isPluggedIn = false
    watch?.deviceEvent("remove", id: id)
  }

  /// Plugged in again (far), and said to be added.
  public func plugIn() {
    isPluggedIn = true
    near = false
    watch?.deviceEvent("add", id: id)
  }
}
