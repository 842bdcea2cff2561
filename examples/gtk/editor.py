#!/usr/bin/python3
"""A GTK 4 text editor with shake to undo, as on iOS.

    examples/gtk/editor.py [--title TITLE] [--size WxH] [--maximized] [--log]

Shake the device: the editor asks "Undo Typing" (Cancel / Undo) and Undo takes back the last edit
with GTK's own undo (Gtk.TextBuffer). A second shake while the question is open does nothing more.
Shakes follow the window's focus: with two editors open, only the one in front asks (one call,
`responder.follow_focus(window)`; responderd gives each shake to the app whose window said it is
active last).

--log prints one JSON line per thing a person would see: {"event": "ready"}, {"event": "active",
"active": true}, {"event": "text", "text": ...} on each change, {"event": "question"},
{"event": "undo", "text": ...}, {"event": "cancel"}, {"event": "ignored"} (a shake while the
question is open).

Needs Debian's python3-gi and gir1.2-gtk-4.0, and responderd running.
"""

import argparse
import json
import os
import signal
import sys

import gi

gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402

# In a source tree, the package beside the examples; installed, the one responderd installs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from responderd_client import Responder  # noqa: E402

CSS = b"""
.dim { background-color: rgba(0, 0, 0, 0.3); }
.alert { background-color: @theme_bg_color; border-radius: 14px; padding: 24px;
         box-shadow: 0 4px 16px rgba(0, 0, 0, 0.35); }
.alert-title { font-size: 140%; font-weight: bold; }
.alert button { min-height: 48px; min-width: 150px; }
"""


class Editor:
    def __init__(self, application, options):
        self.options = options
        self.window = Gtk.ApplicationWindow(application=application, title=options.title)
        width, height = (int(part) for part in options.size.split("x"))
        self.window.set_default_size(width, height)
        if options.maximized:
            self.window.maximize()

        self.buffer = Gtk.TextBuffer()  # undo is on by default in GTK 4
        self.view = Gtk.TextView(buffer=self.buffer, wrap_mode=Gtk.WrapMode.WORD_CHAR)
        self.view.set_left_margin(12)
        self.view.set_top_margin(12)
        scrolled = Gtk.ScrolledWindow(child=self.view)
        self.question = self.build_question()
        overlay = Gtk.Overlay(child=scrolled)
        overlay.add_overlay(self.question)
        self.window.set_child(overlay)
        self.buffer.connect("changed", lambda _: self.log("text", text=self.text()))
        self.window.connect("notify::is-active", lambda *_: self.log("active", active=self.window.is_active()))

        self.responder = Responder("/org/responderd/Examples/Editor", ["motion"], self.on_event, name="gtk-editor")
        try:
            self.responder.register()
        except GLib.Error as error:  # responderd is not running: registered as soon as it starts
            print(f"editor: responderd is not there yet ({error.message})", file=sys.stderr, flush=True)
        self.responder.follow_focus(self.window)  # the one call: shakes follow this window's focus
        self.window.connect("close-request", self.on_close)
        self.window.present()
        self.view.grab_focus()
        self.log("ready", title=options.title)

    def build_question(self):
        """The alert iOS shows, over the dimmed text: "Undo Typing", Cancel / Undo."""
        title = Gtk.Label(label="Undo Typing")
        title.add_css_class("alert-title")
        cancel = Gtk.Button(label="Cancel")
        self.undo_button = Gtk.Button(label="Undo")
        self.undo_button.add_css_class("suggested-action")
        cancel.connect("clicked", lambda _: self.answer(False))
        self.undo_button.connect("clicked", lambda _: self.answer(True))
        buttons = Gtk.Box(spacing=12, homogeneous=True)
        buttons.append(cancel)
        buttons.append(self.undo_button)
        alert = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=24)
        alert.set_halign(Gtk.Align.CENTER)
        alert.set_valign(Gtk.Align.CENTER)
        alert.add_css_class("alert")
        alert.append(title)
        alert.append(buttons)
        dim = Gtk.Box()
        dim.add_css_class("dim")
        dim.append(alert)
        alert.set_hexpand(True)
        dim.set_visible(False)
        return dim

    def ask(self):
        self.question.set_visible(True)
        self.view.set_sensitive(False)
        # Said once it is on the screen: after the frame that paints it, with where Undo is (its
        # centre in window coordinates, and the window's size) for a test to tap it.
        clock = self.window.get_frame_clock()
        handler = None

        def painted(_clock):
            clock.disconnect(handler)
            ok, bounds = self.undo_button.compute_bounds(self.window)
            centre = [round(bounds.get_x() + bounds.get_width() / 2), round(bounds.get_y() + bounds.get_height() / 2)]
            self.log("question", undo=centre, window=[self.window.get_width(), self.window.get_height()])

        handler = clock.connect("after-paint", painted)

    def text(self):
        return self.buffer.get_text(self.buffer.get_start_iter(), self.buffer.get_end_iter(), True)

    def log(self, event, **fields):
        if self.options.log:
            print(json.dumps({"event": event, "title": self.options.title, **fields}), flush=True)

    def on_event(self, event):
        if event.kind != "motion":
            return False
        if event.phase != "began":
            return True  # the end of a shake this editor took
        if self.question.get_visible():
            self.log("ignored")
            return True  # asked already: one question at a time
        if not self.buffer.get_can_undo():
            return False  # nothing to undo: the shake goes on up the chain
        self.ask()
        return True

    def answer(self, undo):
        self.question.set_visible(False)
        self.view.set_sensitive(True)
        self.view.grab_focus()
        if undo:
            self.buffer.undo()
            self.log("undo", text=self.text())
        else:
            self.log("cancel")

    def on_close(self, _window):
        self.responder.close()
        return False


def main():
    parser = argparse.ArgumentParser(description="A GTK 4 editor with shake to undo.")
    parser.add_argument("--title", default="Shake to Undo")
    parser.add_argument("--size", default="640x400", help="the window's default size, WxH")
    parser.add_argument("--maximized", action="store_true", help="open the window maximized")
    parser.add_argument("--log", action="store_true", help="one JSON line per thing shown, on stdout")
    options = parser.parse_args()

    application = Gtk.Application(
        application_id="org.responderd.Examples.Editor", flags=Gio.ApplicationFlags.NON_UNIQUE
    )
    editors = []

    def activate(app):
        provider = Gtk.CssProvider()
        provider.load_from_data(CSS)
        Gtk.StyleContext.add_provider_for_display(
            Gdk.Display.get_default(), provider, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
        )
        editors.append(Editor(app, options))

    application.connect("activate", activate)
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, lambda: (application.quit(), GLib.SOURCE_REMOVE)[1])
    status = application.run([sys.argv[0]])
    for editor in editors:
        editor.responder.close()
    sys.exit(status)


if __name__ == "__main__":
    main()
