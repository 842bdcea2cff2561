import Logging

/// Whether someone wants motion now, and what is asked of the accelerometer: a handler of the
/// chain that asks for motion (`command` with a `shake…` command; see `Handler.wantedEventTypes`),
/// applications registered over D-Bus for `motion` (kept by the responder API), the motion API's
/// streams and orientation watchers (kept by `MotionAPI`), and the touchscreen following the
/// device orientation (kept by `TouchGesturesComponent`). Owned by the motion component, which
/// samples the accelerometer only while `isWanted` holds.
public final class MotionInterest {
  /// Whether anyone wants motion now.
  public private(set) var isWanted = false
  /// How many applications registered over D-Bus take motion events.
  public var applications = 0 {
    didSet { update() }
  }
  /// What the motion API's clients ask of the accelerometer.
  public var streams = MotionStreamDemand() {
    didSet {
      guard streams != oldValue else { return }
      demandChanged()
    }
  }
  /// Whether the touchscreen follows the device orientation now (`[touch] rotation = "auto"` with a
  /// touchscreen open).
  public var touchFollowsOrientation = false {
    didSet {
      guard touchFollowsOrientation != oldValue else { return }
      demandChanged()
    }
  }
  private let chain: HandlerChain
  private let logger: Logger
  private var observers: [(Bool) -> Void] = []
  private var demandObservers: [() -> Void] = []

  /// Interest that follows `chain`'s handlers (each time they are set) and what the other
  /// components record here.
  public init(chain: HandlerChain, logger: Logger) {
    self.chain = chain
    self.logger = logger
    chain.addObserver { [weak self] in self?.update() }
    update()
  }

  /// Whether a handler of the chain asks for motion.
  public var chainWantsMotion: Bool { chain.wants(.motion) }

  /// Calls `observer` with the new value each time `isWanted` changes (not for the value it has
  /// when the observer is added: read `isWanted` then).
  public func addObserver(_ observer: @escaping (Bool) -> Void) {
    observers.append(observer)
  }

  /// Calls `observer` each time the streams or the touchscreen's use change what is asked of the
  /// accelerometer (its rate, its block length), after `isWanted` is brought up to date.
  public func addDemandObserver(_ observer: @escaping () -> Void) {
    demandObservers.append(observer)
  }

  /// A handler's `wantedEventTypes` changed (the `undo` handler's, when a way to send keys or to
  /// ask appears or goes): `isWanted` is brought up to date.
  public func handlersChanged() {
    update()
  }

  private func demandChanged() {
    update()
    for observer in demandObservers { observer() }
  }

  private func update() {
    let wanted = chainWantsMotion || applications > 0 || !streams.isEmpty || touchFollowsOrientation
    guard wanted != isWanted else { return }
    isWanted = wanted
    // (Wanted by the chain, applications, streams or the touchscreen: the motion component says which.)
    logger.info("motion: \(wanted ? "wanted" : "no longer wanted")")
    for observer in observers { observer(wanted) }
  }
}

/// What the motion API's clients ask of the accelerometer.
public struct MotionStreamDemand: Equatable, Sendable {
  /// Sample streams open now.
  public var streams = 0
  /// Connections generating device-orientation notifications.
  public var orientationWatchers = 0
  /// The fastest rate a stream asks for, in Hz (0 without streams).
  public var fastestRate: Double = 0

  public init(streams: Int = 0, orientationWatchers: Int = 0, fastestRate: Double = 0) {
    self.streams = streams
    self.orientationWatchers = orientationWatchers
    self.fastestRate = fastestRate
  }

  /// Nobody asks for anything.
  public var isEmpty: Bool { streams == 0 && orientationWatchers == 0 }
}
