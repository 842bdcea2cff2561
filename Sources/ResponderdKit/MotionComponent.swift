import EventTime
import IIOInput
import Logging
import Motion
import ResponderConfig
import ResponderCore
import SystemCalls

/// Shakes from the accelerometer into the application: the IIO input and the shake detector, with
/// each began, ended and cancelled posted as a motion event (`.motionShake`) to the first
/// responder's chain.
///
/// The sensor is sampled only while its `interest` holds: a handler of the chain asks for motion
/// (`command` when a shake command is configured; `log` only observes), an application registered
/// over D-Bus takes motion, a motion stream or the touchscreen's rotation needs samples. With
/// none, it is closed and nothing wakes up.
public final class MotionComponent: ServiceComponent {
  public let componentName = "iio"
  /// The accelerometer and the detector (nil when motion is disabled in the config).
  public private(set) var shake: ShakeInput?
  private weak var service: Service?
  private var logger = Logger(label: "responderd")
  private var lastReason: String?
  private var source = "iio"
  /// Who wants motion now; the other components record their demand here.
  public let interest: MotionInterest

  /// A motion component whose interest follows `service`'s chain.
  public init(service: Service) {
    interest = MotionInterest(chain: service.chain, logger: service.logger)
  }

  public func start(in service: Service) throws {
    self.service = service
    logger = service.logger
    if !directoryEntries("/sys/bus/iio/devices").contains(where: { $0.hasPrefix("iio:device") }) {
      logger.notice("iio: no IIO sensors found (/sys/bus/iio/devices is empty); waiting for one")
    }
    let settings = service.config.motion
    guard settings.enabled else {
      logger.info("iio: motion disabled in the config ([motion] enabled = false)")
      return
    }
    let input = ShakeInput(
      loop: service.loop, settings: settings.inputSettings, shake: settings.shake, logger: service.logger
    ) { [weak self] event in self?.post(event) }
    shake = input
    // After the detector's observer: a shake it began on this sample is known here.
    input.input.addSampleObserver { [weak self] sample in self?.checkProximity(at: sample.t) }
    interest.addObserver { [weak self] _ in self?.refresh() }
    interest.addDemandObserver { [weak self] in self?.refresh() }
    refresh()
  }

  public func stop() {
    shake?.setWanted(false)
    proximity = nil
  }

  /// Why shakes are not delivered now ("the screen is locked"), nil while they are: the user's
  /// session is not in front (see `pauseShakes`).
  public private(set) var shakesPaused: String?
  /// A began was posted and neither its end nor its cancel yet.
  private var shakeUnderWay = false

  /// Stops delivering shakes while the user's session is locked or inactive (`reason` says which;
  /// nil delivers them again), as iOS delivers them to the active application only: a shake under
  /// way is cancelled, and the accelerometer is closed unless motion streams or orientation
  /// (which go on) keep it open. A shake that began while paused is not delivered.
  public func pauseShakes(_ reason: String?) {
    guard reason != shakesPaused else { return }
    if reason != nil, shakeUnderWay, let service {
      shakeUnderWay = false
      post(ShakeEvent(phase: .cancelled, time: service.scheduler.now), gated: false)
    }
    shakesPaused = reason
    refresh()
  }

  /// Who wants motion now ("command", "2 applications"); nil when nobody does. Shake responders
  /// do not count while shakes are paused.
  public var wantedBy: String? {
    guard let service else { return nil }
    var names: [String] = []
    if shakesPaused == nil {
      for responder in service.chain.responders where responder.handler.wantedEventTypes.contains(.motion) {
        names.append(responder.handler.name)
      }
      let apps = interest.applications
      if apps > 0 { names.append(apps == 1 ? "1 registered application" : "\(apps) registered applications") }
    }
    let streams = interest.streams.streams
    if streams > 0 { names.append(streams == 1 ? "1 motion stream" : "\(streams) motion streams") }
    if interest.streams.orientationWatchers > 0 { names.append("orientation notifications") }
    if interest.touchFollowsOrientation { names.append("touch rotation") }
    return names.isEmpty ? nil : names.joined(separator: ", ")
  }

