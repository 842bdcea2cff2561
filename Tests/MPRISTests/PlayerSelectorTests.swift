import EventTime
import MPRIS
import PlayerSelection
import ResponderCore
import Testing

/// A selector driven by fake player events on virtual time.
struct SelectorHarness {
  var selector: PlayerSelector
  let clock = VirtualScheduler(now: 100)

  /// With the players `found` listed on the bus, as ":1.1", ":1.2" and on.
  init(
    _ policy: SelectionPolicy, priority: [String] = [], ignore: [String] = [],
    found players: [(name: String, status: PlaybackStatus)] = []
  ) {
    var settings = PlayerSettings()
    settings.policy = policy
    settings.priority = priority
    settings.ignore = ignore
    selector = PlayerSelector(settings: settings)
    for (index, player) in players.enumerated() { found(":1.\(index + 1)", player.name, player.status) }
  }

  /// A player found when listing the bus (no activity known), with its status read.
  mutating func found(_ id: String, _ name: String, _ status: PlaybackStatus) {
    selector.appeared(id, names: ["org.mpris.MediaPlayer2.\(name)"], at: clock.now, live: false)
    selector.loaded(id, status: status, at: clock.now)
  }

  /// A player appearing while watched.
  mutating func appears(_ id: String, _ name: String, _ status: PlaybackStatus?, after delay: Seconds = 1) {
    clock.advance(by: delay)
    selector.appeared(id, names: ["org.mpris.MediaPlayer2.\(name)"], at: clock.now, live: true)
    selector.loaded(id, status: status, at: clock.now)
  }

  mutating func signal(_ id: String, _ kind: String, status: PlaybackStatus? = nil, after delay: Seconds = 1)
  {
    clock.advance(by: delay)
    selector.signal(id, kind: kind, status: status, at: clock.now)
  }

  /// Expects the player selected and the reason given for it.
  func expectSelected(
    _ id: String?, because reason: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(selected == id, sourceLocation: sourceLocation)
    #expect(self.reason == reason, sourceLocation: sourceLocation)
  }

  var selected: String? { selector.selectedID }
  var reason: String { selector.reason }
}

@Suite struct MostRecentPolicyTests {
  @Test func anySignalMakesAPlayerActiveAsPlayerctldDoes() {
    var h = SelectorHarness(.mostRecent, found: [("mpv", .paused), ("vlc", .playing)])
    h.expectSelected(":1.2", because: "playing, and no activity seen from any player yet")

    h.signal(":1.1", "PropertiesChanged (Volume)")
    h.expectSelected(":1.1", because: "most recently active (PropertiesChanged (Volume))")
    #expect(h.selector.players[":1.1"]?.lastActivity == 101)

    h.signal(":1.2", "Seeked")
    h.expectSelected(":1.2", because: "most recently active (Seeked)")
  }

  @Test func aPlayerAppearingBecomesActiveAndItsDepartureFallsBackToThePreviousOne() {
    var h = SelectorHarness(.mostRecent, found: [("mpv", .paused), ("vlc", .paused)])
    h.signal(":1.1", "PropertiesChanged (PlaybackStatus)", status: .playing)
    h.appears(":1.5", "spotify", .paused)
    h.expectSelected(":1.5", because: "most recently active (appeared)")
    h.selector.vanished(":1.5")
    h.expectSelected(":1.1", because: "most recently active (PropertiesChanged (PlaybackStatus))")
  }

  @Test func signalsAtTheSameInstantAreOrderedByArrival() {
    var h = SelectorHarness(.mostRecent, found: [("a", .paused), ("b", .paused)])
    h.expectSelected(":1.1", because: "no activity seen yet; first by name")
    h.signal(":1.2", "Seeked", after: 0)
    h.signal(":1.1", "Seeked", after: 0)
    #expect(h.selected == ":1.1")
    h.signal(":1.2", "Seeked", after: 0)
    #expect(h.selected == ":1.2")
  }
}

