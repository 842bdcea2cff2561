import EvdevInput
import EventLoop
import EventTime
import InputCodes
import Logging
import RemoteControl

extension KeySettings {
  /// What the key reader is to do with `candidate`: read the keys its profile maps (none when a
  /// rule ignores it) and own it when its rule or its class says so.
  public func decision(for candidate: KeyDeviceCandidate) -> KeyDeviceDecision {
    let profile = profile(for: candidate.identity)
    let intent = ownership(
      of: profile, headsetClass: HeadsetClass.of(candidate.identity, usbInterfaces: candidate.usbInterfaces),
      isKeyboard: candidate.isKeyboard)
    return KeyDeviceDecision(
      mappedKeys: profile.mappedKeys, isIgnored: profile.isIgnored, grab: intent.grab,
      explanation: intent.explanation, reasonCode: intent.code)
  }
}

extension KeyInterpreter {
  /// Takes one event of the key reader's stream: devices opened and closed, and their mapped keys.
  public func handle(_ event: MappedKeyEvent) {
    switch event {
    case .deviceOpened(let source, let identity): deviceAdded(source, identity: identity)
    case .key(let key, let source): handle(key, from: source)
    case .deviceClosed(let source, let time): deviceRemoved(source, at: time)
    }
  }
}

extension MediaKeyInput {
  /// The key reader with the key interpreter above it, as the daemon runs them: `settings` decide
  /// which keys of which devices are read and which devices are owned, and the interpreter (the
  /// mapping and the click grammar) turns the keys read into the events `sink` receives, on the
  /// loop thread, on the reader's clock (see the designated initializer for `scheduler` and
  /// `devices`).
  public convenience init(
    loop: EventLoop, scheduler: (any Scheduler)? = nil, settings: KeySettings = .standard, logger: Logger,
    devices: (any InputDeviceSource)? = nil, sink: @escaping (RemoteControlEmission) -> Void
  ) {
    let interpreter = KeyInterpreter(settings: settings, scheduler: scheduler ?? loop.scheduler) {
      [logger] emission in
      logger.debug("evdev: \(emission)")
      sink(emission)
    }
    self.init(
      loop: loop, scheduler: scheduler, logger: logger, devices: devices, decide: settings.decision(for:),
      sink: interpreter.handle(_:))
  }
}
