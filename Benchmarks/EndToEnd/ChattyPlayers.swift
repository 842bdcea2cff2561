import BenchmarkSupport
import DBus
import EventLoop
import EventTime
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// `EndToEnd --chatty-players N RATE`: N MPRIS players as browser tabs are, in one process with a
/// bus connection each (owning org.mpris.MediaPlayer2.tab1 … tabN, exporting the root and Player
/// interfaces, paused), each emitting PropertiesChanged RATE times a second: the Metadata of a
/// changing track and a Position, as a browser does while a page plays or scrubs media. The tabs
/// take turns (one signal every 1 / (N × RATE) s), so the load is even. Says "ready" on stdout
/// once every name is owned; runs until killed.
func runChattyPlayers(count: Int, rate: Double) -> Never {
  do {
    let loop = try EventLoop()
    var connections: [DBusConnection] = []
    var objects: [DBusExportedObject] = []
    var owned = 0
    for index in 1...count {
      let connection = try DBusConnection.session(loop: loop)
      try connection.waitUntilConnected(timeout: 10)
      let object = try connection.export(
        path: "/org/mpris/MediaPlayer2",
        interfaces: [
          DBusInterface(
            "org.mpris.MediaPlayer2",
            properties: [
              DBusProperty("Identity", get: { "Tab \(index)" }), DBusProperty("CanQuit", get: { false }),
              DBusProperty("CanRaise", get: { true }), DBusProperty("HasTrackList", get: { false }),
            ]),
          DBusInterface(
            "org.mpris.MediaPlayer2.Player",
            methods: ["PlayPause", "Play", "Pause", "Stop", "Next", "Previous"].map {
              DBusMethod($0) { _ in [] }
            },
            properties: [
              DBusProperty("PlaybackStatus", get: { "Paused" }),
              DBusProperty("Metadata", signature: "a{sv}", get: { .vardict(metadata(tab: index, step: 0)) }),
              DBusProperty("Position", signature: "x", changeSignal: .none, get: { .int64(0) }),
              DBusProperty("CanControl", get: { true }), DBusProperty("CanPlay", get: { true }),
              DBusProperty("CanPause", get: { true }), DBusProperty("CanGoNext", get: { false }),
              DBusProperty("CanGoPrevious", get: { false }), DBusProperty("CanSeek", get: { true }),
            ]),
        ])
      connection.requestName("org.mpris.MediaPlayer2.tab\(index)") { result in
        if case .success(let answer) = result, answer.isOwner { owned += 1 }
      }
      connections.append(connection)
      objects.append(object)
    }
    guard loop.run(until: { owned == count }, timeout: 10) else {
      throw BenchmarkError("only \(owned) of \(count) tab names owned within 10 s")
    }
    writeText("ready\n", to: .standardOutput)
    guard let scheduler = loop.scheduler else { throw BenchmarkError("the event loop has no timers") }
    let interval = 1 / (Double(count) * rate)
    var step = 0
    var next = scheduler.now
    func tick() {
      let tab = step % count
      step += 1
      let changed: [String: DBusValue] = [
        "Metadata": .vardict(metadata(tab: tab + 1, step: step / count)),
        "Position": .int64(Int64(step / count) * 100_000),
      ]
      try? objects[tab].emitPropertiesChanged(interface: "org.mpris.MediaPlayer2.Player", changed: changed)
      next += interval
      scheduler.schedule(at: next) { tick() }
    }
    tick()
    loop.run()
    withExtendedLifetime(connections) {}
    exit(0)
  } catch {
    writeText("chatty players: \(error)\n", to: .standardError)
    exit(1)
  }
}

/// What a browser tab's Metadata looks like.
private func metadata(tab: Int, step: Int) -> [String: DBusValue] {
  [
    "mpris:trackid": .objectPath("/org/chromium/MediaPlayer2/TrackList/Track\(tab)"),
    "xesam:title": .string("Video \(tab) — part \(step % 7)"),
    "xesam:artist": .array(elementSignature: "s", [.string("Channel \(tab)")]),
    "xesam:album": .string(""),
    "mpris:length": .int64(600_000_000),
    "mpris:artUrl": .string("file:///tmp/.org.chromium.Chromium.tab\(tab)"),
  ]
}
