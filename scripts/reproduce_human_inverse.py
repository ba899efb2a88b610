#!/usr/bin/python3
"""Seed 002's forward-simulation findings (Hu, Lin, Abel & Allaire, section
V) on models/human_hu9.yaml: the moments from the inverse dynamics of a
walking cycle, fed to the forward dynamics, reproduce the cycle's angles
for how long, with gravity 9.81, 2 and 0, in single and double support.

The reference cycle is generated (no published whole-body kinematics in
the model's coordinates were at hand): reference_cycle() below prescribes
the joint angles of one single support (0.40 s, stance foot flat on its
pinned toe tip, the swing leg brought forward, its knee flexing to ~50
degrees) and one double support (0.12 s, the hind heel rising about the
pinned hind toe tip, the front heel pinned ahead), as smooth functions of
time sampled at 120 Hz (a motion-capture rate); the base follows from the
pinned toe tip, and in double support the front knee and ankle from the
front heel's pin (Newton on the two closure equations), so that the data
meets every contact of its phase exactly, as measured data would only
approximately.  Written to results/human_inverse/reference.csv.

Then for each gravity g: `stridemap inverse --set gravity=g --forward`
(the same g for the inverse and the forward dynamics, as the seed says
it must be) at two integrator tolerances; per phase, the time until the
forward simulation's segment angles first leave the data by more than 1
degree ("follows the data for"), and the largest departure over the run.
Each number is printed only to the digits the two tolerances agree on
(scripts/stable_digits.py).  Writes results/human_inverse/g*.csv (the
inverse dynamics and the forward simulation), the pictures
results/human_inverse/{departure,moments_g9.81}.png, and prints the
markdown table results/README.md shows.

Run from the top of the repo after building:
    /usr/bin/python3 scripts/reproduce_human_inverse.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

MODEL = "models/human_hu9.yaml"
OUT = "results/human_inverse"
GRAVITIES = ["9.81", "2", "0"]
# measurement noise on the reference (a fixed draw): angles, hip position
NOISE_DEG, NOISE_M, NOISE_SEED = 0.01, 0.0001, 2
RUNS = [("1e-10", ["--rtol", "1e-10", "--atol", "1e-10"]), ("1e-12", ["--rtol", "1e-12", "--atol", "1e-12"])]
NAMES = ["hat.x", "hat.z", "hat", "thigh_a", "shank_a", "foot_a", "toe_a", "thigh_b", "shank_b", "foot_b", "toe_b"]
ANGLES = NAMES[2:10]  # the segments' angles (toe_b is locked)
FOLLOW = math.radians(1.0)
FS = 120.0

# models/human_hu9.yaml's default geometry (Winter's segments for 1.75 m)
LT, LS, AH, HB, MTP, LTOE = 0.42875, 0.4305, 0.06825, 0.055, 0.155, 0.056


def rot(th, v):
    """A vector of a body turned by th about +y (x forward, z up)."""
    c, s = math.cos(th), math.sin(th)
    return np.array([v[0] * c + v[1] * s, -v[0] * s + v[1] * c])


def leg(hat, thigh, shank, foot, toe):
    """Toe tip and heel of a leg, from the hip at the origin."""
    a = hat + thigh
    knee = rot(a, [0, -LT])
    a += shank
    ankle = knee + rot(a, [0, -LS])
    a += foot
    heel = ankle + rot(a, [-HB, -AH])
    mtp = ankle + rot(a, [MTP, -AH])
    return mtp + rot(a + toe, [LTOE, 0]), heel


def newton2(f, x):
    """x with f(x) = 0 (two equations, two unknowns), from x."""
    x = np.array(x, dtype=float)
    for _ in range(60):
        r = f(x)
        if np.max(np.abs(r)) < 1e-13:
            return x
        J = np.zeros((2, 2))
        for k in range(2):
            y = x.copy()
            y[k] += 1e-7
            J[:, k] = (f(y) - r) / 1e-7
        x = x - np.linalg.solve(J, r)
    raise SystemExit("reproduce_human_inverse: a closure did not converge")


def ankle_of(hip, hat, thigh, shank):
    a = hat + thigh
    return hip + rot(a, [0, -LT]) + rot(a + shank, [0, -LS])


V = 1.1  # walking speed (m/s): the hip's forward speed


def single_support(t):
    """0.40 s on the stance toe tip, the stance foot and toe flat: the hip
    at V forward, 0.80 m above the ankle and 2 cm higher at mid-stance, from
    0.20 m behind the ankle; the trunk within 0.02 rad of 0.03 forward; the
    stance hip and knee from the hip's path (the knee flexed); the swing
    thigh from 0.30 behind to 0.35 ahead, its knee 20 -> 60 -> 0 degrees,
    its foot near level."""
    s = t / 0.40
    tip = np.zeros(2)
    ankle = tip - np.array([MTP + LTOE, -AH])
    hip = ankle + np.array([-0.20 + V * t, 0.80 + 0.02 * math.sin(math.pi * s)])
    hat = 0.03 + 0.02 * math.sin(2 * math.pi * s)
    th, sh = newton2(lambda x: ankle_of(hip, hat, x[0], x[1]) - ankle, [-0.2 - hat, 0.2])
    foot_a = -(hat + th + sh)
    thigh_b = 0.3 - 0.65 * (3 * s * s - 2 * s ** 3) - hat
    shank_b = 0.35 + 0.7 * math.sin(math.pi * s) - 0.35 * s
    foot_b = -(hat + thigh_b + shank_b) + 0.1 * math.sin(math.pi * s)
    return list(hip) + [hat, th, sh, foot_a, 0.0, thigh_b, shank_b, foot_b, 0.0]


def double_support(t, front):
    """0.12 s: the hind toe tip pinned, the hind toe flat and its heel
    rising (the hind foot from 0.25 to 0.55 rad), the hip at V forward and
    0.86 m above the ground, from 0.15 m ahead of the hind toe tip; the
    hind hip and knee from the hip's path; the front thigh from 0.35 to
    0.28 rad ahead, the front knee and ankle from the front heel's pin at
    front (where the heel touches with the front knee at 0.05 rad)."""
    s = t / 0.12
    hat = 0.03
    psi = 0.25 + 0.30 * s
    mtp = np.array([-LTOE, 0.0])
    ankle = mtp - rot(psi, [MTP, -AH])
    hip = np.array([0.15 + V * t, 0.86])
    th, sh = newton2(lambda x: ankle_of(hip, hat, x[0], x[1]) - ankle, [0.3 - hat, 0.3])
    foot_a = psi - (hat + th + sh)
    thigh_b = -0.35 + 0.07 * s - hat
    a = [hat, th, sh, foot_a, -psi, thigh_b, 0.05, 0.0, 0.0]
    if front is None:  # the heel on the ground with the knee at 0.05 rad
        a[7] = newton2(lambda x: np.array([front_heel(a[:7] + [x[0], 0.0], hip)[1], x[1]]), [0.3, 0.0])[0]
        return a, front_heel(a, hip)
    a[6], a[7] = newton2(lambda x: front_heel(a[:6] + [x[0], x[1], 0.0], hip) - front, [0.05, 0.3])
    return list(hip) + a, front


def front_heel(a, hip):
    return hip + leg(a[0], a[5], a[6], a[7], a[8])[1]


def reference_cycle():
    rows = []
    n_ss = int(round(0.40 * FS)) + 1
    for i in range(n_ss):
        rows.append((i / FS, "ss1", single_support(i / FS)))
    t0 = rows[-1][0] + 1 / FS
    n_ds = int(round(0.12 * FS)) + 1
    _, front = double_support(0.0, None)
    for i in range(n_ds):
        rows.append((t0 + i / FS, "ds1", double_support(i / FS, front)[0]))
    return rows


def write_reference(path, rows):
    with open(path, "w") as f:
        f.write("time,phase," + ",".join(NAMES) + "\n")
        for t, ph, q in rows:
            f.write("%.6f,%s," % (t, ph) + ",".join("%.12f" % v for v in q) + "\n")


def add_noise(src, dst):
    """The reference with Gaussian noise of NOISE_DEG on every angle (the
    locked toe_b but) and NOISE_M on the hip's position."""
    rng = np.random.default_rng(NOISE_SEED)
    with open(src) as f:
        rows = list(csv.DictReader(f))
    with open(dst, "w") as f:
        f.write("time,phase," + ",".join(NAMES) + "\n")
        for r in rows:
            vals = []
            for n in NAMES:
                v = float(r[n])
                if n in ("hat.x", "hat.z"):
                    v += rng.normal(0, NOISE_M)
                elif n != "toe_b":
                    v += rng.normal(0, math.radians(NOISE_DEG))
                vals.append("%.12f" % v)
            f.write(r["time"] + "," + r["phase"] + "," + ",".join(vals) + "\n")


