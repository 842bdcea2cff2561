import DBus
import DBusTestSupport
import EventLoop
import Foundation
import MPRIS
import ResponderConfig
import Testing

/// The real `responderd` binary on a bus of its own, which is restarted under it.
@Suite(.serialized) struct DaemonMPRISTests {
  /// The daemon's output, read as it comes.
  final class DaemonLog {
    let process: ChildProcess
    private(set) var lines: [String] = []
    init(_ process: ChildProcess) { self.process = process }

    /// Reads output until `text` has appeared `count` times (15 s at most).
    func waitFor(_ text: String, count: Int = 1, timeout: Double = 15) throws {
      let deadline = monotonicNow() + timeout
      while lines.filter({ $0.contains(text) }).count < count {
        let left = deadline - monotonicNow()
        guard left > 0, let line = try? process.readLine(timeout: left) else {
          throw TestSupportError(
            "responderd did not log '\(text)' \(count) time(s) within \(timeout) s; it logged:\n"
              + lines.joined(separator: "\n"))
        }
        lines.append(line)
      }
    }
  }

  @Test func theDaemonSurvivesABusRestartReownsItsNamesAndControlsTheNewPlayer() throws {
    let bus = try PrivateBus()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rsp-mpris-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let config = directory.appendingPathComponent("config.toml")
    try "chain = [\"mpris\", \"log\"]\n[players]\npolicy = \"playing-first\"\n".write(
      to: config, atomically: true, encoding: .utf8)
    let process = try ChildProcess(
      [try builtExecutable("responderd"), "--allow-root", "--config", config.path],
      environment: bus.environment.merging(["XDG_RUNTIME_DIR": "/nonexistent"]) { $1 },
      stdout: .capture, stderr: .capture)
    defer { process.terminate(grace: 5) }
    let log = DaemonLog(process)
    try log.waitFor("bus: owns org.mpris.MediaPlayer2.responderd")

    let loop = try EventLoop()
    /// An mpv the daemon controls, playing by playerctl's play-pause on responderd's proxy player.
    func mpvPlayedThroughTheProxy(_ control: DBusConnection) throws -> MPV {
      let mpv = try MPV(bus: bus)
      do {
        try mpv.waitUntilOnBus(control)
        try log.waitFor("players: controlling \(mpv.shortName) (\(mpv.uniqueName))")
        let toggle = try ChildProcess.run(
          ["playerctl", "-p", "responderd", "play-pause"], environment: bus.environment, loop: loop)
        #expect(toggle.exitCode == 0, "\(toggle)")
        try mpv.waitForStatus("Playing", on: control)
      } catch {
        mpv.process.terminate(grace: 1)
        throw error
      }
      return mpv
    }
    /// `responderctl players --json`.
    func playersReport() throws -> PlayersReport {
      let players = try ChildProcess.run(
        [try builtExecutable("responderctl"), "players", "--json"], environment: bus.environment, loop: loop)
      return try JSONDecoder().decode(PlayersReport.self, from: Data(players.output.utf8))
    }

    var control = try bus.connect(loop: loop)
    let first = try mpvPlayedThroughTheProxy(control)
    defer { first.process.terminate(grace: 1) }

    // A wrong call is refused; the daemon stays up.
    let wrong = try ChildProcess.run(
      [
        "dbus-send", "--print-reply", "--dest=\(MPRISNames.responderd)", MPRISNames.objectPath,
        "org.mpris.MediaPlayer2.Player.Seek", "double:1.5",
      ], environment: bus.environment, loop: loop)
    #expect(wrong.output.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(wrong)")
    #expect(process.isRunning)

    // The bus goes away (mpv exits with it: GDBus's exit-on-close) and comes back.
    control.close()
    try bus.restart()
    _ = try first.process.waitForExit(timeout: 10)
    try log.waitFor("bus: owns org.responderd.Daemon1", count: 2)
    try log.waitFor("bus: owns org.mpris.MediaPlayer2.responderd", count: 2)
    control = try bus.connect(loop: loop)
    defer { control.close() }
    // The players of the old bus are forgotten: only responderd itself is there.
    let emptyReport = try playersReport()
    #expect(emptyReport.selected == nil)
    #expect(emptyReport.players.allSatisfy { $0.state == .itself })
    let second = try mpvPlayedThroughTheProxy(control)
    defer { second.process.terminate(grace: 1) }
    let report = try playersReport()
    #expect(report.selectedUniqueName == second.uniqueName)
    #expect(report.reason == "the only usable player")

    process.signal(SIGTERM)
    let status = try process.waitForExit(timeout: 10)
    #expect(ChildProcess.exitCode(status) == 0)
  }
}
