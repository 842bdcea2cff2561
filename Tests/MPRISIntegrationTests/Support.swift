import DBus
import DBusTestSupport
import EventLoop
import Foundation
import Logging
import MPRIS
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import SystemCalls
import SystemPackage
import Testing

// MARK: - Waiting

/// Runs `loop` until `condition` holds; throws a clear error after `timeout` seconds.
func waitFor(
  _ what: @autoclosure () -> String, on loop: EventLoop, timeout: Double = 10, _ condition: () -> Bool
) throws {
  guard loop.run(until: condition, timeout: timeout) else {
    throw TestSupportError("timed out after \(timeout) s waiting for \(what())")
  }
}

// MARK: - Audio and players

/// The test's audio files: a 900 s sine wave made once with sox (kept in $TMPDIR between runs,
/// since sox takes seconds), as `one.ogg` and `two.ogg` in a directory of their own.
enum TestAudio {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var made: String?

  /// The directory holding `one.ogg` and `two.ogg`.
  static func directory() throws -> String {
    try lock.withLock {
      if let made { return made }
      let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
      let dir = "\(base)/responderd-test-audio-v1"
      let one = "\(dir)/one.ogg"
      if !FileManager.default.fileExists(atPath: one) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let partial = "\(dir)/partial-\(getpid()).ogg"
        let sox = try ChildProcess(
          ["sox", "-n", "-r", "8000", "-c", "1", partial, "synth", "900", "sine", "440", "vol", "0.2"],
          stdout: .null, stderr: .capture)
        let status = try sox.waitForExit(timeout: 60)
        guard ChildProcess.exitedSuccessfully(status) else {
          throw TestSupportError("sox failed: \(try sox.readToEnd(timeout: 1))")
        }
        guard rename(partial, one) == 0 else {
          throw SystemError("rename", path: FilePath(one), errno: .last)
        }
      }
      let two = "\(dir)/two.ogg"
      if !FileManager.default.fileExists(atPath: two) { _ = link(one, two) }
      made = dir
      return dir
    }
  }
}

/// One real mpv with the MPRIS plugin, paused on `one.ogg` (then `two.ogg`) on a private bus.
final class MPV {
  let process: ChildProcess
  /// Its MPRIS bus name (`org.mpris.MediaPlayer2.mpv` or `….mpv.instance<PID>`).
  private(set) var busName = ""
  /// Its unique name.
  private(set) var uniqueName = ""
  var shortName: String { MPRISNames.shortName(busName) }
  var pid: pid_t { process.pid }

  init(bus: PrivateBus) throws {
    let audio = try TestAudio.directory()
    process = try ChildProcess(
      [
        "mpv", "--no-config", "--idle=yes", "--ao=null", "--vo=null",
        "--script=/usr/lib/mpv-mpris/mpris.so", "--no-terminal", "--pause",
        "\(audio)/one.ogg", "\(audio)/two.ogg",
      ], environment: bus.environment, stdout: .null, stderr: .null)
  }

  /// Waits until the player is on the bus (its name is found through its pid).
  func waitUntilOnBus(_ connection: DBusConnection, timeout: Double = 15) throws {
    let loop = connection.loop
    let deadline = monotonicNow() + timeout
    while busName.isEmpty {
      guard process.isRunning else {
        throw TestSupportError("mpv (pid \(pid)) exited before joining the bus")
      }
      guard monotonicNow() < deadline else {
        throw TestSupportError("mpv (pid \(pid)) did not appear on the bus within \(timeout) s")
      }
      let names =
        try connection.callAndWait(
          destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
          interface: "org.freedesktop.DBus",
          method: "ListNames"
        ).first?.stringArray ?? []
      for name in names where MPRISNames.isPlayerName(name) {
        guard
          let owner = try? connection.callAndWait(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetNameOwner", arguments: [.string(name)]
          ).first?.string,
          let ownerPID = try? connection.callAndWait(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", method: "GetConnectionUnixProcessID",
            arguments: [.string(owner)]
          ).first?.uint32,
          ownerPID == UInt32(pid)
        else { continue }
        busName = name
        uniqueName = owner
      }
      if busName.isEmpty {
        // mpv registers ~0.3 s after start: wait for the next name to appear on the bus.
        var appeared = false
        let watch = connection.onNameOwnerChanged(namespace: "org.mpris.MediaPlayer2") { _ in appeared = true
        }
        defer { watch.cancel() }
        loop.run(until: { appeared }, timeout: 0.5)
      }
    }
  }

  // MARK: Direct calls (a client of the player, as playerctl would be)

  func get(_ property: String, on connection: DBusConnection) throws -> DBusValue {
    let values = try connection.callAndWait(
      destination: uniqueName, path: MPRISNames.objectPath, interface: "org.freedesktop.DBus.Properties",
      method: "Get", arguments: [.string(MPRISNames.playerInterface), .string(property)], timeout: 5)
    return values.first?.unwrapped ?? .string("")
  }

