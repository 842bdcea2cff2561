#!/usr/bin/python3
"""Calls: an incoming call takes the headset button, and gives it back when the call ends.

    examples/python/calls.py        (kill -USR1 PID: a call rings)

Registered for remote-control events but not first responder: clicks go on to the media player.
When a call rings (SIGUSR1 here; a telephony stack in a real app) it becomes first responder, so
the next click (togglePlayPause) answers the call, and a click during the call hangs up; then it
resigns, and the media player gets the button again. Prints one line per change: "ringing",
"answered", "hung up", "idle: the player has the button".
"""

import os
import signal
import sys

# In a source tree, the package beside the examples; installed, the one responderd installs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from responderd_client import GLib, Responder, run_until_signalled  # noqa: E402

TOGGLE = "togglePlayPause"


def main():
    state = {"call": "idle"}

    def say(text):
        print(text, flush=True)

    def on_event(event):
        if event.subtype != TOGGLE or state["call"] == "idle":
            return False  # not ours: on up the chain to the media player
        if state["call"] == "ringing":
            state["call"] = "in call"
            say("answered")
        else:
            state["call"] = "idle"
            say("hung up")
            GLib.idle_add(end_call)  # resign after answering this event
        return True

    app = Responder("/org/example/Calls", ["remoteControl"], on_event, name="calls")

    def ring():
        if state["call"] == "idle":
            state["call"] = "ringing"
            accepted = app.become_first_responder()
            say("ringing" if accepted else "ringing, but responderd refused the first responder")
        return GLib.SOURCE_CONTINUE

    def end_call():
        app.resign_first_responder()
        say("idle: the player has the button")
        return GLib.SOURCE_REMOVE

    app.register()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, ring)
    say(f"ready: responder {app.id}, pid {os.getpid()}")
    run_until_signalled(GLib.MainLoop(), app.close)


if __name__ == "__main__":
    main()
