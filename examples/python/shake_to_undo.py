#!/usr/bin/python3
"""Shake to undo: an editor whose undo stack is popped when the device is shaken.

    examples/python/shake_to_undo.py [EDIT...]

Registers for motion events and becomes first responder; each shake (motionBegan) undoes the last
edit, as iOS's "shake to undo". Prints one line per change: "edits: a b c", "undo: c (edits: a b)".
Stops on SIGINT/SIGTERM, resigning and unregistering first.
"""

import os
import sys

# In a source tree, the package beside the examples; installed, the one responderd installs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from responderd_client import GLib, Responder, run_until_signalled  # noqa: E402


def main():
    edits = sys.argv[1:] or ["hello", "brave", "new", "world"]

    def say(text):
        print(text, flush=True)

    def on_event(event):
        if event.kind != "motion":
            return False
        if event.phase != "began":
            return True  # the end of a shake this app undid on its beginning
        if not edits:
            say("undo: nothing to undo")
            return False  # not handled: the shake goes on up the chain
        undone = edits.pop()
        say(f"undo: {undone} (edits: {' '.join(edits)})")
        return True

    app = Responder("/org/example/ShakeToUndo", ["motion"], on_event, name="shake-to-undo")
    app.register()
    accepted = app.become_first_responder()
    say(f"edits: {' '.join(edits)}")
    say(f"ready: responder {app.id}, first responder: {'yes' if accepted else 'no'}")
    run_until_signalled(GLib.MainLoop(), app.close)


if __name__ == "__main__":
    main()
