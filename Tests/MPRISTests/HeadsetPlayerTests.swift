import DBus
import EventTime
import MPRIS
import PlayerSelection
import ResponderdTestKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Players that are not players (docs/design.md#one-press-one-action): BlueZ's mpris-proxy
/// exports a connected Bluetooth headset as an MPRIS player; selecting it would send the keys back to the headset
/// (bluez#1980). It is listed with the reason and never selected, playing or not.
@Suite struct HeadsetPlayerTests: OnTrackerBed {
  let bed = TrackerBed()

  init() {
    // The in-memory bus's connections carry the pid they were made with; 4242 is mpris-proxy.
    tracker.processName = { pid in pid == 4242 ? "mpris-proxy" : PlayerTracker.processName(of: pid) }
  }

  @Test func aHeadsetExportedByMprisProxyIsNeverSelectedAndPlayersShowsWhy() throws {
    let mpv = try FakePlayer("mpv", on: bus)
    tracker.attach(to: daemon)
    time.advance(by: 0)
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)

    // The headset connects and plays (its own music source): the newest, and playing.
    let headset = try FakePlayer("WH_1000XM3", on: bus, status: "Playing", pid: 4242)
    time.advance(by: 0)
    let id = try #require(headset.connection.uniqueName)
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)
    #expect(tracker.selector.players[id]?.exclusion == .notAPlayer(PlayerTracker.bluetoothHeadsetReason))
    let row = try #require(tracker.report().players.first { $0.uniqueName == id })
    #expect(row.state == .notAPlayer)
    #expect(
      row.detail
        == "not a player: a Bluetooth headset exported by BlueZ's mpris-proxy (controlling it would send the keys back to the headset)"
    )

    // With mpv gone there is no player: the headset is still not one.
    mpv.connection.leave()
    time.advance(by: 0)
    #expect(tracker.selected == nil)
  }

  @Test func theProcessNameIsReadFromProc() {
    let name = PlayerTracker.processName(of: UInt32(getpid()))
    #expect(name != nil && name?.isEmpty == false && name?.contains("\n") == false)
    #expect(PlayerTracker.processName(of: 0) == nil)
  }
}