  func status(on connection: DBusConnection) throws -> String {
    try get("PlaybackStatus", on: connection).string ?? "?"
  }

  /// The position in seconds.
  func position(on connection: DBusConnection) throws -> Double {
    Double(try get("Position", on: connection).int64 ?? -1) / 1e6
  }

  func title(on connection: DBusConnection) throws -> String {
    try get("Metadata", on: connection).dictionary?["xesam:title"]?.string ?? ""
  }

  func call(_ method: String, _ arguments: [DBusValue] = [], on connection: DBusConnection) throws {
    _ = try connection.callAndWait(
      destination: uniqueName, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: method, arguments: arguments, timeout: 5)
  }

  func setVolume(_ volume: Double, on connection: DBusConnection) throws {
    _ = try connection.callAndWait(
      destination: uniqueName, path: MPRISNames.objectPath, interface: "org.freedesktop.DBus.Properties",
      method: "Set",
      arguments: [.string(MPRISNames.playerInterface), .string("Volume"), .variant(.double(volume))],
      timeout: 5)
  }

  /// Waits until its PlaybackStatus is `status`.
  func waitForStatus(_ status: String, on connection: DBusConnection, timeout: Double = 10) throws {
    var last = ""
    try waitFor("\(busName) to be \(status) (it is \(last))", on: connection.loop, timeout: timeout) {
      last = (try? self.status(on: connection)) ?? "?"
      return last == status
    }
  }

  /// Brings it back to paused near the start of `one.ogg`, waiting for the signal of each change
  /// so that none is still on its way when a service under test connects.
  func reset(on connection: DBusConnection) throws {
    var signals = 0
    var signalledMetadata: [String: DBusValue] = [:]
    let changes = connection.onPropertiesChanged(sender: uniqueName, path: MPRISNames.objectPath) {
      _, changed, _ in
      signals += 1
      if let metadata = changed["Metadata"]?.dictionary { signalledMetadata = metadata }
    }
    let seeks = connection.onSignal(
      sender: uniqueName, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface, member: "Seeked"
    ) { _ in signals += 1 }
    defer {
      changes.cancel()
      seeks.cancel()
    }
    // The subscriptions' AddMatch calls go before the calls below: their signals reach us.
    func change(_ what: String, _ action: () throws -> Void) throws {
      let before = signals
      try action()
      try waitFor("\(busName) to signal \(what)", on: connection.loop) { signals > before }
    }
    if try status(on: connection) != "Paused" {
      try change("Paused") { try call("Pause", on: connection) }
    }
    if try title(on: connection) != "one.ogg" {
      // mpv signals a new track once or twice (the second time with its length): wait for that.
      try change("the track change to one.ogg") { try call("Previous", on: connection) }
      try waitFor("\(busName) to signal one.ogg with its length", on: connection.loop) {
        signalledMetadata["xesam:title"]?.string == "one.ogg" && signalledMetadata["mpris:length"] != nil
      }
    }
    if try position(on: connection) > 1 {
      try change("the seek to 0 s") {
        try call("SetPosition", [.objectPath("/0"), .int64(0)], on: connection)
      }
    }
    try waitForStatus("Paused", on: connection)
    // mpv answers Get with its new state before it signals the change, so a change made just
    // before (by the previous test) may still be unsignalled: a last change of our own flushes
    // them, as mpv signals changes in order. Once its signal is here, no older one is pending.
    resets += 1
    let marker = Double(30 + resets % 20) / 100
    var markerSeen = false
    let markerWatch = connection.onPropertiesChanged(sender: uniqueName, path: MPRISNames.objectPath) {
      _, changed, _ in
      if let volume = changed["Volume"]?.double, abs(volume - marker) < 0.001 { markerSeen = true }
    }
    defer { markerWatch.cancel() }
    try setVolume(marker, on: connection)
    try waitFor("\(busName) to signal the volume \(marker)", on: connection.loop) { markerSeen }
  }

  private var resets = 0
}

/// A private bus with mpv players, shared by the tests of a suite: started once (mpv start-up
/// dominates the suite's time), torn down after the suite.
final class PlayerBus: @unchecked Sendable {
  let bus: PrivateBus
  let players: [MPV]

  @TaskLocal static var current: PlayerBus?

  init(players count: Int) throws {
    let bus = try PrivateBus()
    self.bus = bus
    let players = try (0..<count).map { _ in try MPV(bus: bus) }
    let loop = try EventLoop()
    let connection = try bus.connect(loop: loop)
    defer { connection.close() }
    for player in players { try player.waitUntilOnBus(connection) }
    self.players = players.sorted { ($0.shortName.count, $0.shortName) < ($1.shortName.count, $1.shortName) }
  }

  /// The shared fixture of the running suite.
  static func shared() throws -> PlayerBus {
    guard let current else { throw TestSupportError("the suite lacks the .sharedPlayerBus trait") }
    return current
  }

