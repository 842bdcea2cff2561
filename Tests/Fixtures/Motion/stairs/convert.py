#!/usr/bin/env python3
"""Builds the stairs-at-the-waist corpus (Tests/Fixtures/Motion/stairs) from the ASSIST-IoT
multimodal fall detection dataset, in the `t,x,y,z` form `responderctl motion analyze` and
ShakeAccuracy read.

    python3 convert.py GIT_DIR [OUT_DIR]   # a clone of github.com/ASSIST-IoT-SRIPAS/multimodal-fall-detection-dataset

ASSIST-IoT Multimodal Fall Detection Dataset (A. Danilenka, P. Sowiński, M. Kobus, A. Dąbrowska,
K. Rachwał, K. Bogacka, K. Baszczyński; Zenodo 10.5281/zenodo.8340378; CC BY 4.0): people walking
up and down a flight of stairs, five times slowly (activity 5) and five times quickly (activity 6),
with an acceleration tag on a belt between the waist and the hips, about 125 Hz, in g. Only the
`stairs` set is read (`data/full_acceleration/stairs/NN/acceleration.csv`, the tag's rows); the
participants whose file the repository keeps (8 of 10).

One trace per participant: the slow trial, then the quick one, each in time order, joined by 2 s
moving in a straight line from the last sample to the next one's first (no oscillation), the
tag's axes, m/s², time from the trace's start. To keep the repository small, consecutive samples
are averaged in pairs (62.5 Hz): the detector itself averages samples closer than 15 ms in pairs
at this rate, so what it sees is the same up to the pairs' phase. One corpus.tsv stretch per trial:
`stairs` (slowly: an everyday pace) and `stairs-quick` (quickly, up and down, with the steps
running). A pause longer than 0.5 s within a trial (a lost connection) is joined the same way.
Participants 7 to 10 go under `heldout/`.
"""
import datetime, os, subprocess, sys

COMMIT = "7a11c96b9a3576cef92f0795a19b3786c69a3335"
G = 9.80665
JOIN = 2.0
LABELS = {"5": "stairs", "6": "stairs-quick"}
HELD_OUT = {"07", "08", "09", "10"}


def read(repo, participant):
    """(activity -> [(t s, x, y, z m/s²)]) of the tag, or None when the file is not kept."""
    path = f"data/full_acceleration/stairs/{participant}/acceleration.csv"
    run = subprocess.run(["git", "--git-dir", repo, "show", f"{COMMIT}:{path}"], capture_output=True,
                         text=True)
    if run.returncode != 0:
        return None
    trials = {}
    for line in run.stdout.splitlines()[1:]:
        f = line.split("|")
        if len(f) < 10 or f[3] != "TAG" or f[7] != "A" or f[8] not in LABELS:
            continue
        t = datetime.datetime.strptime(f[2], "%Y-%m-%d %H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        trials.setdefault(f[8], []).append((t, float(f[4]) * G, float(f[5]) * G, float(f[6]) * G))
    for samples in trials.values():
        samples.sort(key=lambda s: s[0])
    return trials


def pieces(samples):
    """The samples cut where they pause for longer than 0.5 s, each averaged in pairs."""
    runs = [[samples[0]]]
    for s in samples[1:]:
        if s[0] - runs[-1][-1][0] > 0.5:
            runs.append([])
        if s[0] > (runs[-1][-1][0] if runs[-1] else -1):
            runs[-1].append(s)
    return [[tuple(sum(v) / 2 for v in zip(a, b)) for a, b in zip(run[0::2], run[1::2])]
            for run in runs if len(run) > 20]


def main(repo, out):
    tsv = ["# file\tplacement\tlabel\tstart\tend   (written by convert.py)"]
    for number in range(1, 11):
        participant = f"{number:02d}"
        trials = read(repo, participant)
        if not trials:
            continue
        name = ("heldout/" if participant in HELD_OUT else "") + f"assist-p{participant}-waist-62hz.csv"
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        t = 0.0
        previous = None
        with open(os.path.join(out, name), "w") as f:
            f.write("t,x,y,z\n")
            for activity in sorted(trials):
                start = t
                for piece in pieces(trials[activity]):
                    if previous is not None:
                        # The join: a straight line from the last sample to this piece's first.
                        steps = int(JOIN * 62.5)
                        for i in range(1, steps):
                            a = i / steps
                            v = [previous[k] + (piece[0][k] - previous[k]) * a for k in (1, 2, 3)]
                            f.write(f"{t - JOIN + JOIN * a:.3f},{v[0]:.2f},{v[1]:.2f},{v[2]:.2f}\n")
                    t0 = piece[0][0]
                    for s in piece:
                        f.write(f"{t + s[0] - t0:.3f},{s[1]:.2f},{s[2]:.2f},{s[3]:.2f}\n")
                    t += piece[-1][0] - t0 + JOIN
                    previous = piece[-1]
                tsv.append(f"{name}\twaist\t{LABELS[activity]}\t{start:.3f}\t{t:.3f}")
        tsv[-1] = tsv[-1].rsplit("\t", 1)[0] + f"\t{t - JOIN:.3f}"
    with open(os.path.join(out, "corpus.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
