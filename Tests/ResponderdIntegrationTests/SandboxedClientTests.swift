import DBusTestSupport
import TestConditions
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The Python client in a Flatpak-like sandbox (bwrap, the session bus through xdg-dbus-proxy
/// with `--filter`): with the one permission docs/apps.md gives (`--talk-name=org.responderd.Daemon1`)
/// it registers, follows its window's focus and gets a shake; without it, one error: responderd's
/// name is not there.
@Suite(
  .enabledUnless(missing: FlatpakSandbox.missing))
struct SandboxedClientTests {
  /// A responder following a window's focus (a GObject with GTK's `is-active`, made active), or
  /// the error `register()` raised.
  static let script = """
    import sys; sys.path.insert(0, "\(PythonExampleTests.package)")
    from gi.repository import GObject
    from responderd_client import DaemonUnavailable, GLib, Responder, run_until_signalled
    class Window(GObject.Object):
        is_active = GObject.Property(type=bool, default=False)
    window = Window()
    app = Responder("/org/example/Sandboxed", ["motion"],
                    lambda event: print("shake", event.phase, flush=True) or True, name="sandboxed")
    try:
        app.register(wait=False)
    except DaemonUnavailable as error:
        print("error:", error, flush=True)
        sys.exit(1)
    app.follow_focus(window)
    window.set_property("is-active", True)
    print("ready:", app.id, flush=True)
    run_until_signalled(GLib.MainLoop(), app.close)
    """

  @Test func withTheTalkPermissionItRegistersFollowsItsFocusAndGetsAShake() throws {
    let fixture = try DaemonFixture()
    let sandbox = try FlatpakSandbox(bus: fixture.bus, talk: ["org.responderd.Daemon1"], loop: fixture.loop)
    let app = try ChildProcess(
      sandbox.command(["/usr/bin/python3", "-c", Self.script]), stdout: .capture, stderr: .capture)
    defer { app.terminate() }
    let ready = try #require(try app.readLine(timeout: 10))
    #expect(ready.hasPrefix("ready: "), "\(ready)")
    let id = ready.split(separator: " ").last.map(String.init) ?? "?"
    try fixture.waitFor("the daemon to hear that the sandboxed app's window is active") {
      (try? fixture.property("Chain").elements?.contains {
        $0.dictionary?["path"]?.objectPath == "/org/example/Sandboxed"
          && $0.dictionary?["focus"]?.string == "active"
      }) == true
    }
    #expect(
      try PythonExampleTests().send(fixture, "motion", "motionShake", "began").hasSuffix("#\(id)"))
    #expect(try app.readLine(timeout: 5) == "shake began")
  }

  @Test func withoutItRegisteringFailsWithOneClearError() throws {
    let fixture = try DaemonFixture()
    let sandbox = try FlatpakSandbox(bus: fixture.bus, talk: [], loop: fixture.loop)
    let app = try ChildProcess(
      sandbox.command(["/usr/bin/python3", "-c", Self.script]), stdout: .capture, stderr: .capture)
    #expect(ChildProcess.exitCode(try app.waitForExit(timeout: 10)) == 1)
    let output = try app.readToEnd(timeout: 2)
    let lines = output.split(separator: "\n")
    #expect(lines.count == 1, "\(output)")
    // The proxy hides responderd's name; the client says what the app lacks.
    let expected =
      "error: responderd is not reachable from this sandbox: the app needs the permission "
      + "--talk-name=org.responderd.Daemon1 (its manifest's finish-args, or flatpak override)"
    #expect(lines.first.map(String.init) == expected, "\(output.debugDescription)")
  }
}
