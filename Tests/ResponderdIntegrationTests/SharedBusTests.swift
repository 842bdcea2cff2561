import DBus
import DBusTestSupport
import Foundation
import ResponderClient
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Another user on a bus shared by users (issues 27, 38): the real daemon on a private dbus-daemon
/// open to all users, and a process of uid 65534 (`setpriv`) that is an MPRIS player, listens to
/// every signal of the daemon (but the proxy player's, broadcast as MPRIS wants) and asks for the
/// dispatch signals.
@Suite(.serialized) struct SharedBusTests {
  /// The stranger: an MPRIS player ("Playing", a title of its own) that prints each call made to
  /// it, each dispatch signal it gets, what WatchEvents answered, and "marker" when the name
  /// org.example.Marker appears.
  static let stranger = """
    import sys
    from gi.repository import Gio, GLib
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1], flags, None, None)
    def say(text):
        print(text, flush=True)
    node = Gio.DBusNodeInfo.new_for_xml('''<node>
      <interface name="org.mpris.MediaPlayer2"><property name="Identity" type="s" access="read"/></interface>
      <interface name="org.mpris.MediaPlayer2.Player">
        <method name="PlayPause"/><method name="Play"/><method name="Pause"/><method name="Next"/>
        <property name="PlaybackStatus" type="s" access="read"/>
        <property name="Metadata" type="a{sv}" access="read"/>
        <property name="CanControl" type="b" access="read"/><property name="CanPlay" type="b" access="read"/>
        <property name="CanPause" type="b" access="read"/><property name="CanGoNext" type="b" access="read"/>
      </interface></node>''')
    values = {"Identity": GLib.Variant("s", "stranger"), "PlaybackStatus": GLib.Variant("s", "Playing"),
              "Metadata": GLib.Variant("a{sv}", {"xesam:title": GLib.Variant("s", "a stranger's song")}),
              "CanControl": GLib.Variant("b", True), "CanPlay": GLib.Variant("b", True),
              "CanPause": GLib.Variant("b", True), "CanGoNext": GLib.Variant("b", True)}
    def call(connection, sender, path, interface, method, parameters, invocation):
        say("called " + method)
        invocation.return_value(None)
    def get(connection, sender, path, interface, name):
        say("read " + name)
        return values[name]
    for interface in node.interfaces:
        bus.register_object("/org/mpris/MediaPlayer2", interface, call, get, None)
    def signal(connection, sender, path, interface, member, parameters):
        if member == "NameOwnerChanged":
            if parameters[0] == "org.example.Marker" and parameters[2]:
                say("marker")
        elif path != "/org/mpris/MediaPlayer2":  # the proxy player's are broadcast (MPRIS)
            say("signal " + interface + "." + member)
    bus.signal_subscribe("org.responderd.Daemon1", None, None, None, None, Gio.DBusSignalFlags.NONE, signal)
    bus.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", None,
                         "org.example.Marker", Gio.DBusSignalFlags.NONE, signal)
    try:
        bus.call_sync("org.responderd.Daemon1", "/org/responderd/Daemon1", "org.responderd.Daemon1",
                      "WatchEvents", None, None, Gio.DBusCallFlags.NONE, 5000, None)
        say("WatchEvents: accepted")
    except GLib.Error as error:
        say("WatchEvents: " + Gio.DBusError.get_remote_error(error))
    bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                  GLib.Variant("(su)", ("org.mpris.MediaPlayer2.stranger", 0)), None,
                  Gio.DBusCallFlags.NONE, 5000, None)
    say("ready")
    GLib.MainLoop().run()
    """

  @Test(.enabled(if: getuid() == 0, "needs root to run a process as another user (setpriv)"))
  func anotherUsersPlayerIsNeverControlledAndItHearsNoEvents() throws {
    let fixture = try DaemonFixture(
      config: "chain = [\"mpris\", \"log\"]\n[log]\nhandles = true\n", busForAllUsers: true)
    let watcher = try DaemonWatcher(fixture)
    let stranger = try ChildProcess(
      [
        "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
        Self.stranger,
        fixture.bus.address,
      ], environment: ["HOME": "/nonexistent"], stdout: .capture, stderr: .capture)
    defer { stranger.terminate() }
    var said: [String] = []
    while said.last != "ready" {
      guard let line = try stranger.readLine(timeout: 10) else {
        throw TestSupportError("the stranger ended: \(said)")
      }
      said.append(line)
    }
    #expect(said.contains("WatchEvents: org.freedesktop.DBus.Error.AccessDenied"), "\(said)")
    try fixture.waitFor("the daemon to find the stranger's player") {
      fixture.log.contains("players: stranger (")
        && fixture.log.contains("runs as uid 65534, not as uid 0: never selected nor controlled")
    }

    // Playing, but not selected: the event goes past `mpris` (no player), nothing is called on it.
    #expect(try fixture.send("remoteControl", "togglePlayPause") == "log")
    // The proxy player shows nothing of it.
    let metadata = try fixture.connection.callAndWait(
      destination: "org.mpris.MediaPlayer2.responderd", path: "/org/mpris/MediaPlayer2",
      interface: "org.freedesktop.DBus.Properties", method: "Get",
      arguments: [.string("org.mpris.MediaPlayer2.Player"), .string("Metadata")], timeout: 5)
    #expect(metadata.first?.unwrapped.dictionary?["xesam:title"] == nil, "\(metadata)")
    // The daemon's own user got the dispatch signal, and the chain's PropertiesChanged when an
    // application of theirs became first responder; then a marker that reaches the stranger after
    // anything the daemon sent before it (SelectionChanged included, sent when the stranger's
    // player was found).
    try watcher.waitForEvents(1)
    let app = try TestApp(fixture)
    try app.register(["remoteControl"])
    #expect(try app.becomeFirstResponder())
    try fixture.waitFor("the FirstResponder change") { watcher.firstResponders.contains(app.id) }
    _ = try fixture.connection.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "RequestName", arguments: [.string("org.example.Marker"), .uint32(0)], timeout: 5)
    var later: [String] = []
    while later.last != "marker" {
      guard let line = try stranger.readLine(timeout: 10) else {
        throw TestSupportError("the stranger ended: \(said + later)")
      }
      later.append(line)
    }
    #expect(later == ["marker"], "the stranger saw: \(later)")
  }
}
