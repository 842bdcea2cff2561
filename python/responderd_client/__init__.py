"""responderd_client: join responderd's responder chain from Python (Debian's python3-gi, Gio).

    from responderd_client import GLib, Responder

    def on_event(event):            # an Event: kind, subtype, phase, timestamp
        if event.subtype == "togglePlayPause":
            return True             # handled: the event goes no further
        return False                # not handled: on up the chain (the media player)

    app = Responder("/org/example/App", ["remoteControl"], on_event)
    app.register()                  # starts responderd if needed (D-Bus activation)
    app.become_first_responder()
    GLib.MainLoop().run()

In a source checkout, put the package on the path first:
`sys.path.insert(0, "/path/to/responderd/python")` (or run with PYTHONPATH=python).

An app with a window makes shakes follow its focus with one call (GTK 4 or 3, or any GObject with
an `is-active` property): `app.follow_focus(window)`. Shakes then come to it only while its window
is the active one; the daemon's rule is that the latest window to say "active" wins.

Installed by the responderd package (/usr/lib/python3/dist-packages/responderd_client). The
interface comes from org.responderd.Responder1.xml, the interface file responderd installs under
/usr/share/dbus-1/interfaces (or packaging/dbus/interfaces in a source tree, or
$RESPONDERD_INTERFACES).

Registrations are kept: a restarted responderd gets them again (and the window's focus).

Deadline-safe: responderd waits at most its Deadline (seconds, a property of the daemon) for an
answer and then passes the event on. A handler returns True/False at once, or returns None and
calls event.reply(handled) later; an exception, or no reply within the deadline less a margin,
answers False (not handled), so the daemon never waits on this application.
"""

import os
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

DAEMON_NAME = "org.responderd.Daemon1"
DAEMON_PATH = "/org/responderd/Daemon1"
DAEMON_INTERFACE = "org.responderd.Daemon1"
RESPONDER_INTERFACE = "org.responderd.Responder1"
METHODS = {
    "RemoteControlReceived": ("remoteControl", None),
    "MotionBegan": ("motion", "began"),
    "MotionEnded": ("motion", "ended"),
    "MotionCancelled": ("motion", "cancelled"),
}


def interface_file(name):
    """The path of the interface file NAME.xml: $RESPONDERD_INTERFACES, the source tree
    (packaging/dbus/interfaces), the package's own prefix (PREFIX/share/dbus-1/interfaces beside
    PREFIX/lib/python3/dist-packages), /usr/share/dbus-1/interfaces."""
    here = os.path.dirname(os.path.abspath(__file__))
    for directory in (
        os.environ.get("RESPONDERD_INTERFACES"),
        os.path.join(here, "..", "..", "packaging", "dbus", "interfaces"),
        os.path.join(here, "..", "..", "..", "..", "share", "dbus-1", "interfaces"),
        "/usr/share/dbus-1/interfaces",
    ):
        if directory and os.path.exists(os.path.join(directory, name + ".xml")):
            return os.path.normpath(os.path.join(directory, name + ".xml"))
    raise FileNotFoundError(name + ".xml: install responderd or set RESPONDERD_INTERFACES")


def interface_info(name):
    with open(interface_file(name), encoding="utf-8") as file:
        return Gio.DBusNodeInfo.new_for_xml(file.read()).lookup_interface(name)


class DaemonUnavailable(RuntimeError):
    """responderd is not running on the session bus and could not be started."""

    @staticmethod
    def explain(error, activatable=True):
        """One line for a GLib.Error of the bus: why responderd is not there, and what to do."""
        if not activatable:
            return (
                "responderd is not running on the session bus and cannot be started by D-Bus "
                "activation (no org.responderd.Daemon1.service installed): start it with "
                "`systemctl --user start responderd`, or `scripts/run` in a source checkout"
            )
        return f"responderd is not running on the session bus: {error.message}"


