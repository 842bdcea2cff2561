#!/usr/bin/python3
"""Writes the motion traces the tests read (t,x,y,z: seconds, m/s², gravity included).

The times start at an arbitrary CLOCK_MONOTONIC-like value, as `responderctl motion record`
writes them. Run from this folder: ./make-traces.py
"""
import math, random

G = 9.80665


def write(name, rate, seconds, dynamic, t0=5231.25, gravity=(0.0, 0.0, G), noise=0.02, seed=1):
    rng = random.Random(seed)
    with open(name, 'w') as f:
        f.write('t,x,y,z\n')
        n = int(seconds * rate)
        for i in range(1, n + 1):
            s = i / rate
            d = dynamic(s)
            v = [gravity[k] + d[k] + rng.gauss(0, noise * G) for k in range(3)]
            f.write('%.6f,%.4f,%.4f,%.4f\n' % (t0 + s, v[0], v[1], v[2]))


def shake(freq, amp, start, dur, axis=(1, 0, 0)):
    def f(s):
        if start <= s < start + dur:
            a = amp * G * math.sin(2 * math.pi * freq * (s - start))
            return [a * c for c in axis]
        return [0, 0, 0]
    return f


def add(*fs):
    return lambda s: [sum(c) for c in zip(*(f(s) for f in fs))]


def walking(s):
    bounce = 0.28 * math.sin(2 * math.pi * 2 * s) + 0.08 * math.sin(4 * math.pi * 2 * s + 0.6)
    return [0.08 * math.sin(math.pi * 2 * s) * G, 0.05 * math.sin(2 * math.pi * 2 * s + 1.2) * G, bounce * G]


# Shakes at 1.0–2.5 s and 4.5–5.5 s (t0 + those), 50 Hz.
write('two-shakes-50hz.csv', 50, 7, add(shake(3, 2, 1.0, 1.5), shake(4, 1.8, 4.5, 1.0, (0, 1, 0))))
# A 7 s shake from 0.5 s: began, then cancelled at max-duration.
write('long-shake-100hz.csv', 100, 9, shake(3, 2, 0.5, 7), seed=2)
# Walking for 10 s: nothing.
write('walking-50hz.csv', 50, 10, walking, seed=3)
# A shake still going when the recording stops at 3 s: time runs on, and it ends.
write('shake-at-end-100hz.csv', 100, 3, shake(3, 2, 1.5, 5), seed=4)