@Suite struct PlayingFirstPolicyTests {
  @Test func aPlayingPlayerWinsOtherwiseTheCurrentOneStays() {
    var h = SelectorHarness(.playingFirst, found: [("mpv", .playing), ("vlc", .paused)])
    h.expectSelected(":1.1", because: "playing")

    h.signal(":1.2", "PropertiesChanged (PlaybackStatus)", status: .playing)
    h.expectSelected(":1.2", because: "started playing last of 2 playing players")

    h.signal(":1.2", "PropertiesChanged (PlaybackStatus)", status: .paused)
    h.expectSelected(":1.1", because: "playing")

    h.signal(":1.1", "PropertiesChanged (PlaybackStatus)", status: .paused)
    h.expectSelected(":1.1", because: "no player is playing; keeps the current selection")

    // Activity that is not playing does not steal the selection (unlike most-recent).
    h.signal(":1.2", "PropertiesChanged (Volume)")
    #expect(h.selected == ":1.1")

    h.selector.vanished(":1.1")
    h.expectSelected(":1.2", because: "the only usable player")
  }

  @Test func whenTheSelectedPlayerLeavesAndNoneIsPlayingTheMostRecentlyActiveIsTaken() {
    var h = SelectorHarness(.playingFirst, found: [("a", .paused), ("b", .paused), ("c", .playing)])
    h.signal(":1.2", "PropertiesChanged (Metadata)")
    h.signal(":1.3", "PropertiesChanged (PlaybackStatus)", status: .stopped)
    #expect(h.selected == ":1.3")
    h.selector.vanished(":1.3")
    h.expectSelected(
      ":1.2", because: "no player is playing; most recently active (PropertiesChanged (Metadata))")
  }

  @Test func playingSinceFollowsVirtualTime() {
    var h = SelectorHarness(.playingFirst, found: [("a", .paused)])
    h.signal(":1.1", "PropertiesChanged (PlaybackStatus)", status: .playing, after: 2.5)
    #expect(h.selector.players[":1.1"]?.playingSince == 102.5)
    h.signal(":1.1", "PropertiesChanged (Volume)", after: 1)
    #expect(h.selector.players[":1.1"]?.playingSince == 102.5)
    h.signal(":1.1", "PropertiesChanged (PlaybackStatus)", status: .paused)
    #expect(h.selector.players[":1.1"]?.playingSince == nil)
  }
}

@Suite struct ExclusionTests {
  @Test func playerctldAndResponderdAreNeverSelectedAndTheirEchoesChangeNothing() {
    var h = SelectorHarness(.mostRecent)
    h.selector.setOwnID(":1.9")
    h.found(":1.1", "mpv", .paused)
    h.found(":1.2", "vlc", .paused)
    h.signal(":1.2", "PropertiesChanged (Volume)")
    // playerctld and responderd itself: listed, never loaded as candidates.
    h.appears(":1.7", "playerctld", nil, after: 0)
    h.appears(":1.9", "responderd", nil, after: 0)
    h.appears(":1.8", "responderd", nil, after: 0)
    #expect(h.selected == ":1.2")
    // playerctld re-emits the active player's signal under its own name: it counts for playerctld.
    h.signal(":1.1", "PropertiesChanged (Volume)")
    h.signal(":1.7", "PropertiesChanged (Volume)", after: 0.001)
    h.signal(":1.9", "PropertiesChanged (PlaybackStatus)", after: 0.001)
    #expect(h.selected == ":1.1")
    #expect(
      h.selector.players[":1.7"]?.exclusion == .proxy("playerctld re-emits the active player's signals"))
    #expect(h.selector.players[":1.9"]?.exclusion == .itself)
    #expect(h.selector.players[":1.8"]?.exclusion == .proxy("responderd's own proxy player"))
    h.selector.vanished(":1.1")
    h.selector.vanished(":1.2")
    #expect(h.selected == nil)
    #expect(
      h.reason
        == "no usable player (playerctld: proxy: playerctld re-emits the active player's signals; responderd: proxy: responderd's own proxy player; responderd: responderd itself (never controlled))"
    )
  }

  @Test func ignoreGlobsKeepPlayersOut() {
    let h = SelectorHarness(
      .playingFirst, ignore: ["mpv.instance*", "*chromium*"],
      found: [("mpv", .paused), ("mpv.instance4242", .playing), ("chromium.instance77", .playing)])
    h.expectSelected(":1.1", because: "the only usable player")
    #expect(h.selector.players[":1.2"]?.exclusion == .ignored(glob: "mpv.instance*"))
    #expect(h.selector.players[":1.3"]?.exclusion == .ignored(glob: "*chromium*"))
  }

  @Test func aNameWithoutInstanceAlsoMatchesItsInstances() {
    let h = SelectorHarness(
      .playingFirst, ignore: ["mpv"],
      found: [("mpv", .paused), ("mpv.instance4242", .playing), ("mpvx", .paused)])
    #expect(h.selected == ":1.3")
  }

  @Test func anUnresponsivePlayerIsPassedOverUntilItShowsLife() {
    var h = SelectorHarness(.playingFirst, found: [("a", .playing), ("b", .paused)])
    #expect(h.selected == ":1.1")
    h.selector.unresponsive(":1.1", reason: "no answer to PlayPause within 300 ms")
    #expect(h.selected == ":1.2")
    #expect(h.selector.players[":1.1"]?.exclusion == .unresponsive("no answer to PlayPause within 300 ms"))
    h.signal(":1.1", "PropertiesChanged (Volume)")
    #expect(h.selected == ":1.1")
  }

  @Test func aPlayerIsNotSelectedBeforeItsPropertiesAreRead() {
    var h = SelectorHarness(.mostRecent)
    h.selector.appeared(":1.1", names: ["org.mpris.MediaPlayer2.mpv"], at: h.clock.now, live: true)
    h.expectSelected(nil, because: "no usable player (mpv: reading its properties)")
    h.selector.loaded(":1.1", status: .paused, at: h.clock.now)
    #expect(h.selected == ":1.1")
  }

  @Test func noPlayerAtAll() {
    let h = SelectorHarness(.mostRecent)
    h.expectSelected(nil, because: "no MPRIS player on the bus")
  }
}