  /// Opens or closes the sensor according to who wants motion now, at the rate they want: the
  /// configured rate for shake detection, the fastest a stream asks for, 10 Hz for orientation
  /// alone (notifications, touch rotation). While streams are served, buffered samples are delivered one by one (no blocks).
  public func refresh() {
    guard let shake, let service else { return }
    let reason = wantedBy
    let demand = interest.streams
    let forShakes = shakesPaused == nil && (interest.chainWantsMotion || interest.applications > 0)
    var rate = max(forShakes ? service.config.motion.samplingRate : 0, demand.fastestRate)
    if rate == 0 { rate = forShakes ? service.config.motion.samplingRate : Self.orientationRate }
    let block = demand.streams > 0 ? 0 : IIOInput.Settings().blockDuration
    if reason != nil { shake.input.setSampling(rate: rate, blockDuration: block) }
    if reason != lastReason {
      if let reason {
        logger.info("iio: motion wanted by \(reason): sampling the accelerometer")
      } else if lastReason != nil, let paused = shakesPaused {
        logger.info("iio: shakes paused (\(paused)): accelerometer closed")
      } else if lastReason != nil {
        logger.info("iio: no responder wants motion any more: accelerometer closed")
      } else {
        logger.info("iio: no responder wants motion: accelerometer left closed")
      }
      lastReason = reason
    }
    shake.setWanted(reason != nil)
    if reason == nil { shake.input.setSampling(rate: rate, blockDuration: block) }
    setProximityWanted(forShakes && reason != nil)
  }

  // MARK: The proximity sensor

  /// The proximity sensor, open while shakes are wanted (nil otherwise, or when there is none).
  public private(set) var proximity: ProximitySensor?
  /// When the proximity sensor was last read during a shake under way.
  private var lastProximityRead: Seconds = -.infinity
  /// How often the proximity sensor is read while a shake is under way (at most; on samples).
  static let proximityInterval: Seconds = 0.2

  /// Opens the proximity sensor while shakes are wanted, and closes it when they are not: a phone
  /// in a pocket does not undo. It is read when a shake begins and, while one is under way, on
  /// the accelerometer's samples at most every `proximityInterval`: no timer of its own.
  private func setProximityWanted(_ wanted: Bool) {
    guard wanted != (proximity != nil) else { return }
    guard wanted else {
      logger.debug("iio: proximity sensor \(proximity?.id ?? "") closed")
      proximity = nil
      return
    }
    switch ProximitySensor.open() {
    case .sensor(let sensor):
      proximity = sensor
      logger.info(
        "iio: proximity sensor \(sensor.id) (\(sensor.name)), near above \(sensor.nearLevel): no shake while it reads near"
      )
    case .withoutNearLevel(let id, let name):
      logger.notice(
        "iio: proximity sensor \(id) (\(name)) has no PROXIMITY_NEAR_LEVEL (udev) nor in_proximity_nearlevel: not used"
      )
    case .none:
      break
    }
  }

  /// Whether the proximity sensor reads near now (false without one, or while it is closed: it is
  /// open while shakes are wanted; a failed read counts as far, logged).
  public var proximityReadsNear: Bool { readsNear() }

  /// Whether the proximity sensor reads near now (false without one; a failed read counts as far,
  /// logged).
  private func readsNear() -> Bool {
    guard let proximity else { return false }
    do {
      return try proximity.isNear()
    } catch {
      logger.notice("iio: proximity sensor \(proximity.id) could not be read (\(error)); taken as far")
      return false
    }
  }

  /// While a delivered shake is under way: cancelled when the proximity sensor reads near.
  private func checkProximity(at time: Seconds) {
    guard shakeUnderWay, proximity != nil, time - lastProximityRead >= Self.proximityInterval else { return }
    lastProximityRead = time
    guard readsNear(), let service else { return }
    logger.info(
      "iio: the proximity sensor reads near (\(proximity?.lastReading ?? 0)): the shake under way is cancelled"
    )
    shakeUnderWay = false
    post(ShakeEvent(phase: .cancelled, time: service.scheduler.now), gated: false)
  }

  /// Hz asked from the sensor when only orientation notifications want it.
  static let orientationRate = 10.0

  private func post(_ event: ShakeEvent, gated: Bool = true) {
    guard let service else { return }
    if gated {
      switch event.phase {
      case .began:
        guard shakesPaused == nil else { return }
        if readsNear() {
          logger.info(
            "iio: a shake began while the proximity sensor reads near (\(proximity?.lastReading ?? 0)): not delivered"
          )
          return
        }
        shakeUnderWay = true
        lastProximityRead = event.time
      case .ended, .cancelled:
        // Only the end of a shake that was delivered (not of one that began while paused).
        guard shakeUnderWay else { return }
        shakeUnderWay = false
      }
    }
    if let sensor = shake?.input.sensor { source = "iio:\(sensor.id)" }
    logger.debug("iio: shake \(event.phase) at \(formatSeconds(event.time))")
    service.application.post(
      Event.motion(.motionShake, timestamp: event.time, source: source), phase: event.phase)
  }
}

extension MotionSettings {
  /// The settings of the IIO input.
  public var inputSettings: IIOInput.Settings {
    var settings = IIOInput.Settings()
    settings.samplingRate = samplingRate
    settings.rotation = rotation
    settings.device = device
    switch capture {
    case .auto: settings.capture = .auto
    case .buffered: settings.capture = .buffered
    case .polled: settings.capture = .polled
    }
    return settings
  }
}
