#!/usr/bin/python3
"""Writes the touchscreen recordings of the touch replay tests (evemu-record format).

Device: 1080 x 2340 units (ABS_MT_POSITION_X 0..1079, Y 0..2339), 10 slots, touch major and
pressure; the scenes map it onto a 540 x 1170 point screen (2 units a point).
usage: make-recordings.py   (writes *.evemu beside itself)
"""
import os

HEADER = """# EVEMU 1.3
# Input device name: "Test Touchscreen"
N: Test Touchscreen
I: 0018 0416 038f 0100
P: 02 00 00 00 00 00 00 00
A: 00 0 1079 0 0 0
A: 01 0 2339 0 0 0
A: 2f 0 9 0 0 0
A: 30 0 255 0 0 0
A: 35 0 1079 0 0 0
A: 36 0 2339 0 0 0
A: 39 0 65535 0 0 0
A: 3a 0 255 0 0 0
"""


class Recording:
    def __init__(self, comment):
        self.lines = [HEADER.rstrip('\n'), '# ' + comment]
        self.slot = 0
        self.next_id = 100

    def ev(self, t, typ, code, value, note=''):
        sec = int(t)
        usec = int(round((t - sec) * 1e6))
        self.lines.append('E: %d.%06d %04x %04x %d%s' % (sec, usec, typ, code, value, ('\t# ' + note) if note else ''))

    def select(self, t, slot):
        if slot != self.slot:
            self.ev(t, 3, 0x2f, slot)
            self.slot = slot

    def down(self, t, slot, x, y, major=20, pressure=60):
        self.select(t, slot)
        self.ev(t, 3, 0x39, self.next_id, 'finger %d down' % slot)
        self.next_id += 1
        self.ev(t, 3, 0x35, x)
        self.ev(t, 3, 0x36, y)
        self.ev(t, 3, 0x30, major)
        self.ev(t, 3, 0x3a, pressure)

    def move(self, t, slot, x=None, y=None):
        self.select(t, slot)
        if x is not None:
            self.ev(t, 3, 0x35, x)
        if y is not None:
            self.ev(t, 3, 0x36, y)

    def up(self, t, slot):
        self.select(t, slot)
        self.ev(t, 3, 0x39, -1, 'finger %d up' % slot)

    def syn(self, t):
        self.ev(t, 0, 0, 0)

    def dropped(self, t):
        self.ev(t, 0, 3, 0, 'SYN_DROPPED')

    def write(self, name):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), 'w') as f:
            f.write('\n'.join(self.lines) + '\n')


def tap(r, t, slot, x, y, duration=0.08):
    r.down(t, slot, x, y)
    r.syn(t)
    r.up(t + duration, slot)
    r.syn(t + duration)


def drag_right(r, t, slot, x, y, step, frames, rate):
    """One finger down at (x, y), `frames` moves right by `step` units `rate` a second, then up."""
    r.down(t, slot, x, y)
    r.syn(t)
    for k in range(1, frames + 1):
        r.move(t + k / rate, slot, x=x + step * k)
        r.syn(t + k / rate)
    r.up(t + (frames + 1) / rate, slot)
    r.syn(t + (frames + 1) / rate)


# Taps: a double tap on the left half, a single tap on the left, a tap on the right half.
r = Recording('double tap left, single tap left, tap right')
tap(r, 1.0, 0, 200, 400)
tap(r, 1.2, 0, 204, 402)
tap(r, 3.0, 0, 200, 400)
tap(r, 5.0, 0, 800, 400)
r.write('taps.evemu')

# A quick flick right (600 points a second), then a slow drag right (100 points a second, 20 frames a second).
r = Recording('flick right, then a slow drag right')
drag_right(r, 1.0, 0, 100, 1000, step=100, frames=6, rate=60)
drag_right(r, 3.0, 0, 100, 1600, step=10, frames=12, rate=20)
r.write('flick-and-drag.evemu')

# A tap on the button, a tap beside it, a held finger, a second finger, then events dropped.
r = Recording('tap on the button, tap beside it, press and hold, second finger, SYN_DROPPED')
tap(r, 1.0, 0, 540, 1200)
tap(r, 2.0, 0, 540, 1800)
r.down(3.0, 0, 540, 1800)
r.syn(3.0)
r.down(3.7, 1, 300, 600)
r.syn(3.7)
r.move(3.8, 1, x=310)
r.dropped(3.8)
r.move(3.8, 0, x=600)
r.syn(3.9)
r.select(4.5, 0)
r.up(4.5, 0)
r.syn(4.5)
r.select(4.5, 1)
r.up(4.5, 1)
r.syn(4.5)
r.write('button.evemu')
