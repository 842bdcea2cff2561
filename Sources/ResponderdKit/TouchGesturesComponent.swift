import EvdevInput
import EventLoop
import EventTime
import Logging
import ResponderConfig
import ResponderCore
import ShellGestures
import TouchDispatch

#if canImport(Glibc)
  import Glibc
#endif

/// Whole-screen gestures from the touchscreen (`[touch]`): the first touchscreen found (or the
/// configured one) is read on the service's loop into `ScreenGestures`; a gesture posts its
/// remote-control event to the application or runs its command. The touchscreen is opened only
/// when gestures are configured; unplugged, it is followed by udev and taken again when it comes
/// back.
///
/// With `rotation = "auto"` the screen turns with the device orientation (`AutoRotation`, from
/// the motion API's orientation estimate, the one `Motion1.DeviceOrientation` shows): while the
/// touchscreen is open the accelerometer is wanted (`MotionInterest.touchFollowsOrientation`, one capture
/// shared with shakes and streams). A turn takes effect between touch sequences: a sequence under
/// way keeps its coordinates to its end.
///
/// The desktop shell reads the same panel and takes some gestures for itself (`[touch] shell`, or
/// the desktop found on the session bus): every frame goes through a `ShellGestureFilter` with its
/// profile before the recognizers see it, so a gesture the shell takes never acts here too.
public final class TouchGesturesComponent: ServiceComponent {
  public let componentName = "touch"
  /// The gestures on the open touchscreen (nil while none is open).
  public private(set) var gestures: ScreenGestures?
  /// The open touchscreen's reader.
  public private(set) var source: TouchscreenSource?
  private var watcher: UdevInputWatcher?
  private let config: ResponderdConfig
  private let loop: EventLoop
  private let events: ServiceEvents
  private let children: ChildProcesses
  private let logger: Logger
  /// The rotation following the device orientation (`rotation = "auto"`; nil otherwise).
  public private(set) var autoRotation: AutoRotation?
  /// The shell profile the touches go through now.
  public private(set) var shellProfile = ShellProfile.none
  /// What the shell takes of the open touchscreen's touches (nil while none is open).
  public private(set) var shellFilter: ShellGestureFilter?

  private let desktop: DesktopComponent?
  private let session: SessionComponent?
  private let motion: MotionComponent?
  private let motionAPI: MotionAPI?

  /// Gestures that follow `desktop`'s shell profile (`shell = "auto"`) and, with
  /// `rotation = "auto"`, `motionAPI`'s device orientation (recorded in `motion.interest`, which
  /// keeps the accelerometer open meanwhile). `config` gives `[touch]` (and `[motion]`'s rotation,
  /// and the warnings on rules the shell takes); the touchscreen is read on `loop`, its gestures'
  /// events posted to `events` and their commands run as `children`.
  public init(
    config: ResponderdConfig, desktop: DesktopComponent?, session: SessionComponent?,
    motion: MotionComponent?,
    motionAPI: MotionAPI?,
    loop: EventLoop, events: ServiceEvents, children: ChildProcesses, logger: Logger
  ) {
    self.config = config
    self.desktop = desktop
    self.session = session
    self.motion = motion
    self.motionAPI = motionAPI
    self.loop = loop
    self.events = events
    self.children = children
    self.logger = logger
  }

  public var dependencies: [ServiceComponent] {
    ([desktop, session, motion, motionAPI] as [ServiceComponent?]).compactMap { $0 }
  }

  public func start() throws {
    // The touchscreen is closed while the session holds or releases the input devices.
    session?.addGateObserver { [weak self] gate in
      self?.follow(gate.devices == .open ? .sessionOpened : .sessionClosed)
    }
    let config = self.config.touch
    guard config.enabled else {
      logger.info("touch: whole-screen gestures off ([touch] enabled = false)")
      return
    }
    guard !config.gestures.isEmpty else {
      logger.info("touch: no gestures configured ([[touch.gesture]]): touchscreen left closed")
      return
    }
    if config.autoRotate { startFollowingOrientation() }
    switch config.shell {
    case .profile(let profile): useShellProfile(profile, atStart: true)
    case .auto:
      useShellProfile(desktop?.shellProfile ?? .none, atStart: true)
      desktop?.addShellProfileObserver { [weak self] profile in
        self?.useShellProfile(profile)
      }
    }
    let sessionOpen = (session?.gate.devices ?? .open) == .open
    if watch.handle(.started(sessionOpen: sessionOpen)).contains(.watch) { try watchTouchscreens() }
  }