  /// One more player on the bus, for a test of its own (the test stops it).
  func startExtraPlayer() throws -> MPV {
    let player = try MPV(bus: bus)
    let loop = try EventLoop()
    let connection = try bus.connect(loop: loop)
    defer { connection.close() }
    try player.waitUntilOnBus(connection)
    return player
  }

  func stop() {
    for player in players { player.process.terminate(grace: 2) }
    bus.stop()
  }
}

/// Starts a `PlayerBus` before the suite's first test and stops it after its last.
struct SharedPlayerBusTrait: SuiteTrait, TestScoping {
  let count: Int
  var isRecursive: Bool { false }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let fixture = try PlayerBus(players: count)
    defer { fixture.stop() }
    try await PlayerBus.$current.withValue(fixture) { try await function() }
  }
}

extension Trait where Self == SharedPlayerBusTrait {
  /// A private bus with `players` mpv players for the whole suite.
  static func sharedPlayerBus(players: Int) -> Self { SharedPlayerBusTrait(count: players) }
}

// MARK: - The service under test

/// An in-process responderd service (bus and MPRIS components) on a private bus, with a control
/// connection on the same loop to look at the players as a client would.
final class ServiceUnderTest {
  let loop: EventLoop
  let harness: LoopService
  let control: DBusConnection
  let log = RecordingLogHandler.Store()
  let mpris: MPRISComponent
  let bus: PrivateBus
  var service: Service { harness.service }
  var records: [DispatchRecord] { harness.records }

  init(bus: PrivateBus, config toml: String, resetting players: [MPV] = []) throws {
    self.bus = bus
    loop = try EventLoop()
    control = try bus.connect(loop: loop)
    for player in players { try player.reset(on: control) }
    let config = try ResponderdConfig.parse(toml, file: "test.toml")
    let store = log
    harness = try LoopService(
      config: config, loop: loop, logger: Logger(label: "test") { _ in RecordingLogHandler(store: store) },
      busAddress: bus.address)
    mpris = harness.service.mprisComponent(bus: harness.bus)
    harness.add(mpris)
    harness.start()
    try waitFor("the service to read \(players.map(\.busName))", on: loop) {
      players.allSatisfy { mpris.tracker.selector.players[$0.uniqueName]?.isLoaded == true }
    }
    if mpris.tracker.settings.proxy {
      try waitFor("the proxy player's name", on: loop) {
        self.nameOwner(MPRISNames.responderd) == self.busConnection.uniqueName
      }
    }
  }

  deinit { stop() }

  var tracker: PlayerTracker { mpris.tracker }
  var busConnection: DBusConnection { harness.bus!.connection as! DBusConnection }
  var selected: String? { tracker.selector.selectedID }

  func stop() {
    harness.stop()
    control.close()
  }

  func nameOwner(_ name: String) -> String? {
    try? control.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetNameOwner", arguments: [.string(name)], timeout: 5
    ).first?.string
  }

  /// Waits until the service has seen (from the player's signals) that `player` is `status`.
  func waitUntilSeen(_ player: MPV, _ status: PlaybackStatus, timeout: Double = 10) throws {
    try waitFor("the service to see \(player.busName) \(status)", on: loop, timeout: timeout) {
      tracker.players[player.uniqueName]?.playbackStatus == status
    }
  }

  /// Waits until `player` is the selected one.
  func waitForSelection(_ player: MPV, timeout: Double = 10) throws {
    try waitFor(
      "\(player.busName) (\(player.uniqueName)) to be selected; selected: \(selected ?? "none"): \(tracker.selector.reason)",
      on: loop, timeout: timeout
    ) { selected == player.uniqueName }
  }

  /// Posts a remote-control event and waits for its dispatch record.
  @discardableResult
  func send(_ subtype: EventSubtype, timeout: Double = 10) throws -> DispatchRecord {
    let before = records.count
    service.application.post(.remoteControl(subtype, timestamp: loop.scheduler.now, source: "test"))
    try waitFor("the dispatch of \(subtype)", on: loop, timeout: timeout) { records.count > before }
    return records[before]
  }

  /// Runs a command with this bus as its session bus while the service keeps serving.
  func run(_ arguments: [String], timeout: Double = 10) throws -> CommandResult {
    try ChildProcess.run(arguments, environment: bus.environment, loop: loop, timeout: timeout)
  }

  /// Waits for the dispatch record of an event that comes from elsewhere (the proxy player).
  func waitForRecord(_ what: String, after count: Int, timeout: Double = 10) throws -> DispatchRecord {
    try waitFor(what, on: loop, timeout: timeout) { records.count > count }
    return records[count]
  }
}

/// A built executable of the package: in `$RESPONDERD_BIN_DIR`, else next to the tests.
func builtExecutable(_ name: String) throws -> String {
  if let dir = ProcessInfo.processInfo.environment["RESPONDERD_BIN_DIR"] { return "\(dir)/\(name)" }
  return try BuiltProducts.path(of: name)
}
