#!/usr/bin/env python3
"""Builds the Wiimote gesture traces from the UCR archive's AllGestureWiimote{X,Y,Z} files.

    python3 convert.py GIT_DIR   # a clone of github.com/iwuqing/Time-Series-Classification-based-on-KNN

The archive keeps each axis in its own file, each shuffled and split on its own; a clip's three
axes are the rows of the same class and the same length. Only clips whose (class, length) is
unique in all three files are used (their axes are certain); the others are left out. Clips are
joined into one trace per set with 4 s between clips: 2 s in which the reading moves linearly
from the clip's last sample to the next clip's first (the device put back at rest), 2 s held.
Values are in g (the Wiimote's calibrated output, gravity included) at 100 Hz; written in m/s².
Split: the archive's TRAIN rows are the tuning set, its TEST rows are held out (heldout/).
"""
import subprocess, sys, os
from collections import Counter, defaultdict

G = 9.80665
RATE = 100.0
NAMES = {1: "pick-up", 2: "shake", 3: "right", 4: "left", 5: "up", 6: "down"}

def rows(git, axis, split):
    text = subprocess.run(["git", "--git-dir", git, "show",
                           f"HEAD:data/AllGestureWiimote{axis}/AllGestureWiimote{axis}_{split}.tsv"],
                          check=True, capture_output=True, text=True).stdout
    for line in text.splitlines():
        r = line.split("\t")
        yield int(float(r[0])), split, [float(v) for v in r[1:] if v != "NaN"]

def main(git):
    axes = {a: [r for s in ("TRAIN", "TEST") for r in rows(git, a, s)] for a in "XYZ"}
    keyed = {a: defaultdict(list) for a in "XYZ"}
    for a in "XYZ":
        for c, s, v in axes[a]:
            keyed[a][(c, len(v))].append((s, v))
    clips = defaultdict(list)  # (set, heldout) -> [(class, samples)]
    for key, xs in sorted(keyed["X"].items()):
        c, n = key
        if c not in NAMES or len(xs) != 1 or len(keyed["Y"][key]) != 1 or len(keyed["Z"][key]) != 1:
            continue
        split, x = xs[0]
        y, z = keyed["Y"][key][0][1], keyed["Z"][key][0][1]
        kind = "shakes" if c == 2 else "moves"
        clips[(kind, split == "TEST")].append((c, list(zip(x, y, z))))
    here = os.path.dirname(os.path.abspath(__file__))
    tsv = ["# file\tplacement\tlabel\tstart\tend   (written by convert.py)"]
    for (kind, held), items in sorted(clips.items()):
        name = ("heldout/" if held else "") + f"wiimote-{kind}-100hz.csv"
        out, t = ["t,x,y,z"], 0.0
        def emit(v):
            nonlocal t
            out.append(f"{t:.2f},{v[0]*G:.2f},{v[1]*G:.2f},{v[2]*G:.2f}")
            t = round(t + 1 / RATE, 6)
        previous = items[0][1][0]
        for c, samples in items:
            first = samples[0]
            for i in range(200):  # back to rest, then still
                f = (i + 1) / 200
                emit([p + (q - p) * f for p, q in zip(previous, first)])
            for i in range(200):
                emit(first)
            start = t
            for v in samples:
                emit(v)
            label = "shake" if c == 2 else "handling"
            placement = "wiimote-" + NAMES[c]
            tsv.append(f"{name}\t{placement if c != 2 else 'wiimote'}\t{label}\t{start:.2f}\t{t:.2f}")
            previous = samples[-1]
        for i in range(200):
            emit(previous)
        os.makedirs(os.path.dirname(os.path.join(here, name)), exist_ok=True)
        open(os.path.join(here, name), "w").write("\n".join(out) + "\n")
        if kind == "shakes":  # the whole trace is a hand holding the controller
            tsv.insert(len(tsv) - len(items), f"{name}\twiimote\thand-held\t0.00\t{t:.2f}")
        print(name, Counter(NAMES[c] for c, _ in items))
    open(os.path.join(here, "corpus.tsv"), "w").write("\n".join(tsv) + "\n")

main(sys.argv[1])
