#!/usr/bin/env python3
"""Rebuilds the real touchscreen corpus from a checkout of whot/evemu-devices (MIT).

usage: make-corpus.py EVEMU_DEVICES_CHECKOUT

Each fixture is one source recording, unchanged, with its device description in front when the
source keeps it in a separate `.desc` file (evemu before 1.10 wrote the two apart), and a comment
line naming the source. Nothing else is touched: the events are byte for byte the source's.
"""
import os
import sys

COMMIT = "3fa30580b542017098a48ec3c8a65bc2a5ba67b3"

# fixture name: (description file or None when the events file has it, events file)
CORPUS = {
    "atmel-maxtouch.fast-taps": (None, "touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"),
    "atmel-maxtouch.1-finger-drag-up-down": (
        None, "touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"),
    "atmel-maxtouch.2-fingers-touch-release": (
        None, "touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"),
    "atmel-maxtouch.4-finger-drag-down": (None, "touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events"),
    "ep0430m09.1-finger-drag-up-down": (None, "touchscreens/EP0430M09.1-finger-drag-up-down.events"),
    "ep0430m09.2-finger-scroll-down": (None, "touchscreens/EP0430M09.2-finger-scroll-down.events"),
    "ep0430m09.2-fingers-touch-release": (None, "touchscreens/EP0430M09.2-fingers-touch-release.events"),
    "elan-cando.1-finger-drag-up-down": (
        "touchscreens/ELAN CANDO Windows7.desc", "touchscreens/ELAN CANDO Windows7.1-finger-drag-up-down.events"),
    "n-trig.1-finger-drag-nw-se": (
        "touchscreens/N-Trig MultiTouch.desc", "touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events"),
    "n-trig.2-fingers-touch-release": (
        "touchscreens/N-Trig MultiTouch.desc", "touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events"),
    "quanta-optical.taps-and-drags": (
        "touchscreens/QUANTA OpticalTouchScreen.desc", "touchscreens/QUANTA OpticalTouchScreen.events"),
    "wacom-isdv4-e6.single-tap-center": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.single-tap-center.events"),
    "wacom-isdv4-e6.double-tap-center": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.double-tap-center.events"),
    "wacom-isdv4-e6.2fg-tap": ("tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.2fg-tap.events"),
    "wacom-isdv4-e6.single-top-swipe": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.single-top-swipe.events"),
    "wacom-isdv4-e6.double-top-swipe": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.double-top-swipe.events"),
    "wacom-isdv4-e6.single-center-scroll": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.single-center-scroll.events"),
    "wacom-isdv4-e6.double-center-scroll": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events"),
    "wacom-isdv4-e6.double-center-circle": (
        "tablets/Wacom ISDv4 E6 Finger.desc", "tablets/Wacom ISDv4 E6 Finger.double-center-circle.events"),
    "egalax-pcap.tap": (
        "tablets/eGalax_eMPIA Technology Inc. PCAP MultiTouch Controller.desc",
        "tablets/eGalax_eMPIA Technology Inc. PCAP MultiTouch Controller.tap.events"),
    "egalax-usb.single-touch": (
        "tablets/eGalax Inc. USB TouchController.desc", "tablets/eGalax Inc. USB TouchController.events"),
    "dell-canvas.touch": (None, "tablets/dell_canvas_touch.evemu"),
}


def main():
    source = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (desc, events) in sorted(CORPUS.items()):
        parts = ["# From whot/evemu-devices (MIT) at %s: %s%s\n" % (
            COMMIT, (desc + " + ") if desc else "", events)]
        for path in ([desc] if desc else []) + [events]:
            with open(os.path.join(source, path), "rb") as f:
                text = f.read().decode("utf-8")
            parts.append(text if text.endswith("\n") else text + "\n")
        with open(os.path.join(here, name + ".evemu"), "w", encoding="utf-8") as f:
            f.write("".join(parts))


if __name__ == "__main__":
    main()
