import DBus
import EventTime
import MPRIS
import PlayerSelection
import ResponderdTestKit
import Testing

/// A player tracker on the in-memory bus and virtual time (from 100 s), with the bus daemon's
/// connection it attaches to.
struct TrackerBed {
  let time = VirtualScheduler(now: 100)
  let bus: InMemoryBus
  let daemon: InMemoryBusConnection
  let tracker: PlayerTracker

  init(settings: PlayerSettings = PlayerSettings()) {
    bus = InMemoryBus(scheduler: time)
    daemon = bus.connect()
    tracker = PlayerTracker(settings: settings, scheduler: time)
  }
}

/// A suite on a tracker bed, whose parts it names directly.
protocol OnTrackerBed {
  var bed: TrackerBed { get }
}

extension OnTrackerBed {
  var time: VirtualScheduler { bed.time }
  var bus: InMemoryBus { bed.bus }
  var daemon: InMemoryBusConnection { bed.daemon }
  var tracker: PlayerTracker { bed.tracker }

  /// Delivers every message due now (and what they cause, at the same instant).
  func settle() { time.advance(by: 0) }

  /// The proxy player's property `name` as `widget` reads it once the bus has settled.
  func proxyProperty(_ name: String, readBy widget: InMemoryBusConnection) -> DBusValue? {
    var value: DBusValue?
    widget.getProperty(
      name, interface: MPRISNames.playerInterface, path: MPRISNames.objectPath,
      destination: MPRISNames.responderd
    ) { value = try? $0.get() }
    settle()
    return value
  }

  /// Expects the player `tracker` (the bed's when nil) selected, and the title it knows of it.
  func expectSelected(
    _ id: String?, title: String, in tracker: PlayerTracker? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let selected = (tracker ?? self.tracker).selected
    #expect(selected?.uniqueName == id, sourceLocation: sourceLocation)
    #expect(selected?.title == title, sourceLocation: sourceLocation)
  }

  /// Attaches the tracker to the daemon once the players have settled, and lets it settle.
  func attachTracker() {
    settle()
    tracker.attach(to: daemon)
    settle()
  }
}
