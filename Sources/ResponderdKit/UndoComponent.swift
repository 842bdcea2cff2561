import AccessibilityWatch
import DBus
import EventLoop
import EventTime
import KeySender
import Logging
import ResponderConfig
import WaylandKeys

#if canImport(Glibc)
  import Glibc
#endif

/// Shake to undo in every application (`[undo]`, the `undo` handler): the focus on the
/// accessibility bus (`AccessibilityWatch`), the chords' way to the compositor (`KeySender`:
/// GNOME's RemoteDesktop or wlroots' virtual keyboard; `WaylandKeys`: KWin's fake input;
/// whichever the desktop that runs offers) and the question (a notification with actions).
///
/// The accessibility bus is followed only while shakes are wanted for the undo: the feature on,
/// a way to send keys and to ask, the session in front and unlocked, and the accelerometer open
/// (or a shake sent with `responderctl send motion`, which starts it for the rest of the run).
/// Focus changes are signals: nothing wakes up while nothing happens.
///
/// `responderctl status` and `devices` show whether it is on, which API sends the keys ("none:
/// …" with the reason), where the question is asked and what the last shake did.
public final class UndoComponent: ServiceComponent {
  public let componentName = "undo"
  /// What the handler works with.
  public let parts = UndoParts()
  /// The handler, once the chain is built (nil when the chain does not name `undo`).
  public private(set) weak var handler: UndoHandler?
  private let bus: BusComponent?
  private let session: SessionComponent?
  private let motion: MotionComponent?
  private let keys: KeysComponent?
  private let proximityNear: (() -> Bool)?
  private let settings: UndoSettings
  private let loop: EventLoop
  private let scheduler: any Scheduler
  private let logger: Logger
  /// A shake sent while the focus was not followed: it is followed from then on.
  private var requested = false
  private var sensorOpen: Bool
  private var lastCanAct: Bool?
  private var focusStarted = false

  /// The shake to undo; without `focus`, `keySender` or `question`, the real ones are made on
  /// `bus`'s connection. The session's state, the proximity sensor (`motion`'s, or
  /// `proximityNear`) gate it; `keys` shows its state in the devices report. `settings` are the
  /// config's `[undo]`; the keys are sent on `loop` and `scheduler`.
  public init(
    settings: UndoSettings, bus: BusComponent?, session: SessionComponent?, motion: MotionComponent?,
    keys: KeysComponent?, loop: EventLoop, scheduler: any Scheduler, logger: Logger,
    focus: (any AccessibilityFocusSource)? = nil, keySender: (any EditKeySender)? = nil,
    question: (any UndoQuestionPresenter)? = nil, proximityNear: (() -> Bool)? = nil
  ) {
    self.settings = settings
    self.loop = loop
    self.scheduler = scheduler
    self.logger = logger
    self.bus = bus
    self.session = session
    self.motion = motion
    self.keys = keys
    self.proximityNear = proximityNear
    sensorOpen = motion == nil
    parts.focus = focus
    parts.keys = keySender
    parts.question = question
  }

  /// The `undo` handler, on this component's parts.
  public var handlers: HandlerRegistry {
    HandlerRegistry("undo") { [weak self, parts] context in
      let handler = UndoHandler(
        settings: context.config.undo, parts: parts, scheduler: context.scheduler, logger: context.logger)
      self?.handler = handler
      return handler
    }
  }

  public var dependencies: [ServiceComponent] {
    ([bus, session, motion, keys] as [ServiceComponent?]).compactMap { $0 }
  }

