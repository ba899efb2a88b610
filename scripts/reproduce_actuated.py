#!/usr/bin/python3
"""The actuated walkers' section of results/README.md: the three-link and
five-link walkers under hybrid-zero-dynamics control (models/three_link_hzd.yaml,
models/five_link.yaml), their gaits, torques and ground forces, continuations
in a controller parameter with the stable range, a sweep over the five-link
walker's torso, and pictures.

Every computation runs at both tolerances of its RUNS (rtol = atol and
Newton's --tol, explicit); every number is printed to the digits on which
the two runs agree (scripts/stable_digits.py), and one that agrees to fewer
digits than its table needs is named on stderr with exit 1.  The tighter
run's files go to results/actuated/ (the looser run's to a temporary
directory); the tables to standard output, one "### NAME" section each.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_actuated.py [--exe build/src/cli/stridemap] [--jobs 2]
"""
import argparse
import csv
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = "results/actuated"
# Gaits (fixed, simulate): as the other walkers' tables.
FIXED_RUNS = [("1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-10"]),
              ("1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"])]
# Continuations and the sweep: many gaits each, so a tenfold looser pair,
# and Newton's --tol two decades above rtol: with BDF on these stiff
# closed loops a stride's noise reaches 1e-10 at rtol 1e-11, where a
# corrector held to 1e-10 stalls before three_link_hzd's fold in epsilon.
CONT_RUNS = [("1e-10", ["--rtol", "1e-10", "--atol", "1e-10", "--tol", "1e-8"]),
             ("1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-9"])]
THETA1D = 0.392699081698724  # pi/8, three_link_hzd's default
# models/three_link_hzd.yaml's impact-invariant design (its header).
INVARIANT = ["--set", "a01=0.8", "--set", "a11=0", "--set", "a31=0", "--set", "a21=-0.93332082096017",
             "--set", "a12=-1.70600832248951"]
# The swing leg's output with a02 = 0: the foot clears the ground but at mid-stance.
CLEAR = ["--set", "a02=0"]
SWEEP = ["five_link", "--grid", "torso_mass=8:16:8", "--grid", "torso_com=0.14:0.34:8"]


