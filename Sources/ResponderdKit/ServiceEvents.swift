import EventTime
import Logging
import ResponderCore

/// Where the components deliver what they produce, and who hears of it: events posted to the
/// application (a device's through the device-event filters first), the record of every
/// dispatched event, what the keys of owned devices did outside the chain, and the bus names that
/// watch all this.
public final class ServiceEvents {
  /// The application the events are posted to.
  public let application: Application
  /// The bus names that asked for the signals telling what happened (Daemon1's `WatchEvents`, the
  /// daemon's own user only): dispatched events and the keys of owned devices are sent to them
  /// alone (unicast), never broadcast on a bus that other users may share.
  public internal(set) var eventWatchers: [String] = []
  private let logger: Logger
  private var dispatchObservers: [(DispatchRecord) -> Void] = []
  private var keyActionObservers: [(KeyActionRecord) -> Void] = []
  private var deviceEventFilters: [(Event, Seconds) -> String?] = []

  /// The events of `application`; every dispatch is logged (debug) to `logger`.
  public init(application: Application, logger: Logger) {
    self.application = application
    self.logger = logger
    application.addDispatchObserver { [weak self] record in self?.dispatched(record) }
  }

  /// Posts an event to the application (a motion event with its phase).
  public func post(_ event: Event, phase: MotionPhase = .began) {
    application.post(event, phase: phase)
  }

  /// Calls `observer` with the record of every dispatched event.
  public func addDispatchObserver(_ observer: @escaping (DispatchRecord) -> Void) {
    dispatchObservers.append(observer)
  }

  /// Calls `observer` with every key that acted outside the chain (a volume key).
  public func addKeyActionObserver(_ observer: @escaping (KeyActionRecord) -> Void) {
    keyActionObservers.append(observer)
  }

  /// Publishes what a key did outside the chain (components call it).
  public func publish(_ record: KeyActionRecord) {
    for observer in keyActionObservers { observer(record) }
  }

  /// Posts an event an input device produced (the evdev component's), unless a device-event
  /// filter says it repeats a press already dispatched (the proxy player's echo filter): then it
  /// is published as not dispatched, with the filter's reason. The event of a device the desktop
  /// cannot see (one responderd holds exclusively) skips the filters: the desktop never saw that
  /// press, so no call of the desktop's repeats it, nor does it repeat one. `sincePress` is how
  /// long before now its key went down (a next/previous skip is made at the release; the desktop
  /// acts on the press).
  public func postDeviceEvent(_ event: Event, desktopSeesDevice: Bool = true, sincePress: Seconds = 0) {
    guard desktopSeesDevice else {
      application.post(event)
      return
    }
    for filter in deviceEventFilters {
      if let reason = filter(event, sincePress) {
        publishUndispatched(
          DispatchRecord(
            type: event.type, subtype: event.subtype, timestamp: event.timestamp, source: event.source,
            dropReason: reason))
        return
      }
    }
    application.post(event)
  }

  /// Adds a filter every event posted through `postDeviceEvent` goes through before it is
  /// dispatched, with how long ago its key went down: it returns nil to let the event through, or
  /// why it is not dispatched.
  public func addDeviceEventFilter(_ filter: @escaping (_ event: Event, _ sincePress: Seconds) -> String?) {
    deviceEventFilters.append(filter)
  }

  /// Publishes an event that is not dispatched (a duplicate of a press already dispatched) to the
  /// dispatch observers, so that `responderctl monitor` shows it with its drop reason.
  public func publishUndispatched(_ record: DispatchRecord) {
    dispatched(record)
  }

  private func dispatched(_ record: DispatchRecord) {
    logger.debug("dispatch: \(record)")
    for observer in dispatchObservers { observer(record) }
  }
}
