#!/usr/bin/python3
"""The inverse dynamics of a controlled gait (issue 15, item 2): one step of
models/human9.yaml's periodic gait (simulate from the file's guess, sampled
at 1 kHz), its coordinates alone given to `stridemap inverse human9`, and
the moments and ground forces that come back set against the controller's
torques and the contact forces that drove the simulation.

The data file tests/data/human9_step.csv holds, per sample (the simulation's
start and sample rows; not its pre/post event rows), time, phase and the
eleven coordinates of the bodies, to 12 digits, without the clock (the
inverse sets it from the time), then the simulation's own columns as the
reference: each actuator's torque (ACTUATOR.torque) and each contact's force.

The inverse names its moments by the file's actuators, as the simulation
names their torques (hip_a.torque, ..., tau0.torque), so each is set
against the reference column of the same name.  Single support (ss1)
determines the moments (8 unknowns, 8 degrees of freedom): each must equal
the controller's.  Double support
leaves them free (the least-norm choice differs from the controller's), but
Newton's law for the whole body fixes the total ground force.  The rates and
accelerations come from the Savitzky-Golay differentiator (default: 7
samples, degree 4), one-sided at the first and last 3 samples of each run
of one phase (the impacts at heel-strike and foot-flat end runs): its error
is reported for the interior and the run ends apart.

Each error is printed as a bound over two simulations (rtol = atol = 1e-10
and 1e-12; scripts/stable_digits.py).  Writes tests/data/human9_step.csv
(from the 1e-10 run), results/human_inverse/human9.csv (the inverse's
output on it), results/human_inverse/human9_moments.png, and prints the
markdown table results/human_inverse/README.md shows.

Run from the top of the repo after building:
    /usr/bin/python3 scripts/reproduce_human9_inverse.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

DATA = "tests/data/human9_step.csv"
OUT = "results/human_inverse"
COORDS = ["hip_x", "hip_z", "hat", "thigh_a", "shank_a", "foot_a", "toe_a", "thigh_b", "shank_b", "foot_b", "toe_b"]
# the actuators' torques: the inverse's columns and the simulation's, by one name
MOMENTS = ["hip_a.torque", "hip_b.torque", "knee_a.torque", "knee_b.torque", "ankle_a.torque", "ankle_b.torque",
           "toe_a.torque", "tau0.torque"]
FORCES = ["tip_a.fx", "tip_a.fz", "heel_b.fx", "heel_b.fz", "flat_b.fx", "flat_b.fz"]
REFERENCE = MOMENTS + FORCES
PHASES = ["ss1", "ds1", "ds_flat"]
HALF = 3  # the differentiator's default half window


def num(s):
    v = float(s)
    return 0.0 if math.isnan(v) else v  # a contact the phase does not hold


def make_data(exe, tol, path):
    with tempfile.TemporaryDirectory() as tmp:
        walk = os.path.join(tmp, "walk.csv")
        subprocess.run([exe, "simulate", "models/human9.yaml", "--steps", "1", "--dt", "0.001", "--rtol", tol,
                        "--atol", tol, "--out", walk], check=True, stdout=subprocess.DEVNULL)
        with open(walk) as f:
            rows = [r for r in csv.DictReader(f) if r["kind"] in ("start", "sample")]
    with open(path, "w") as f:
        f.write(",".join(["time", "phase"] + COORDS + REFERENCE) + "\n")
        for r in rows:
            f.write(",".join([r["time"], r["phase"]] + ["%.10g" % float(r[c]) for c in COORDS] +
                             ["%.7g" % num(r[c]) for c in REFERENCE]) + "\n")


def errors(exe, data, out):
    subprocess.run([exe, "inverse", "human9", data, "-o", out], check=True)
    with open(data) as f:
        ref = list(csv.DictReader(f))
    with open(out) as f:
        inv = list(csv.DictReader(f))
    assert len(ref) == len(inv)
    # position of each sample in its run of one phase: interior or end
    n = len(ref)
    start = [0] * n
    for i in range(1, n):
        start[i] = start[i - 1] if ref[i]["phase"] == ref[i - 1]["phase"] else i
    end = [n - 1] * n
    for i in range(n - 2, -1, -1):
        end[i] = end[i + 1] if ref[i]["phase"] == ref[i + 1]["phase"] else i
    e = {}
    for i in range(n):
        ph = ref[i]["phase"]
        where = "interior" if i - start[i] >= HALF and end[i] - i >= HALF else "ends"
        dtau = max(abs(float(inv[i][k]) - num(ref[i][k])) for k in MOMENTS)
        dF = max(abs(float(inv[i][k]) - num(ref[i][k])) for k in FORCES)
        dtot = max(abs(sum(float(inv[i][k]) - num(ref[i][k]) for k in FORCES if k.endswith(c))) for c in (".fx", ".fz"))
        for key, v in (("tau", dtau), ("F", dF), ("total", dtot), ("res", float(inv[i]["residual"]))):
            e[(ph, where, key)] = max(e.get((ph, where, key), 0.0), v)
        e[(ph, where, "n")] = e.get((ph, where, "n"), 0) + 1
    return e


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    exe = os.path.abspath(ap.parse_args().exe)
    ck = stable_digits.Checker("human9 inverse")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for tol in ("1e-10", "1e-12"):
            data = DATA if tol == "1e-10" else os.path.join(tmp, "data.csv")
            out = os.path.join(OUT, "human9.csv") if tol == "1e-10" else os.path.join(tmp, "out.csv")
            make_data(exe, tol, data)
            runs.append(errors(exe, data, out))
    a, b = runs
    print("| phase | samples (interior + ends) | where | moments - controller's (N m) | forces - simulation's (N) "
          "| total ground force (N) | residual |")
    print("|---|---|---|---|---|---|---|")
    for ph in PHASES:
        for where in ("interior", "ends"):
            if (ph, where, "n") not in a:
                continue
            cells = []
            for key in ("tau", "F"):
                name = "%s %s %s" % (ph, where, key)
                cells.append("<= " + ck.bound(name, a[(ph, where, key)], b[(ph, where, key)]) if ph == "ss1"
                             else "free")
            cells.append("<= " + ck.bound(ph + where + "total", a[(ph, where, "total")], b[(ph, where, "total")]))
            cells.append("<= " + ck.bound(ph + where + "res", a[(ph, where, "res")], b[(ph, where, "res")]))
            print("| %s | %d + %d | %s | %s |" % (ph, a[(ph, "interior", "n")], a[(ph, "ends", "n")], where,
                                                 " | ".join(cells)))
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot_inverse.py"),
                    os.path.join(OUT, "human9.csv"), os.path.join(OUT, "human9_moments.png")], check=True)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
