#!/usr/bin/env python3
"""Builds traces of walking with a sensor at the thigh and at the lower back from the Daphnet
Freezing of Gait data set, in the `t,x,y,z` form `responderctl motion analyze` and ShakeAccuracy read.

    python3 convert.py GIT_DIR [OUT_DIR]   # a clone of github.com/terminalai/GaitMonitoringForParkinsonsDiseasePatients

Daphnet (Bächlin et al., IEEE TITB 14(2), 2010; UCI ML repository, CC BY 4.0): ten people with
Parkinson's disease walking in a lab (straight lines, turns, fetching coffee through rooms), three
accelerometers at 64 Hz in mg: the ankle, the thigh just above the knee, the trunk at the hip
(a belt). The copying repository keeps 7 of the 17 recordings (S01R02, S02R01, S02R02, S03R02,
S03R03, S06R02, S07R02); the others are too large for its history. Annotation 1 (the experiment:
walking, turning, standing) becomes the label `walking-turning`, 2 (a freeze of gait: the legs
trembling in place) `freezing`, 0 (sensors being put on, debriefing) `unlabelled`. Each recording
gives a thigh trace (placement `thigh`) and a trunk trace (`lower-back`), in m/s², the device's axes
as the sensor's (forward, vertical, lateral), time from the recording's first sample.
Split: subjects 1 and 2 tune, subjects 3, 6 and 7 are held out (`heldout/`).
"""
import os, subprocess, sys

G = 9.80665
RECORDINGS = ["S01R02", "S02R01", "S02R02", "S03R02", "S03R03", "S06R02", "S07R02"]
LABELS = {0: "unlabelled", 1: "walking-turning", 2: "freezing"}

def main(git, out):
    tsv = ["# file\tplacement\tlabel\tstart\tend   (written by convert.py)"]
    for rec in RECORDINGS:
        text = subprocess.run(["git", "--git-dir", git, "show", f"HEAD:daphnet/{rec}.txt"],
                              check=True, capture_output=True, text=True).stdout
        rows = [[float(v) for v in line.split()] for line in text.splitlines() if line.strip()]
        t0 = rows[0][0]
        held = rec[:3] not in ("S01", "S02")
        folder = os.path.join(out, "heldout") if held else out
        os.makedirs(folder, exist_ok=True)
        for placement, cols in (("thigh", (4, 5, 6)), ("lower-back", (7, 8, 9))):
            name = ("heldout/" if held else "") + f"daphnet-{rec.lower()}-{placement}-64hz.csv"
            with open(os.path.join(out, name), "w") as f:
                f.write("t,x,y,z\n")
                for r in rows:
                    f.write(f"{(r[0] - t0) / 1000:.3f},{r[cols[0]] * G / 1000:.3f},"
                            f"{r[cols[1]] * G / 1000:.3f},{r[cols[2]] * G / 1000:.3f}\n")
            start = 0
            for i in range(1, len(rows) + 1):
                if i == len(rows) or rows[i][10] != rows[start][10]:
                    end = rows[i][0] if i < len(rows) else rows[-1][0]
                    tsv.append(f"{name}\t{placement}\t{LABELS[int(rows[start][10])]}\t"
                               f"{(rows[start][0] - t0) / 1000:.3f}\t{(end - t0) / 1000:.3f}")
                    start = i
    with open(os.path.join(out, "corpus.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
