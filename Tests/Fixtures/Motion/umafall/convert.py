#!/usr/bin/env python3
"""Builds traces of vigorous everyday motion (jogging, hopping, stairs, falls) and other daily
activities from the UMAFall data set, in the `t,x,y,z` form `responderctl motion analyze` and
ShakeAccuracy read.

    python3 convert.py GIT_DIR [OUT_DIR]   # a clone of github.com/DevMGcode/Umafall_Algorithm

UMAFall (E. Casilari, J. A. Santoyo-Ramón, J. M. Cano-García, "UMAFall: A Multisensor Dataset for
the Research on Automatic Fall Detection", Procedia Computer Science 110, 2017; figshare, CC BY
4.0): 19 people performing daily activities and falls (onto a mattress) with a phone in the right
trouser pocket (about 200 Hz) and SensorTags at the chest, waist, wrist and ankle (about 20 Hz), in
g. The copying repository keeps the recordings unpacked under `scripts/extracted_files/`.

Each kind of movement becomes one trace per placement (`pocket`: the phone; `waist`: the
SensorTag on the belt), its clips one after the other, each joined to the next by 2 s moving in a
straight line from the last sample to the next clip's first (no oscillation), the device's axes,
m/s², time from the trace's start. Each clip (with the join after it) is one stretch of
corpus.tsv, labelled by the movement: `jogging`, `jumping` (hopping in place), `stairs-down`,
`stairs-up`, `walking`, `fall` (forward, backward, lateral), and the other daily activities under
their own names (`clapping`, `hands-up`, `phone-call`, `opening-door`, `bending`,
`sitting-down`, `lying-down`). Split: subjects 3, 6, 9, 12, 15 and 18 are held out (`heldout/`).
`--clips` writes instead one short clip per movement at the pocket, and the recordings of
`EXTRA_CLIPS` (the committed ones).
"""
import collections, os, subprocess, sys

G = 9.80665
LABELS = {
    "Jogging": "jogging", "Hopping": "jumping", "GoDownstairs": "stairs-down",
    "GoUpstairs": "stairs-up", "Walking": "walking", "forwardFall": "fall", "backwardFall": "fall",
    "lateralFall": "fall", "Aplausing": "clapping", "HandsUp": "hands-up",
    "MakingACall": "phone-call", "OpeningDoor": "opening-door", "Bending": "bending",
    "Sitting": "sitting-down", "LyingDown": "lying-down",
}
HELD_OUT = {3, 6, 9, 12, 15, 18}
JOIN = 2.0


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def clip_samples(text):
    """(placement -> [(t s, x, y, z m/s²)]) of one recording's accelerometers."""
    position = {}
    rows = collections.defaultdict(list)
    for line in text.splitlines():
        if line.startswith("%") and line.count(";") == 3 and ":" in line.split(";")[0]:
            fields = line[1:].split(";")
            position[fields[1].strip()] = fields[2].strip()
        elif line[:1].isdigit():
            f = line.split(";")
            if len(f) >= 7 and f[5].strip() == "0":
                try:
                    sample = (float(f[0]) / 1000, float(f[2]) * G, float(f[3]) * G, float(f[4]) * G)
                except ValueError:
                    continue  # (a few rows have numbers with their decimal points mangled)
                if max(abs(v) for v in sample[1:]) < 20 * G:
                    rows[f[6].strip()].append(sample)
    result = {}
    for sensor, samples in rows.items():
        where = {"RIGHTPOCKET": "pocket", "WAIST": "waist"}.get(position.get(sensor, ""))
        if where:
            samples.sort(key=lambda s: s[0])
            kept = [samples[0]]
            for s in samples[1:]:
                if s[0] > kept[-1][0]:
                    kept.append(s)
            result[where] = kept
    return result


# Beside the first recording of each movement at the pocket, the clips keep recordings of the
# tuning half where the rule before issue 36's bounce took hops and running steps for shakes (the
# index of the recording in its trace, in the order of their names).
EXTRA_CLIPS = {("jumping", "pocket"): [8], ("jogging", "waist"): [10]}


def main(repo, out, clips_only):
    names = [n for n in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "scripts/extracted_files")
             .split("\n") if n.endswith(".csv")]
    traces = collections.defaultdict(list)  # (held, label, placement) -> [(clip name, samples)]
    for name in sorted(names):
        base = os.path.basename(name)
        subject = int(base.split("Subject_")[1][:2])
        kind = base.split("_")[4] if "_ADL_" in base else base.split("_")[4]
        label = LABELS.get(kind)
        if label is None:
            continue
        for placement, samples in clip_samples(git(repo, "show", "HEAD:" + name)).items():
            if len(samples) > 10:
                traces[(subject in HELD_OUT, label, placement)].append((base, samples))
    tsv = ["# file\tplacement\tlabel\tstart\tend   (written by convert.py)"]
    for (held, label, placement), clips in sorted(traces.items()):
        if clips_only:
            chosen = [0] if placement == "pocket" else []
            chosen += EXTRA_CLIPS.get((label, placement), [])
            if held or label not in ("jogging", "jumping", "stairs-down", "fall") or not chosen:
                continue
            clips = [clips[i] for i in chosen]
        samples = sum(len(c[1]) - 1 for c in clips)
        rate = samples / sum(c[1][-1][0] - c[1][0][0] for c in clips)
        hz = 200 if rate > 100 else 20
        name = ("heldout/" if held else "") + f"umafall-{label}-{placement}-{hz}hz.csv"
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        t = 0.0
        with open(os.path.join(out, name), "w") as f:
            f.write("t,x,y,z\n")
            previous = None
            for clip, samples in clips:
                start = t
                t0 = samples[0][0]
                if previous is not None:
                    # The join: a straight line from the last sample to this clip's first.
                    steps = int(JOIN * hz)
                    for i in range(1, steps):
                        a = i / steps
                        v = [previous[k] + (samples[0][k] - previous[k]) * a for k in (1, 2, 3)]
                        f.write(f"{t - JOIN + JOIN * a:.4f},{v[0]:.4f},{v[1]:.4f},{v[2]:.4f}\n")
                for s in samples:
                    f.write(f"{t + s[0] - t0:.4f},{s[1]:.4f},{s[2]:.4f},{s[3]:.4f}\n")
                t += samples[-1][0] - t0
                previous = samples[-1]
                tsv.append(f"{name}\t{placement}\t{label}\t{start:.3f}\t{t + JOIN:.3f}")
                t += JOIN
            tsv[-1] = tsv[-1].rsplit("\t", 1)[0] + f"\t{t - JOIN:.3f}"
    with open(os.path.join(out, "corpus.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--clips"]
    main(arguments[0], arguments[1] if len(arguments) > 1 else os.path.dirname(os.path.abspath(__file__)),
         "--clips" in sys.argv)
