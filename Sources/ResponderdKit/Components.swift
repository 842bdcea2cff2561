/// The components a standard responderd runs, each given what it uses when it is made, and the
/// one list that says the order they start in (they stop in the reverse order).
public struct StandardComponents {
  /// The session-bus connection: the others serve and call on it.
  public let bus: BusComponent
  /// The user's session (logind, the screen saver), which the keys, the touchscreen and shakes follow.
  public let session: SessionComponent
  /// `org.responderd.Daemon1`: applications register as responders.
  public let responderAPI: ResponderAPI
  /// The MPRIS players, the `mpris` handler and the proxy player.
  public let mpris: MPRISComponent
  /// Media keys from evdev.
  public let keys: KeysComponent
  /// The volume keys of owned devices, on the sound server.
  public let volume: VolumeComponent
  /// Which desktop handles media keys, and the shell's gestures.
  public let desktop: DesktopComponent
  /// Shakes from the accelerometer, and who wants motion (`motion.interest`).
  public let motion: MotionComponent
  /// Motion samples and the device orientation for applications.
  public let motionAPI: MotionAPI
  /// Whole-screen touch gestures.
  public let touchGestures: TouchGesturesComponent
  /// Shake to undo in the focused text field (the `undo` handler).
  public let undo: UndoComponent

  /// Makes the standard components of `service`, wired to one another, each given its parts of
  /// the service (see `Service.keysComponent(bus:)` and the others); `bus` is the session bus's
  /// (by default from the environment).
  public init(service: Service, bus: BusComponent? = nil) {
    let bus = bus ?? service.busComponent()
    self.bus = bus
    session = service.sessionComponent(sessionBus: bus)
    keys = service.keysComponent(bus: bus, session: session)
    volume = service.volumeComponent(keys: keys)
    desktop = service.desktopComponent(keys: keys, bus: bus)
    motion = service.motionComponent(session: session)
    motionAPI = service.motionAPI(motion: motion, bus: bus)
    touchGestures = service.touchGesturesComponent(
      desktop: desktop, session: session, motion: motion, motionAPI: motionAPI)
    responderAPI = service.responderAPI(bus: bus, session: session, motionInterest: motion.interest)
    mpris = service.mprisComponent(bus: bus)
    undo = service.undoComponent(bus: bus, session: session, motion: motion, keys: keys)
  }

  /// The order they start in: the bus first (the others attach to it as it connects); the session
  /// before the inputs (they wait for logind's first answer); the keys before the components that
  /// follow their devices; the motion component before those that read its accelerometer (the
  /// undo follows whether it is open).
  public var startOrder: [ServiceComponent] {
    [bus, session, responderAPI, mpris, keys, volume, desktop, motion, motionAPI, touchGestures, undo]
  }

  /// What is wrong with `order` as a start order: a component before one of its `dependencies`
  /// (an input before the session it follows, a component before the bus it serves on), or one
  /// whose dependency does not start. Empty when nothing is.
  public static func startOrderProblems(_ order: [ServiceComponent]) -> [String] {
    var problems: [String] = []
    func position(_ component: ServiceComponent) -> Int? { order.firstIndex { $0 === component } }
    for (index, component) in order.enumerated() {
      for dependency in component.dependencies {
        guard let at = position(dependency) else {
          problems.append("\(component.componentName) uses \(dependency.componentName), which does not start")
          continue
        }
        if at > index {
          problems.append(
            "\(component.componentName) starts before \(dependency.componentName), which it uses")
        }
      }
    }
    return problems
  }

  /// Makes them and adds them to `service`, in `startOrder`.
  @discardableResult
  public static func add(to service: Service) -> StandardComponents {
    let components = StandardComponents(service: service)
    for component in components.startOrder { service.add(component) }
    return components
  }
}
