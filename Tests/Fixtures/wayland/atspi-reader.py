#!/usr/bin/python3
"""What a screen reader reads, for a test: the accessibility bus (AT-SPI) of a headless desktop.

ShellTestSupport (AccessibilityReader) runs it with Debian's python3 (gi, gir1.2-atspi-2.0) in the
desktop's environment and writes one command per line to the FIFO named as its argument (else
stdin); each command is answered with one line on stdout: "ok [VALUE]" or "error WHAT". It first
says "ready".

  enable           sets org.a11y.Status.IsEnabled (as a screen reader does: Qt apps publish then)
  apps             "ok NAME|NAME|..." of the applications on the bus
  focus            "ok APP ROLE NAME EDITABLE TEXT" of the focused accessible of the active
                   window: APP, ROLE, NAME and TEXT in hexadecimal UTF-8 (TEXT "-" without the
                   Text interface), EDITABLE 1 or 0; "ok" alone when no window is active or
                   nothing in it has the focus
  button APP NAME  "ok X Y W H": the screen extents of a showing push button named NAME in the
                   application APP ("*": any; the shell's notifications are the shell's:
                   gnome-shell, plasmashell); "ok" alone when there is none
  press APP NAME   presses that button through its accessible action, as a screen reader does

Every answer is read from the bus as it is then; only the last focus event is remembered (the
focused accessible, checked again when asked; without one the active window is walked). Only showing or visible
accessibles are walked (a hidden subtree is never entered), at most 20000 a command.
"""
import os
import sys

import gi
import warnings

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, Gio, GLib  # noqa: E402

# get_collection_iface is the name libatspi 2.46 has (its deprecation names no successor there).
warnings.filterwarnings("ignore", category=DeprecationWarning)

LIMIT = 20000


def states(node):
    return node.get_state_set()


def children(node):
    try:
        count = node.get_child_count()
    except GLib.Error:
        return []
    result = []
    for index in range(count):
        try:
            child = node.get_child_at_index(index)
        except GLib.Error:
            continue
        if child is not None:
            result.append(child)
    return result


def walk(root, wanted):
    """The first showing accessible under root (depth first) for which wanted(node) holds."""
    stack = [root]
    seen = 0
    while stack and seen < LIMIT:
        node = stack.pop()
        seen += 1
        try:
            if wanted(node):
                return node
            shown = states(node)
            # GTK 4 says VISIBLE but never SHOWING; GNOME Shell and Qt say both.
            if node is not root and not (shown.contains(Atspi.StateType.SHOWING)
                                         or shown.contains(Atspi.StateType.VISIBLE)):
                continue
        except GLib.Error:
            continue
        stack.extend(reversed(children(node)))
    return None


def applications():
    desktop = Atspi.get_desktop(0)
    return children(desktop)


def app_name(node):
    try:
        return node.get_application().get_name()
    except GLib.Error:
        return ""


def text_of(node):
    try:
        if node.get_text_iface() is None:
            return None
        return Atspi.Text.get_text(node, 0, Atspi.Text.get_character_count(node))
    except GLib.Error:
        return None


def hexadecimal(text):
    return (text or "").encode("utf-8").hex()


class FocusTracker:
    """The last accessible that said it got the focus (object:state-changed:focused), as a screen
    reader follows it: a Qt window says FOCUSED on the focus widget's ancestors and on its current
    tab too, so a walk alone cannot tell which one has the keyboard."""

    def __init__(self):
        self.last = None
        self.listener = Atspi.EventListener.new(self.changed)
        self.listener.register("object:state-changed:focused")

    def changed(self, event):
        if event.detail1 == 1:
            self.last = event.source
        elif self.last is not None and event.source == self.last:
            self.last = None


def is_focused(node):
    try:
        return states(node).contains(Atspi.StateType.FOCUSED)
    except GLib.Error:
        return False


def deepest_focused(window):
    """The deepest FOCUSED accessible under window, for a focus set before the reader started."""
    node = walk(window, is_focused)
    while node is not None:
        deeper = None
        for child in children(node):
            deeper = walk(child, is_focused)
            if deeper is not None:
                break
        if deeper is None:
            return node
        node = deeper
    return None


