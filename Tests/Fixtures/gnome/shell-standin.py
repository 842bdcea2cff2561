#!/usr/bin/python3
"""A stand-in for org.gnome.Shell's accelerator API, for testing gsd-media-keys headless.

The compositor cannot run in a test, so this process owns org.gnome.Shell on the (private)
session bus and answers what gsd-media-keys asks of the shell: GrabAccelerator(s),
UngrabAccelerator(s). It emits AcceleratorActivated when the test presses a key: the test
writes one line per key to stdin (or to the FIFO named by the first argument),
`press ACCELERATOR DEVICE-NODE`, and it must only write it when the device is not grabbed by
another program (as the kernel delivers nothing to the compositor from a grabbed device). Lines on stdout, for the test to wait on:
`ready` (name owned), `grab ACCELERATOR ACTION` (gsd grabbed a key),
`activated ACCELERATOR ACTION` (signal emitted), `unknown ACCELERATOR` (nobody grabbed it).
"""
import os
import sys
import gi
from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.gnome.Shell">
    <method name="GrabAccelerator">
      <arg type="s" direction="in" name="accelerator"/>
      <arg type="u" direction="in" name="modeFlags"/>
      <arg type="u" direction="in" name="grabFlags"/>
      <arg type="u" direction="out" name="action"/>
    </method>
    <method name="GrabAccelerators">
      <arg type="a(suu)" direction="in" name="accelerators"/>
      <arg type="au" direction="out" name="actions"/>
    </method>
    <method name="UngrabAccelerator">
      <arg type="u" direction="in" name="action"/>
      <arg type="b" direction="out" name="success"/>
    </method>
    <method name="UngrabAccelerators">
      <arg type="au" direction="in" name="actions"/>
      <arg type="b" direction="out" name="success"/>
    </method>
    <signal name="AcceleratorActivated">
      <arg type="u" name="action"/>
      <arg type="a{sv}" name="parameters"/>
    </signal>
    <property name="Mode" type="s" access="read"/>
    <property name="ShellVersion" type="s" access="read"/>
  </interface>
</node>
"""

actions = {}  # accelerator -> action id
next_action = [1]
connection = [None]


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def grab(accelerator):
    action = next_action[0]
    next_action[0] += 1
    actions[accelerator] = action
    say("grab %s %d" % (accelerator, action))
    return action


def ungrab(action):
    for accelerator, known in list(actions.items()):
        if known == action:
            del actions[accelerator]
            say("ungrab %s %d" % (accelerator, action))
            return True
    return False


def on_call(conn, sender, path, interface, method, params, invocation):
    if method == "GrabAccelerator":
        invocation.return_value(GLib.Variant("(u)", (grab(params[0]),)))
    elif method == "GrabAccelerators":
        ids = [grab(accelerator) for accelerator, _, _ in params[0]]
        invocation.return_value(GLib.Variant("(au)", (ids,)))
    elif method == "UngrabAccelerator":
        invocation.return_value(GLib.Variant("(b)", (ungrab(params[0]),)))
    elif method == "UngrabAccelerators":
        ok = all([ungrab(action) for action in params[0]])
        invocation.return_value(GLib.Variant("(b)", (ok,)))
    else:
        invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)


def on_get(conn, sender, path, interface, name):
    return GLib.Variant("s", {"Mode": "user", "ShellVersion": "43.0"}.get(name, ""))


def on_stdin(channel, condition):
    line = channel.readline()
    if not line:
        loop.quit()
        return False
    words = line.split()
    if len(words) >= 2 and words[0] == "press":
        accelerator = words[1]
        node = words[2] if len(words) > 2 else "/dev/input/event0"
        action = actions.get(accelerator)
        if action is None:
            say("unknown %s" % accelerator)
            return True
        parameters = {
            "device-id": GLib.Variant("u", 3),
            "timestamp": GLib.Variant("u", GLib.get_monotonic_time() // 1000 & 0xFFFFFFFF),
            "action-mode": GLib.Variant("u", 1),
            "device-node": GLib.Variant("s", node),
        }
        connection[0].emit_signal(None, "/org/gnome/Shell", "org.gnome.Shell", "AcceleratorActivated",
                                  GLib.Variant("(ua{sv})", (action, parameters)))
        connection[0].flush_sync(None)
        say("activated %s %d" % (accelerator, action))
    return True


def on_bus(conn, name):
    connection[0] = conn
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    conn.register_object("/org/gnome/Shell", node.interfaces[0], on_call, on_get, None)


def on_name(conn, name):
    say("ready")


def on_lost(conn, name):
    say("lost")
    loop.quit()


loop = GLib.MainLoop()
Gio.bus_own_name(Gio.BusType.SESSION, "org.gnome.Shell", Gio.BusNameOwnerFlags.NONE, on_bus, on_name, on_lost)
# A FIFO is opened read-write: the test may open and close it without ending the stand-in.
commands = os.open(sys.argv[1], os.O_RDWR) if len(sys.argv) > 1 else sys.stdin.fileno()
channel = GLib.IOChannel.unix_new(commands)
GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_stdin)
loop.run()
