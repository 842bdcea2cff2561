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

/// A small MPRIS player on the in-memory bus: its methods change its state as a player's do
/// (PlayPause toggles, Next changes the track) and announce it with PropertiesChanged.
final class FakePlayer {
  let connection: InMemoryBusConnection
  let busName: String
  private(set) var calls: [String] = []
  /// The offsets of the Seek calls it received, in microseconds.
  private(set) var seekOffsets: [Int64] = []
  private(set) var status = "Paused"
  private(set) var track = 1
  /// Answers its methods without doing anything (a player that cannot start).
  var ignoresCalls = false
  private var object: DBusExportedObject?

  init(
    _ shortName: String, on bus: InMemoryBus, status: String = "Paused", uid: UInt32 = getuid(),
    pid: UInt32? = nil
  ) throws {
    connection = pid.map { bus.connect(uid: uid, pid: $0) } ?? bus.connect(uid: uid)
    busName = MPRISNames.prefix + shortName
    self.status = status
    object = try connection.export(
      path: MPRISNames.objectPath,
      interfaces: [
        DBusInterface(
          MPRISNames.rootInterface, properties: [DBusProperty("Identity", get: { shortName })]),
        DBusInterface(
          MPRISNames.playerInterface,
          methods: [
            method("PlayPause") { $0.status = $0.status == "Playing" ? "Paused" : "Playing" },
            method("Play") { $0.status = "Playing" },
            method("Pause") { $0.status = "Paused" },
            method("Stop") { $0.status = "Stopped" },
            method("Next") { $0.track += 1 },
            method("Previous") { $0.track -= 1 },
            DBusMethod("Seek", in: "x") { [weak self] call in
              self?.calls.append("Seek")
              if let offset = call.arguments.first?.int64 { self?.seekOffsets.append(offset) }
              return []
            },
          ],
          properties: [
            DBusProperty("PlaybackStatus", get: { [weak self] in self?.status ?? "Stopped" }),
            DBusProperty(
              "Metadata", signature: "a{sv}",
              get: { [weak self] in .vardict(["xesam:title": .string("track \(self?.track ?? 0)")]) }),
            DBusProperty("Position", signature: "x", changeSignal: .none, get: { .int64(0) }),
            DBusProperty("CanControl", get: { true }), DBusProperty("CanPlay", get: { true }),
            DBusProperty("CanPause", get: { true }), DBusProperty("CanGoNext", get: { true }),
            DBusProperty("CanGoPrevious", get: { true }), DBusProperty("CanSeek", get: { true }),
          ]),
      ])
    connection.requestName(busName)
  }

  private func method(_ name: String, _ change: @escaping (FakePlayer) -> Void) -> DBusMethod {
    DBusMethod(name) { [weak self] _ in
      guard let self else { return [] }
      self.calls.append(name)
      if self.ignoresCalls { return [] }
      change(self)
      try self.object?.propertiesChanged(
        interface: MPRISNames.playerInterface, ["PlaybackStatus", "Metadata"])
      return []
    }
  }

  /// Starts or pauses on its own (as when the user clicks in the player).
  func set(status: String) throws {
    self.status = status
    try object?.propertiesChanged(interface: MPRISNames.playerInterface, ["PlaybackStatus"])
  }

  /// Moves to the next track on its own (as a browser tab's page does), announcing the Metadata.
  func changeTrack() throws {
    track += 1
    try object?.propertiesChanged(interface: MPRISNames.playerInterface, ["Metadata"])
  }

  /// Starts playing the next track: one PropertiesChanged with both (as players do).
  func playNextTrack() throws {
    track += 1
    status = "Playing"
    try object?.propertiesChanged(interface: MPRISNames.playerInterface, ["PlaybackStatus", "Metadata"])
  }
}

/// Player tracking, selection and control on the in-memory bus and virtual time: what the bus
/// tests do with real mpv players, deterministic and without a dbus-daemon.
@Suite struct PlayerTrackingTests: OnTrackerBed {
  let bed: TrackerBed
  let controller: PlayerController

  init() {
    var settings = PlayerSettings()
    settings.callDeadline = 0.3
    bed = TrackerBed(settings: settings)
    controller = PlayerController(tracker: bed.tracker)
  }

  func perform(_ subtype: EventSubtype) -> ControlOutcome? {
    var outcome: ControlOutcome?
    controller.perform(subtype) { outcome = $0 }
    settle()
    return outcome
  }

