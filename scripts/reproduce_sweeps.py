#!/usr/bin/python3
"""Regenerates the stability maps of results/README.md (stridemap sweep) and
checks them against a second run at a tenfold tighter tolerance.

Each sweep of SWEEPS runs at both tolerances of RUNS (rtol = atol, Newton's
--tol and the finite-difference step, all explicit).  The tighter run's
sweep.csv, sweep.json and map.png go to results/sweep_NAME/; the looser
run's to results/sweep_NAME/loose/ (not in git).  The script prints, for
each map, the outcome counts, max |lambda| at the named walker, and the
stability boundary along every few grid lines, and exits 1 naming the
points if any point's outcome (stable, unstable, fell, not_converged,
no_stability) differs between the runs or if max |lambda| differs by more
than 5e-4 (half a unit of its third decimal) where both runs found a gait.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_sweeps.py [--exe build/src/cli/stridemap] [--only NAME] [--jobs N]
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = [("rtol 1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-10"]),
        ("rtol 1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"])]
MAXEIG_DECIMALS = 3  # the maps colour max |lambda|; the README quotes three decimals
MAXEIG_TOL = 0.5 * 10 ** -MAXEIG_DECIMALS
SWEEPS = {
    "compass_mu_beta": {
        "args": ["compass", "--set", "m=1", "--set", "a=1", "--grid", "b=0.1:2:50", "--grid", "mh=0.1:10:50"],
        "x": "b", "y": "mh", "xlabel": "β = b/a  (a = 1 m)", "ylabel": "μ = mh/m  (m = 1 kg)",
        "walker": {"b": 1.0, "mh": 2.0}, "walker_name": "Goswami's default walker (μ = 2, β = 1)"},
    "compass_slope_mu": {
        "args": ["compass", "--set", "m=1", "--set", "a=0.5", "--set", "b=0.5", "--grid", "mh=1:10:50",
                 "--grid", "gamma=0.015:0.075:50"],
        "x": "gamma", "y": "mh", "xlabel": "slope γ (rad)", "ylabel": "μ = mh/m  (m = 1 kg, a = b = 0.5 m)",
        "walker": {"mh": 2.0, "gamma": 0.05235987755982988}, "walker_name": "Goswami's default walker (μ = 2, 3°)"},
    "kneed_thigh": {
        "args": ["kneed_mcgeer", "--grid", "bodies.thigh_a.mass=0.5:5:50", "--grid", "thigh_com=0.02:0.3:50"],
        "x": "thigh_com", "y": "bodies.thigh_a.mass", "xlabel": "thigh centre of mass below the hip (m; thigh 0.35 m)",
        "ylabel": "thigh mass (kg)", "walker": {"bodies.thigh_a.mass": 2.345, "thigh_com": 0.091},
        "walker_name": "the default walker (2.345 kg, 0.091 m)"},
}


def sweep(exe, name, spec, tol, out, jobs):
    os.makedirs(out, exist_ok=True)
    # A directory holding another sweep is refused: start from an empty one.
    for f in glob.glob(out + "/part-*") + glob.glob(out + "/sweep.csv") + glob.glob(out + "/sweep.json"):
        os.remove(f)
    cmd = [exe, "sweep"] + spec["args"] + tol + ["--jobs", str(jobs), "-q", "--out", out]
    print("+ stridemap " + " ".join(cmd[1:]), file=sys.stderr)
    t0 = time.time()
    subprocess.run(cmd, check=True)
    # sweep.csv and sweep.json hold every row and the run; the part files
    # they were merged from are the same rows again.
    for f in glob.glob(out + "/part-*"):
        os.remove(f)
    with open(out + "/sweep.csv") as f:
        rows = list(csv.DictReader(f))
    return rows, time.time() - t0, "stridemap " + " ".join(cmd[1:])


def leading(r):
    return "%.3f%s" % (float(r["eig1_re"]), "" if float(r["eig1_im"]) == 0 else " %+.3fi" % float(r["eig1_im"]))


def side(r):
    """A point's outcome, with its leading multiplier or why it has no gait."""
    if r["max_abs_eig"] not in ("", "nan") and r["outcome"] in ("stable", "unstable"):
        return "%s, %s" % (r["outcome"], leading(r))
    return "%s, %s" % (r["outcome"], r["stride_status"] if r["stride_status"] != "ok" else r["status"])


