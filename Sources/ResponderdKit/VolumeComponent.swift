import EvdevInput
import EventLoop
import EventTime
import InputCodes
import Logging
import ResponderConfig
import SoundServer

/// The volume keys of owned devices (`[volume]`): KEY_VOLUMEUP / KEY_VOLUMEDOWN / KEY_MUTE of a
/// device responderd holds (the desktop no longer sees them) change the sound server's volume:
/// the device's own sink when it can be matched (a USB headset's card), else the default sink.
///
/// Volume keys of shared devices are the desktop's and never reach this component. Each key and
/// what it did is published (`ServiceEvents.addKeyActionObserver`, the keys component's `KeyPressed`
/// signal that `responderctl monitor` shows).
public final class VolumeComponent: ServiceComponent {
  public let componentName = "volume"
  /// The sound server connection, while started and enabled.
  public private(set) var connection: (any VolumeControl)?
  /// The control given in place of a connection of its own (a test's double).
  private let givenControl: (any VolumeControl)?
  private var locations: [String: InputDeviceLocation] = [:]
  private let server: String?
  private let keys: KeysComponent?
  private let order = InPressOrder<VolumeOutcome>()
  private let settings: VolumeSettings
  private let loop: EventLoop
  private let events: ServiceEvents
  private let logger: Logger
  /// The clock that times the presses against the server's answers (the loop's real time when
  /// nil; libpulse's own timers always run on real time).
  private let pressScheduler: (any Scheduler)?

  /// Takes the volume keys of `keys`' owned devices (none: only `press` calls), with the config's
  /// `[volume]`; what each did is published to `events`. `server`: the sound server's address
  /// (`unix:/path`); nil, the user's default server. `pressScheduler` is for tests (virtual time).
  /// `control`: the sound server to use instead of a connection of its own (a test's double).
  public init(
    settings: VolumeSettings, keys: KeysComponent? = nil, server: String? = nil, loop: EventLoop,
    events: ServiceEvents, logger: Logger, pressScheduler: (any Scheduler)? = nil,
    control: (any VolumeControl)? = nil
  ) {
    givenControl = control
    self.settings = settings
    self.keys = keys
    self.server = server
    self.loop = loop
    self.events = events
    self.logger = logger
    self.pressScheduler = pressScheduler
  }

  public var dependencies: [ServiceComponent] { keys.map { [$0] } ?? [] }

  public func start() throws {
    if let keys, !observing {
      observing = true
      keys.addVolumeKeyObserver { [weak self] event in
        // Press and auto-repeat (a held key steps on); releases do nothing.
        guard event.value != 0, let key = Self.volumeKey(code: event.code) else { return }
        self?.press(
          key, devicePath: event.path, device: event.identity.name, syspath: event.syspath,
          timestamp: event.timestamp)
      }
      keys.addDeviceObserver { [weak self] change in
        if case .closed(let path, _) = change { self?.locations[path] = nil }
      }
    }
    guard settings.enabled else {
      logger.info("volume: volume keys are off ([volume] enabled = false)")
      return
    }
    // libpulse's timers run on real time, whatever clock the service's own timers use. The
    // connection (and libpulse) waits for the first volume key: a service whose volume keys are
    // never pressed never loads it.
    connection =
      givenControl
      ?? SoundServerConnection(
        loop: loop, scheduler: pressScheduler, server: server, step: settings.step, logger: logger)
  }

  private var observing = false

  /// Connects to the sound server now rather than at the first volume key (for a device with volume
  /// keys that has just become owned, or a benchmark's warm start).
  public func connect() { connection?.start() }

  public func stop() {
    connection?.stop()
    connection = nil
    locations.removeAll()
  }

  /// A volume key pressed on the device at `devicePath`, named `device` (`syspath`: its sysfs
  /// path, to find its own sink; auto-repeat counts as a press: holding volume up raises the volume
  /// step by step). `completion` runs once the server has answered.
  public func press(
    _ key: VolumeKey, devicePath: String?, device: String = "", syspath: String? = nil, timestamp: Double,
    completion: @escaping (VolumeOutcome) -> Void = { _ in }
  ) {
    let keyName = Self.keyName(key)
    let path = devicePath ?? ""
    guard let connection else {
      events.publish(
        KeyActionRecord(
          key: keyName, timestamp: timestamp, path: path, device: device, action: "volume keys are off"))
      return completion(.noServer)
    }
    let place = devicePath.flatMap { path in syspath.map { self.location(of: path, syspath: $0) } }
    connection.start()
    // Published in the order of the presses (a press dropped at once comes after the earlier one
    // the server has not answered yet).
    let ticket = order.reserve(
      { [events, logger] outcome in
        logger.debug("volume: \(keyName) on \(path): \(outcome)")
        events.publish(
          KeyActionRecord(
            key: keyName, timestamp: timestamp, path: path, device: device, action: "\(outcome)"))
        // Shown as not answered yet: its own outcome comes later (`late`).
        if case .unanswered = outcome { return }
        completion(outcome)
      },
      late: { [events, logger] outcome in
        logger.debug("volume: \(keyName) on \(path), answered late: \(outcome)")
        events.publish(
          KeyActionRecord(
            key: keyName, timestamp: timestamp, path: path, device: device,
            action: "\(outcome) (answered late: the sound server had stopped answering)"))
        completion(outcome)
      })
    connection.press(key, location: place) { [order] outcome in
      // A press dropped because the server does not answer is shown at once, and so are the
      // presses before it, as not answered yet: the monitor does not wait for the server.
      if case .dropped = outcome {
        order.deliverEarlier(
          than: ticket, with: .unanswered(reason: "the sound server does not answer; applied if it does"))
      }
      order.fill(ticket, with: outcome)
    }
  }

  private func location(of devicePath: String, syspath: String) -> InputDeviceLocation {
    let found = locations[devicePath] ?? InputDeviceLocation.of(syspath: syspath)
    locations[devicePath] = found
    return found
  }

  /// The evdev name of a volume key.
  public static func keyName(_ key: VolumeKey) -> String {
    switch key {
    case .up: "KEY_VOLUMEUP"
    case .down: "KEY_VOLUMEDOWN"
    case .mute: "KEY_MUTE"
    }
  }

  /// The volume key of an evdev key code, nil for any other code.
  public static func volumeKey(code: UInt16) -> VolumeKey? {
    switch code {
    case 115: .up
    case 114: .down
    case 113: .mute
    default: nil
    }
  }
}

/// A key of an owned device that acted outside the chain (a volume key: the sound server's volume;
/// another key: its `[command]`), published as the `KeyPressed` signal that `responderctl monitor`
/// shows.
public struct KeyActionRecord: Sendable, Equatable {
  /// The evdev key name ("KEY_VOLUMEUP").
  public var key: String
  /// When it was pressed (seconds since boot).
  public var timestamp: Double
  /// The device node it came from ("/dev/input/event7").
  public var path: String
  /// The device's name.
  public var device: String
  /// What it did ("default sink 'speakers' 40% → 45%", "no sound server", "command PROGRAM").
  public var action: String

  public init(key: String, timestamp: Double, path: String, device: String, action: String) {
    self.key = key
    self.timestamp = timestamp
    self.path = path
    self.device = device
    self.action = action
  }
}