@Suite struct PriorityTests {
  @Test func anEarlierGlobAlwaysWinsAndThePolicyChoosesWithinIt() {
    var h = SelectorHarness(
      .playingFirst, priority: ["spotify", "mpv*"],
      found: [("vlc", .playing), ("mpv.instance1", .paused), ("mpv.instance2", .playing)])
    h.expectSelected(":1.3", because: "first in priority (matches 'mpv*'); playing")
    h.appears(":1.4", "spotify", .paused)
    h.expectSelected(
      ":1.4", because: "first in priority (matches 'spotify'); the only player of its priority")
    #expect(h.selector.players[":1.4"]?.priorityRank == 0)
    #expect(h.selector.players[":1.1"]?.priorityRank == nil)
    h.selector.vanished(":1.4")
    #expect(h.selected == ":1.3")
    h.selector.vanished(":1.3")
    h.selector.vanished(":1.2")
    h.expectSelected(":1.1", because: "the only usable player")
  }

  @Test func priorityAlsoOrdersMostRecent() {
    var h = SelectorHarness(.mostRecent, priority: ["b"], found: [("a", .paused), ("b", .paused)])
    h.signal(":1.1", "Seeked")
    #expect(h.selected == ":1.2")
  }
}

@Suite struct NameGlobTests {
  @Test func wildcardsAndInstances() {
    #expect(NameGlob("mpv").matches(busName: "org.mpris.MediaPlayer2.mpv"))
    #expect(NameGlob("mpv").matches(busName: "org.mpris.MediaPlayer2.mpv.instance123"))
    #expect(!NameGlob("mpv").matches(busName: "org.mpris.MediaPlayer2.mpvx"))
    #expect(!NameGlob("mpv.instance*").matches(busName: "org.mpris.MediaPlayer2.mpv"))
    #expect(NameGlob("mpv.instance*").matches(busName: "org.mpris.MediaPlayer2.mpv.instance9"))
    #expect(NameGlob("*").matches(busName: "org.mpris.MediaPlayer2.vlc"))
    #expect(NameGlob("v?c").matches(busName: "org.mpris.MediaPlayer2.vlc"))
    #expect(!NameGlob("v?c").matches(busName: "org.mpris.MediaPlayer2.vllc"))
    #expect(NameGlob("org.mpris.MediaPlayer2.vlc").matches(busName: "org.mpris.MediaPlayer2.vlc"))
    #expect(NameGlob("*chrom*").matches(busName: "org.mpris.MediaPlayer2.chromium.instance42"))
    #expect(NameGlob("a*b*c").matches(busName: "org.mpris.MediaPlayer2.aXbYbZc"))
    #expect(!NameGlob("a*b*c").matches(busName: "org.mpris.MediaPlayer2.aXbYbZ"))
  }
}
