import EventTime
import MPRIS
import PlayerSelection
import ResponderCore
import Testing

/// A selector driven by fake player events on virtual time.
struct SelectorHarness {
  var selector: PlayerSelector
  let clock = VirtualScheduler(now: 100)

  init(_ policy: SelectionPolicy, priority: [String] = [], ignore: [String] = []) {
    var settings = PlayerSettings()
    settings.policy = policy
    settings.priority = priority
    settings.ignore = ignore
    selector = PlayerSelector(settings: settings)
  }

  /// A player found when listing the bus (no activity known), with its status read.
  mutating func found(_ id: String, _ name: String, _ status: PlaybackStatus) {
    selector.appeared(id, names: ["org.mpris.MediaPlayer2.\(name)"], at: clock.now, live: false)
    selector.loaded(id, status: status, at: clock.now)
  }

  /// A player appearing while watched.
  mutating func appears(_ id: String, _ name: String, _ status: PlaybackStatus, after delay: Seconds = 1) {
    clock.advance(by: delay)
    selector.appeared(id, names: ["org.mpris.MediaPlayer2.\(name)"], at: clock.now, live: true)
    selector.loaded(id, status: status, at: clock.now)
  }

  mutating func signal(_ id: String, _ kind: String, status: PlaybackStatus? = nil, after delay: Seconds = 1)
  {
    clock.advance(by: delay)
    selector.signal(id, kind: kind, status: status, at: clock.now)
  }

  var selected: String? { selector.selectedID }
  var reason: String { selector.reason }
}

@Suite struct MostRecentPolicyTests {
  @Test func anySignalMakesAPlayerActiveAsPlayerctldDoes() {
    var h = SelectorHarness(.mostRecent)
    h.found(":1.1", "mpv", .paused)
    h.found(":1.2", "vlc", .playing)
    #expect(h.selected == ":1.2")
    #expect(h.reason == "playing, and no activity seen from any player yet")

    h.signal(":1.1", "PropertiesChanged (Volume)")
    #expect(h.selected == ":1.1")
    #expect(h.reason == "most recently active (PropertiesChanged (Volume))")
    #expect(h.selector.players[":1.1"]?.lastActivity == 101)

    h.signal(":1.2", "Seeked")
    #expect(h.selected == ":1.2")
    #expect(h.reason == "most recently active (Seeked)")
  }

  @Test func aPlayerAppearingBecomesActiveAndItsDepartureFallsBackToThePreviousOne() {
    var h = SelectorHarness(.mostRecent)
    h.found(":1.1", "mpv", .paused)
    h.found(":1.2", "vlc", .paused)
    h.signal(":1.1", "PropertiesChanged (PlaybackStatus)", status: .playing)
    h.appears(":1.5", "spotify", .paused)
    #expect(h.selected == ":1.5")
    #expect(h.reason == "most recently active (appeared)")
    h.selector.vanished(":1.5")
    #expect(h.selected == ":1.1")
    #expect(h.reason == "most recently active (PropertiesChanged (PlaybackStatus))")
  }

  @Test func signalsAtTheSameInstantAreOrderedByArrival() {
    var h = SelectorHarness(.mostRecent)
    h.found(":1.1", "a", .paused)
    h.found(":1.2", "b", .paused)
    #expect(h.selected == ":1.1")  // no activity: first by name
    #expect(h.reason == "no activity seen yet; first by name")
    h.signal(":1.2", "Seeked", after: 0)
    h.signal(":1.1", "Seeked", after: 0)
    #expect(h.selected == ":1.1")
    h.signal(":1.2", "Seeked", after: 0)
    #expect(h.selected == ":1.2")
  }
}

@Suite struct PlayingFirstPolicyTests {
  @Test func aPlayingPlayerWinsOtherwiseTheCurrentOneStays() {
    var h = SelectorHarness(.playingFirst)
    h.found(":1.1", "mpv", .playing)
    h.found(":1.2", "vlc", .paused)
    #expect(h.selected == ":1.1")
    #expect(h.reason == "playing")

    h.signal(":1.2", "PropertiesChanged (PlaybackStatus)", status: .playing)
    #expect(h.selected == ":1.2")
    #expect(h.reason == "started playing last of 2 playing players")

    h.signal(":1.2", "PropertiesChanged (PlaybackStatus)", status: .paused)
    #expect(h.selected == ":1.1")
    #expect(h.reason == "playing")

    h.signal(":1.1", "PropertiesChanged (PlaybackStatus)", status: .paused)
    #expect(h.selected == ":1.1")
    #expect(h.reason == "no player is playing; keeps the current selection")

    // Activity that is not playing does not steal the selection (unlike most-recent).
    h.signal(":1.2", "PropertiesChanged (Volume)")
    #expect(h.selected == ":1.1")

    h.selector.vanished(":1.1")
    #expect(h.selected == ":1.2")
    #expect(h.reason == "the only usable player")
  }

