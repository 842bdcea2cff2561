import EventLoop
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
  private let settings: MotionSettings
  private let chain: HandlerChain
  private let session: SessionComponent?
  private let events: ServiceEvents
  private let loop: EventLoop
  private let scheduler: any Scheduler
  private let logger: Logger
  private var lastReason: String?
  private var source = "iio"
  /// Who wants motion now; the other components record their demand here.
  public let interest: MotionInterest

  /// How long the accelerometer stays open after the last want, on `keepOpenScheduler`: a want
  /// again within this time (a window's focus that flaps) takes it as it is.
  public let keepOpen: Seconds
  private let keepOpenScheduler: any Scheduler
  /// The accelerometer is kept open this long after the last want, by default (2 s).
  public static let keepOpenAfterLastWant: Seconds = 2
  /// The info lines of motion wanted and not wanted: a bounded number however often it flaps.
  private var wantLines = LogRateLimit()
  /// The accelerometer given in place of the IIO one (a test's double).
  private let givenAccelerometer: (any AccelerometerSource)?
  /// Where the proximity sensor is looked for (the IIO devices, or a test's double).
  private let proximitySensors: any ProximitySensors

  /// A motion component with the config's `[motion]`, whose interest follows `chain` and whose
  /// shakes pause as `session` says, its
  /// sensor read on `loop` and its shakes posted to `events`; the accelerometer is kept open
  /// `keepOpen` seconds after the last want, on `keepOpenScheduler` (`scheduler` when nil).
  /// `accelerometer` and `proximitySensors` replace the IIO devices (a test's doubles).
  public init(
    settings: MotionSettings, chain: HandlerChain, session: SessionComponent?, events: ServiceEvents,
    loop: EventLoop,
    scheduler: any Scheduler, logger: Logger, keepOpen: Seconds = MotionComponent.keepOpenAfterLastWant,
    keepOpenScheduler: (any Scheduler)? = nil, accelerometer: (any AccelerometerSource)? = nil,
    proximitySensors: (any ProximitySensors)? = nil
  ) {
    givenAccelerometer = accelerometer
    self.proximitySensors = proximitySensors ?? IIOProximitySensors()
    self.settings = settings
    self.chain = chain
    self.session = session
    self.events = events
    self.loop = loop
    self.scheduler = scheduler
    self.logger = logger
    interest = MotionInterest(chain: chain, logger: logger, scheduler: keepOpenScheduler ?? scheduler)
    self.keepOpen = keepOpen
    self.keepOpenScheduler = keepOpenScheduler ?? scheduler
  }

  public var dependencies: [ServiceComponent] { session.map { [$0] } ?? [] }

  public func start() throws {
    // Shakes pause while the session is locked or another session is in front.
    if let session {
      pauseShakes(session.gate.shakesPaused)
      session.addGateObserver { [weak self] gate in self?.pauseShakes(gate.shakesPaused) }
    }
    if givenAccelerometer == nil,
      !directoryEntries("/sys/bus/iio/devices").contains(where: { $0.hasPrefix("iio:device") })
    {
      logger.notice("iio: no IIO sensors found (/sys/bus/iio/devices is empty); waiting for one")
    }
    guard settings.enabled else {
      logger.info("iio: motion disabled in the config ([motion] enabled = false)")
      return
    }
    let onShake: (ShakeEvent) -> Void = { [weak self] event in self?.post(event) }
    let input =
      givenAccelerometer.map {
        ShakeInput(input: $0, scheduler: scheduler, shake: settings.shake, onShake: onShake)
      }
      ?? ShakeInput(
        loop: loop, settings: settings.inputSettings, shake: settings.shake, logger: logger, onShake: onShake)
    shake = input
    // After the detector's observer: a shake it began on this sample is known here.
    input.input.addSampleObserver { [weak self] sample in self?.checkProximity(at: sample.t) }
    input.input.addSensorObserver { [weak self, unowned input] change in
      guard let self else { return }
      self.interest.accelerometer = self.accelerometerState
      // Closed after it was kept open: the proximity sensor kept with it closes too.
      if case .closed = change, input.input.sensor == nil, !self.proximityWanted {
        self.setProximityWanted(false)
      }
    }
    // The proximity sensor comes and goes as the accelerometer does (udev, while it is watched).
    input.input.addDeviceObserver { [weak self] action, id in self?.proximityHotplug(action: action, id: id) }
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
    if reason != nil, shakeUnderWay {
      shakeUnderWay = false
      post(ShakeEvent(phase: .cancelled, time: scheduler.now), gated: false)
    }
    shakesPaused = reason
    refresh()
  }

  /// Who wants motion now ("command", "2 applications"); nil when nobody does. Shake responders
  /// do not count while shakes are paused.
  public var wantedBy: String? {
    var names: [String] = []
    if shakesPaused == nil {
      for responder in chain.responders where responder.handler.wantedEventTypes.contains(.motion) {
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
    guard let shake else { return }
    let reason = wantedBy
    let demand = interest.streams
    let forShakes = shakesPaused == nil && (interest.chainWantsMotion || interest.applications > 0)
    var rate = max(forShakes ? settings.samplingRate : 0, demand.fastestRate)
    if rate == 0 { rate = forShakes ? settings.samplingRate : Self.orientationRate }
    let block = demand.streams > 0 ? 0 : IIOInput.Settings().blockDuration
    if reason != nil { shake.input.setSampling(rate: rate, blockDuration: block) }
    // Kept open for a moment when the last want goes (not when shakes pause: the screen locked).
    let keep = reason == nil && lastReason != nil && shakesPaused == nil && keepOpen > 0
    if reason != lastReason {
      let line: String
      if let reason {
        line =
          shake.input.isKeptOpen
          ? "iio: motion wanted by \(reason): sampling the accelerometer (still open)"
          : "iio: motion wanted by \(reason): sampling the accelerometer"
      } else if lastReason != nil, let paused = shakesPaused {
        line = "iio: shakes paused (\(paused)): accelerometer closed"
      } else if keep {
        line =
          "iio: no responder wants motion any more: accelerometer kept open \(formatSeconds(keepOpen, decimals: 1)) s, then closed"
      } else if lastReason != nil {
        line = "iio: no responder wants motion any more: accelerometer closed"
      } else {
        line = "iio: no responder wants motion: accelerometer left closed"
      }
      if let verdict = wantLines.check(at: keepOpenScheduler.now) { logger.info("\(verdict.text(line))") }
      lastReason = reason
    }
    if reason != nil {
      shake.setWanted(true)
    } else if keep {
      shake.input.release(keepingOpenFor: keepOpen, on: keepOpenScheduler)
    } else if shakesPaused != nil || !shake.input.isKeptOpen {
      // (Kept open and asked again with nothing changed: it stays kept.)
      shake.setWanted(false)
    }
    if reason == nil { shake.input.setSampling(rate: rate, blockDuration: block) }
    setProximityWanted(forShakes && reason != nil)
    interest.accelerometer = accelerometerState
  }

  /// What the accelerometer does now, as `responderctl status` says it ("the accelerometer is
  /// …"): "sampled (…)", "kept open …" for a moment after the last want, "not there …", "closed: …"
  /// with why.
  public var accelerometerState: String {
    guard let shake else { return "closed: motion is disabled in the config" }
    if shake.input.isKeptOpen {
      return "kept open for a moment after the last want (its samples go to nobody)"
    }
    if shake.input.isWanted {
      guard let sensor = shake.input.sensor else { return "not there (waiting for one to appear)" }
      return "sampled (\(sensor))"
    }
    if let paused = shakesPaused, interest.isWanted { return "closed: shakes are paused (\(paused))" }
    return "closed: nobody wants motion"
  }

  // MARK: The proximity sensor

  /// The proximity sensor, open while shakes are wanted (nil otherwise, or when there is none).
  public private(set) var proximity: (any ProximityReading)?
  /// Whether shakes are wanted, so a proximity sensor that appears is opened.
  private var proximityWanted = false
  /// The IIO devices were looked at for a proximity sensor since shakes are wanted (again looked
  /// at only when one is plugged in).
  private var proximityLookedFor = false
  /// When the proximity sensor was last read during a shake under way.
  private var lastProximityRead: Seconds = -.infinity
  /// How often the proximity sensor is read while a shake is under way (at most; on samples).
  static let proximityInterval: Seconds = 0.2

  /// Opens the proximity sensor while shakes are wanted, and closes it when they are not: a phone
  /// in a pocket does not undo. It is read when a shake begins and, while one is under way, on
  /// the accelerometer's samples at most every `proximityInterval`: no timer of its own.
  private func setProximityWanted(_ wanted: Bool) {
    proximityWanted = wanted
    guard wanted else {
      // Kept while the accelerometer is kept open: a want that flaps does not look for it (a new
      // IIO context) each time. Closed with the accelerometer.
      if shake?.input.isKeptOpen == true { return }
      proximityLookedFor = false
      guard let proximity else { return }
      logger.debug("iio: proximity sensor \(proximity.id) closed")
      self.proximity = nil
      proximityReadFailed = false
      return
    }
    guard proximity == nil, !proximityLookedFor else { return }
    proximityLookedFor = true
    switch proximitySensors.find() {
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
  /// logged once per sensor). A sensor whose attribute is gone (unplugged, its driver unbound) is
  /// closed: shakes go on without it until one appears again.
  private func readsNear() -> Bool {
    guard let proximity else { return false }
    do {
      let near = try proximity.isNear()
      proximityReadFailed = false
      return near
    } catch {
      let errno = (error as? SystemError)?.errno
      if errno == .noSuchFileOrDirectory || errno == .operationNotSupportedByDevice
        || errno == .noSuchAddressOrDevice
      {
        logger.notice("iio: proximity sensor \(proximity.id) is gone (\(error)): shakes go on without it")
        self.proximity = nil
      } else if !proximityReadFailed {
        proximityReadFailed = true
        logger.notice(
          "iio: proximity sensor \(proximity.id) could not be read (\(error)); taken as far while it cannot (said once)"
        )
      }
      return false
    }
  }

  /// A failed read of the proximity sensor was logged, and none has succeeded since.
  private var proximityReadFailed = false

  /// An IIO device came or went while udev is watched: the proximity sensor is closed when it
  /// goes, and one that appears while shakes are wanted is opened.
  private func proximityHotplug(action: String, id: String) {
    if action == "remove" || action == "unbind", let proximity, proximity.id == id {
      logger.notice(
        "iio: proximity sensor \(proximity.id) (\(proximity.name)) removed: shakes go on without it")
      self.proximity = nil
      proximityReadFailed = false
    } else if proximity == nil, action == "add" || action == "bind" {
      proximityLookedFor = false
      if proximityWanted { setProximityWanted(true) }
    }
  }

  /// While a delivered shake is under way: cancelled when the proximity sensor reads near.
  private func checkProximity(at time: Seconds) {
    guard shakeUnderWay, proximity != nil, time - lastProximityRead >= Self.proximityInterval else { return }
    lastProximityRead = time
    guard readsNear() else { return }
    logger.info(
      "iio: the proximity sensor reads near (\(proximity?.lastReading ?? 0)): the shake under way is cancelled"
    )
    shakeUnderWay = false
    post(ShakeEvent(phase: .cancelled, time: scheduler.now), gated: false)
  }

  /// Hz asked from the sensor when only orientation notifications want it.
  static let orientationRate = 10.0

  private func post(_ event: ShakeEvent, gated: Bool = true) {
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
    events.post(
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