def sm(exe, args, ok=(0,)):
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("stridemap %s failed (exit %d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def fixed(exe, args, tol):
    return json.loads(sm(exe, ["fixed"] + args + ["--json"] + tol).stdout)


def simulate(exe, model, args, gait, tol, out, dt):
    x0 = ",".join(repr(v) for v in gait["fixed_point"])
    tol = [v for k, v in enumerate(tol) if v != "--tol" and (k == 0 or tol[k - 1] != "--tol")]  # (Newton's)
    p = sm(exe, ["simulate", model] + args + ["--x0", x0, "--steps", "2", "--dt", str(dt), "--out", out] + tol)
    return p.stderr


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def swing_height(rows, r=1.0):
    """Times, and three_link_hzd's swing foot heights r (cos leg_a - cos leg_b),
    over the first step (samples and the row before heel-strike)."""
    t, h = [], []
    for row in rows:
        if row["step"] != "0" or row["kind"] not in ("start", "sample", "pre"):
            continue
        t.append(float(row["time"]))
        h.append(r * (math.cos(float(row["leg_a"])) - math.cos(float(row["leg_b"]))))
    return t, h


def below_ground(rows):
    """The first step's time below the ground (zero crossings by linear
    interpolation) as a fraction of the step, and the lowest height."""
    t, h = swing_height(rows)
    below = 0.0
    for k in range(1, len(t)):
        a, b = h[k - 1], h[k]
        if a < 0 and b < 0:
            below += t[k] - t[k - 1]
        elif (a < 0) != (b < 0):
            f = a / (a - b)
            below += (t[k] - t[k - 1]) * (f if a < 0 else 1 - f)
    return below / (t[-1] - t[0]), min(h)


def legs_cross(p):
    """theta1 where the legs pass each other on y2 = 0 (theta2 = theta1):
    g(theta1) = 2 theta1 - (a02 + a12 theta1 + a22 theta1^2 + a32 theta1^3)(theta1^2 - theta1d^2) = 0,
    by bisection on [0, theta1d]: g(theta1d) = 2 theta1d > 0 and g(0) = a02 theta1d^2
    (0 for a02 = 0: the legs pass at mid-stance)."""
    d = p["theta1d"]

    def g(x):
        return 2 * x - (p["a02"] + p["a12"] * x + p["a22"] * x ** 2 + p["a32"] * x ** 3) * (x * x - d * d)

    lo, hi = 0.0, d
    if g(lo) >= 0:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if g(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def eig_text(ck, name, a, b, need_first=6):
    """The multipliers by modulus: the first to `need_first` digits, the next
    to 2, the rest bounded."""
    out = []
    for k, (ea, eb) in enumerate(zip(a["eigenvalues"], b["eigenvalues"])):
        if k == 0:
            out.append(ck.sig("%s eig1" % name, ea[0], eb[0], need_first, show=need_first + 2))
        elif k == 1 and abs(eb[0]) > 1e-4 and eb[1] == 0:
            out.append(ck.sig("%s eig2" % name, ea[0], eb[0], 2, show=3))
        else:
            rest = [abs(complex(*e)) for e in a["eigenvalues"][k:]] + [abs(complex(*e)) for e in b["eigenvalues"][k:]]
            out.append("the rest below %s" % ck.bound("%s rest" % name, max(rest), max(rest)))
            break
    return ", ".join(out)


def continuation(exe, args, param, lo, hi, tol, out, step="0.01", step_max="0.05"):
    sm(exe, ["continue"] + args + ["--param", param, "--from", str(lo), "--to", str(hi), "--step", step,
                                   "--step-max", step_max, "--out", out] + tol, ok=(0, 1))
    rows = read(out)
    with open(out[:-4] + ".json") as f:
        side = json.load(f)
    return rows, side


def stable_stretches(rows):
    """The stretches of a branch (its rows in order) where the gait is
    stable, each from and to the start, the end or a special point ("the
    LP", or "the first LP" where there are several)."""
    kinds = [r["type"] for r in rows if r["type"] in ("LP", "PD", "NS", "BP")]
    seen, out, start, stable = {}, [], "the start", None
    for r in rows:
        t = r["type"]
        if t in ("LP", "PD", "NS", "BP"):
            seen[t] = seen.get(t, 0) + 1
            name = "the %s%s" % ("" if kinds.count(t) == 1 else ("first ", "second ", "third ")[min(seen[t], 3) - 1], t)
            if stable:
                out.append((start, name))
            start, stable = name, None
            continue
        if stable is None:
            stable = r["stable"] == "1"
    if stable:
        out.append((start, "the end"))
    return out


def specials(side):
    return [s for b in side["branches"] for s in b["special"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    exe = a.exe
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="sm_actuated_")
    ck = stable_digits.Checker("actuated")
    fixed_note = ("rtol = atol = %s and %s (Newton --tol one decade looser: scripts/reproduce_actuated.py); the digits"
                  " shown are those both runs give." % (FIXED_RUNS[0][0], FIXED_RUNS[1][0]))

    # ---- three-link walker ----------------------------------------------------
    cases = [("book", "three_link_hzd", [], "the issue's (book's) coefficients"),
             ("invariant", "three_link_hzd", INVARIANT, "impact-invariant design (a01 0.8, a11 = a31 = 0, a21, a12 solved)"),
             ("a02_0", "three_link_hzd", CLEAR, "a02 = 0 (the swing foot above the ground but at mid-stance)")]
    g3 = {}
    for key, model, args, _ in cases:
        g3[key] = [fixed(exe, [model] + args, tol) for _, tol in FIXED_RUNS]
        with open("%s/three_link_%s.json" % (OUT, key), "w") as f:
            json.dump(g3[key][1], f, indent=2)
    # The swing foot's height from 1e-4 s samples (in the temporary
    # directory), the drawn walk from 5e-3 s ones.
    sims = {}
    for key, model, args, _ in cases:
        if key == "invariant":
            continue
        sims[key] = []
        for (name, tol), gait in zip(FIXED_RUNS, g3[key]):
            path = "%s/three_link_%s_%s.csv" % (tmp, key, name)
            simulate(exe, model, args, gait, tol, path, 1e-4)
            sims[key].append(read(path))
        simulate(exe, model, args, g3[key][1], FIXED_RUNS[1][1], "%s/three_link_%s.csv" % (OUT, key), 0.005)
    print("### three_link\n")
    print(fixed_note + "\n")
    print("| outputs | step period (s) | step length (m) | speed (m/s) | full-map multipliers | restricted δ² |"
          " \\|y\\| thrown by the impact | peak torques (N m) | min normal force (N) | max \\|Ft/Fn\\| |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, _, _, label in cases:
        x, y = g3[key]
        ck.same("three_link %s status" % key, x["status"], y["status"])
        ck.same("three_link %s stable" % key, x["stable"], y["stable"])
        rx, ry = x["restricted_map"], y["restricted_map"]
        inv = ("≤ " + ck.bound(key + " invariance", rx["invariance"], ry["invariance"])
               if ry["invariance"] < 1e-6 else ck.sig(key + " invariance", rx["invariance"], ry["invariance"], 3))
        print("| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s |" % (
            label,
            ck.sig(key + " period", x["step_period"], y["step_period"], 6, show=8),
            ck.sig(key + " length", x["step_length"], y["step_length"], 6, show=8),
            ck.sig(key + " speed", x["speed"], y["speed"], 6, show=8),
            eig_text(ck, "three_link " + key, x, y),
            ck.sig(key + " delta2", rx["multiplier"], ry["multiplier"], 8),
            inv,
            ck.sig(key + " tau_a", x["ground"]["torso_leg_a.max_torque"], y["ground"]["torso_leg_a.max_torque"], 4),
            ck.sig(key + " tau_b", x["ground"]["torso_leg_b.max_torque"], y["ground"]["torso_leg_b.max_torque"], 4),
            ck.sig(key + " fn", x["ground"]["min_normal_force"], y["ground"]["min_normal_force"], 4),
            ck.sig(key + " ratio", x["ground"]["max_friction_ratio"], y["ground"]["max_friction_ratio"], 4)))
    print()
    x, y = g3["book"]
    print("With the issue's coefficients the full map's dominant multiplier (%s) is not the restricted map's δ² (%s):"
          " the outputs are not impact invariant, so the impact throws the state off the zero dynamics (ζ⁺ %s on"
          " the full map's orbit against δ² ζ* = %s on the restricted map's) and the restricted map only"
          " approximates the full one.  On the invariant design the two agree (%s and %s)." % (
              ck.sig("book eig1 again", x["eigenvalues"][0][0], y["eigenvalues"][0][0], 6),
              ck.sig("book delta2 again", x["restricted_map"]["multiplier"], y["restricted_map"]["multiplier"], 6),
              ck.sig("book zeta+ full", x["restricted_map"]["full_map"]["zeta_plus"],
                     y["restricted_map"]["full_map"]["zeta_plus"], 6),
              ck.sig("book zeta+", x["restricted_map"]["zeta_plus"], y["restricted_map"]["zeta_plus"], 6),
              ck.sig("inv eig1 again", g3["invariant"][0]["eigenvalues"][0][0], g3["invariant"][1]["eigenvalues"][0][0], 7),
              ck.sig("inv delta2 again", g3["invariant"][0]["restricted_map"]["multiplier"],
                     g3["invariant"][1]["restricted_map"]["multiplier"], 7)))
    print()
    cross = legs_cross(y["params"])
    fa, ha = below_ground(sims["book"][0])
    fb, hb = below_ground(sims["book"][1])
    ca, cha = below_ground(sims["a02_0"][0])
    cb, chb = below_ground(sims["a02_0"][1])
    print("The swing foot (issue's coefficients): on y₂ = 0 the legs pass each other at θ₁ = %.6f rad (closed form:"
          " 2θ₁ = (a₀₂ + a₁₂θ₁ + a₂₂θ₁² + a₃₂θ₁³)(θ₁² − θ₁d²), θ₁d = π/8 = %.6f), and from there to the impact the"
          " straight swing leg's foot is below the ground: %s of the step's time, %s m at the lowest (`simulate`,"
          " every 1e-4 s).  With a₀₂ = 0 the legs pass at θ₁ = %g, and the foot is below the ground for %s of the"
          " step, at most %s m deep: it touches the ground at mid-stance, where the legs pass, as every"
          " straight-legged walker's foot must, and the outputs' error left by the impact (the design is not"
          " impact invariant) puts it a hair below." % (
              cross, THETA1D, ck.dec("below fraction", fa, fb, 3), ck.dec("lowest", ha, hb, 4),
              legs_cross(g3["a02_0"][1]["params"]), ck.dec("a02 below fraction", ca, cb, 4),
              ck.bound("a02 lowest", cha, chb)))
    print()

    # ---- five-link walker -----------------------------------------------------
    g5 = [fixed(exe, ["five_link"], tol) for _, tol in FIXED_RUNS]
    with open(OUT + "/five_link.json", "w") as f:
        json.dump(g5[1], f, indent=2)
    for (name, tol), gait in zip(FIXED_RUNS, g5):
        path = (OUT if name == FIXED_RUNS[1][0] else tmp) + "/five_link.csv"
        steps = simulate(exe, "five_link", [], gait, tol, path, 0.005)
        if name == FIXED_RUNS[1][0]:
            with open(OUT + "/five_link.steps.txt", "w") as f:
                f.write(steps)
    x, y = g5
    ck.same("five_link status", x["status"], y["status"])
    ck.same("five_link stable", x["stable"], y["stable"])
    gx, gy = x["ground"], y["ground"]
    print("### five_link\n")
    print(fixed_note + "\n")
    print("| step period (s) | step length (m) | speed (m/s) | full-map multipliers | restricted δ² | ζ* (J) |"
          " normal force (N) | max \\|Ft/Fn\\| | cost of transport |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("| %s | %s | %s | %s | %s | %s | %s – %s | %s | %s |" % (
        ck.sig("5 period", x["step_period"], y["step_period"], 6, show=8),
        ck.sig("5 length", x["step_length"], y["step_length"], 6, show=8),
        ck.sig("5 speed", x["speed"], y["speed"], 6, show=8),
        eig_text(ck, "five_link", x, y, need_first=7),
        ck.sig("5 delta2", x["restricted_map"]["multiplier"], y["restricted_map"]["multiplier"], 8),
        ck.sig("5 zeta*", x["restricted_map"]["zeta_star"], y["restricted_map"]["zeta_star"], 8),
        ck.sig("5 fn min", gx["min_normal_force"], gy["min_normal_force"], 5),
        ck.sig("5 fn max", gx["max_normal_force"], gy["max_normal_force"], 5),
        ck.sig("5 ratio", gx["max_friction_ratio"], gy["max_friction_ratio"], 4),
        ck.sig("5 cot", x["cost_of_transport"], y["cost_of_transport"], 5)))
    print()
    print("| actuator | peak \\|torque\\| over a step (N m) |")
    print("|---|---|")
    for act, what in (("hip_a", "stance hip"), ("hip_b", "swing hip"), ("knee_a", "stance knee"),
                      ("knee_b", "swing knee")):
        k = act + ".max_torque"
        print("| %s (`%s`) | %s |" % (what, act, ck.sig("5 " + k, gx[k], gy[k], 5)))
    print()

    # ---- continuations --------------------------------------------------------
    print("### continuation\n")
    print("rtol = atol = %s and %s (Newton --tol two decades looser: scripts/reproduce_actuated.py); the digits shown"
          " are those both runs give.\n" % (CONT_RUNS[0][0], CONT_RUNS[1][0]))
    runs = {}
    for key, args, param, lo, hi, step, smax in (
            ("three_link_theta1d_down", ["three_link_hzd"], "theta1d", THETA1D, 0.1, "0.01", "0.05"),
            ("three_link_theta1d_up", ["three_link_hzd"], "theta1d", THETA1D, 0.45, "0.01", "0.05"),
            ("three_link_epsilon", ["three_link_hzd"], "epsilon", 0.1, 0.3, "0.05", "0.1"),
            ("three_link_invariant_epsilon", ["three_link_hzd"] + INVARIANT, "epsilon", 0.1, 1.0, "0.05", "0.1"),
            ("five_link_epsilon", ["five_link"], "epsilon", 0.05, 0.3, "0.02", "0.05")):
        runs[key] = []
        for name, tol in CONT_RUNS:
            out = "%s/%s.csv" % (OUT if name == CONT_RUNS[1][0] else tmp, key)
            runs[key].append(continuation(exe, args, param, lo, hi, tol, out, step, smax))
    print("| branch | followed over | special points | stable | max \\|λ\\| along it | how it ends |")
    print("|---|---|---|---|---|---|")
    for key, label, param in (
            ("three_link_theta1d_down", "three_link_hzd (issue's outputs), impact angle θ₁d from π/8 down", "theta1d"),
            ("three_link_theta1d_up", "three_link_hzd (issue's outputs), θ₁d from π/8 up", "theta1d"),
            ("three_link_epsilon", "three_link_hzd (issue's outputs), ε", "epsilon"),
            ("three_link_invariant_epsilon", "three_link_hzd (invariant design), ε", "epsilon"),
            ("five_link_epsilon", "five_link, ε", "epsilon")):
        (ra, sa), (rb, sb) = runs[key]
        pa = [r for r in ra if r["type"] != "MX"]
        pb = [r for r in rb if r["type"] != "MX"]
        spa, spb = specials(sa), specials(sb)
        ck.same(key + " specials", [s["type"] for s in spa], [s["type"] for s in spb])
        # (a BP is located only as closely as the corrector, singular there,
        # converges next to it: 3 digits needed)
        sp = ", ".join("%s at %s = %s (max \\|λ\\| %s)" % (
            s2["type"], param, ck.sig("%s %s" % (key, s2["type"]), s1["value"], s2["value"],
                                      3 if s2["type"] == "BP" else 4, show=6),
            ck.dec("%s %s eig" % (key, s2["type"]), s1["max_abs_eigenvalue"], s2["max_abs_eigenvalue"], 2))
            for s1, s2 in zip(spa, spb)) or "none"
        segs = [stable_stretches(pa), stable_stretches(pb)]
        ck.same(key + " stable stretches", segs[0], segs[1])
        if segs[1] == [("the start", "the end")]:
            stable = "yes, all along"
        elif not segs[1]:
            stable = "no, all along"
        else:
            stable = "; ".join("from %s to %s" % st for st in segs[1])
        ba, bb = sa["branches"][0], sb["branches"][0]
        # Where no gait can be found ahead (the step stalling) the multipliers
        # change fast and each run stops at its own place: the range leaves
        # out the last 2 % of the way there.
        start = float(pb[0][param])
        keep = lambda r: True  # noqa: E731
        if bb["stop"] == "failed":
            end = min(ba["stop_value"], bb["stop_value"], key=lambda v: abs(v - start))
            cut = start + 0.98 * (end - start)
            keep = lambda r: (float(r[param]) - cut) * (end - start) <= 0  # noqa: E731
        ma = [float(r["max_abs_eig"]) for r in pa if keep(r)]
        mb = [float(r["max_abs_eig"]) for r in pb if keep(r)]
        rng = "%s – %s" % (ck.dec(key + " min eig", min(ma), min(mb), 3), ck.dec(key + " max eig", max(ma), max(mb), 3))
        ck.same(key + " stop", ba["stop"], bb["stop"])
        end = "%s at %s = %s" % (bb["stop"], param, ck.sig(key + " stop value", ba["stop_value"], bb["stop_value"], 4, show=6))
        if bb["stop"] == "failed":
            last = pb[-1]
            end += " (%s; the last gait's step period %s s)" % (bb["stride_status"], ck.sig(
                key + " last period", float(pa[-1]["step_period"]), float(last["step_period"]), 2))
        lo = min(float(pb[0][param]), float(pb[-1][param]))
        hi = max(float(pb[0][param]), float(pb[-1][param]))
        print("| %s | %.4g – %.4g | %s | %s | %s | %s |" % (label, lo, hi, sp, stable, rng, end))
    print()
    print("On a branch that ends where no gait can be found ahead, the range of max |λ| leaves out the last 2 % of"
          " the way there, where each run stops at its own place.")
    print()
    # The impact angle's two halves drawn as one picture (the upper one as branch 1).
    with open("%s/three_link_theta1d_down.csv" % OUT) as f:
        both = f.read()
    with open("%s/three_link_theta1d_up.csv" % OUT) as f:
        both += "".join("1" + line[1:] for line in f.readlines()[1:])
    with open(tmp + "/three_link_theta1d.csv", "w") as f:
        f.write(both)
    for csv_path, png, y in ((tmp + "/three_link_theta1d.csv", "three_link_theta1d", "step_period"),
                             ("%s/five_link_epsilon.csv" % OUT, "five_link_epsilon", "eig1_re"),
                             ("%s/three_link_invariant_epsilon.csv" % OUT, "three_link_invariant_epsilon", "eig1_re"),
                             ("%s/three_link_epsilon.csv" % OUT, "three_link_epsilon", "eig1_re")):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_branch.py"), csv_path,
                        "%s/%s.png" % (OUT, png), "--y", y], check=True, stdout=sys.stderr)

    # ---- sweep ----------------------------------------------------------------
    rows = []
    for name, tol in CONT_RUNS:
        out = (OUT if name == CONT_RUNS[1][0] else tmp) + "/sweep_five_link_torso"
        os.makedirs(out, exist_ok=True)
        for f in glob.glob(out + "/part-*") + glob.glob(out + "/sweep.*"):
            os.remove(f)
        sm(exe, ["sweep"] + SWEEP + tol + ["--jobs", str(a.jobs), "-q", "--out", out], ok=(0, 1))
        for f in glob.glob(out + "/part-*"):
            os.remove(f)
        rows.append(read(out + "/sweep.csv"))
    top = OUT + "/sweep_five_link_torso"
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_stability_map.py"), top + "/sweep.csv", "--out",
                    top + "/map.png", "--x", "torso_com", "--y", "torso_mass", "--xlabel",
                    "torso centre of mass above the hip (m)", "--ylabel", "torso mass (kg)"], check=True,
                   stdout=sys.stderr)
    ra, rb = rows
    print("### sweep\n")
    print("`stridemap sweep %s` at rtol = atol = %s and %s (Newton --tol two decades looser); the outputs are the"
          " file's, designed for the default torso.\n" % (" ".join(SWEEP), CONT_RUNS[0][0], CONT_RUNS[1][0]))
    counts, worst = {}, 0.0
    for p, q in zip(ra, rb):
        ck.same("sweep %s,%s outcome" % (q["torso_mass"], q["torso_com"]), p["outcome"], q["outcome"])
        counts[q["outcome"]] = counts.get(q["outcome"], 0) + 1
        if p["max_abs_eig"] not in ("", "nan") and q["max_abs_eig"] not in ("", "nan"):
            worst = max(worst, abs(float(p["max_abs_eig"]) - float(q["max_abs_eig"])))
    ck.checked += 1
    if not worst <= 5e-4:
        ck.fail("sweep max|lambda|", "differs by %g between the tolerances" % worst)
    print("%d points: %s; every outcome the same at both tolerances, max |λ| at most %.1e apart." % (
        len(rb), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())), worst))
    print()
    masses = sorted({float(r["torso_mass"]) for r in rb})
    coms = sorted({float(r["torso_com"]) for r in rb})
    print("| torso mass (kg) \\ centre of mass (m) | " + " | ".join("%.4g" % c for c in coms) + " |")
    print("|---|" + "---|" * len(coms))
    for mval in masses:
        cells = []
        for c in coms:
            q = [r for r in rb if float(r["torso_mass"]) == mval and float(r["torso_com"]) == c][0]
            p = ra[int(q["index"])]
            if q["outcome"] in ("stable", "unstable"):
                cells.append(ck.dec("sweep %g %g" % (mval, c), float(p["max_abs_eig"]), float(q["max_abs_eig"]), 3)
                             + ("" if q["outcome"] == "stable" else " (unstable)"))
            else:
                cells.append("%s (%s)" % (q["outcome"], q["stride_status"] if q["stride_status"] != "ok" else q["status"]))
        print("| %.4g | %s |" % (mval, " | ".join(cells)))
    print()

    # ---- pictures -------------------------------------------------------------
    for key in ("book", "a02_0"):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_actuated.py"), "three_link_hzd",
                        "%s/three_link_%s.csv" % (OUT, key), "%s/three_link_%s.png" % (OUT, key)], check=True)
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_actuated.py"), "five_link", OUT + "/five_link.csv",
                    OUT + "/five_link.png"], check=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
