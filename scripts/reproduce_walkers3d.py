#!/usr/bin/python3
"""The 3-D walkers' section of results/README.md: Garcia's disk-foot walker
(models/garcia3d.yaml) reduced to the plane beside the 2-D file
(models/compass_round_spring.yaml), the mirrored one-step map against
Coleman's two-step map, the continuation in hip spacing with its lateral
multiplier, the 3-D rimless wheel's heading family (models/rimless3d.yaml)
against the planar closed form, and pictures.

Every computation runs at the two tolerances of its list below, and every
number is printed to the digits on which the two runs agree
(scripts/stable_digits.py); one that agrees to fewer digits than its table
needs is named on stderr with exit 1.  garcia3d's strides cost about 10 ms,
so the continuation runs one decade looser than the gaits, and the lateral
multiplier along the branch is sampled at about 15 points: about 4 minutes
on the shared 2-core machine (under a minute of CPU).

Writes results/walkers3d/: the tighter runs' branch CSVs and sidecars, the
gait's JSON, a walk's CSV, the pictures and summary.json (both runs'
numbers and every command); the looser runs' files go to a temporary
directory.  Tables on stdout, '### NAME' sections for
scripts/fill_results_readme.py (results/tables/walkers3d.md#NAME).

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_walkers3d.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

OUT = "results/walkers3d"
HERE = os.path.dirname(os.path.abspath(__file__))
G3 = "models/garcia3d.yaml"
G2 = "models/compass_round_spring.yaml"
R3 = "models/rimless3d.yaml"
FIXED = [("1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"]),
         ("1e-13", ["--rtol", "1e-13", "--atol", "1e-13", "--tol", "1e-12"])]
# Two continuations of about 80 points each: a decade looser than the gaits.
CONT = [("1e-10", ["--rtol", "1e-10", "--atol", "1e-10", "--tol", "1e-9"]),
        ("1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-10"])]
# garcia3d's free coordinates: which are sagittal and which lateral (lean,
# heading), as the file's joints make them (tests/test_garcia3d.c).
SAGITTAL, LATERAL = [2, 5, 6], [0, 1, 3, 4]
HEADINGS = [0.0, 0.2, 0.4]  # rimless3d's family members shown
LOG = []


def run(exe, args):
    LOG.append("stridemap " + " ".join(args))
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("stridemap %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def fixed(exe, args):
    p = run(exe, ["fixed"] + args + ["--json"])
    d = json.loads(p.stdout)
    if d["status"] != "ok":
        sys.exit("stridemap fixed %s: %s (%s)" % (" ".join(args), d["status"], d.get("message")))
    return d


def by_modulus(values):
    return sorted(values, key=lambda z: (-abs(z), -z.imag))


def eigs(d):
    return by_modulus([complex(re, im) for re, im in d["eigenvalues"]])


def block_eigs(d, idx):
    n = len(d["free_coordinates"])
    J = np.array(d["jacobian"]).reshape(n, n)
    return by_modulus(list(np.linalg.eigvals(J[np.ix_(idx, idx)])))


def cx(ck, name, a, b, need):
    """A multiplier to the digits both runs give: re, or re ± im (below
    0.01 in size, to 4 significant digits: the integration's error is
    absolute)."""
    if abs(b) < 0.01:
        need = min(need, 4)
    re = ck.sig(name + " re", a.real, b.real, need)
    if abs(b.imag) < 1e-9 * max(1.0, abs(b)):
        ck.bound(name + " im", a.imag, b.imag)
        return re
    return "%s %s %si" % (re, "+" if b.imag >= 0 else "−", ck.sig(name + " im", abs(a.imag), abs(b.imag), need))


def pairs(values):
    """Complex pairs once (the one with im > 0), reals as they are."""
    return [z for z in values if z.imag >= -1e-12 * max(1.0, abs(z))]


# ------------------------------------------------------------------ planar

def planar_state(d):
    """compass_round_spring's gait by name: its state (the legs; the file
    integrates them alone) and the hip, which sits on the stance disk
    rolling without slipping with its contact point at x = 0, as the full
    formulation's section puts it: disk centre (0, r), hip = centre +
    l (-sin th, cos th), th = leg_a, l the centre's distance below the hip;
    the disk turns with the leg (axis -y), so the centre's x rate is -r th'."""
    x = dict(zip(d["state_names"], d["fixed_point"]))
    r, l = d["params"]["contacts.disk_a.radius"], -d["params"]["sites.disk_a.pos.z"]
    th, w = x["leg_a"], x["leg_a_dot"]
    hip = {"hip_x": -l * math.sin(th), "hip_z": r + l * math.cos(th),
           "hip_x_dot": -(r + l * math.cos(th)) * w, "hip_z_dot": -l * math.sin(th) * w}
    return {**hip, **x}


def planar(exe, ck, rec):
    runs = []
    for _, tol in FIXED:
        d2 = fixed(exe, [G2] + tol)
        p2 = d2["params"]
        x2 = planar_state(d2)
        sets = ["--set", "hip_width=0", "--set", "leg_iyy=0",
                "--set", "forces.hip_spring.stiffness=%r" % p2["forces.hip_spring.stiffness"],
                "--set", "forces.hip_spring.damping=%r" % p2["forces.hip_spring.damping"]]
        names3 = ["hip_x", "hip_y", "hip_z", "hip_yaw", "hip_roll", "leg_a", "leg_b", "hip_x_dot", "hip_y_dot",
                  "hip_z_dot", "hip_yaw_dot", "hip_roll_dot", "leg_a_dot", "leg_b_dot"]
        guess = ",".join(repr(x2.get(n, 0.0)) for n in names3)
        d3 = fixed(exe, [G3] + sets + ["--guess=" + guess] + tol)
        runs.append((d2, d3))
    rec["planar"] = [{"compass_round_spring": a, "garcia3d_w0": b} for a, b in runs]
    (a2, a3), (b2, b3) = runs
    s3 = lambda d, n: d["fixed_point"][d["state_names"].index(n)]
    s2 = lambda d, n: planar_state(d)[n]
    out = ["garcia3d with hip_width = 0, leg_iyy = 0 (point-mass legs) and the 2-D file's hip spring and damper,"
           " from the 2-D gait as its guess, beside models/compass_round_spring.yaml; rtol = atol = %s and %s."
           % (FIXED[0][0], FIXED[1][0]), "",
           "| | compass_round_spring (2-D) | garcia3d, w = 0 | \\|difference\\| ≤ |", "|---|---|---|---|"]
    for n in ("leg_a", "leg_b", "leg_a_dot", "leg_b_dot", "hip_x_dot", "hip_z_dot"):
        out.append("| %s | %s | %s | %s |" % (
            n, ck.dec("2d " + n, s2(a2, n), s2(b2, n), 9), ck.dec("3d " + n, s3(a3, n), s3(b3, n), 9),
            ck.bound("planar diff " + n, s3(a3, n) - s2(a2, n), s3(b3, n) - s2(b2, n))))
    side = max(abs(s3(d, n)) for d in (a3, b3) for n in ("hip_y", "hip_yaw", "hip_roll", "hip_yaw_dot",
                                                          "hip_roll_dot", "hip_y_dot"))
    for key, label in (("step_period", "step period (s)"), ("step_length", "step length (m)")):
        out.append("| %s | %s | %s | %s |" % (
            label, ck.sig("2d " + key, a2[key], b2[key], 9), ck.sig("3d " + key, a3[key], b3[key], 9),
            ck.bound("planar diff " + key, a3[key] - a2[key], b3[key] - b2[key])))
    e2a, e2b = eigs(a2), eigs(b2)
    esa, esb = block_eigs(a3, SAGITTAL), block_eigs(b3, SAGITTAL)
    for k in range(3):
        out.append("| sagittal multiplier %d | %s | %s | %s |" % (
            k + 1, cx(ck, "2d eig%d" % k, e2a[k], e2b[k], 7), cx(ck, "3d sag eig%d" % k, esa[k], esb[k], 7),
            ck.bound("planar eig diff %d" % k, abs(esa[k] - e2a[k]), abs(esb[k] - e2b[k]))))
    ela, elb = block_eigs(a3, LATERAL), block_eigs(b3, LATERAL)
    n = len(a3["free_coordinates"])
    Ja, Jb = (np.array(d["jacobian"]).reshape(n, n) for d in (a3, b3))
    cross = max(max(abs(J[np.ix_(SAGITTAL, LATERAL)]).max(), abs(J[np.ix_(LATERAL, SAGITTAL)]).max()) for J in (Ja, Jb))
    zero = lambda t: "exactly 0" if t == "0" else "≤ " + t
    out += ["", "garcia3d at w = 0 stays upright and heads straight downhill (lean, heading, sideways sway and"
            " their rates: %s), its Jacobian's sagittal–lateral blocks are %s, and the lateral block's"
            " multipliers are %s: the heading family's −1 (at w = 0 a walker tilted to the cross-slope gravity"
            " walks straight at any heading; the mirror turns heading h into −h) and a sideways fall."
            % (zero(ck.bound("planar sideways", side, side)), zero(ck.bound("planar cross", cross, cross)),
               ", ".join(cx(ck, "3d lat eig%d" % k, ela[k], elb[k], 6) for k in range(4)))]
    return out


# ---------------------------------------------------------------- two-step

def two_step(exe, ck, rec):
    runs = [(fixed(exe, [G3] + tol), fixed(exe, [G3, "--two-step"] + tol)) for _, tol in FIXED]
    rec["two_step"] = [{"one_step": a, "two_step": b} for a, b in runs]
    (a1, a2), (b1, b2) = runs
    out = ["`stridemap fixed models/garcia3d.yaml` (the mirrored one-step map, seed 003 eq. 2.58) and the same"
           " with `--two-step` (Coleman's two steps, no mirror between); rtol = atol = %s and %s." % (
               FIXED[0][0], FIXED[1][0]), "",
           "| | one step λ | λ² | two steps | \\|two steps − λ²\\| / \\|λ²\\| ≤ |", "|---|---|---|---|---|"]
    o1a, o1b, t_a, t_b = eigs(a1), eigs(b1), eigs(a2), eigs(b2)
    worst = 0.0
    for k, (la, lb) in enumerate(zip(o1a, o1b)):
        if la.imag < -1e-12:
            continue
        sa, sb = la * la, lb * lb
        ta = min(t_a, key=lambda z: abs(z - sa))
        tb = min(t_b, key=lambda z: abs(z - sb))
        ra, rb = abs(ta - sa) / abs(sa), abs(tb - sb) / abs(sb)
        worst = max(worst, ra, rb)
        out.append("| %d | %s | %s | %s | %s |" % (k + 1, cx(ck, "one eig%d" % k, la, lb, 6),
                                                 cx(ck, "sq eig%d" % k, sa, sb, 6), cx(ck, "two eig%d" % k, ta, tb, 6),
                                                 ck.bound("two-step rel %d" % k, ra, rb)))
    xs = max(abs(u - v) for d1, d2 in runs for u, v in zip(d1["fixed_point"], d2["fixed_point"]))
    out += ["", "The same gait (fixed points within %s); two-step `minimal_period` %s.  A complex pair is shown once."
            % (ck.bound("two-step x", xs, xs), ck.same("minimal period", a2["minimal_period"], b2["minimal_period"]))]
    return out


# ------------------------------------------------------------ continuation

def read_branch(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    return rows


def continuation(exe, ck, rec, loose):
    runs = []
    for i, (label, tol) in enumerate(CONT):
        where = OUT if i == len(CONT) - 1 else loose
        up, down = where + "/hip_width_up.csv", where + "/hip_width_down.csv"
        run(exe, ["continue", G3, "--param", "hip_width", "--from", "0.02", "--to", "0.2", "--out", up] + tol)
        # the heading family's -1 at w = 0 is no bifurcation of the walker
        run(exe, ["continue", G3, "--param", "hip_width", "--from", "0.02", "--to", "0", "--no-locate",
                  "--out", down] + tol)
        with open(up[:-4] + ".json") as f:
            side = json.load(f)
        runs.append({"up": up, "down": down, "sidecar": side})
    rec["continuation"] = [{"tolerance": l, "branch": r["sidecar"]["branches"][0]} for (l, _), r in zip(CONT, runs)]
    ba, bb = (r["sidecar"]["branches"][0] for r in runs)
    sp = lambda b, t: [s for s in b["special"] if s["type"] == t]
    out = ["`stridemap continue models/garcia3d.yaml --param hip_width --from 0.02 --to 0.2` (and `--to 0`), rtol ="
           " atol = %s and %s:" % (CONT[0][0], CONT[1][0]), "",
           "| point | hip_width (m) | max \\|λ\\| | heading at the section (rad) |", "|---|---|---|---|"]
    yaw = lambda s: s["state"][3]
    for t, what in (("NS", "NS: the heading pair leaves the unit circle"), ("LP", "LP: fold")):
        sa, sb = sp(ba, t), sp(bb, t)
        ck.same("count " + t, len(sa), len(sb))
        for u, v in zip(sa, sb):
            out.append("| %s | %s | %s | %s |" % (what, ck.sig(t + " w", u["value"], v["value"], 5),
                                                 ck.sig(t + " max eig", u["max_abs_eigenvalue"],
                                                        v["max_abs_eigenvalue"], 4),
                                                 ck.dec(t + " yaw", yaw(u), yaw(v), 4)))
    ck.same("stop", ba["stop"], bb["stop"])
    ck.same("stop status", ba["stride_status"], bb["stride_status"])
    out.append("| end: `%s` (%s) | %s | | |" % (bb["stop"], bb["stride_status"],
                                              ck.sig("stop w", ba["stop_value"], bb["stop_value"], 4)))
    return out, runs


def out_of_plane(d):
    """The largest multiplier whose eigenvector is mostly lean, sway or heading."""
    return [complex(*e) for e, m in zip(d["eigenvalues"], d["modes"]) if m != "sagittal"][0]


def in_plane(d):
    return [complex(*e) for e, m in zip(d["eigenvalues"], d["modes"]) if m == "sagittal"][0]


def lateral_samples(exe, ck, rec, runs):
    """The lateral multiplier along the tighter branch: `fixed` at sampled
    points (its modes name each multiplier); and a few points at both
    tolerances for the table."""
    tight = CONT[-1][1]
    rows = read_branch(runs[-1]["down"])[::-1] + read_branch(runs[-1]["up"])[1:]
    names = runs[-1]["sidecar"]["state_names"]
    turn = max(range(len(rows)), key=lambda i: float(rows[i]["hip_width"]))
    # spaced along the branch: about 14 samples, and both ends
    step = max(1, len(rows) // 14)
    picks = list(range(0, len(rows), step))
    if picks[-1] != len(rows) - 1:
        picks.append(len(rows) - 1)
    samples = []
    for i in picks:
        r = rows[i]
        guess = ",".join(r[n] for n in names)
        d = fixed(exe, [G3, "--set", "hip_width=" + r["hip_width"], "--guess=" + guess] + tight)
        lat, sag = out_of_plane(d), in_plane(d)
        samples.append({"index": i, "hip_width": float(r["hip_width"]), "max_abs": d["max_abs_eigenvalue"],
                        "lateral": abs(lat), "lateral_value": [lat.real, lat.imag], "sagittal": abs(sag),
                        "modes": d["modes"], "eigenvalues": d["eigenvalues"], "heading": d["fixed_point"][3]})
    rec["lateral_samples"] = samples
    # the table's points at both tolerances
    out = ["", "On the branch from w = 0 up to the fold, the largest multiplier whose eigenvector is mostly out of the"
           " sagittal plane (`modes` of `fixed --json`: lean and sideways sway, `lateral`, or the heading), and the"
           " largest sagittal one (rtol = atol = %s and %s):" % (FIXED[0][0], FIXED[1][0]), "",
           "| hip_width (m) | heading (rad) | lean (rad) | largest out-of-plane multiplier (mode) | largest sagittal"
           " \\|λ\\| | stable |", "|---|---|---|---|---|---|"]
    table = []
    for w in (0.0, 0.02, 0.05, 0.08):
        near = min(rows[:turn + 1], key=lambda r: abs(float(r["hip_width"]) - w))
        guess = ",".join(near[n] for n in names)
        ds = [fixed(exe, [G3, "--set", "hip_width=%r" % w, "--guess=" + guess] + tol) for _, tol in FIXED]
        table.append({"hip_width": w, "runs": ds})
        lats, sags = [out_of_plane(d) for d in ds], [in_plane(d) for d in ds]
        mode = lambda d: [m for m in d["modes"] if m != "sagittal"][0]
        ck.same("w=%g mode" % w, mode(ds[0]), mode(ds[1]))
        ck.same("w=%g stable" % w, ds[0]["stable"], ds[1]["stable"])
        out.append("| %g | %s | %s | %s (%s) | %s | %s |" % (
            w, ck.dec("w=%g yaw" % w, ds[0]["fixed_point"][3], ds[1]["fixed_point"][3], 6),
            ck.dec("w=%g roll" % w, ds[0]["fixed_point"][4], ds[1]["fixed_point"][4], 6),
            cx(ck, "w=%g lateral" % w, lats[0], lats[1], 5), mode(ds[1]),
            ck.sig("w=%g sagittal" % w, abs(sags[0]), abs(sags[1]), 5), "yes" if ds[1]["stable"] else "no"))
    rec["lateral_table"] = table
    return out, rows, samples


def plot_branch(rows, samples, sidecar, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fold = [s["value"] for s in sidecar["branches"][0]["special"] if s["type"] == "LP"]
    # before the fold (w rising from 0) and after it (w falling again)
    w = [float(r["hip_width"]) for r in rows]
    m = [float(r["max_abs_eig"]) for r in rows]
    turn = max(range(len(w)), key=lambda i: w[i])
    fig, ax = plt.subplots(figsize=(8, 4.6))
    ax.plot(w[:turn + 1], m[:turn + 1], color="k", lw=1.6, label="max |λ|")
    ax.plot(w[turn:], m[turn:], color="k", lw=1.6, ls="--", label="max |λ|, past the fold")
    ax.plot([s["hip_width"] for s in samples if s["index"] <= turn],
            [s["lateral"] for s in samples if s["index"] <= turn], "o", color="tab:red",
            label="largest out-of-plane |λ| (lean, sway, heading: fixed --json modes)")
    ax.plot([s["hip_width"] for s in samples if s["index"] > turn],
            [s["lateral"] for s in samples if s["index"] > turn], "o", mfc="none", color="tab:red",
            label="largest out-of-plane |λ|, past the fold")
    ax.plot([s["hip_width"] for s in samples], [s["sagittal"] for s in samples], "s", color="tab:blue", ms=4,
            label="largest sagittal |λ|")
    for s in sidecar["branches"][0]["special"]:
        ax.axvline(s["value"], color="0.6", lw=0.8, ls=":")
        ax.annotate(s["type"], (s["value"], 1.0), textcoords="offset points",
                    xytext=(3, 3), fontsize=8, color="0.3")
    ax.axhline(1.0, color="tab:green", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("hip_width w (m)")
    ax.set_ylabel("|multiplier|")
    ax.set_title("garcia3d: laterally unstable along the branch (fold at w = %.4g)" % (fold[0] if fold else float("nan")),
                 fontsize=10)
    ax.legend(fontsize=7, loc="center right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------- rimless

def rimless(exe, ck, rec):
    runs = {b: [fixed(exe, [R3, "--set", "section.family.hub_yaw=%r" % b] + tol) for _, tol in FIXED]
            for b in HEADINGS}
    rec["rimless3d"] = {str(b): r for b, r in runs.items()}
    p = runs[0.0][1]["params"]
    m, l, I, g, gam = p["hub_mass"], p["spoke_length"], p["hub_axial"], p["gravity"], p["slope"]
    al = math.pi / 8
    J = I + m * l * l
    eta = 1 - m * l * l * (1 - math.cos(2 * al)) / J
    spin = lambda gm: eta * math.sqrt(4 * m * g * l * math.sin(al) * math.sin(gm) / (J * (1 - eta * eta)))
    out = ["`stridemap fixed models/rimless3d.yaml --set section.family.hub_yaw=b` (m = %g kg, l = %g m, I = %g kg m²,"
           " γ = %g), rtol = atol = %s and %s; closed forms: lean −atan(tan γ sin b), spin after impact η·√(4 m g l sin α"
           " sin γ′ / ((I + m l²)(1 − η²))) on the slope sin γ′ = sin γ cos b, η = 1 − m l² (1 − cos 2α)/(I + m l²),"
           " α = π/8, step 2 l sin α cos b:" % (m, l, I, gam, FIXED[0][0], FIXED[1][0]), "",
           "| b (rad) | lean | closed form | spin θ̇ | closed form | step (m) | closed form | family multiplier"
           " | max \\|λ\\| (mode) |", "|---|---|---|---|---|---|---|---|---|"]
    for b, (x, y) in runs.items():
        sx, sy = (dict(zip(d["state_names"], d["fixed_point"])) for d in (x, y))
        gp = math.asin(math.sin(gam) * math.cos(b))
        tv = lambda d: complex(*d["trivial_multiplier"])
        mi = lambda d: [i for i, (re, im) in enumerate(d["eigenvalues"]) if [re, im] != d["trivial_multiplier"]][0]
        out.append("| %g | %s | %.10f | %s | %.9f | %s | %.10f | %s | %s (%s) |" % (
            b, ck.dec("rim %g lean" % b, sx["hub_roll"], sy["hub_roll"], 10),
            -math.atan(math.tan(gam) * math.sin(b)) + 0.0,
            ck.dec("rim %g spin" % b, sx["hub_dot"], sy["hub_dot"], 9), -spin(gp),
            ck.dec("rim %g step" % b, x["step_length"], y["step_length"], 10), 2 * l * math.sin(al) * math.cos(b),
            cx(ck, "rim %g trivial" % b, tv(x), tv(y), 7),
            ck.sig("rim %g max" % b, x["max_abs_eigenvalue"], y["max_abs_eigenvalue"], 5), y["modes"][mi(y)]))
    x, y = runs[0.0]
    n = len(y["free_coordinates"])
    s = y["free_coordinates"].index("hub_dot")
    ja, jb = (np.array(d["jacobian"]).reshape(n, n)[s, s] for d in (x, y))
    out += ["", "Upright and straight downhill (b = 0) the spin's row and column of the Jacobian hold the sagittal"
            " multiplier alone: %s, closed form η² = %.10f." % (ck.dec("rim eta2", ja, jb, 9), eta * eta)]
    return out


# ---------------------------------------------------------------- pictures

def pictures(exe, rec):
    d = fixed(exe, [G3] + FIXED[1][1])
    with open(OUT + "/garcia3d_gait.json", "w") as f:
        json.dump(d, f, indent=2)
    x0 = ",".join(repr(v) for v in d["fixed_point"])
    run(exe, ["simulate", G3, "--x0=" + x0, "--steps", "4", "--out", OUT + "/garcia3d_walk.csv"] + FIXED[1][1][:4])
    for args in ([OUT + "/garcia3d_walk.csv", OUT + "/garcia3d_walk.png"],
                 ["--eigen", OUT + "/garcia3d_gait.json", OUT + "/garcia3d_modes.png", "--min-modulus", "0.5"]):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_walker3d.py")] + args, check=True,
                       stdout=sys.stderr)
    rec["pictures"] = ["garcia3d_walk.png", "garcia3d_modes.png"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    ck = stable_digits.Checker("walkers3d")
    rec = {}
    sections = {}
    with tempfile.TemporaryDirectory(prefix="walkers3d-loose-") as loose:
        sections["planar"] = planar(a.exe, ck, rec)
        sections["two_step"] = two_step(a.exe, ck, rec)
        cont, runs = continuation(a.exe, ck, rec, loose)
        lat, rows, samples = lateral_samples(a.exe, ck, rec, runs)
        sections["hip_width"] = cont + lat
        plot_branch(rows, samples, runs[-1]["sidecar"], OUT + "/hip_width.png")
    sections["rimless3d"] = rimless(a.exe, ck, rec)
    pictures(a.exe, rec)
    rec["commands"] = [c.replace(loose, "LOOSE") for c in LOG]  # the looser runs' files: a temporary directory
    rec["unstable"] = ck.unstable
    with open(OUT + "/summary.json", "w") as f:
        json.dump(rec, f, indent=1, default=lambda z: [z.real, z.imag] if isinstance(z, complex) else str(z))
    for name, lines in sections.items():
        print("### %s\n%s\n" % (name, "\n".join(lines)))
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
