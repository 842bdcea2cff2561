import DBus
import MPRIS
import PlayerSelection
import ResponderCore
import ResponderdTestKit
import Testing

/// docs/design.md#keys-and-the-click-grammar: the proxy player's calls become events, events become calls on the
/// selected player, and a held seek is Seek steps, on the in-memory bus and virtual time.
@Suite struct PlayerControlTests: OnTrackerBed {
  let bed: TrackerBed
  let controller: PlayerController

  init() {
    var settings = PlayerSettings()
    settings.seekStep = 10
    settings.seekInterval = 0.5
    bed = TrackerBed(settings: settings)
    controller = PlayerController(tracker: bed.tracker)
  }

  static let calls: [(method: String, subtype: EventSubtype)] = [
    ("Play", .remoteControlPlay), ("Pause", .remoteControlPause),
    ("PlayPause", .remoteControlTogglePlayPause),
    ("Stop", .remoteControlStop), ("Next", .remoteControlNextTrack),
    ("Previous", .remoteControlPreviousTrack),
  ]

  @Test("A call on the proxy player becomes its remote-control event, not a call", arguments: calls)
  func proxyCallBecomesEvent(method: String, subtype: EventSubtype) throws {
    let mpv = try FakePlayer("mpv", on: bus)
    attachTracker()
    var posted: [EventSubtype] = []
    let proxy = try ProxyPlayer(connection: daemon, tracker: tracker, controller: controller) {
      posted.append($0)
    }
    defer { proxy.close() }
    settle()
    let widget = bus.connect()
    var reply: Result<[DBusValue], DBusError>?
    widget.call(
      destination: MPRISNames.responderd, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: method
    ) { reply = $0 }
    settle()
    #expect(reply.map { (try? $0.get()) != nil } == true)
    #expect(posted == [subtype])
    #expect(mpv.calls.isEmpty)
  }

  @Test("An event becomes the matching method on the selected player", arguments: calls)
  func eventBecomesCall(method: String, subtype: EventSubtype) throws {
    let mpv = try FakePlayer("mpv", on: bus)
    attachTracker()
    var outcome: ControlOutcome?
    controller.perform(subtype) { outcome = $0 }
    settle()
    #expect(outcome == .sent(player: "mpv", method: method))
    #expect(mpv.calls == [method])
  }

  @Test("A held seek is a Seek step at once, then one every seek-interval, none after the end")
  func heldSeekSteps() throws {
    let mpv = try FakePlayer("mpv", on: bus)
    attachTracker()
    var outcomes: [ControlOutcome] = []
    controller.perform(.remoteControlBeginSeekingForward) { outcomes.append($0) }
    settle()
    #expect(outcomes == [.sent(player: "mpv", method: "Seek")])
    #expect(mpv.seekOffsets == [10_000_000])
    time.advance(by: 0.499)
    #expect(mpv.seekOffsets == [10_000_000])
    time.advance(by: 0.001)
    #expect(mpv.seekOffsets == [10_000_000, 10_000_000])
    time.advance(by: 0.5)
    #expect(mpv.seekOffsets.count == 3)
    controller.perform(.remoteControlEndSeekingForward) { outcomes.append($0) }
    #expect(outcomes.last == .sent(player: "mpv", method: "Seek (3 steps, stopped)"))
    #expect(controller.seekingPlayer == nil)
    time.advance(by: 2)
    #expect(mpv.seekOffsets.count == 3)

    // Backward: negative steps; an end of the other direction does not stop it.
    controller.perform(.remoteControlBeginSeekingBackward) { outcomes.append($0) }
    settle()
    controller.perform(.remoteControlEndSeekingForward) { outcomes.append($0) }
    #expect(outcomes.last?.isHandled == false)
    time.advance(by: 0.5)
    controller.perform(.remoteControlEndSeekingBackward) { outcomes.append($0) }
    time.advance(by: 2)
    #expect(mpv.seekOffsets.dropFirst(3) == [-10_000_000, -10_000_000])
    #expect(outcomes.last == .sent(player: "mpv", method: "Seek (2 steps, stopped)"))
  }
}
