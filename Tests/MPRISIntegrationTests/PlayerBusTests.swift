import DBus
import DBusTestSupport
import EventLoop
import EventTime
import Foundation
import MPRIS
import PlayerSelection
import ResponderConfig
import ResponderCore
import ResponderdKit
import Testing

/// The `mpris` handler, the proxy player and `responderctl players` against two real mpv
/// players on a private bus shared by the suite (each test resets them and starts its own
/// in-process service).
@Suite(.serialized, .sharedPlayerBus(players: 2))
struct PlayerBusTests {
  let fixture: PlayerBus
  /// `org.mpris.MediaPlayer2.mpv`: first by name.
  var a: MPV { fixture.players[0] }
  /// `org.mpris.MediaPlayer2.mpv.instance<PID>`.
  var b: MPV { fixture.players[1] }

  init() throws {
    fixture = try PlayerBus.shared()
  }

  func start(_ players: String = "", extra: String = "", resetting: [MPV]? = nil) throws -> ServiceUnderTest {
    try ServiceUnderTest(
      bus: fixture.bus,
      config: "chain = [\"mpris\", \"command\", \"log\"]\n\(extra)\n[players]\n\(players)\n",
      resetting: resetting ?? fixture.players)
  }

  /// The service on these `[players]` settings, once it has seen `player` start playing.
  func start(_ players: String, whilePlaying player: MPV) throws -> ServiceUnderTest {
    let s = try start(players)
    try player.call("Play", on: s.control)
    try s.waitUntilSeen(player, .playing)
    return s
  }

  // MARK: Selection and control

  @Test func playingFirstTogglesTheSelectedPlayerAndLeavesTheOtherAlone() throws {
    let s = try start("policy = \"playing-first\"")
    #expect(b.shortName.hasPrefix("mpv.instance"))
    #expect(s.selected == a.uniqueName)
    #expect(s.tracker.selector.reason == "no player is playing; no activity seen yet; first by name")

    try a.call("Play", on: s.control)
    try s.waitUntilSeen(a, .playing)
    #expect(s.selected == a.uniqueName)
    try b.call("Play", on: s.control)
    try s.waitUntilSeen(b, .playing)
    #expect(s.selected == b.uniqueName)
    #expect(s.tracker.selector.reason == "started playing last of 2 playing players")

    let record = try s.send(.remoteControlTogglePlayPause)
    #expect(record.handledBy == "mpris")
    try s.waitUntilSeen(b, .paused)
    #expect(try b.status(on: s.control) == "Paused")
    #expect(try a.status(on: s.control) == "Playing")

    #expect(s.selected == a.uniqueName)
    #expect(s.tracker.selector.reason == "playing")
    #expect(try s.send(.remoteControlTogglePlayPause).handledBy == "mpris")
    try s.waitUntilSeen(a, .paused)
    #expect(try a.status(on: s.control) == "Paused")
    #expect(try b.status(on: s.control) == "Paused")
  }

  @Test func mostRecentFollowsTheLastSignalOfAnyKind() throws {
    let s = try start("policy = \"most-recent\"")
    try b.setVolume(0.8, on: s.control)
    try s.waitForSelection(b)
    #expect(s.tracker.selector.reason == "most recently active (PropertiesChanged (Volume))")
    #expect(try s.send(.remoteControlTogglePlayPause).handledBy == "mpris")
    try s.waitUntilSeen(b, .playing)
    #expect(try b.status(on: s.control) == "Playing")
    #expect(try a.status(on: s.control) == "Paused")

    try a.setVolume(0.9, on: s.control)
    try s.waitForSelection(a)
    #expect(try s.send(.remoteControlPlay).handledBy == "mpris")
    try s.waitUntilSeen(a, .playing)
    #expect(try s.send(.remoteControlPause).handledBy == "mpris")
    try s.waitUntilSeen(a, .paused)
    #expect(s.selected == a.uniqueName)
    #expect(try b.status(on: s.control) == "Playing")
  }

  @Test func anIgnoredPlayerIsNeverControlled() throws {
    let s = try start("policy = \"playing-first\"\nignore = [\"mpv.instance*\"]", whilePlaying: b)
    #expect(s.selected == a.uniqueName)
    #expect(s.tracker.selector.players[b.uniqueName]?.exclusion == .ignored(glob: "mpv.instance*"))
    #expect(try s.send(.remoteControlTogglePlayPause).handledBy == "mpris")
    try a.waitForStatus("Playing", on: s.control)
    #expect(try b.status(on: s.control) == "Playing")
  }