def active_window(node):
    """Whether node's window (its top-level ancestor below the application) is active."""
    window = node
    try:
        while window.get_parent() is not None and window.get_parent().get_role() != Atspi.Role.APPLICATION:
            window = window.get_parent()
        return states(window).contains(Atspi.StateType.ACTIVE)
    except GLib.Error:
        return False


def focused(tracker):
    node = tracker.last
    if node is None or not is_focused(node) or not active_window(node):
        node = None
        for app in applications():
            for window in children(app):
                try:
                    if not states(window).contains(Atspi.StateType.ACTIVE):
                        continue
                except GLib.Error:
                    continue
                node = deepest_focused(window)
                if node is not None:
                    break
            if node is not None:
                break
    if node is None:
        return None
    text = text_of(node)
    return " ".join([
        hexadecimal(app_name(node)), hexadecimal(node.get_role_name()),
        hexadecimal(node.get_name()),
        "1" if states(node).contains(Atspi.StateType.EDITABLE) else "0",
        "-" if text is None else hexadecimal(text),
    ])


def button(application, name):
    def wanted(node):
        return node.get_role() == Atspi.Role.PUSH_BUTTON and node.get_name() == name \
            and states(node).contains(Atspi.StateType.SHOWING)

    for app in applications():
        if application != "*" and app.get_name() != application:
            continue
        try:
            collection = app.get_collection_iface()
        except GLib.Error:
            collection = None
        if collection is not None:
            # One call where the application answers it (ATK's bridge: GNOME Shell, GTK 3).
            showing = Atspi.StateSet.new([Atspi.StateType.SHOWING])
            rule = Atspi.MatchRule.new(showing, Atspi.CollectionMatchType.ALL, {},
                                       Atspi.CollectionMatchType.ALL, [Atspi.Role.PUSH_BUTTON],
                                       Atspi.CollectionMatchType.ANY, [],
                                       Atspi.CollectionMatchType.ALL, False)
            try:
                matches = Atspi.Collection.get_matches(app, rule, Atspi.CollectionSortOrder.CANONICAL,
                                                       0, True)
                found = [node for node in matches if node.get_name() == name]
                if found:
                    return found[0]
                continue
            except GLib.Error:
                pass
        node = walk(app, wanted)
        if node is not None:
            return node
    return None


def command(words, tracker):
    name = words[0]
    if name == "enable":
        bus = Gio.bus_get_sync(Gio.BusType.SESSION)
        bus.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties", "Set",
                      GLib.Variant("(ssv)", ("org.a11y.Status", "IsEnabled", GLib.Variant("b", True))),
                      None, 0, 10000, None)
        return None
    if name == "apps":
        return "|".join(app.get_name() for app in applications())
    if name == "focus":
        return focused(tracker)
    if name in ("button", "press"):
        label = " ".join(words[2:])
        node = button(words[1], label)
        if node is None:
            if name == "press":
                raise RuntimeError("no showing button named " + label)
            return None
        if name == "press":
            if not Atspi.Action.do_action(node, 0):
                raise RuntimeError("the button " + label + " refused its action")
            return None
        box = node.get_extents(Atspi.CoordType.SCREEN)
        return "%d %d %d %d" % (box.x, box.y, box.width, box.height)
    raise RuntimeError("unknown command " + name)


def main():
    Atspi.init()
    tracker = FocusTracker()
    # Commands are read on the main loop, so that the focus events are heard between them.
    source = os.open(sys.argv[1], os.O_RDONLY) if len(sys.argv) > 1 else sys.stdin.fileno()
    pending = [b""]

    def readable(fd, condition):
        chunk = os.read(fd, 4096)
        if not chunk:
            Atspi.event_quit()
            return False
        pending[0] += chunk
        while b"\n" in pending[0]:
            line, pending[0] = pending[0].split(b"\n", 1)
            words = line.decode("utf-8", "replace").split()
            if not words:
                continue
            try:
                value = command(words, tracker)
                print("ok" if value is None else "ok " + str(value), flush=True)
            except Exception as error:  # noqa: BLE001 (every failure is an answer, never an exit)
                print("error", str(error).replace("\n", " "), flush=True)
        return True

    GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, source, GLib.IOCondition.IN | GLib.IOCondition.HUP, readable)
    print("ready", flush=True)
    Atspi.event_main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