def inverse(exe, ref, g, extra, out):
    cmd = [exe, "inverse", MODEL, ref, "--set", "gravity=" + g, "--forward", "-o", out] + extra
    subprocess.run(cmd, check=True)
    with open(out) as f:
        return list(csv.DictReader(f))


def departures(rows):
    """Per phase run: duration, time until an angle leaves the data by more
    than FOLLOW (None: never), largest departure (rad), samples."""
    out = {}
    for ph in ("ss1", "ds1"):
        rs = [r for r in rows if r["phase"] == ph]
        t0 = float(rs[0]["time"])
        follow, worst = None, 0.0
        for r in rs:
            d = max(abs(float(r["fwd." + n]) - float(r[n])) for n in ANGLES)
            d = d if math.isfinite(d) else math.inf
            worst = max(worst, d)
            if follow is None and d > FOLLOW:
                follow = float(r["time"]) - t0 - 1 / FS  # the last sample within 1 degree
        out[ph] = (float(rs[-1]["time"]) - t0, follow, worst)
    return out


def plot(results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, ph, title in ((axes[0], "ss1", "single support (toe pinned)"), (axes[1], "ds1", "double support")):
        for g in GRAVITIES:
            rs = [r for r in results[g] if r["phase"] == ph]
            t0 = float(rs[0]["time"])
            t = [float(r["time"]) - t0 for r in rs]
            d = [max(max(abs(float(r["fwd." + n]) - float(r[n])) for n in ANGLES), 1e-12) for r in rs]
            ax.semilogy(t, [math.degrees(v) for v in d], marker=".", label="g = %s" % g)
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_title(title)
        ax.set_xlabel("time since the phase began (s)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("largest angle departure, forward vs data (deg)")
    axes[0].legend()
    fig.suptitle("human_hu9: forward simulation driven by the inverse-dynamics moments")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "departure.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default=os.environ.get("STRIDEMAP", "build/src/cli/stridemap"))
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    ref = os.path.join(OUT, "reference.csv")
    write_reference(ref, reference_cycle())
    ck = stable_digits.Checker("human_inverse")
    noisy = os.path.join(OUT, "reference_noisy.csv")
    add_noise(ref, noisy)
    results, table = {}, []
    for g, data in [(g, ref) for g in GRAVITIES] + [("9.81", noisy), ("0", noisy)]:
        tag = "g%s" % g + ("_noisy" if data == noisy else "")
        runs = []
        for label, extra in RUNS:
            out = os.path.join(OUT, "%s.csv" % tag if label == RUNS[-1][0] else "%s.rtol%s.csv" % (tag, label))
            runs.append(inverse(args.exe, data, g, extra, out))
        os.remove(os.path.join(OUT, "%s.rtol%s.csv" % (tag, RUNS[0][0])))
        if data == ref:
            results[g] = runs[-1]
        da, db = departures(runs[0]), departures(runs[1])
        for ph in ("ss1", "ds1"):
            (dur, fa, wa), (_, fb, wb) = da[ph], db[ph]
            name = "%s %s follows" % (tag, ph)
            if fa is None and fb is None:
                follows = "the whole %.2f s" % dur
            elif fa is None or fb is None:
                ck.fail(name, "%r at one tolerance, %r at the other" % (fa, fb))
                follows = "%r [UNSTABLE: %r vs %r]" % (fb, fa, fb)
            else:
                follows = "%s s" % ck.dec(name, fa, fb, 3)
            worst = ck.sig("%s %s worst" % (tag, ph), math.degrees(wa), math.degrees(wb), 2) \
                if math.isfinite(wb) else "diverged"
            table.append((g if data == ref else "%s, noisy data" % g, ph, follows, worst))
    subprocess.run([sys.executable, "scripts/plot_inverse.py", os.path.join(OUT, "g9.81.csv"),
                    os.path.join(OUT, "moments_g9.81.png")], check=True)
    plot(results)
    print("Noisy data: the reference with Gaussian noise of %g° on every angle and %g mm on the hip's "
          "position (numpy default_rng(%d)), as measured data would carry.\n" % (NOISE_DEG, 1000 * NOISE_M, NOISE_SEED))
    print("| g (m/s²) | phase | forward simulation within 1° of the data for | largest departure (°) |")
    print("|---|---|---|---|")
    for g, ph, follows, worst in table:
        print("| %s | %s | %s | %s |" % (g, {"ss1": "single support", "ds1": "double support"}[ph], follows, worst))
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