  @Test func aPriorityGlobWinsOverAPlayingPlayer() throws {
    let s = try start("policy = \"playing-first\"\npriority = [\"mpv.instance*\"]", whilePlaying: a)
    #expect(s.selected == b.uniqueName)
    #expect(
      s.tracker.selector.reason
        == "first in priority (matches 'mpv.instance*'); the only player of its priority")
    #expect(try s.send(.remoteControlTogglePlayPause).handledBy == "mpris")
    try b.waitForStatus("Playing", on: s.control)
    #expect(try a.status(on: s.control) == "Playing")
  }

  @Test func withNoUsablePlayerTheEventMovesOnDownTheChain() throws {
    let s = try start("ignore = [\"*\"]", extra: "[command]\ntogglePlayPause = [\"true\"]")
    #expect(s.selected == nil)
    let record = try s.send(.remoteControlTogglePlayPause)
    #expect(record.receivedBy.prefix(2) == ["mpris", "command"])
    #expect(record.handledBy == "command")
    let next = try s.send(.remoteControlNextTrack)
    #expect(next.receivedBy.prefix(3) == ["mpris", "command", "log"])
    #expect(next.handledBy == nil)
    #expect(try a.status(on: s.control) == "Paused")
    #expect(try b.status(on: s.control) == "Paused")
  }

  // MARK: Seeking

  @Test func holdingSeekMovesThePositionByStepsForwardAndBackAndStopsAtTheEnd() throws {
    let s = try start("policy = \"playing-first\"\nseek-step = 10\nseek-interval = 0.1")
    #expect(s.selected == a.uniqueName)
    let start = try a.position(on: s.control)

    #expect(try s.send(.remoteControlBeginSeekingForward).handledBy == "mpris")
    try waitFor("the position to move forward 3 steps", on: s.loop) {
      ((try? a.position(on: s.control)) ?? 0) >= start + 25
    }
    let end = try s.send(.remoteControlEndSeekingForward)
    #expect(end.handledBy == "mpris")
    #expect(s.mpris.controller.seekingPlayer == nil)
    let forwardSteps = try stepsLogged(s, "endSeekingForward")
    #expect(forwardSteps >= 3)
    var target = start + Double(forwardSteps) * 10
    try waitFor("the position to settle at \(target) s", on: s.loop) {
      abs(((try? a.position(on: s.control)) ?? 0) - target) < 1
    }

    let middle = try a.position(on: s.control)
    #expect(try s.send(.remoteControlBeginSeekingBackward).handledBy == "mpris")
    try waitFor("the position to move back 2 steps", on: s.loop) {
      ((try? a.position(on: s.control)) ?? .infinity) <= middle - 15
    }
    #expect(try s.send(.remoteControlEndSeekingBackward).handledBy == "mpris")
    let backwardSteps = try stepsLogged(s, "endSeekingBackward")
    target = middle - Double(backwardSteps) * 10
    try waitFor("the position to settle at \(target) s", on: s.loop) {
      abs(((try? a.position(on: s.control)) ?? 0) - target) < 1
    }
    #expect(try b.position(on: s.control) < 1)
    // An end without a begin is not the mpris handler's.
    #expect(try s.send(.remoteControlEndSeekingForward).handledBy == nil)
  }

  /// The number of steps the handler reports for an end-of-seek event (its debug log).
  private func stepsLogged(_ s: ServiceUnderTest, _ subtype: String) throws -> Int {
    guard let line = s.log.all.last(where: { $0.contains("mpris: \(subtype): Seek (") }),
      let steps = line.split(separator: "(").dropFirst().first?.split(separator: " ").first.flatMap({
        Int($0)
      })
    else { throw TestSupportError("no seek report in the log:\n\(s.log.text)") }
    return steps
  }

  @Test func seekStepsFollowTheSchedulerAndNoneIsSentAfterTheEnd() throws {
    // The controller alone, with seek steps on virtual time (calls still go to the real mpv).
    let loop = try EventLoop()
    let control = try fixture.bus.connect(loop: loop)
    for player in fixture.players { try player.reset(on: control) }
    let clock = VirtualScheduler(now: 0)
    var settings = PlayerSettings()
    settings.seekStep = 7
    settings.seekInterval = 0.5
    settings.priority = [a.busName]
    let tracker = PlayerTracker(settings: settings, scheduler: clock)
    let connection = try fixture.bus.connect(loop: loop)
    tracker.attach(to: connection)
    let controller = PlayerController(tracker: tracker)
    try waitFor("\(a.busName) to be selected", on: loop) { tracker.selector.selectedID == a.uniqueName }
    let start = try a.position(on: control)

    var outcomes: [ControlOutcome] = []
    controller.perform(.remoteControlBeginSeekingForward) { outcomes.append($0) }
    try waitFor("the first step's answer", on: loop) { outcomes.count == 1 }
    #expect(outcomes[0] == .sent(player: "mpv", method: "Seek"))
    for step in 1...3 {
      try waitFor("step \(step) to land", on: loop) {
        abs(((try? a.position(on: control)) ?? 0) - (start + Double(step) * 7)) < 0.5 * Double(step)
      }
      if step < 3 { clock.advance(by: 0.5) }
    }
    controller.perform(.remoteControlEndSeekingForward) { outcomes.append($0) }
    #expect(outcomes.last == .sent(player: "mpv", method: "Seek (3 steps, stopped)"))
    #expect(clock.pendingCount == 0)
    clock.advance(by: 10)
    #expect(clock.pendingCount == 0)
    let after = try a.position(on: control)
    #expect(abs(after - (start + 21)) < 1.5)
    connection.close()
  }

  // MARK: The proxy player

  @Test func playerctlOnTheProxyDrivesTheChainAndEndsAtTheRealPlayer() throws {
    let s = try start("policy = \"playing-first\"")
    #expect(s.selected == a.uniqueName)
    let proxyOwner = try #require(s.nameOwner(MPRISNames.responderd))
    var proxySignals: [[String: DBusValue]] = []
    let watch = s.control.onPropertiesChanged(sender: proxyOwner, path: MPRISNames.objectPath) {
      _, changed, _ in
      proxySignals.append(changed)
    }
    defer { watch.cancel() }
    _ = try s.control.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetId")  // the AddMatch above is in place once this answers

    var before = s.records.count
    let playPause = try s.run(["playerctl", "-p", "responderd", "play-pause"])
    #expect(playPause.exitCode == 0, "\(playPause)")
    var record = try s.waitForRecord("playerctl's play-pause in the chain", after: before)
    #expect(record.subtype == .remoteControlTogglePlayPause)
    #expect(record.source == "mpris-proxy")
    #expect(record.receivedBy.first == "mpris")
    #expect(record.handledBy == "mpris")
    try a.waitForStatus("Playing", on: s.control)
    #expect(try b.status(on: s.control) == "Paused")
    try waitFor("the proxy to signal Playing", on: s.loop) {
      proxySignals.contains { $0["PlaybackStatus"]?.string == "Playing" }
    }
    #expect(try s.run(["playerctl", "-p", "responderd", "status"]).output == "Playing\n")

    before = s.records.count
    let next = try s.run(["playerctl", "-p", "responderd", "next"])
    #expect(next.exitCode == 0, "\(next)")
    record = try s.waitForRecord("playerctl's next in the chain", after: before)
    #expect(record.subtype == .remoteControlNextTrack)
    #expect(record.handledBy == "mpris")
    try waitFor("\(a.busName) to play two.ogg", on: s.loop) { (try? a.title(on: s.control)) == "two.ogg" }
    try waitFor("the proxy to signal the new Metadata", on: s.loop) {
      proxySignals.contains { $0["Metadata"]?.dictionary?["xesam:title"]?.string == "two.ogg" }
    }
    #expect(try s.run(["playerctl", "-p", "responderd", "metadata", "xesam:title"]).output == "two.ogg\n")

    // A change made on the real player directly shows on the proxy too.
    try a.call("Pause", on: s.control)
    try waitFor("the proxy to signal Paused", on: s.loop) {
      proxySignals.last?["PlaybackStatus"]?.string == "Paused"
    }
    #expect(try s.run(["playerctl", "-p", "responderd", "status"]).output == "Paused\n")

    // Seek goes straight to the selected player, with its exact offset.
    let position = try a.position(on: s.control)
    let seek = try s.run(["playerctl", "-p", "responderd", "position", "30+"])
    #expect(seek.exitCode == 0, "\(seek)")
    try waitFor("a 30 s seek on \(a.busName)", on: s.loop) {
      abs(((try? a.position(on: s.control)) ?? 0) - (position + 30)) < 1
    }
  }

  @Test func theProxyMirrorsTheSelectedPlayerAndFollowsTheSelection() throws {
    let s = try start("policy = \"playing-first\"")
    let proxy = MPRISNames.responderd
    func proxyProperty(_ name: String) throws -> DBusValue {
      try s.control.callAndWait(
        destination: proxy, path: MPRISNames.objectPath, interface: "org.freedesktop.DBus.Properties",
        method: "Get", arguments: [.string(MPRISNames.playerInterface), .string(name)]
      ).first?.unwrapped ?? .string("")
    }
    #expect(try proxyProperty("PlaybackStatus") == .string("Paused"))
    #expect(try proxyProperty("Metadata").dictionary?["xesam:title"]?.string == "one.ogg")
    #expect(try proxyProperty("CanControl") == .bool(true))

    try b.call("Next", on: s.control)
    try b.call("Play", on: s.control)
    try s.waitForSelection(b)
    try waitFor("the proxy to show \(b.busName)", on: s.loop) {
      (try? proxyProperty("Metadata").dictionary?["xesam:title"]?.string) == "two.ogg"
        && (try? proxyProperty("PlaybackStatus")) == .string("Playing")
    }
    // mpv starts this file at -0.17 s (the Vorbis pre-skip).
    let position = try proxyProperty("Position").int64 ?? -1_000_000_000
    #expect(position > -1_000_000)

    // Every property MPRIS requires, of both interfaces.
    let required = [
      MPRISNames.playerInterface: [
        "PlaybackStatus", "Rate", "Metadata", "Volume", "Position", "MinimumRate", "MaximumRate", "CanGoNext",
        "CanGoPrevious", "CanPlay", "CanPause", "CanSeek", "CanControl",
      ],
      MPRISNames.rootInterface: [
        "CanQuit", "CanRaise", "HasTrackList", "Identity", "SupportedUriSchemes", "SupportedMimeTypes",
      ],
    ]
    for (interface, names) in required {
      let all =
        try s.control.callAndWait(
          destination: proxy, path: MPRISNames.objectPath, interface: "org.freedesktop.DBus.Properties",
          method: "GetAll", arguments: [.string(interface)]
        ).first?.dictionary ?? [:]
      for name in names { #expect(all[name] != nil, "\(interface): missing \(name)") }
    }
    // responderd's own player is tracked, and never selected.
    let own = try #require(s.tracker.selector.players[s.busConnection.uniqueName ?? ""])
    #expect(own.exclusion == .itself)
  }

  // MARK: Hung and dying players

  @Test func aStoppedPlayerMissesTheDeadlineTheEventMovesOnAndTheNextOneGoesElsewhere() throws {
    let s = try start("policy = \"playing-first\"\ncall-deadline = 0.3")
    #expect(s.selected == a.uniqueName)
    try a.process.freeze()
    defer { a.process.signal(SIGCONT) }
    let started = monotonicNow()
    let record = try s.send(.remoteControlTogglePlayPause, timeout: 5)
    let elapsed = monotonicNow() - started
    #expect(record.receivedBy.prefix(3) == ["mpris", "command", "log"])
    #expect(record.handledBy == nil)
    #expect(elapsed >= 0.3 && elapsed < 2, "the event waited \(elapsed) s")
    #expect(
      s.tracker.selector.players[a.uniqueName]?.exclusion
        == .unresponsive("no answer to PlayPause within 300 ms"))
    #expect(s.selected == b.uniqueName)

    let next = try s.send(.remoteControlTogglePlayPause, timeout: 5)
    #expect(next.handledBy == "mpris")
    try b.waitForStatus("Playing", on: s.control)

    // Woken up, it answers the ping and is a candidate again (it also runs the late PlayPause:
    // a D-Bus call cannot be taken back).
    a.process.signal(SIGCONT)
    try waitFor("\(a.busName) to answer again", on: s.loop) {
      s.tracker.selector.players[a.uniqueName]?.exclusion == nil
    }
  }

  @Test func aPlayerKilledMidCallFailsTheCallAtOnceAndTheEventMovesOn() throws {
    let c = try fixture.startExtraPlayer()
    defer { c.process.terminate(grace: 1) }
    let s = try start(
      "policy = \"playing-first\"\ncall-deadline = 10\npriority = [\"\(c.busName)\"]",
      resetting: fixture.players + [c])
    try s.waitForSelection(c)
    try c.process.freeze()
    let before = s.records.count
    s.service.application.post(.remoteControl(.remoteControlTogglePlayPause, timestamp: 0, source: "test"))
    s.busConnection.flush()  // the call is on the bus, waiting for the stopped player
    c.process.signal(SIGKILL)
    _ = try c.process.waitForExit(timeout: 10)
    let started = monotonicNow()
    let record = try s.waitForRecord("the event after the kill", after: before, timeout: 5)
    #expect(monotonicNow() - started < 2, "the event waited for the 10 s deadline")
    #expect(record.handledBy == nil)
    #expect(record.receivedBy.prefix(3) == ["mpris", "command", "log"])
    try waitFor("the killed player to be gone", on: s.loop) { s.tracker.players[c.uniqueName] == nil }
    #expect(s.selected == a.uniqueName)
    #expect(try s.send(.remoteControlTogglePlayPause).handledBy == "mpris")
    try a.waitForStatus("Playing", on: s.control)
  }

  // MARK: Tools and robustness

  @Test func responderctlPlayersShowsThePlayersTheSelectedOneAndWhy() throws {
    let s = try start("policy = \"most-recent\"\nignore = [\"nothing.here\"]")
    try b.setVolume(0.7, on: s.control)
    try s.waitForSelection(b)
    let responderctl = try builtExecutable("responderctl")

    let text = try s.run([responderctl, "players"])
    #expect(text.exitCode == 0, "\(text)")
    let lines = text.output.split(separator: "\n").map(String.init)
    #expect(lines.first == "policy: most-recent; ignore: nothing.here")
    #expect(
      lines.contains(
        "selected: \(b.shortName) (\(b.uniqueName)): most recently active (PropertiesChanged (Volume))"))
    #expect(
      lines.contains {
        $0.hasPrefix("* \(b.shortName) (\(b.uniqueName)) Paused \"one.ogg\" — last activity ")
      })
    #expect(
      lines.contains { $0.hasPrefix("  \(a.shortName) (\(a.uniqueName)) Paused \"one.ogg\" — candidate") })
    let own = s.busConnection.uniqueName ?? "?"
    #expect(
      lines.contains { $0.hasPrefix("  responderd (\(own)) — responderd itself (never controlled)") },
      "\(text.output)")

    let json = try s.run([responderctl, "players", "--json"])
    #expect(json.exitCode == 0, "\(json)")
    let report = try JSONDecoder().decode(PlayersReport.self, from: Data(json.output.utf8))
    #expect(report.policy == "most-recent")
    #expect(report.selectedUniqueName == b.uniqueName)
    #expect(report.reason == "most recently active (PropertiesChanged (Volume))")
    #expect(report.players.map(\.uniqueName).sorted() == [a.uniqueName, b.uniqueName, own].sorted())
    #expect(report.players.first?.state == .selected)
    #expect(report.players.first { $0.uniqueName == own }?.state == .itself)
    #expect(report.players.first { $0.uniqueName == a.uniqueName }?.capabilities.contains("seek") == true)
  }

  @Test func mostRecentAgreesWithPlayerctldWhichItselfFallsForTheProxy() throws {
    let playerctld = try ChildProcess(
      ["playerctld"], environment: fixture.bus.environment, stdout: .null, stderr: .null)
    defer { playerctld.terminate(grace: 2) }
    func playerctldNames(_ connection: DBusConnection) -> [String] {
      (try? connection.callAndWait(
        destination: MPRISNames.playerctld, path: MPRISNames.objectPath,
        interface: "org.freedesktop.DBus.Properties",
        method: "Get", arguments: [.string("com.github.altdesktop.playerctld"), .string("PlayerNames")],
        timeout: 2
      ).first?.stringArray) ?? []
    }
    // playerctld has found both players before responderd (and its proxy player) start.
    let loop = try EventLoop()
    let early = try fixture.bus.connect(loop: loop)
    try waitFor("playerctld to find both players", on: loop) {
      Set(playerctldNames(early)) == Set([a.busName, b.busName])
    }
    early.close()
    let s = try start("policy = \"most-recent\"")
    func playerctldNames() -> [String] { playerctldNames(s.control) }
    try waitFor("playerctld to find responderd's proxy; it has \(playerctldNames())", on: s.loop) {
      playerctldNames().contains(MPRISNames.responderd)
    }
    try waitFor("responderd to list playerctld", on: s.loop) {
      s.tracker.selector.players.values.contains { $0.names.contains(MPRISNames.playerctld) }
    }
    var volume = 0.5
    for player in [b, a, b] {
      volume += 0.1
      try player.setVolume(volume, on: s.control)
      try s.waitForSelection(player)
      // playerctld's rule on the real players gives the same one…
      try waitFor("playerctld to make \(player.busName) active; it has \(playerctldNames())", on: s.loop) {
        playerctldNames().first { $0 != MPRISNames.responderd } == player.busName
      }
    }
    // …but playerctld falls for responderd's proxy (it re-emitted the volume change) while
    // responderd never selects itself, and playerctld's own echoes never move the selection.
    try waitFor("playerctld to make responderd's proxy active; it has \(playerctldNames())", on: s.loop) {
      playerctldNames().first == MPRISNames.responderd
    }
    #expect(s.selected == b.uniqueName)
    let playerctldRecord = s.tracker.selector.players.values.first {
      $0.names.contains(MPRISNames.playerctld)
    }
    #expect(playerctldRecord?.exclusion == .proxy("playerctld re-emits the active player's signals"))
    // Its echoes never even reach responderd: the bus daemon filters them (players are followed
    // by sender, proxies not at all).
    #expect(playerctldRecord?.lastActivity == nil)
    #expect(try s.send(.remoteControlTogglePlayPause).handledBy == "mpris")
    try b.waitForStatus("Playing", on: s.control)
    #expect(try a.status(on: s.control) == "Paused")
  }

  @Test func wrongArgumentTypesGetDBusErrorsAndTheServiceStaysUp() throws {
    let s = try start()
    func send(_ arguments: [String]) throws -> CommandResult {
      try s.run(
        ["dbus-send", "--print-reply", "--dest=\(MPRISNames.responderd)", MPRISNames.objectPath] + arguments)
    }
    let seek = try send(["org.mpris.MediaPlayer2.Player.Seek", "string:ten"])
    #expect(seek.exitCode != 0)
    #expect(
      seek.output.contains(
        "org.freedesktop.DBus.Error.InvalidArgs: org.mpris.MediaPlayer2.Player.Seek expects arguments of signature 'x', got 's'"
      ), "\(seek)")
    let setPosition = try send(["org.mpris.MediaPlayer2.Player.SetPosition", "int64:5", "objpath:/0"])
    #expect(setPosition.output.contains("expects arguments of signature 'ox', got 'xo'"), "\(setPosition)")
    let playPause = try send(["org.mpris.MediaPlayer2.Player.PlayPause", "boolean:true"])
    #expect(playPause.output.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(playPause)")
    let volume = try send([
      "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Volume",
      "variant:string:loud",
    ])
    #expect(volume.output.contains("has type 'd', not 's'"), "\(volume)")
    let unknown = try send(["org.mpris.MediaPlayer2.Player.Rewind"])
    #expect(unknown.output.contains("org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown)")
    let players = try s.run([
      "dbus-send", "--print-reply", "--dest=org.responderd.Daemon1", MPRISComponent.playersPath,
      "org.responderd.Players1.GetPlayers", "string:all",
    ])
    #expect(players.output.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(players)")
    #expect(s.records.isEmpty)

    // Still serving: a proper call works.
    let good = try s.run(["playerctl", "-p", "responderd", "play"])
    #expect(good.exitCode == 0, "\(good)")
    try a.waitForStatus("Playing", on: s.control)
    #expect(s.records.map(\.subtype) == [.remoteControlPlay])
  }
}