class Event:
    """One event from responderd. Return True/False from the handler, or None and reply() later."""

    def __init__(self, invocation, kind, subtype, phase, timestamp):
        self.kind = kind  # "remoteControl" or "motion"
        self.subtype = subtype  # "togglePlayPause", "nextTrack", "motionShake", ...
        self.phase = phase  # "began", "ended", "cancelled" (motion), None
        self.timestamp = timestamp  # seconds since boot (CLOCK_MONOTONIC)
        self._invocation = invocation
        self._timer = 0

    @property
    def answered(self):
        return self._invocation is None

    def reply(self, handled):
        """Answers responderd (once; later replies are ignored)."""
        if self._invocation is None:
            return
        invocation, self._invocation = self._invocation, None
        if self._timer:
            GLib.source_remove(self._timer)
            self._timer = 0
        invocation.return_value(GLib.Variant("(b)", (bool(handled),)))

    def __str__(self):
        return f"{self.kind}/{self.subtype}" + (f"/{self.phase}" if self.phase else "")


class Responder:
    """A responder object on the session bus (or `connection`), registered with responderd."""

    def __init__(self, path, event_types, on_event, connection=None, name=None):
        """`name`: the process name responderd shows in its chain (else "python3")."""
        if name:
            import ctypes

            ctypes.CDLL(None).prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
        self.path = path
        self.event_types = list(event_types)
        self.on_event = on_event
        self.connection = connection or Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.can_become_first_responder = True
        self.can_resign_first_responder = True
        self.on_first_responder_changed = None  # called with True/False
        self.id = None
        self.is_first_responder = False
        self.on_registered = None  # called with the id after each registration
        self._daemon = None  # the unique name of responderd, the only caller accepted
        self._deadline = 1.0
        self._wants_registration = False
        self._wants_first_responder = False
        self._active = None  # what the app said of its window's focus (None: never said)
        self._focus_window = None
        self._focus_handler = 0
        self._registering = False
        self._registration = self.connection.register_object(
            path, interface_info(RESPONDER_INTERFACE), self._method_call, self._get_property, None
        )
        self._subscription = self.connection.signal_subscribe(
            None, "org.freedesktop.DBus.Properties", "PropertiesChanged", DAEMON_PATH,
            DAEMON_INTERFACE, Gio.DBusSignalFlags.NONE, self._properties_changed,
        )
        # A restarted responderd has forgotten every registration: register again with it.
        self._watch = Gio.bus_watch_name_on_connection(
            self.connection, DAEMON_NAME, Gio.BusNameWatcherFlags.NONE, self._daemon_appeared,
            self._daemon_vanished,
        )

    # -- calls to responderd ------------------------------------------------------------------

    def _call(self, method, signature, arguments, reply_type, destination=None, path=DAEMON_PATH,
              interface=DAEMON_INTERFACE, timeout=5000):
        """Calls responderd and waits for the reply while the main context keeps serving: responderd
        reads this object's properties before it answers BecomeFirstResponder/ResignFirstResponder."""
        result = []
        self.connection.call(
            destination or self._daemon or DAEMON_NAME, path, interface, method,
            GLib.Variant(signature, arguments) if signature else None,
            GLib.VariantType(reply_type), Gio.DBusCallFlags.NONE, timeout, None,
            lambda connection, task: result.append(task),
        )
        context = GLib.MainContext.default()
        while not result:
            context.iteration(True)
        return self.connection.call_finish(result[0]).unpack()

    def register(self, wait=True):
        """Registers with responderd; returns the id. When responderd is not running, the call
        starts it (D-Bus activation: the package's org.responderd.Daemon1.service). When it cannot
        be started (no activation file, as in a source checkout), `wait=True` prints one line and
        returns None: the responder registers when responderd appears (`on_registered` is called
        then); `wait=False` raises `DaemonUnavailable` instead. Kept: after a restart of responderd
        the responder registers again (and becomes first responder again when it was)."""
        self._wants_registration = True
        self._registering = True
        activatable = True
        try:
            try:
                activatable = self._start_daemon()
                (self._daemon,) = self._call(
                    "GetNameOwner", "(s)", (DAEMON_NAME,), "(s)", destination="org.freedesktop.DBus",
                    path="/org/freedesktop/DBus", interface="org.freedesktop.DBus",
                )
            except GLib.Error as error:
                reason = DaemonUnavailable.explain(error, activatable)
                if not wait:
                    self._wants_registration = False
                    raise DaemonUnavailable(reason) from None
                print(f"responder: {reason}; registering when it starts", file=sys.stderr, flush=True)
                return None
            (self.id,) = self._call("RegisterResponder", "(oas)", (self.path, self.event_types), "(u)")
            (deadline,) = self._call(
                "Get", "(ss)", (DAEMON_INTERFACE, "Deadline"), "(v)", interface="org.freedesktop.DBus.Properties"
            )
        finally:
            self._registering = False
        self._deadline = deadline or 1.0
        if self.on_registered:
            self.on_registered(self.id)
        if self._active is not None:
            self._send_active()
        return self.id

    def _start_daemon(self):
        """Starts responderd by D-Bus activation when it is not running; False when the bus has no
        activation file for it (it may still be running, started by hand)."""
        # GetNameOwner never activates a service; StartServiceByName does (1: started, 2: it was
        # running). The activated responderd owns its name before the bus answers.
        try:
            self._call(
                "StartServiceByName", "(su)", (DAEMON_NAME, 0), "(u)", destination="org.freedesktop.DBus",
                path="/org/freedesktop/DBus", interface="org.freedesktop.DBus", timeout=30000,
            )
        except GLib.Error as error:
            if Gio.DBusError.get_remote_error(error) != "org.freedesktop.DBus.Error.ServiceUnknown":
                raise
            return False
        return True

    def follow_focus(self, window):
        """Makes shakes follow `window`'s focus: responderd is told each time the window becomes
        active or inactive (its `is-active` property: Gtk.Window in GTK 4 and 3). While it is the
        active window this responder is first responder and gets the shakes; otherwise it gets
        none. One window per responder; `unfollow_focus()` stops."""
        self.unfollow_focus()
        self._focus_window = window
        self._focus_handler = window.connect(
            "notify::is-active", lambda *_: self.set_active(window.get_property("is-active"))
        )
        self.set_active(window.get_property("is-active"))

    def unfollow_focus(self):
        if self._focus_handler:
            self._focus_window.disconnect(self._focus_handler)
        self._focus_window, self._focus_handler = None, 0

    def set_active(self, active):
        """Tells responderd whether this app's window is the active one (what follow_focus does on
        each focus change; call it yourself with another toolkit's focus events). Told again after
        a restart of responderd; told at registration when called before."""
        self._active = bool(active)
        if self.id is not None:
            self._send_active()

    def _send_active(self):
        # Asynchronous: called from a toolkit's signal handler, which must not wait on the bus.
        active, responder = self._active, self.id

        def done(connection, task):
            try:
                (first,) = connection.call_finish(task).unpack()
            except GLib.Error as error:
                print(f"responder: SetActive failed: {error.message}", file=sys.stderr, flush=True)
                return
            if responder == self.id and (active or not first):
                self._set_first_responder(first)

        self.connection.call(
            self._daemon or DAEMON_NAME, DAEMON_PATH, DAEMON_INTERFACE, "SetActive",
            GLib.Variant("(ub)", (responder, active)), GLib.VariantType("(b)"),
            Gio.DBusCallFlags.NONE, 5000, None, done,
        )

    def become_first_responder(self):
        """Asks to become first responder; True when responderd accepted. Before the registration
        (responderd not running yet): False, and it becomes first responder once registered."""
        self._wants_first_responder = True
        if self.id is None:
            return False
        (accepted,) = self._call("BecomeFirstResponder", "(u)", (self.id,), "(b)")
        self._set_first_responder(accepted or self.is_first_responder)
        return accepted

    def resign_first_responder(self):
        """Gives the first responder back; True when resigned."""
        self._wants_first_responder = False
        (resigned,) = self._call("ResignFirstResponder", "(u)", (self.id,), "(b)")
        if resigned:
            self._set_first_responder(False)
        return resigned

    def unregister(self):
        self._wants_registration = self._wants_first_responder = False
        if self.id is not None:
            try:
                self._call("UnregisterResponder", "(u)", (self.id,), "()")
            except GLib.Error:
                pass  # responderd is gone: nothing is registered any more
            self.id = None
            self._set_first_responder(False)

    def close(self):
        """Unregisters and removes the object from the bus."""
        self.unfollow_focus()
        self.unregister()
        if self._registration:
            self.connection.unregister_object(self._registration)
            self._registration = 0
        if self._subscription:
            self.connection.signal_unsubscribe(self._subscription)
            self._subscription = 0
        if self._watch:
            Gio.bus_unwatch_name(self._watch)
            self._watch = 0

    def _daemon_appeared(self, connection, name, owner):
        if owner != self._daemon and self._wants_registration:
            GLib.idle_add(self._register_again)

    def _register_again(self):
        if self._wants_registration and self.id is None and not self._registering:
            try:
                self.register()
                if self._wants_first_responder and self._active is None:
                    self.become_first_responder()
            except GLib.Error as error:
                print(f"responder: cannot register again: {error.message}", file=sys.stderr, flush=True)
        return GLib.SOURCE_REMOVE

    def _daemon_vanished(self, connection, name):
        if self._daemon is not None:
            self._daemon = None
            self.id = None
            self._set_first_responder(False)

    # -- calls from responderd ----------------------------------------------------------------

    def _method_call(self, connection, sender, path, interface, method, parameters, invocation):
        if sender != self._daemon:
            invocation.return_dbus_error(
                "org.freedesktop.DBus.Error.AccessDenied", "events are accepted from responderd only"
            )
            return
        kind, phase = METHODS[method]
        subtype, timestamp = parameters.unpack()
        event = Event(invocation, kind, subtype, phase, timestamp)
        # Answer "not handled" before the daemon's deadline when the handler has not answered.
        margin = min(0.1, self._deadline / 4)
        event._timer = GLib.timeout_add(int((self._deadline - margin) * 1000), self._expire, event)
        try:
            handled = self.on_event(event)
        except Exception as error:  # a broken handler must not keep the daemon waiting
            print(f"responder: the handler failed on {event}: {error!r}", file=sys.stderr, flush=True)
            handled = False
        if handled is not None:
            event.reply(handled)

    @staticmethod
    def _expire(event):
        event._timer = 0
        if not event.answered:
            print(f"responder: no answer to {event} before the deadline: not handled", file=sys.stderr, flush=True)
            event.reply(False)
        return GLib.SOURCE_REMOVE

    def _get_property(self, connection, sender, path, interface, name):
        if name == "CanBecomeFirstResponder":
            return GLib.Variant("b", self.can_become_first_responder)
        if name == "CanResignFirstResponder":
            return GLib.Variant("b", self.can_resign_first_responder)
        return None

    def _properties_changed(self, connection, sender, path, interface, signal, parameters):
        _, changed, _ = parameters.unpack()
        if sender == self._daemon and "FirstResponder" in changed and self.id is not None:
            self._set_first_responder(changed["FirstResponder"] == self.id)

    def _set_first_responder(self, value):
        if value != self.is_first_responder:
            self.is_first_responder = value
            if self.on_first_responder_changed:
                self.on_first_responder_changed(value)


def run_until_signalled(loop, cleanup):
    """Runs `loop` until SIGINT or SIGTERM, then runs `cleanup` (resign, unregister)."""
    import signal

    def stop():
        cleanup()
        loop.quit()
        return GLib.SOURCE_REMOVE

    for number in (signal.SIGINT, signal.SIGTERM):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, number, stop)
    loop.run()
