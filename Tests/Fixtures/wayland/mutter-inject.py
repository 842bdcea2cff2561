#!/usr/bin/python3
"""Input into a headless mutter / GNOME Shell 43, as the compositor gets it from a device.

ShellTestSupport (HeadlessDesktop) runs it with Debian's python3 (gi), in the desktop's
environment, and writes one command per line to the FIFO named as its argument (else stdin); every command is answered with one
line on stdout once the compositor took it (the D-Bus call returned): "ok [VALUE]" or
"error WHAT". It first says "ready WIDTH HEIGHT" (the monitor's size).

It opens one org.gnome.Mutter.RemoteDesktop session with a linked ScreenCast stream of the
first monitor (touch coordinates are in that stream: monitor pixels) and keeps it for its whole
life: the virtual keyboard and touchscreen exist only as long as the session does.

  key CODE 1|0          evdev key code (linux/input-event-codes.h) pressed or released
  down SLOT X Y         touch down at monitor pixel X, Y
  motion SLOT X Y       touch motion
  up SLOT               touch up
  frame                 nothing to do: mutter ends a frame with each event
  warmup                a Shift press and a tap on the bottom-right pixel (see below)
  screenshot PATH       PNG of the shell's output (org.gnome.Shell.Screenshot)
  overview              "ok true|false": org.gnome.Shell's OverviewActive
  overview-set true|false
  focus                 "ok TITLE" of the focused window ("ok" alone: none), GNOME Shell only

Mutter creates its virtual devices on their first event and only then tells clients that the
seat has a keyboard or touch: that first event reaches no client (warmup sends throwaway ones).
org.gnome.Shell's restricted methods answer only callers owning certain names: this process owns
org.gnome.Screenshot (the screenshot) and org.freedesktop.impl.portal.desktop.gnome (the
window list of org.gnome.Shell.Introspect) on the desktop's private bus.
"""
import sys
import time

from gi.repository import Gio, GLib

RD, SC = "org.gnome.Mutter.RemoteDesktop", "org.gnome.Mutter.ScreenCast"


class RemoteDesktop:
    def __init__(self):
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION)
        self.rd_path = self.call(RD, "/org/gnome/Mutter/RemoteDesktop", RD, "CreateSession", None, "(o)")[0]
        self.rd_iface = RD + ".Session"
        sid = self.call(RD, self.rd_path, "org.freedesktop.DBus.Properties", "Get",
                        GLib.Variant("(ss)", (self.rd_iface, "SessionId")), "(v)")[0]
        sc_path = self.call(SC, "/org/gnome/Mutter/ScreenCast", SC, "CreateSession",
                            GLib.Variant("(a{sv})", ({"remote-desktop-session-id": GLib.Variant("s", sid)},)),
                            "(o)")[0]
        state = self.call("org.gnome.Mutter.DisplayConfig", "/org/gnome/Mutter/DisplayConfig",
                          "org.gnome.Mutter.DisplayConfig", "GetCurrentState", None,
                          "(ua((ssss)a(siiddada{sv})a{sv})a(iiduba(ssss)a{sv})a{sv})")
        monitor = state[1][0]
        modes = [m for m in monitor[1] if m[6].get("is-current")] or monitor[1]
        self.size = (modes[0][1], modes[0][2])
        self.stream = self.call(SC, sc_path, SC + ".Session", "RecordMonitor",
                                GLib.Variant("(sa{sv})", (monitor[0][0], {})), "(o)")[0]
        added = []
        self.bus.signal_subscribe(SC, SC + ".Stream", "PipeWireStreamAdded", self.stream, None, 0,
                                  lambda *a: added.append(a[5][0]))
        self.call(RD, self.rd_path, self.rd_iface, "Start", None, None)
        # Until the PipeWire node is there, touch events are dropped.
        context = GLib.MainContext.default()
        end = time.monotonic() + 20
        while not added:
            if time.monotonic() > end:
                raise RuntimeError("no PipeWireStreamAdded within 20 s (is pipewire running?)")
            context.iteration(True)
        for name in ("org.gnome.Screenshot", "org.freedesktop.impl.portal.desktop.gnome"):
            self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "RequestName", GLib.Variant("(su)", (name, 4)), None, 0, 5000, None)

    def call(self, dest, path, iface, method, params, rtype, timeout=10000):
        reply = self.bus.call_sync(dest, path, iface, method, params,
                                   GLib.VariantType(rtype) if rtype else None, 0, timeout, None)
        return reply.unpack() if reply is not None else None

    def rd(self, method, sig, *args):
        self.call(RD, self.rd_path, self.rd_iface, method, GLib.Variant(sig, args) if sig else None, None)

    def shell_property(self, name, value=None):
        if value is None:
            return self.call("org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Get",
                             GLib.Variant("(ss)", ("org.gnome.Shell", name)), "(v)")[0]
        self.call("org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Set",
                  GLib.Variant("(ssv)", ("org.gnome.Shell", name, value)), None)

    def command(self, words):
        name = words[0]
        if name == "key":
            self.rd("NotifyKeyboardKeycode", "(ub)", int(words[1]), words[2] == "1")
        elif name == "down":
            self.rd("NotifyTouchDown", "(sudd)", self.stream, int(words[1]), float(words[2]), float(words[3]))
        elif name == "motion":
            self.rd("NotifyTouchMotion", "(sudd)", self.stream, int(words[1]), float(words[2]), float(words[3]))
        elif name == "up":
            self.rd("NotifyTouchUp", "(u)", int(words[1]))
        elif name == "frame":
            pass
        elif name == "warmup":
            self.rd("NotifyKeyboardKeycode", "(ub)", 42, True)
            self.rd("NotifyKeyboardKeycode", "(ub)", 42, False)
            self.rd("NotifyTouchDown", "(sudd)", self.stream, 9, self.size[0] - 1, self.size[1] - 1)
            self.rd("NotifyTouchUp", "(u)", 9)
        elif name == "screenshot":
            ok, used = self.call("org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                                 "org.gnome.Shell.Screenshot", "Screenshot",
                                 GLib.Variant("(bbs)", (False, False, " ".join(words[1:]))), "(bs)", 30000)
            if not ok:
                raise RuntimeError("the shell did not write the screenshot")
            return used
        elif name == "overview":
            return "true" if self.shell_property("OverviewActive") else "false"
        elif name == "overview-set":
            self.shell_property("OverviewActive", GLib.Variant("b", words[1] == "true"))
        elif name == "focus":
            return self.focused_title()
        else:
            raise RuntimeError("unknown command " + name)
        return None

    def focused_title(self):
        windows = self.call("org.gnome.Shell.Introspect", "/org/gnome/Shell/Introspect",
                            "org.gnome.Shell.Introspect", "GetWindows", None, "(a{ta{sv}})")[0]
        for properties in windows.values():
            if properties.get("has-focus"):
                return properties.get("title", "")
        return ""


def main():
    try:
        desktop = RemoteDesktop()
    except (GLib.Error, RuntimeError) as error:
        print("error", str(error).replace("\n", " "), flush=True)
        return 1
    print("ready %d %d" % desktop.size, flush=True)
    commands = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    for line in commands:
        words = line.split()
        if not words:
            continue
        try:
            value = desktop.command(words)
            print("ok" if value is None else "ok " + str(value), flush=True)
        except (GLib.Error, RuntimeError, ValueError, IndexError) as error:
            print("error", str(error).replace("\n", " "), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