  /// Opens the touchscreen present and follows hotplug.
  private func watchTouchscreens() throws {
    let config = self.config.touch
    let watcher = UdevInputWatcher(loop: loop)
    self.watcher = watcher
    try watcher.start(
      onAdd: { [weak self] node in self?.consider(node.devnode) },
      onRemove: { [weak self] node in self?.lost(node.devnode) })
    if source == nil {
      let wanted = config.device.isEmpty ? "no touchscreen" : "touchscreen '\(config.device)' not"
      logger.info("touch: \(wanted) found; waiting for one")
    }
  }

  public func stop() {
    for action in watch.handle(.stopped) where action == .close { closeTouchscreen() }
  }

  private func closeTouchscreen() {
    watcher?.stop()
    watcher = nil
    let closing = source
    source = nil
    closing?.close()
    gestures = nil
    shellFilter = nil
    motion?.interest.touchFollowsOrientation = false
  }

  /// Whether the touchscreen is followed, or held closed by the session.
  public private(set) var watch = TouchscreenWatch.off

  /// Whether the touchscreen is closed because the session holds the input devices.
  public var isSuspended: Bool { watch == .held }

  /// The session let the input devices be opened, or took them back: the touchscreen is opened
  /// again, or closed until then.
  private func follow(_ event: TouchscreenWatch.Event) {
    for action in watch.handle(event) {
      switch action {
      case .close:
        if let path = source?.device.path { logger.info("touch: closed \(path) (session inactive)") }
        closeTouchscreen()
      case .watch:
        do {
          try watchTouchscreens()
        } catch {
          logger.error("touch: cannot follow the touchscreens again: \(error)")
        }
      }
    }
  }

  /// Follows `profile` from the next touch sequence on, and says which rules it takes.
  private func useShellProfile(_ profile: ShellProfile, atStart: Bool = false) {
    guard atStart || profile != shellProfile else { return }
    shellProfile = profile
    shellFilter?.setProfile(profile)
    if profile != .none {
      logger.info("touch: shell profile \(profile.rawValue) (\(profile)): it takes \(profile.takes)")
    }
    for warning in config.shellWarnings(for: [profile]) { logger.warning("touch: \(warning)") }
  }

  /// `rotation = "auto"`: follows the motion API's orientation; says in one line when it cannot
  /// (the screen then keeps the panel's natural orientation).
  private func startFollowingOrientation() {
    let settings = config.motion
    guard settings.enabled else {
      logger.notice(
        "touch: rotation = \"auto\" needs the accelerometer, and motion is disabled ([motion] enabled = false): the touchscreen keeps its natural orientation"
      )
      return
    }
    guard let motionAPI, let shake = motion?.shake else {
      logger.notice(
        "touch: rotation = \"auto\" needs the motion components, which this service does not run: the touchscreen keeps its natural orientation"
      )
      return
    }
    var rotation = AutoRotation(motionRotation: settings.rotation)
    rotation.update(motionAPI.deviceOrientation)
    autoRotation = rotation
    motionAPI.addOrientationObserver { [weak self] orientation in self?.orientationChanged(orientation) }
    if shake.input.probe() == nil {
      logger.notice(
        "touch: rotation = \"auto\" but no accelerometer is found: the touchscreen keeps its natural orientation until one appears"
      )
    } else {
      logger.info("touch: rotation follows the device orientation (the accelerometer)")
    }
  }

  private func orientationChanged(_ orientation: DeviceOrientation) {
    guard var rotation = autoRotation else { return }
    let before = rotation.rotation
    rotation.update(orientation)
    autoRotation = rotation
    guard rotation.rotation != before, let input = source?.input else { return }
    logger.info("touch: device \(orientation): screen turned \(rotation.rotation.rawValue)°")
    input.rotate(to: rotation.rotation)
    if input.pendingRotation != nil {
      logger.debug("touch: the turn waits for the fingers on the screen to lift")
    }
  }

  /// Whether `device` is the configured touchscreen (any direct multitouch device when none is).
  static func matches(_ device: TouchscreenDevice, wanted: String) -> Bool {
    if wanted.isEmpty { return device.isDirect }
    if wanted.hasPrefix("/") { return device.path == wanted }
    return fnmatch(wanted, device.identity.name, 0) == 0
  }

