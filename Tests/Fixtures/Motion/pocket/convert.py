#!/usr/bin/env python3
"""Builds the pocket-and-hand motion corpus (Tests/Fixtures/Motion/pocket) from two public git
repositories (see README.md):

    python3 convert.py OXFORD_GIT_DIR OPENUAT_GIT_DIR

OXFORD_GIT_DIR is a clone of github.com/Oxford-step-counter/DataSet (CC BY 4.0), OPENUAT_GIT_DIR
one of github.com/mobilesec/openuat (LGPL); both are read with `git show` at the commits below
(bare clones are fine). Python 3 standard library + numpy; deterministic.

Writes `t,x,y,z` traces (seconds from 0, m/s^2, gravity included, the device's own axes) and
`corpus.tsv` (`file  placement  label  start  end`). Traces under `heldout/` were kept out of
the tuning of the detector (Benchmarks/ShakeAccuracy reports them separately).
"""

import gzip
import io
import os
import subprocess
import sys

import numpy as np

G = 9.80665
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from corpus import write_corpus  # noqa: E402  (Tests/Fixtures/Motion/corpus.py)
OXFORD_COMMIT = "922cc0d"
OPENUAT_COMMIT = "HEAD"

# Oxford step-counter data set: walking along a corridor on a hard floor, the phone put into the
# pocket (or hand, bag...) after starting the app and taken out before stopping it. Each trace is
# named after its recording, whose name also says the placement: the folders of
# optimisation/data/ (PHONE_PERSON_FLOOR_PLACEMENT_TAKE, accelerometer.csv in each) give
# oxford-phone-person-placement-take; the files of `validation/` (another phone, other people:
# held out) heldout/oxford-s6-user-placement.
OXFORD_TUNING = ["Pixel_Jamie_Hard_FrontPocket_1", "Pixel_Jamie_Hard_FrontPocket_2",
                 "Pixel_Jamie_Hard_BackPocket_1", "Samsung_Carmelo_Hard_FrontPocket_1",
                 "Samsung_Carmelo_Hard_BackPocket_1", "Samsung_Dario_Hard_FrontPocket_1",
                 "Samsung_Dario_Hard_BackPocket_1", "Pixel_Jamie_Hard_SwingingArm_1",
                 "Samsung_Dario_Hard_InHand_1"]
OXFORD_HELDOUT = ["user1_frontpocket_1506422223341", "user2_frontpocket_1506422217391",
                  "user1_backpocket_1506422470497", "user2_backpocket_1506422483834"]
OXFORD_PLACEMENTS = {"frontpocket": "front-pocket", "backpocket": "back-pocket",
                     "swingingarm": "hand-swinging", "inhand": "hand"}


def oxford_recordings():
    """(source path, output name, placement) of each Oxford recording, held-out ones last."""
    for folder in OXFORD_TUNING:
        phone, person, _floor, placement, take = folder.lower().split("_")
        yield (f"optimisation/data/{folder}/accelerometer.csv",
               f"oxford-{phone}-{person}-{placement}-{take}", OXFORD_PLACEMENTS[placement])
    for stem in OXFORD_HELDOUT:
        user, placement, _started = stem.split("_")
        yield (f"validation/{stem}.csv", f"heldout/oxford-s6-{user}-{placement}",
               OXFORD_PLACEMENTS[placement])


# The first and last seconds of each Oxford recording: the phone put into / taken out of the pocket.
POCKETING = 6.0

# OpenUAT "Shake well before use" test recordings: two accelerometer boards (3 axes each, 8-bit
# pulse-width readings, centre 128) held together in one hand and shaken, or (negative/) each
# shaken by another hand. The files the OpenUAT tests leave out (*-DISABLED) are held out.
# Scale: the boards at rest read 36 counts from the centre (the median magnitude over the
# recordings' still stretches, 33-39 depending on the attitude): 36 counts per g.
COUNTS_PER_G = 36.0
OPENUAT_TUNING = ["positive/1", "positive/2", "positive/3", "positive/5", "positive/6",
                  "positive/7", "positive/b", "positive/c", "positive/d", "negative/1", "negative/2"]
OPENUAT_HELDOUT = ["positive/4", "positive/8", "positive/9", "positive/a", "negative/3",
                   "negative/4", "negative/5", "negative/6"]


def git_show(repo, commit, path):
    return subprocess.run(["git", "--git-dir", repo if repo.endswith(".git") or os.path.isfile(
        os.path.join(repo, "HEAD")) else os.path.join(repo, ".git"), "show", f"{commit}:{path}"],
        check=True, capture_output=True).stdout