def compare(ck, name, spec, a, b, stride=7):
    """Per-point outcome and max |lambda|; the table lines for the README."""
    x, y = spec["x"], spec["y"]
    lines = []
    diffs = []
    worst = 0.0
    for ra, rb in zip(a, b):
        where = "%s: %s=%s %s=%s" % (name, x, rb[x], y, rb[y])
        if ra["outcome"] != rb["outcome"]:
            diffs.append("%s: %s at %s, %s at %s" % (where, ra["outcome"], RUNS[0][0], rb["outcome"], RUNS[1][0]))
            ck.same(where + " outcome", ra["outcome"], rb["outcome"])
        elif ra["max_abs_eig"] not in ("", "nan") and rb["max_abs_eig"] not in ("", "nan"):
            ma, mb = float(ra["max_abs_eig"]), float(rb["max_abs_eig"])
            worst = max(worst, abs(ma - mb))
            # A difference, not shared rounded digits: 1.5214974 and
            # 1.5215002 are the same colour on the map.
            if not abs(ma - mb) <= MAXEIG_TOL:
                diffs.append("%s: max|lambda| %.6f vs %.6f" % (where, ma, mb))
                ck.fail(where + " max|lambda|", "%r and %r differ by more than %g" % (ma, mb, MAXEIG_TOL))
    ck.checked += len(b)
    counts = {}
    for r in b:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    lines.append("%d points: %s." % (len(b), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items()))))
    if diffs:
        lines.append("Points whose outcome differs between %s and %s, or max |λ| by more than %g: %s." % (
            RUNS[0][0], RUNS[1][0], MAXEIG_TOL, "; ".join(diffs)))
    else:
        lines.append("Every point has the same outcome at %s and %s, and max |λ| within %g (at most %.1e apart)." % (
            RUNS[0][0], RUNS[1][0], MAXEIG_TOL, worst))
    w = spec["walker"]
    near = min(b, key=lambda r: sum(((float(r[k]) - v) / (v or 1)) ** 2 for k, v in w.items()))
    na = a[int(near["index"])]
    lines.append("%s, nearest grid point (%s): max |λ| = %s, %s." % (
        spec["walker_name"], ", ".join("%s = %.4g" % (k, float(near[k])) for k in w),
        ck.dec(name + " walker max|lambda|", float(na["max_abs_eig"]), float(near["max_abs_eig"]), MAXEIG_DECIMALS - 1,
               show=MAXEIG_DECIMALS),
        near["outcome"]))
    # Along each grid line (x varies fastest): where the outcome first changes.
    ys = sorted({float(r[y]) for r in b})
    lines += ["", "| %s | stability boundary along %s (outcome and leading multiplier on each side) |" % (y, x),
              "|---|---|"]
    for k, yv in enumerate(ys):
        if k % stride and k != len(ys) - 1:
            continue
        line = [r for r in b if float(r[y]) == yv]
        cells = []
        for r0, r1 in zip(line, line[1:]):
            if r0["outcome"] != r1["outcome"]:
                cells.append("%s %s (%s) → %s (%s)" % (x, "%.4g" % float(r0[x]), side(r0), "%.4g" % float(r1[x]),
                                                       side(r1)))
        lines.append("| %.4g | %s |" % (yv, "; ".join(cells) if cells else "%s throughout" % line[0]["outcome"]))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--only", choices=sorted(SWEEPS))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    ck = stable_digits.Checker("sweeps")
    for name, spec in SWEEPS.items():
        if a.only not in (None, name):
            continue
        top = "results/sweep_" + name
        loose, t_loose, _ = sweep(a.exe, name, spec, RUNS[0][1], top + "/loose", a.jobs)
        tight, t_tight, cmd = sweep(a.exe, name, spec, RUNS[1][1], top, a.jobs)
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_stability_map.py"), top + "/sweep.csv",
                        "--out", top + "/map.png", "--boundary", "--x", spec["x"], "--y", spec["y"],
                        "--xlabel", spec["xlabel"], "--ylabel", spec["ylabel"]], check=True, stdout=sys.stderr)
        print("### %s\n\n`%s` (data and map); checked against %s.  %.0f s and %.0f s with --jobs %d.\n" % (
            name, cmd, RUNS[0][0], t_loose, t_tight, a.jobs))
        print("\n".join(compare(ck, name, spec, loose, tight)) + "\n")
        sys.stdout.flush()
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