  private func consider(_ path: String) {
    guard source == nil else { return }
    let config = self.config.touch
    if config.device.hasPrefix("/") && config.device != path { return }
    guard let device = try? TouchscreenDevice(path: path) else { return }
    guard Self.matches(device, wanted: config.device) else {
      device.close()
      return
    }
    let rotation = autoRotation?.rotation ?? config.rotation
    let unitsWide = Double(device.xRange.upperBound) - Double(device.xRange.lowerBound) + 1
    let unitsHigh = Double(device.yRange.upperBound) - Double(device.yRange.lowerBound) + 1
    var screen: Size
    if autoRotation != nil {
      // width and height are the screen in the panel's natural orientation.
      screen = Size(
        width: config.width > 0 ? config.width : unitsWide,
        height: config.height > 0 ? config.height : unitsHigh)
      if rotation.isQuarterTurn { screen = Size(width: screen.height, height: screen.width) }
    } else {
      let turned = rotation.isQuarterTurn
      screen = Size(
        width: config.width > 0 ? config.width : (turned ? unitsHigh : unitsWide),
        height: config.height > 0 ? config.height : (turned ? unitsWide : unitsHigh))
    }
    let gestures = ScreenGestures(
      bindings: config.gestures, screen: screen, edgeWidth: config.edgeWidth,
      scheduler: loop.scheduler
    ) { [weak self] binding, time in
      self?.perform(binding, at: time)
    }
    let physicalSize = device.physicalSize
    func geometry(_ screen: Size, _ rotation: TouchRotation) -> ShellGeometry {
      let turned = physicalSize.map { rotation.isQuarterTurn ? Size(width: $0.height, height: $0.width) : $0 }
      return ShellGeometry(screen: screen, physicalSize: turned)
    }
    let filter = ShellGestureFilter(profile: shellProfile, geometry: geometry(screen, rotation))
    filter.claimObserver = { [logger] claim, _ in
      if claim.takesSequence {
        logger.debug(
          "touch: the shell took the touch sequence (\(claim)): every gesture under way is cancelled")
      } else {
        logger.debug("touch: the shell took a touch (\(claim)): no gesture sees it")
      }
    }
    do {
      let source = try TouchscreenSource(
        device: device, window: gestures.window, loop: loop, rotation: rotation)
      source.addGoneObserver { [weak self] in self?.closed(path) }
      source.input.frameFilter = filter
      source.input.rotationObserver = { [weak gestures, weak filter] calibration in
        gestures?.resize(to: calibration.screen)
        filter?.geometry = geometry(calibration.screen, calibration.rotation)
      }
      self.source = source
      self.gestures = gestures
      shellFilter = filter
      if autoRotation != nil { motion?.interest.touchFollowsOrientation = true }
      logger.info(
        "touch: \(config.gestures.count) gestures on '\(device.identity.name)' (\(path)), screen \(Int(screen.width))×\(Int(screen.height))"
      )
    } catch {
      device.close()
      logger.warning("touch: cannot read \(path): \(error)")
    }
  }

  private func lost(_ path: String) {
    guard let source, source.device.path == path else { return }
    source.close()
  }

  private func closed(_ path: String) {
    guard source != nil else { return }  // stopped, not gone
    logger.info("touch: touchscreen \(path) gone; waiting for one")
    source = nil
    gestures = nil
    shellFilter = nil
    motion?.interest.touchFollowsOrientation = false
  }

  private func perform(_ binding: TouchGestureBinding, at time: Seconds) {
    switch binding.action {
    case .event(let subtype):
      logger.debug("touch: gesture '\(binding.name)': \(subtype.name)")
      events.post(.remoteControl(subtype, timestamp: time, source: "touch:\(binding.name)"))
    case .command(let argv):
      logger.debug("touch: gesture '\(binding.name)': running \(argv[0])")
      do {
        try children.spawn(argv, extraEnvironment: ["RESPONDERD_GESTURE": binding.name]) {
          [logger] status in
          if status != 0 {
            logger.notice("touch: command of gesture '\(binding.name)' exited with status \(status)")
          }
        }
      } catch {
        logger.warning("touch: gesture '\(binding.name)': cannot start '\(argv[0])': \(error)")
      }
    }
  }
}
