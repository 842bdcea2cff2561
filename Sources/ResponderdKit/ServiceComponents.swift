import AccessibilityWatch
import DBus
import EvdevInput
import EventTime
import IIOInput
import KeySender
import SessionWatcher
import SoundServer

/// Each component made with this service's parts: its config section, the loop or the clock, the
/// logger, the events and the programs it runs, and the components it is given. The component
/// keeps those parts, not the service; `StandardComponents` and tests make them this way.
extension Service {
  /// The session-bus connection at `address` (from the environment when nil); another responderd
  /// owning the name stops this service.
  public func busComponent(address: String? = nil) -> BusComponent {
    BusComponent(address: address, loop: loop, logger: logger) { [weak self] in self?.stopRunning(exitCode: 1)
    }
  }

  /// The user's session on the system bus at `systemBusAddress` (from the environment when nil).
  public func sessionComponent(
    systemBusAddress: String? = nil, identity: SessionWatcher.Identity = .current(), sessionBus: BusComponent?
  ) -> SessionComponent {
    SessionComponent(
      systemBusAddress: systemBusAddress, identity: identity, sessionBus: sessionBus, loop: loop,
      scheduler: scheduler, logger: logger)
  }

  /// The user's session on a system bus made elsewhere (nil: none).
  public func sessionComponent(
    systemBus: (any MessageBus)?, identity: SessionWatcher.Identity, sessionBus: BusComponent?
  ) -> SessionComponent {
    SessionComponent(
      systemBus: systemBus, identity: identity, sessionBus: sessionBus, scheduler: scheduler, logger: logger)
  }

  /// The responder API on `bus`.
  public func responderAPI(
    bus: BusComponent?, session: SessionComponent?, motionInterest: MotionInterest?
  ) -> ResponderAPI {
    ResponderAPI(
      bus: bus, session: session, motionInterest: motionInterest, events: events, chain: chain,
      settings: config.responders, configFile: config.file, scheduler: scheduler, logger: logger)
  }

  /// The MPRIS players of `bus`, the `mpris` handler and the proxy player.
  public func mprisComponent(bus: BusComponent?) -> MPRISComponent {
    MPRISComponent(settings: config.players, bus: bus, events: events, scheduler: scheduler, logger: logger)
  }

  /// Media keys from evdev, their report served on `bus`, the devices following `session`; `devices`
  /// and `keyScheduler` replace udev, libevdev and the loop's clock (a test's double, virtual time).
  public func keysComponent(
    bus: BusComponent?, session: SessionComponent? = nil, devices: (any InputDeviceSource)? = nil,
    keyScheduler: (any Scheduler)? = nil
  ) -> KeysComponent {
    KeysComponent(
      config: config.keys, commands: config.command.commands, bus: bus, session: session, loop: loop,
      events: events, children: children, logger: logger, devices: devices, keyScheduler: keyScheduler)
  }

  /// The volume keys of `keys`' owned devices, on the sound server at `server` (the user's when nil),
  /// or on `control` when given (a test's double).
  public func volumeComponent(
    keys: KeysComponent?, server: String? = nil, pressScheduler: (any Scheduler)? = nil,
    control: (any VolumeControl)? = nil
  ) -> VolumeComponent {
    VolumeComponent(
      settings: config.volume, keys: keys, server: server, loop: loop, events: events, logger: logger,
      pressScheduler: pressScheduler, control: control)
  }

  /// The desktop found on `bus`, told to `keys`.
  public func desktopComponent(keys: KeysComponent, bus: BusComponent?) -> DesktopComponent {
    DesktopComponent(
      keys: keys, bus: bus, mediaKeys: config.keys.desktopHandlesMediaKeys, touch: config.touch,
      logger: logger)
  }

  /// Shakes from the accelerometer (`accelerometer` and `proximitySensors`: the IIO devices when
  /// nil), wanted by this service's chain.
  public func motionComponent(
    session: SessionComponent? = nil, keepOpen: Seconds = MotionComponent.keepOpenAfterLastWant,
    keepOpenScheduler: (any Scheduler)? = nil, accelerometer: (any AccelerometerSource)? = nil,
    proximitySensors: (any ProximitySensors)? = nil
  ) -> MotionComponent {
    MotionComponent(
      settings: config.motion, chain: chain, session: session, events: events, loop: loop,
      scheduler: scheduler,
      logger: logger, keepOpen: keepOpen, keepOpenScheduler: keepOpenScheduler, accelerometer: accelerometer,
      proximitySensors: proximitySensors)
  }

  /// The motion API of `motion`'s accelerometer, on `bus`.
  public func motionAPI(motion: MotionComponent?, bus: BusComponent?) -> MotionAPI {
    MotionAPI(motion: motion, bus: bus, loop: loop, logger: logger)
  }

  /// Whole-screen touch gestures.
  public func touchGesturesComponent(
    desktop: DesktopComponent?, session: SessionComponent? = nil, motion: MotionComponent?,
    motionAPI: MotionAPI?
  ) -> TouchGesturesComponent {
    TouchGesturesComponent(
      config: config, desktop: desktop, session: session, motion: motion, motionAPI: motionAPI, loop: loop,
      events: events, children: children, logger: logger)
  }

  /// Shake to undo; the focus, the keys' sender and the question are made on `bus` when not given.
  public func undoComponent(
    bus: BusComponent?, session: SessionComponent?, motion: MotionComponent?, keys: KeysComponent?,
    focus: (any AccessibilityFocusSource)? = nil, keySender: (any EditKeySender)? = nil,
    question: (any UndoQuestionPresenter)? = nil, proximityNear: (() -> Bool)? = nil
  ) -> UndoComponent {
    UndoComponent(
      settings: config.undo, bus: bus, session: session, motion: motion, keys: keys, loop: loop,
      scheduler: scheduler, logger: logger, focus: focus, keySender: keySender, question: question,
      proximityNear: proximityNear)
  }
}
