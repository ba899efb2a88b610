#!/usr/bin/python3
"""The tables of results/README.md that come from one `stridemap fixed` per
walker: every built-in walker's default gait, the rimless wheel against its
closed form, and the kneed walkers of models/*.yaml against Garcia (1999).

Each gait is found at both tolerances of RUNS (rtol = atol, Newton's --tol,
the finite-difference step, all explicit); every number is printed to the
digits on which the two runs agree (scripts/stable_digits.py), and one that
agrees to fewer digits than its table needs is named on stderr with exit 1.
The tighter run's JSON goes to results/gaits/MODEL.json (read by
scripts/reproduce_gaits.sh); both runs' to results/gaits/walkers.json.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_walkers.py [--exe build/src/cli/stridemap]
"""
import argparse
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

RUNS = [("1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"]),
        ("1e-13", ["--rtol", "1e-13", "--atol", "1e-13", "--tol", "1e-12"])]
WALKERS = [("simplest", ["simplest"]), ("compass", ["compass"]), ("rimless", ["rimless"]), ("slip", ["slip"]),
           ("kneed_mcgeer", ["models/kneed_mcgeer.yaml"]), ("kneed_hsu", ["models/kneed_hsu.yaml"])]
OUT = "results/gaits"


def fixed(exe, args, tol):
    p = subprocess.run([exe, "fixed"] + args + ["--json"] + tol, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("stridemap fixed %s failed: %s" % (" ".join(args + tol), p.stderr.strip()))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--tables", metavar="DIR", help="also write each table to DIR/walkers_{gaits,rimless,kneed}.md")
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    res, record = {}, {}
    for name, args in WALKERS:
        runs = [fixed(a.exe, args, tol) for _, tol in RUNS]
        res[name] = runs
        record[name] = [{"command": "stridemap fixed %s --json %s" % (" ".join(args), " ".join(tol)), "result": d}
                        for (_, tol), d in zip(RUNS, runs)]
        if name in ("simplest", "compass", "rimless", "slip"):
            with open("%s/%s.json" % (OUT, name), "w") as f:
                json.dump(runs[1], f, indent=2)
    ck = stable_digits.Checker("walkers")
    for name, (x, y) in res.items():
        ck.same(name + " status", x["status"], y["status"])
        ck.same(name + " stable", x["stable"], y["stable"])

    def s(name, key, need, show=None, f=lambda d, k: d[k]):
        x, y = res[name]
        return ck.sig("%s %s" % (name, key), f(x, key), f(y, key), need, show)

    def small(name, key, need, why):
        """A measure that is zero by construction: its size, bounded."""
        x, y = res[name]
        if abs(y[key]) > 1e-6:
            return s(name, key, need)
        b = ck.bound("%s %s" % (name, key), x[key], y[key])
        return ("0" if b == "0" else "≤ " + b) + why

    out = ["rtol = atol = %s and %s (Newton --tol, default difference steps: scripts/reproduce_walkers.py); the digits shown"
           " are those both runs give." % (RUNS[0][0], RUNS[1][0]), "",
           "| model | step period (s) | step length (m) | speed (m/s) | max \\|λ\\| | stable | cost of transport | min normal force (N)"
           " | max \\|Ft/Fn\\| |", "|---|---|---|---|---|---|---|---|---|"]
    label = {"simplest": "simplest (γ = %g)" % res["simplest"][1]["params"]["gamma"],
             "compass": "compass (Goswami defaults, 3°)", "rimless": "rimless (n 10, γ 0.08)",
             "slip": "slip (E = %g J)" % res["slip"][1]["params"]["E"]}
    for name in ("simplest", "compass", "rimless", "slip"):
        y = res[name][1]
        extra = ""
        if y.get("trivial_multiplier"):
            extra = " (+ the energy multiplier %s)" % s(name, "trivial_multiplier", 6, 8, lambda d, k: d[k][0])
        out.append("| %s | %s | %s | %s | %s%s | %s | %s | %s | %s |" % (
            label[name], s(name, "step_period", 6), s(name, "step_length", 6), s(name, "speed", 6),
            s(name, "max_abs_eigenvalue", 4), extra, "yes" if y["stable"] else "no",
            small(name, "cost_of_transport", 4, " (lossless)"), small(name, "min_normal_force", 4, " (toe-off)"),
            s(name, "max_friction_ratio", 4)))
    cx, cy = res["compass"]
    parts = {"gaits": out}
    out = parts["gaits"]
    out += ["", "compass, just after heel-strike: θ_st = %s, θ_sw = %s (Goswami et al. 1996: −0.2187, 0.3234)." % (
        ck.dec("compass th_st", cx["fixed_point"][0], cy["fixed_point"][0], 6),
        ck.dec("compass th_sw", cx["fixed_point"][1], cy["fixed_point"][1], 6))]
    for name in ("simplest", "compass", "rimless"):
        x, y = res[name]
        gam = y["params"].get("gamma")
        out.append("%s: |cost of transport − sin γ| ≤ %s." % (
            name, ck.bound(name + " CoT - sin(gamma)", x["cost_of_transport"] - math.sin(x["params"]["gamma"]),
                           y["cost_of_transport"] - math.sin(gam))))
    # Rimless wheel: theta_dot* = -cot(2a) sqrt(4 (g/l) sin a sin gamma), lambda = cos^2(2a), a = pi/n.
    rx, ry = res["rimless"]
    p = ry["params"]
    al = math.pi / p["n"]
    td = -math.sqrt(4 * p["g"] / p["l"] * math.sin(al) * math.sin(p["gamma"])) / math.tan(2 * al)
    lam = math.cos(2 * al) ** 2
    ida = ry["state_names"].index("theta_dot") if "theta_dot" in ry["state_names"] else 1
    out = parts["rimless"] = []
    out += ["rimless wheel (n = %g, γ = %g): θ̇* = %s (closed form %.10f), λ = %s (closed form cos² 2α = %.11f)." % (
        p["n"], p["gamma"], ck.dec("rimless theta_dot*", rx["fixed_point"][ida], ry["fixed_point"][ida], 9, show=10), td,
        ck.dec("rimless multiplier", rx["max_abs_eigenvalue"], ry["max_abs_eigenvalue"], 5, show=11), lam)]
    out = parts["kneed"] = []
    out += ["| walker | max \\|eig\\| | min clearance (m) | min stance-knee torque (N m) | heel-strike knee impulse (N m s) |",
            "|---|---|---|---|---|", "| Garcia Table 2.1, final | 0.45 | 0.012 | 0.353 | 0.011 |"]
    for name in ("kneed_mcgeer", "kneed_hsu"):
        x, y = res[name]
        if y["status"] != "ok":
            out.append("| `models/%s.yaml` | no gait: %s (%s) | | | |" % (name, y["status"], y["stride_status"]))
            continue
        # the stance knee (knee_a) is the one lock held in every phase, so
        # the ground measures' smallest lock torque is its; after the swap
        # the new stance knee is knee_a, so its heel-strike impulse is
        # Garcia's impulsive knee torque
        out.append("| `models/%s.yaml` | %s | %s | %s | %s |" % (
            name, s(name, "max_abs_eigenvalue", 3), s(name, "min_foot_clearance", 2),
            s(name, "min_lock_torque", 2, f=lambda d, k: d["ground"][k]),
            s(name, "heelstrike.knee_a.impulse", 2, f=lambda d, k: d["ground"][k])))
    hx, hy = res["kneed_hsu"]
    if hy["status"] == "ok":
        i = hy["state_names"].index("thigh_a")
        out += ["", "kneed_hsu: θ_st = %s just after heel-strike, step %s s, max |λ| = %s." % (
            ck.dec("kneed_hsu stance", hx["fixed_point"][i], hy["fixed_point"][i], 6),
            s("kneed_hsu", "step_period", 4), s("kneed_hsu", "max_abs_eigenvalue", 4))]
    with open(OUT + "/walkers.json", "w") as f:
        json.dump({"tolerances": [r[0] for r in RUNS], "runs": record, "unstable": ck.unstable}, f, indent=2)
    for name, lines in parts.items():
        print("\n".join(lines) + "\n")
        if a.tables:
            with open(os.path.join(a.tables, "walkers_%s.md" % name), "w") as f:
                f.write("\n".join(lines) + "\n")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