  @Test func playersFoundAtStartAppearLaterAndVanishWhenTheyLeave() throws {
    let mpv = try FakePlayer("mpv", on: bus)
    attachTracker()
    #expect(tracker.players.values.map(\.busNames) == [[mpv.busName]])
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)
    #expect(tracker.selected?.identity == "mpv")

    let vlc = try FakePlayer("vlc", on: bus)
    settle()
    #expect(Set(tracker.players.keys) == [mpv.connection.uniqueName!, vlc.connection.uniqueName!])

    mpv.connection.leave()
    settle()
    #expect(Array(tracker.players.keys) == [vlc.connection.uniqueName!])
    #expect(tracker.selected?.uniqueName == vlc.connection.uniqueName)
  }

  @Test func playingFirstFollowsThePlayerThatStartsPlaying() throws {
    let mpv = try FakePlayer("mpv", on: bus, status: "Playing")
    let vlc = try FakePlayer("vlc", on: bus)
    attachTracker()
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)

    time.advance(by: 5)
    try mpv.set(status: "Paused")
    try vlc.set(status: "Playing")
    settle()
    #expect(tracker.selected?.uniqueName == vlc.connection.uniqueName)
    #expect(tracker.selector.reason.contains("playing"))
  }

  @Test func anIgnoredPlayerIsNeverSelected() throws {
    var settings = PlayerSettings()
    settings.ignore = ["vlc"]
    let tracker = PlayerTracker(settings: settings, scheduler: time)
    _ = try FakePlayer("vlc", on: bus, status: "Playing")
    settle()
    tracker.attach(to: daemon)
    settle()
    #expect(tracker.players.count == 1)
    #expect(tracker.selected == nil)
  }

  @Test func anEventBecomesTheCallAndThePlayersAnswerHandlesIt() throws {
    let mpv = try FakePlayer("mpv", on: bus)
    attachTracker()

    #expect(perform(.remoteControlTogglePlayPause) == .sent(player: "mpv", method: "PlayPause"))
    #expect(mpv.calls == ["PlayPause"])
    #expect(mpv.status == "Playing")
    // The player's PropertiesChanged reached the tracker.
    #expect(tracker.selected?.playbackStatus == .playing)

    #expect(perform(.remoteControlNextTrack) == .sent(player: "mpv", method: "Next"))
    #expect(tracker.selected?.title == "track 2")
  }

  @Test func aStoppedPlayerMissesTheDeadlineAndIsPassedOverUntilItAnswers() throws {
    let mpv = try FakePlayer("mpv", on: bus, status: "Playing")
    let vlc = try FakePlayer("vlc", on: bus)
    attachTracker()
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)

    mpv.connection.isStopped = true
    var outcome: ControlOutcome?
    controller.perform(.remoteControlTogglePlayPause) { outcome = $0 }
    time.advance(by: 0.299)
    #expect(outcome == nil)
    time.advance(by: 0.001)
    #expect(outcome?.isHandled == false)
    #expect(tracker.selected?.uniqueName == vlc.connection.uniqueName)

    #expect(perform(.remoteControlTogglePlayPause) == .sent(player: "vlc", method: "PlayPause"))
    #expect(mpv.calls.isEmpty)

    // The stopped player wakes up: it answers the ping and the calls it held, and is back.
    mpv.connection.isStopped = false
    settle()
    #expect(tracker.selector.players[mpv.connection.uniqueName!]?.unresponsiveReason == nil)
  }

  /// A call reported dropped still runs when the stopped player wakes up (D-Bus cannot take a
  /// sent call back); the outcome stays predictable because nothing more is sent to the player
  /// until it answers again (issue 16): one late toggle, never several.
  @Test func aLateCallRunsOnceAndNothingMoreIsSentUntilThePlayerAnswers() throws {
    let mpv = try FakePlayer("mpv", on: bus, status: "Playing")
    attachTracker()
    mpv.connection.isStopped = true
    var first: ControlOutcome?
    controller.perform(.remoteControlTogglePlayPause) { first = $0 }
    time.advance(by: 0.3)
    #expect(first?.isHandled == false, "reported dropped after the deadline")
    // Pressed twice more while it is stopped: nothing is sent to it.
    #expect(perform(.remoteControlTogglePlayPause)?.isHandled == false)
    #expect(perform(.remoteControlPause)?.isHandled == false)
    // It wakes up: it runs the one call it held, answers the ping, and takes calls again.
    mpv.connection.isStopped = false
    settle()
    #expect(mpv.calls == ["PlayPause"])
    #expect(mpv.status == "Paused")
    #expect(perform(.remoteControlTogglePlayPause) == .sent(player: "mpv", method: "PlayPause"))
    #expect(mpv.calls == ["PlayPause", "PlayPause"] && mpv.status == "Playing")
  }

  @Test func aPlayerLeavingMidCallFailsTheCallAtOnce() throws {
    let mpv = try FakePlayer("mpv", on: bus)
    attachTracker()
    mpv.connection.isStopped = true
    var outcome: ControlOutcome?
    controller.perform(.remoteControlTogglePlayPause) { outcome = $0 }
    settle()
    #expect(outcome == nil)
    mpv.connection.leave()
    settle()
    #expect(time.now == 100)
    #expect(outcome?.isHandled == false)
    #expect(tracker.selected == nil)
  }

  @Test func aCallOnTheProxyPlayerBecomesAnEventAndItMirrorsTheSelectedPlayer() throws {
    let mpv = try FakePlayer("mpv", on: bus, status: "Playing")
    settle()
    tracker.attach(to: daemon)
    var posted: [EventSubtype] = []
    let proxy = try ProxyPlayer(connection: daemon, tracker: tracker, controller: controller) {
      posted.append($0)
    }
    defer { proxy.close() }
    settle()

    let widget = bus.connect()
    var changes: [[String: DBusValue]] = []
    widget.onPropertiesChanged(sender: MPRISNames.responderd) { _, changed, _ in changes.append(changed) }
    var reply: Result<[DBusValue], DBusError>?
    widget.call(
      destination: MPRISNames.responderd, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: "Next"
    ) { reply = $0 }
    settle()
    #expect(reply.map { (try? $0.get()) != nil } == true)
    #expect(posted == [.remoteControlNextTrack])
    #expect(mpv.calls.isEmpty)  // the chain decides, not the proxy

    #expect(proxyProperty("PlaybackStatus", readBy: widget) == "Playing")

    try mpv.set(status: "Paused")
    settle()
    #expect(changes.last?["PlaybackStatus"] == "Paused")

    // Seek goes straight to the selected player, with the player's answer.
    widget.call(
      destination: MPRISNames.responderd, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: "Seek", arguments: [.int64(5_000_000)]
    ) { reply = $0 }
    settle()
    #expect(mpv.calls == ["Seek"])
    #expect(reply.map { (try? $0.get()) != nil } == true)
  }

  /// gsd-media-keys switches to a player that starts playing while the one it calls (the proxy) is
  /// not: the proxy says `Playing` before the player it asks to play does, and says what the player
  /// says again after 1 s when the player never starts.
  @Test func theProxySaysPlayingBeforeThePlayerItAsksToPlay() throws {
    let mpv = try FakePlayer("mpv", on: bus)
    settle()
    tracker.attach(to: daemon)
    let proxy = try ProxyPlayer(connection: daemon, tracker: tracker, controller: controller) { _ in }
    defer { proxy.close() }
    settle()
    let desktop = bus.connect()
    var heard: [String] = []  // in the order the desktop hears them
    desktop.onPropertiesChanged(sender: MPRISNames.responderd) { _, changed, _ in
      if let status = changed["PlaybackStatus"]?.string { heard.append("proxy \(status)") }
    }
    desktop.onPropertiesChanged(sender: mpv.busName) { _, changed, _ in
      if let status = changed["PlaybackStatus"]?.string { heard.append("mpv \(status)") }
    }
    settle()

    controller.perform(.remoteControlTogglePlayPause) { _ in }
    settle()
    #expect(heard == ["proxy Playing", "mpv Playing"])
    controller.perform(.remoteControlTogglePlayPause) { _ in }
    settle()
    #expect(heard == ["proxy Playing", "mpv Playing", "mpv Paused", "proxy Paused"])

    // A player that answers but does not start: the proxy says Paused again after 1 s.
    heard.removeAll()
    mpv.ignoresCalls = true
    controller.perform(.remoteControlTogglePlayPause) { _ in }
    settle()
    #expect(heard == ["proxy Playing"])
    time.advance(by: 0.999)
    #expect(heard == ["proxy Playing"])
    time.advance(by: 0.001)
    #expect(heard == ["proxy Playing", "proxy Paused"])
  }

  // MARK: Players not selected: only what the selection looks at is decoded (issue 16, load)

  /// A proxy player on the daemon's connection, and a widget reading its Metadata title.
  /// A playing mpv and a paused tab, the tracker attached, the proxy player up, and a widget's
  /// connection to look at it.
  func playingMPVAndAPausedTab() throws -> (
    mpv: FakePlayer, tab: FakePlayer, proxy: ProxyPlayer, widget: InMemoryBusConnection
  ) {
    let mpv = try FakePlayer("mpv", on: bus, status: "Playing")
    let tab = try FakePlayer("tab", on: bus)
    settle()
    tracker.attach(to: daemon)
    let proxy = try ProxyPlayer(connection: daemon, tracker: tracker, controller: controller) { _ in }
    settle()
    return (mpv, tab, proxy, bus.connect())
  }

  func proxyTitle(_ widget: InMemoryBusConnection) -> String? {
    proxyProperty("Metadata", readBy: widget)?.dictionary?["xesam:title"]?.string
  }

  @Test func aPlayerNotSelectedHasItsMetadataLeftUnreadUntilItIsSelectedByStartingToPlay() throws {
    let (mpv, tab, proxy, widget) = try playingMPVAndAPausedTab()
    defer { proxy.close() }
    let tabID = try #require(tab.connection.uniqueName)
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)
    #expect(tracker.players[tabID]?.title == "track 1")

    // The tab changes track twice while not selected: the Metadata is not decoded.
    try tab.changeTrack()
    try tab.changeTrack()
    settle()
    #expect(tracker.players[tabID]?.title == "track 1")
    #expect(tracker.players[tabID]?.hasUnreadChanges == true)
    #expect(proxyTitle(widget) == "track 1")  // mpv's

    // It starts playing the next track: selected by that signal, which is read in full; it
    // carries all that was left unread, so the tab is not asked (a call to it would wait).
    try tab.playNextTrack()
    tab.connection.isStopped = true
    settle()
    expectSelected(tabID, title: "track 4")
    #expect(tracker.players[tabID]?.hasUnreadChanges == false)
    #expect(proxyTitle(widget) == "track 4")
    tab.connection.isStopped = false
  }

  /// A chatty tab not selected: its signals that cannot change the selection are taken from the
  /// changed properties' names alone, counted as its activity, and said to be able to wait (the
  /// connection then reads such signals in batches); what the selection looks at is read at once.
  @Test func aSignalThatCannotChangeTheSelectionIsTakenFromItsNamesAloneAndCouldWait() throws {
    let (mpv, tab, proxy, _) = try playingMPVAndAPausedTab()
    defer { proxy.close() }
    let tabID = try #require(tab.connection.uniqueName)
    var couldWait: [Bool] = []
    daemon.subscribe(
      DBusMatchRule(sender: tabID, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
    ) { couldWait.append($0.couldWait) }
    settle()

    time.advance(by: 5)
    try tab.changeTrack()
    settle()
    #expect(couldWait == [true])
    #expect(tracker.players[tabID]?.unreadProperties == ["Metadata"])
    #expect(tracker.players[tabID]?.title == "track 1")
    #expect(tracker.selector.players[tabID]?.lastActivity == 105)
    #expect(tracker.selector.players[tabID]?.lastActivityKind == "PropertiesChanged (Metadata)")
    #expect(tracker.selected?.uniqueName == mpv.connection.uniqueName)

    // Its next signal names the same properties (compared in the message): counted the same.
    time.advance(by: 1)
    try tab.changeTrack()
    settle()
    #expect(couldWait == [true, true])
    #expect(tracker.selector.players[tabID]?.lastActivity == 106)
    #expect(tracker.selector.players[tabID]?.lastActivityKind == "PropertiesChanged (Metadata)")
    #expect(tracker.players[tabID]?.unreadProperties == ["Metadata"])
    #expect(tracker.players[tabID]?.title == "track 1")

    // It starts playing: read at once, and selected.
    try tab.set(status: "Playing")
    settle()
    #expect(couldWait == [true, true, false])
    #expect(tracker.selected?.uniqueName == tabID)
    // The selected player's signals are read in full.
    try tab.changeTrack()
    settle()
    #expect(couldWait == [true, true, false, false])
    #expect(tracker.selected?.title == "track 4")
    #expect(tracker.players[tabID]?.hasUnreadChanges == false)
  }

  @Test func aPlayerSelectedByItsOwnSignalShowsThatSignalsMetadataWithoutAskingIt() throws {
    let (mpv, tab, proxy, widget) = try playingMPVAndAPausedTab()
    defer { proxy.close() }
    try mpv.set(status: "Paused")
    try tab.playNextTrack()
    // Stopped right after: a call to it would wait; the signal itself says everything.
    tab.connection.isStopped = true
    settle()
    #expect(tracker.selected?.uniqueName == tab.connection.uniqueName)
    #expect(proxyTitle(widget) == "track 2")
    tab.connection.isStopped = false
  }

  @Test func aPlayerSelectedWhenAnotherLeavesIsReadAgainAndTheProxyShowsItsCurrentMetadata() throws {
    let (mpv, tab, proxy, widget) = try playingMPVAndAPausedTab()
    defer { proxy.close() }
    var titles: [String?] = []
    widget.onPropertiesChanged(sender: MPRISNames.responderd) { _, changed, _ in
      if let metadata = changed["Metadata"] { titles.append(metadata.dictionary?["xesam:title"]?.string) }
    }
    settle()
    let tabID = try #require(tab.connection.uniqueName)

    try tab.changeTrack()
    settle()
    #expect(tracker.players[tabID]?.title == "track 1")

    mpv.connection.leave()
    settle()
    expectSelected(tabID, title: "track 2")
    #expect(proxyTitle(widget) == "track 2")
    #expect(titles.last == "track 2")

    // Selected now: its changes are decoded as they come.
    try tab.changeTrack()
    settle()
    #expect(tracker.selected?.title == "track 3")
    #expect(tracker.players[tabID]?.hasUnreadChanges == false)
    #expect(titles.last == "track 3")
  }

  @Test func withMostRecentAChattyPlayerSelectedByEachSignalIsNotAskedForItsProperties() throws {
    var settings = PlayerSettings()
    settings.policy = .mostRecent
    let tracker = PlayerTracker(settings: settings, scheduler: time)
    let a = try FakePlayer("a", on: bus)
    let b = try FakePlayer("b", on: bus)
    settle()
    tracker.attach(to: daemon)
    settle()
    let aID = try #require(a.connection.uniqueName)
    #expect(tracker.selected?.uniqueName == aID)  // first by name

    // Each signal selects its sender, and carries all it left unread before: read at once.
    try b.changeTrack()
    settle()
    expectSelected(b.connection.uniqueName, title: "track 2", in: tracker)
    try a.changeTrack()
    try a.changeTrack()
    // Stopped: a call (GetAll) to it would wait unanswered.
    a.connection.isStopped = true
    settle()
    expectSelected(aID, title: "track 3", in: tracker)
    #expect(tracker.players[aID]?.hasUnreadChanges == false)
    a.connection.isStopped = false
  }

  /// A paused tab beside a playing mpv (selected), the tracker attached: the tab's signals are
  /// dropped unread.
  func trackedTabBesidePlayingMPV() throws -> (tab: FakePlayer, id: String) {
    _ = try FakePlayer("mpv", on: bus, status: "Playing")
    let tab = try FakePlayer("tab", on: bus)
    attachTracker()
    return (tab, try #require(tab.connection.uniqueName))
  }

  @Test func theReportReadsThePlayersWithUnreadChangesFirst() throws {
    let (tab, tabID) = try trackedTabBesidePlayingMPV()
    try tab.changeTrack()
    settle()
    #expect(tracker.report().players.first { $0.uniqueName == tabID }?.title == "track 1")

    var done = false
    tracker.readUnreadProperties { done = true }
    #expect(!done)
    settle()
    #expect(done)
    #expect(tracker.report().players.first { $0.uniqueName == tabID }?.title == "track 2")
    #expect(tracker.players[tabID]?.hasUnreadChanges == false)

    // Nothing left unread: done at once.
    done = false
    tracker.readUnreadProperties { done = true }
    #expect(done)
  }

  /// A chatty tab's signals naming the same properties note them unread once; after they were
  /// read (the report's GetAll), its next such signal notes them again.
  @Test func propertiesDroppedAgainAfterBeingReadAreUnreadAgain() throws {
    let (tab, tabID) = try trackedTabBesidePlayingMPV()
    try tab.changeTrack()
    try tab.changeTrack()
    settle()
    #expect(tracker.players[tabID]?.unreadProperties == ["Metadata"])

    var done = false
    tracker.readUnreadProperties { done = true }
    settle()
    #expect(done)
    #expect(tracker.players[tabID]?.hasUnreadChanges == false)

    try tab.changeTrack()
    settle()
    #expect(tracker.players[tabID]?.unreadProperties == ["Metadata"])
    #expect(tracker.players[tabID]?.title == "track 3")
    try tab.changeTrack()
    settle()
    #expect(tracker.players[tabID]?.unreadProperties == ["Metadata"])
  }
}
