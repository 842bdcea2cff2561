#!/usr/bin/env python3
"""Builds traces of vehicle rides (a car driven on town streets and on a highway, the device in a
holder on the dashboard or the windshield) from two MIT-licensed repositories, in the `t,x,y,z`
form `responderctl motion analyze` and ShakeAccuracy read.

    python3 convert.py --comma2k19=GIT_DIR --quat-orient=GIT_DIR [OUT_DIR]
    python3 convert.py --clips --comma2k19=GIT_DIR --quat-orient=GIT_DIR clips

comma2k19 (github.com/commaai/comma2k19, MIT; H. Schafer, E. Santana, A. Haden, R. Biasini, "A
Commute in Data: The comma2k19 Dataset", 2018): its example segment, one minute of a Toyota RAV4 on
California's highway 280 recorded by a comma EON (a phone-like device in a holder on the
windshield) at 104 Hz, the accelerometer in m/s², gravity included, axes [forward, right, down]
(`Example_1/…/processed_log/IMU/accelerometer/{t,value}`, numpy arrays).

quat-orient (github.com/jimregiandrew/quat-orient, MIT, 2023): two five-to-six-minute drives of a
Toyota Corolla in Auckland (to a grandmother's house and back: a steep street, roundabouts,
bends, a driveway), a phone stuck with Blu Tack on the dashboard, AndroSensor at about 17 Hz, the
accelerometer in m/s², gravity included, the phone's axes (`data/accel.DATE.csv`, time in ms from
the start).

Each recording becomes one trace, one corpus.tsv stretch labelled `vehicle-car` with its
placement (`windshield-holder`, `dashboard-holder`), time from the recording's first sample.
Split: the drive back (2020-10-15-22) is held out (`heldout/`). `--clips` writes instead the
committed clips: the comma2k19 minute and two minutes of the drive there (60–180 s: the turn
into the steep street, the descent, the roundabout at its foot and the bends after it).
"""
import ast, os, struct, subprocess, sys

COMMA_SEGMENT = "Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40/processed_log/IMU/accelerometer/"
QUAT_DRIVES = [("2020-10-15-21", False), ("2020-10-15-22", True)]  # (date, held out)
CLIP_WINDOW = (60.0, 180.0)  # of the drive there


def git_bytes(repo, path):
    return subprocess.run(["git", "--git-dir", repo, "show", "HEAD:" + path], check=True,
                          capture_output=True).stdout


def numpy_array(data):
    """(shape, values in C order) of a little-endian float64 .npy file."""
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file")
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode())
    if header["descr"] != "<f8":
        raise ValueError(f"unexpected type {header['descr']}")
    body = data[10 + length:]
    values = struct.unpack(f"<{len(body) // 8}d", body)
    shape = header["shape"]
    if header["fortran_order"] and len(shape) == 2:
        rows, columns = shape
        values = [values[c * rows + r] for r in range(rows) for c in range(columns)]
    return shape, list(values)


def comma_samples(repo):
    """[(t s, x, y, z m/s²)] of the comma2k19 example segment."""
    (count,), times = numpy_array(git_bytes(repo, COMMA_SEGMENT + "t"))
    (rows, columns), values = numpy_array(git_bytes(repo, COMMA_SEGMENT + "value"))
    if rows != count or columns != 3:
        raise ValueError(f"{rows}×{columns} accelerations for {count} times")
    return [(times[i], *values[3 * i:3 * i + 3]) for i in range(count)]


def quat_samples(repo, date):
    """[(t s, x, y, z m/s²)] of one quat-orient drive."""
    samples = []
    for number, line in enumerate(git_bytes(repo, f"data/accel.{date}.csv").decode().splitlines()):
        if number == 0:
            continue  # "Time since start in ms ,ACCELEROMETER X (m/s²),…"
        f = line.split(",")
        samples.append((float(f[0]) / 1000, float(f[1]), float(f[2]), float(f[3])))
    return samples


def write(out, name, samples, placement, tsv):
    path = os.path.join(out, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    t0 = samples[0][0]
    kept = [samples[0]]
    for s in samples[1:]:
        if s[0] > kept[-1][0]:
            kept.append(s)
    with open(path, "w") as f:
        f.write("t,x,y,z\n")
        for s in kept:
            f.write(f"{s[0] - t0:.4f},{s[1]:.4f},{s[2]:.4f},{s[3]:.4f}\n")
    tsv.append(f"{name}\t{placement}\tvehicle-car\t0.000\t{kept[-1][0] - t0:.3f}")


def main(comma, quat, out, clips_only):
    tsv = ["# file\tplacement\tlabel\tstart\tend   (written by convert.py)"]
    write(out, "vehicle-car-windshield-100hz.csv", comma_samples(comma), "windshield-holder", tsv)
    for date, held in QUAT_DRIVES:
        samples = quat_samples(quat, date)
        if clips_only:
            if held:
                continue
            samples = [s for s in samples if CLIP_WINDOW[0] <= s[0] <= CLIP_WINDOW[1]]
        name = ("heldout/" if held else "") + "vehicle-car-dashboard-17hz.csv"
        write(out, name, samples, "dashboard-holder", tsv)
    with open(os.path.join(out, "corpus.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")


if __name__ == "__main__":
    options = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    rest = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "comma2k19" not in options or "quat-orient" not in options:
        sys.exit(__doc__)
    main(options["comma2k19"], options["quat-orient"],
         rest[0] if rest else os.path.dirname(os.path.abspath(__file__)), "--clips" in sys.argv)
