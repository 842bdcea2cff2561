import DBus
import EventTime
import MPRIS
import PlayerSelection
import ResponderCore
import ResponderdTestKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A player that only invalidates its properties (PropertiesChanged without values, as some
/// players do) and counts how often each is read: Metadata with a title of `titleBytes` and
/// `artists` artists of `artistBytes` each (at most 3000 by default).
final class InvalidatingPlayer {
  let connection: InMemoryBusConnection
  private(set) var metadataReads = 0
  private(set) var statusReads = 0
  var status = "Paused"
  private var object: DBusExportedObject?

  init(
    _ shortName: String, on bus: InMemoryBus, titleBytes: Int, artists: Int = 200, artistBytes: Int? = nil
  ) throws {
    connection = bus.connect()
    let title = String(repeating: "t", count: titleBytes)
    let artist = String(repeating: "a", count: artistBytes ?? min(titleBytes, 3000))
    let artistList = DBusValue.array(elementSignature: "s", Array(repeating: .string(artist), count: artists))
    object = try connection.export(
      path: MPRISNames.objectPath,
      interfaces: [
        DBusInterface(MPRISNames.rootInterface, properties: [DBusProperty("Identity", get: { shortName })]),
        DBusInterface(
          MPRISNames.playerInterface,
          properties: [
            DBusProperty(
              "PlaybackStatus", signature: "s", changeSignal: .invalidates,
              get: { [weak self] in
                self?.statusReads += 1
                return .string(self?.status ?? "Stopped")
              }),
            DBusProperty(
              "Metadata", signature: "a{sv}", changeSignal: .invalidates,
              get: { [weak self] in
                self?.metadataReads += 1
                // 200 artists too.
                return .vardict([
                  "xesam:title": .string(title),
                  "xesam:artist": artistList,
                ])
              }),
          ]),
      ])
    connection.requestName(MPRISNames.prefix + shortName)
  }

  /// PropertiesChanged invalidating `names`.
  func invalidate(_ names: [String]) throws {
    try object?.propertiesChanged(interface: MPRISNames.playerInterface, names)
  }
}

/// Players that cost more than they should (issue 27): a noisy player not selected, bogus
/// Metadata; on the in-memory bus and virtual time.
@Suite struct HostilePlayerTests: OnTrackerBed {
  let bed = TrackerBed()

  @Test func aPlayerNotSelectedThatInvalidatesItsMetadataIsNotAskedForIt() throws {
    let mpv = try FakePlayer("mpv", on: bus, status: "Playing")
    let noisy = try InvalidatingPlayer("noisy", on: bus, titleBytes: 100)
    attachTracker()
    let noisyID = try #require(noisy.connection.uniqueName)
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)
    #expect(noisy.metadataReads == 1)  // found: read once

    // 50 Hz for 10 s: each signal made a GetAll (its 4 MB Metadata, half a core).
    for _ in 0..<500 {
      try noisy.invalidate(["Metadata"])
      time.advance(by: 0.02)
    }
    #expect(noisy.metadataReads == 1)
    #expect(noisy.statusReads == 1)
    #expect(tracker.players[noisyID]?.unreadProperties == ["Metadata"])

    // What the selection looks at is read alone when invalidated: it started playing.
    noisy.status = "Playing"
    try mpv.set(status: "Paused")
    try noisy.invalidate(["PlaybackStatus"])
    settle()
    #expect(noisy.statusReads >= 2)
    #expect(tracker.selected?.uniqueName == noisyID)
    // Selected now: what was left unread is read, once.
    #expect(noisy.metadataReads == 2)
    #expect(tracker.players[noisyID]?.hasUnreadChanges == false)
    // And its invalidations are followed from now on.
    try noisy.invalidate(["Metadata"])
    settle()
    #expect(noisy.metadataReads == 3)
  }

  /// Issue 38: the selected player invalidating a large Metadata 50 times a second was read again
  /// 23 times a second (42 % of a core); the re-reads are coalesced to a few a second.
  @Test func theSelectedPlayerInvalidatingItsMetadataIsReadAFewTimesASecond() throws {
    // Within what responderd decodes (a larger one is read every 10 s: the next test).
    let noisy = try InvalidatingPlayer("noisy", on: bus, titleBytes: 2000, artists: 60)
    noisy.status = "Playing"
    attachTracker()
    #expect(tracker.selected?.uniqueName == noisy.connection.uniqueName)
    let before = noisy.metadataReads

    // 50 Hz for 10 s.
    for _ in 0..<500 {
      try noisy.invalidate(["Metadata"])
      time.advance(by: 0.02)
    }
    let reads = noisy.metadataReads - before
    // One read every 0.25 s at most (40 in 10 s), and it keeps following.
    #expect(reads <= 41 && reads >= 35, "\(reads) reads in 10 s")
    // The last invalidation is read too, once the interval has passed.
    try noisy.invalidate(["Metadata"])
    time.advance(by: 0.3)
    let afterLast = noisy.metadataReads
    time.advance(by: 5)
    #expect(noisy.metadataReads == afterLast)
    #expect(tracker.players[noisy.connection.uniqueName!]?.hasUnreadChanges == false)
  }

  /// A selected player with a 1 MB title and 100,000 artists (of 16 bytes: 3000 each made the
  /// test marshal 300 MB a read and take minutes, for no more coverage), invalidating its Metadata 50 times
  /// a second: each re-read decoded all of it (with 4 MB or 400,000 entries, 6 to 33 % of a core).
  /// Only what is kept is decoded, the log says so once, and such a player is read again every
  /// 10 s at most.
  @Test func aSelectedPlayerWithHugeMetadataIsReadWithinLimitsAndLessOften() throws {
    let (logger, log) = recordingLogger()
    let tracker = PlayerTracker(settings: PlayerSettings(), scheduler: time, logger: logger)
    let noisy = try InvalidatingPlayer(
      "noisy", on: bus, titleBytes: 1_000_000, artists: 100_000, artistBytes: 16)
    noisy.status = "Playing"
    settle()
    tracker.attach(to: daemon)
    settle()
    let player = try #require(tracker.selected)
    #expect(player.uniqueName == noisy.connection.uniqueName)
    let title = try #require(player.title)
    #expect(title.utf8.count <= MPRISPlayer.maximumStringBytes && title.hasSuffix("…"))
    #expect(player.metadata["xesam:artist"]?.stringArray?.count == MPRISPlayer.maximumEntries)
    let before = noisy.metadataReads

    // 50 Hz for 20 s.
    for _ in 0..<1000 {
      try noisy.invalidate(["Metadata"])
      time.advance(by: 0.02)
    }
    let reads = noisy.metadataReads - before
    #expect(reads >= 2 && reads <= 3, "\(reads) reads in 20 s")
    let lines = log.all.filter { $0.contains("sends properties larger than responderd reads") }
    #expect(lines.count == 1, "\(log.text)")
    #expect(tracker.selected?.title == title)
  }

  /// Issue 27: on a bus shared by users, another user's player was selected, controlled and its
  /// title mirrored on the proxy player.
  @Test func aPlayerOfAnotherUserIsNeverReadSelectedNorControlled() throws {
    let controller = PlayerController(tracker: tracker)
    let stranger = try FakePlayer("stranger", on: bus, status: "Playing", uid: getuid() &+ 1)
    let own = try FakePlayer("own", on: bus, status: "Paused")
    settle()
    tracker.attach(to: daemon)
    let proxy = try ProxyPlayer(connection: daemon, tracker: tracker, controller: controller) { _ in }
    defer { proxy.close() }
    settle()
    let strangerID = try #require(stranger.connection.uniqueName)
    // Playing, yet not selected: the paused player of the user is.
    #expect(tracker.selected?.uniqueName == own.connection.uniqueName)
    #expect(tracker.selector.players[strangerID]?.exclusion == .otherUser(getuid() &+ 1))
    // Never read: nothing of it is kept.
    #expect(tracker.players[strangerID]?.playerProperties.isEmpty == true)
    let line = try #require(tracker.report().text.split(separator: "\n").first { $0.contains("stranger") })
    #expect(
      line.contains("runs as uid \(getuid() &+ 1), not as responderd's user (never controlled)"), "\(line)")
    // Its signals are not followed: starting a track does not select it either.
    try stranger.playNextTrack()
    settle()
    #expect(tracker.selected?.uniqueName == own.connection.uniqueName)
    // Alone on the bus, it is still not selected, and nothing goes to it.
    own.connection.leave()
    settle()
    #expect(tracker.selected == nil)
    var outcome: ControlOutcome?
    controller.perform(.remoteControlTogglePlayPause) { outcome = $0 }
    settle()
    #expect(stranger.calls.isEmpty, "\(String(describing: outcome))")
    let widget = bus.connect()
    #expect(proxyProperty("Metadata", readBy: widget)?.dictionary?["xesam:title"] == nil)
  }

  @Test func settingVolumeOrRateToNaNOrWithNoPlayerIsAnError() throws {
    let controller = PlayerController(tracker: tracker)
    tracker.attach(to: daemon)
    let proxy = try ProxyPlayer(connection: daemon, tracker: tracker, controller: controller) { _ in }
    defer { proxy.close() }
    let widget = bus.connect()
    settle()
    func set(_ property: String, _ value: Double) -> Result<Void, DBusError>? {
      var result: Result<Void, DBusError>?
      widget.setProperty(
        property, to: .double(value), interface: MPRISNames.playerInterface, path: MPRISNames.objectPath,
        destination: MPRISNames.responderd
      ) { result = $0 }
      settle()
      return result
    }
    func error(_ result: Result<Void, DBusError>?) -> DBusError? {
      if case .failure(let error)? = result { return error }
      return nil
    }
    // No player: `Volume = NaN` was answered with success.
    #expect(error(set("Volume", .nan))?.name == DBusError.Name.invalidArgs)
    #expect(error(set("Volume", .nan))?.message == "Volume must be a finite number, not nan")
    #expect(error(set("Rate", .infinity))?.message == "Rate must be a finite number, not inf")
    #expect(error(set("Volume", 0.5))?.message == "no player is selected: there is no Volume to set")
    // With a player, a number is set on it.
    _ = try FakePlayer("mpv", on: bus, status: "Playing")
    settle()
    #expect(tracker.selected != nil)
    guard case .success? = set("Volume", 0.5) else {
      Issue.record("Volume = 0.5 with a player selected was refused")
      return
    }
    #expect(error(set("Volume", .nan))?.name == DBusError.Name.invalidArgs)
  }

  @Test func whatIsKeptOfAPlayersMetadataIsCapped() throws {
    // Two bogus players with 4 MB of Metadata took responderd from 12.9 to 61.6 MiB, and
    // `responderctl players` printed their 2 MB titles.
    let bogus = try InvalidatingPlayer("bogus", on: bus, titleBytes: 1 << 20)
    bogus.status = "Playing"
    attachTracker()
    let player = try #require(tracker.selected)
    #expect(player.uniqueName == bogus.connection.uniqueName)
    let title = try #require(player.title)
    #expect(title.utf8.count <= MPRISPlayer.maximumStringBytes && title.hasSuffix("…"))
    #expect(title.hasPrefix(String(repeating: "t", count: 2000)))
    let artists = try #require(player.metadata["xesam:artist"]?.stringArray)
    #expect(artists.count == MPRISPlayer.maximumEntries)
    // The report's line shows the start of the title.
    let line = try #require(tracker.report().text.split(separator: "\n").first { $0.hasPrefix("* bogus") })
    #expect(line.count < 400, "\(line.prefix(400))")
    #expect(line.contains("\"" + String(repeating: "t", count: 119) + "…\""))
    // A real player's values are kept whole.
    #expect(
      MPRISPlayer.kept(["Metadata": .vardict(["xesam:title": .string("Été")])])["Metadata"]?.dictionary?[
        "xesam:title"]?.string == "Été")
  }
}
