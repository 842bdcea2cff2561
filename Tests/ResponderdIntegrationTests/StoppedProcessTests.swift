import DBusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One process with many bus connections, each registering a responder, stopped (issue 27): on
/// the real daemon and a private dbus-daemon, the process is a Python one (Debian's python3-gi).
@Suite(.serialized) struct StoppedProcessTests {
  /// The `responderd_client` package of the source tree.
  static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../python").standardizedFileURL.path

  /// A process with `connections` connections to the fixture's bus, each registering a responder
  /// that handles nothing; returns once all are registered.
  func manyConnections(_ connections: Int, on fixture: DaemonFixture) throws -> ChildProcess {
    let script = """
      import sys; sys.path.insert(0, "\(Self.package)")
      import os
      from responderd_client import GLib, Gio, Responder, run_until_signalled
      flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
      apps = []
      for index in range(\(connections)):
          connection = Gio.DBusConnection.new_for_address_sync(
              os.environ["DBUS_SESSION_BUS_ADDRESS"], flags, None, None)
          app = Responder("/org/example/R", ["remoteControl"], lambda event: False, connection=connection,
                          name="many-conns")
          app.register()
          apps.append(app)
      print("ready:", len(apps), flush=True)
      run_until_signalled(GLib.MainLoop(), lambda: None)
      """
    let app = try ChildProcess(
      ["/usr/bin/python3", "-c", script], environment: fixture.bus.environment, stdout: .capture,
      stderr: .capture)
    guard let line = try app.readLine(timeout: 30), line == "ready: \(connections)" else {
      app.terminate()
      throw TestSupportError("the process with \(connections) connections did not start")
    }
    return app
  }

  /// 50 connections of one stopped process made one event take 5.0 s and the next queued one
  /// wait 4.8 s more (the deadline was charged per connection): now the first connection's
  /// deadline is the whole cost, and the next events pass the process over at once.
  @Test func aStoppedProcessWithManyConnectionsCostsOneDeadline() throws {
    let deadline = 0.3
    // No bound on an event's total time here: only the charge per process keeps it short.
    let fixture = try DaemonFixture(
      config: commandAndLog + "[responders]\ndeadline = \(deadline)\nevent-deadline = 60\n")
    let app = try manyConnections(50, on: fixture)
    defer {
      app.signal(SIGKILL)
      _ = try? app.waitForExit(timeout: 10)
    }
    #expect(try fixture.chainNames().filter { $0.hasPrefix("many-conns#") }.count == 50)
    #expect(try fixture.send("remoteControl", "nextTrack") == "command")

    try app.freeze()
    let start = monotonicNow()
    let first = fixture.sendLater("remoteControl", "nextTrack")
    let second = fixture.sendLater("remoteControl", "nextTrack")
    try fixture.waitFor("both events", timeout: 30) { first.handledBy != nil && second.handledBy != nil }
    #expect(first.handledBy == "command" && second.handledBy == "command")
    #expect(first.at - start >= deadline * 0.9 && first.at - start < deadline + 1, "\(first.at - start) s")
    #expect(second.at - first.at < deadline * 0.9, "the second waited \(second.at - first.at) s more")
    #expect(fixture.log.contains("is stopped: its 50 connections with 50 registrations are passed over"))

    // Running again, its connections answer the pings and take events again.
    app.signal(SIGCONT)
    try fixture.waitFor("its connections to answer again", timeout: 10) {
      fixture.log.components(separatedBy: "answers again: its registrations take events again").count > 1
    }
  }
}