  @Test func whenTheSelectedPlayerLeavesAndNoneIsPlayingTheMostRecentlyActiveIsTaken() {
    var h = SelectorHarness(.playingFirst)
    h.found(":1.1", "a", .paused)
    h.found(":1.2", "b", .paused)
    h.found(":1.3", "c", .playing)
    h.signal(":1.2", "PropertiesChanged (Metadata)")
    h.signal(":1.3", "PropertiesChanged (PlaybackStatus)", status: .stopped)
    #expect(h.selected == ":1.3")
    h.selector.vanished(":1.3")
    #expect(h.selected == ":1.2")
    #expect(h.reason == "no player is playing; most recently active (PropertiesChanged (Metadata))")
  }

  @Test func playingSinceFollowsVirtualTime() {
    var h = SelectorHarness(.playingFirst)
    h.found(":1.1", "a", .paused)
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
    h.selector.appeared(":1.7", names: ["org.mpris.MediaPlayer2.playerctld"], at: h.clock.now, live: true)
    h.selector.loaded(":1.7", status: nil, at: h.clock.now)
    h.selector.appeared(":1.9", names: ["org.mpris.MediaPlayer2.responderd"], at: h.clock.now, live: true)
    h.selector.loaded(":1.9", status: nil, at: h.clock.now)
    h.selector.appeared(":1.8", names: ["org.mpris.MediaPlayer2.responderd"], at: h.clock.now, live: true)
    h.selector.loaded(":1.8", status: nil, at: h.clock.now)
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
    var h = SelectorHarness(.playingFirst, ignore: ["mpv.instance*", "*chromium*"])
    h.found(":1.1", "mpv", .paused)
    h.found(":1.2", "mpv.instance4242", .playing)
    h.found(":1.3", "chromium.instance77", .playing)
    #expect(h.selected == ":1.1")
    #expect(h.reason == "the only usable player")
    #expect(h.selector.players[":1.2"]?.exclusion == .ignored(glob: "mpv.instance*"))
    #expect(h.selector.players[":1.3"]?.exclusion == .ignored(glob: "*chromium*"))
  }

  @Test func aNameWithoutInstanceAlsoMatchesItsInstances() {
    var h = SelectorHarness(.playingFirst, ignore: ["mpv"])
    h.found(":1.1", "mpv", .paused)
    h.found(":1.2", "mpv.instance4242", .playing)
    h.found(":1.3", "mpvx", .paused)
    #expect(h.selected == ":1.3")
  }

  @Test func anUnresponsivePlayerIsPassedOverUntilItShowsLife() {
    var h = SelectorHarness(.playingFirst)
    h.found(":1.1", "a", .playing)
    h.found(":1.2", "b", .paused)
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
    #expect(h.selected == nil)
    #expect(h.reason == "no usable player (mpv: reading its properties)")
    h.selector.loaded(":1.1", status: .paused, at: h.clock.now)
    #expect(h.selected == ":1.1")
  }

  @Test func noPlayerAtAll() {
    let h = SelectorHarness(.mostRecent)
    #expect(h.selected == nil)
    #expect(h.reason == "no MPRIS player on the bus")
  }
}

@Suite struct PriorityTests {
  @Test func anEarlierGlobAlwaysWinsAndThePolicyChoosesWithinIt() {
    var h = SelectorHarness(.playingFirst, priority: ["spotify", "mpv*"])
    h.found(":1.1", "vlc", .playing)
    h.found(":1.2", "mpv.instance1", .paused)
    h.found(":1.3", "mpv.instance2", .playing)
    #expect(h.selected == ":1.3")
    #expect(h.reason == "first in priority (matches 'mpv*'); playing")
    h.appears(":1.4", "spotify", .paused)
    #expect(h.selected == ":1.4")
    #expect(h.reason == "first in priority (matches 'spotify'); the only player of its priority")
    #expect(h.selector.players[":1.4"]?.priorityRank == 0)
    #expect(h.selector.players[":1.1"]?.priorityRank == nil)
    h.selector.vanished(":1.4")
    #expect(h.selected == ":1.3")
    h.selector.vanished(":1.3")
    h.selector.vanished(":1.2")
    #expect(h.selected == ":1.1")
    #expect(h.reason == "the only usable player")
  }

  @Test func priorityAlsoOrdersMostRecent() {
    var h = SelectorHarness(.mostRecent, priority: ["b"])
    h.found(":1.1", "a", .paused)
    h.found(":1.2", "b", .paused)
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