def write_trace(name, t, a, rate_label):
    path = os.path.join(HERE, f"{name}-{rate_label}.csv")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write("t,x,y,z\n")
        for ti, (x, y, z) in zip(t, a):
            out.write(f"{ti:.3f},{x:.2f},{y:.2f},{z:.2f}\n")
    return os.path.relpath(path, HERE)


def to_100hz(t, a):
    """Averages samples into 10 ms bins (the sources run at 50-200 Hz with jitter); bins with
    no sample (a 50 Hz source) are left out, so a 50 Hz source stays 50 Hz."""
    bins = np.floor(t / 0.01).astype(int)
    keys, first = np.unique(bins, return_index=True)
    sums = np.add.reduceat(a, first, axis=0)
    counts = np.diff(np.append(first, len(a)))[:, None]
    return keys * 0.01, sums / counts


def oxford(repo, lines):
    for source, name, placement in oxford_recordings():
        rows = [r.split(",") for r in git_show(repo, OXFORD_COMMIT, source).decode().splitlines()
                if r.strip()]
        if source.startswith("validation/"):
            data = np.array([[float(r[0]), float(r[1]), float(r[2]), float(r[3])] for r in rows])
        else:  # timestamp, sensor type (3: accelerometer), x, y, z
            data = np.array([[float(r[0]), float(r[2]), float(r[3]), float(r[4])] for r in rows
                             if len(r) >= 5])
        t = (data[:, 0] - data[0, 0]) / 1e9
        order = np.argsort(t, kind="stable")
        t, a = to_100hz(t[order], data[order, 1:4])
        rate = 1 / np.median(np.diff(t))
        label = f"{int(round(rate / 10) * 10)}hz"
        file = write_trace(name, t, a, label)
        end = float(t[-1])
        activity = "walking" if placement.endswith("pocket") else "walking"
        lines.append((file, placement, "pocketing", 0.0, POCKETING))
        lines.append((file, placement, activity, POCKETING, end - POCKETING))
        lines.append((file, placement, "pocketing", end - POCKETING, end))


def shake_extents(t, a):
    """Where the hand shook: stretches of 0.2 s windows whose dynamic acceleration (a 0.5 s
    moving mean removed) has an RMS above 0.5 g, split where it stays below for over 1 s, and
    at least 0.4 s long."""
    k = 50
    kernel = np.ones(k) / k
    mean = np.stack([np.convolve(a[:, i], kernel, mode="same") for i in range(3)], axis=1)
    d = np.linalg.norm(a - mean, axis=1)
    rms = np.sqrt(np.convolve(d * d, np.ones(20) / 20, mode="same"))
    active = np.nonzero(rms > 0.5 * G)[0]
    result = []
    for i in active:
        if result and t[i] - result[-1][1] <= 1.0:
            result[-1][1] = float(t[i])
        else:
            result.append([float(t[i]), float(t[i])])
    return [(s, e) for s, e in result if e - s >= 0.4]


def openuat(repo, lines):
    for held_out, names in ((False, OPENUAT_TUNING), (True, OPENUAT_HELDOUT)):
        for source in names:
            path = f"tests/motionauth/{source}.gz" + ("-DISABLED" if held_out else "")
            raw = gzip.GzipFile(fileobj=io.BytesIO(git_show(repo, OPENUAT_COMMIT, path))).read()
            data = np.array([[float(v) for v in line.split()[:9]]
                             for line in raw.decode().splitlines() if line.strip()])
            # The log begins with zeros until each channel has been read once.
            data = data[np.argmax(np.all(data[:, 1:9] > 0, axis=1)):]
            stamps = data[:, 0] - data[0, 0]
            # The log has one line per change on the port (~4 kHz): the value at each 10 ms tick
            # is the last one read before it, as OpenUAT's own reader samples it.
            t = np.arange(0.05, stamps[-1], 0.01)
            v = data[np.searchsorted(stamps, t, side="right") - 1, 1:9]
            for board, columns in (("a", slice(0, 3)), ("b", slice(4, 7))):
                counts = v[:, columns] - 128
                per_g = COUNTS_PER_G
                a = counts / per_g * G
                name = ("heldout/" if held_out else "") + "openuat-" + source.replace("/", "-") + "-" + board
                file = write_trace(name, t - t[0], a, "100hz")
                lines.append((file, "hand", "hand-held", 0.0, float(t[-1] - t[0])))
                for start, end in shake_extents(t - t[0], a):
                    lines.append((file, "hand", "shake", round(start, 2), round(end, 2)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lines = []
    oxford(sys.argv[1], lines)
    openuat(sys.argv[2], lines)
    write_corpus(HERE, lines)


if __name__ == "__main__":
    main()