  public func start() throws {
    keys?.addReportNoteSource { [weak self] in self?.notes ?? [] }
    guard settings.enabled else {
      logger.info("undo: off ([undo] enabled = false)")
      return
    }
    guard handler != nil else {
      logger.info("undo: the chain does not name the undo handler: shakes nobody takes do nothing")
      return
    }
    parts.gate = { [weak self] in self?.gateReason }
    parts.focusWanted = { [weak self] in
      guard let self, !self.requested else { return }
      self.requested = true
      self.update()
    }
    session?.addObserver { [weak self] _ in self?.update() }
    if let input = motion?.shake?.input {
      sensorOpen = input.sensor != nil
      input.addSensorObserver { [weak self] change in
        guard let self else { return }
        switch change {
        case .opened, .reconfigured: self.sensorOpen = true
        case .closed: self.sensorOpen = false
        }
        self.update()
      }
    }
    let attach: (any MessageBus) -> Void = { [weak self] connection in
      guard let self else { return }
      let uid = getuid()
      if self.parts.question == nil {
        self.parts.question = NotificationQuestion(bus: connection, uid: uid, logger: self.logger)
      }
      if self.parts.keys == nil {
        var senders: [any EditKeySender] = [
          MutterRemoteDesktopSender(bus: connection, uid: uid, logger: self.logger)
        ]
        // KWin's fake input, on the Wayland compositor the session runs.
        if let display = getenv("WAYLAND_DISPLAY"), display.pointee != 0 {
          senders.append(KWinFakeInputSender(loop: self.loop, logger: self.logger))
        }
        senders.append(VirtualKeyboardSender(scheduler: self.scheduler, logger: self.logger))
        self.parts.keys = FirstReadyKeySender(senders, noneReason: "no compositor API to send keys")
      }
      if self.parts.focus == nil {
        let loop = self.loop
        self.parts.focus = AccessibilityWatch(sessionBus: connection, uid: uid, logger: self.logger) {
          address in
          let accessibility = try DBusConnection(address: address, loop: loop)
          return (accessibility, { accessibility.close() })
        }
      }
      self.observeParts()
    }
    if parts.question != nil && parts.keys != nil && parts.focus != nil {
      observeParts()
    } else if let bus {
      bus.withConnection(attach)
    } else {
      logger.notice("undo: no bus in this service: no question can be asked")
    }
    update()
  }

  public func stop() {
    if focusStarted { parts.focus?.stop() }
    focusStarted = false
  }

  private func observeParts() {
    parts.keys?.addObserver { [weak self] state in
      self?.logger.info("undo: keys: \(state)")
      self?.update()
    }
    parts.question?.addObserver { [weak self] in self?.update() }
    update()
  }

  /// Why no shake may act now: the session, the proximity sensor.
  private var gateReason: String? {
    if let state = session?.state {
      if !state.isActive { return "another session is in front" }
      if state.isLocked { return "the screen is locked" }
    }
    let near = proximityNear?() ?? motion?.proximityReadsNear ?? false
    if near { return "the proximity sensor reads near" }
    return nil
  }

  /// Starts or stops following the focus, and tells the motion component whether the handler
  /// wants shakes.
  private func update() {
    guard let handler, settings.enabled else { return }
    let canAct = handler.canAct
    if canAct != lastCanAct {
      lastCanAct = canAct
      motion?.interest.handlersChanged()
      motion?.refresh()
    }
    let inFront = session?.state.isInFront ?? true
    let follow = canAct && inFront && (sensorOpen || requested)
    guard follow != focusStarted, let focus = parts.focus else { return }
    focusStarted = follow
    if follow {
      focus.start()
    } else {
      focus.stop()
    }
  }

  /// The lines `responderctl devices` and `status` show.
  public var notes: [String] {
    guard settings.enabled else {
      return ["undo: off ([undo] enabled = false): a shake nobody takes does nothing"]
    }
    guard let handler else { return ["undo: off (the chain does not name the undo handler)"] }
    let keys = parts.keys?.state.description ?? "none: not started"
    let question =
      parts.question.map { $0.unavailableReason.map { "none: \($0)" } ?? $0.presenterDescription }
      ?? "none: not started"
    let focus: String
    if let watch = parts.focus, focusStarted {
      focus = watch.statusText
    } else if !handler.canAct {
      focus = "not followed (no way to send keys or to ask)"
    } else if !(session?.state.isInFront ?? true) {
      focus = "not followed while the session is locked or inactive"
    } else {
      focus = "not followed until the accelerometer is open or a shake is sent"
    }
    var lines = [
      "undo: on (shake to undo in the focused text field); keys: \(keys); question: \(question); focus: \(focus)"
    ]
    if !handler.lastOutcome.isEmpty { lines.append("undo: last shake: \(handler.lastOutcome)") }
    return lines
  }
}
