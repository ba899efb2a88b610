#!/usr/bin/python3
"""Regenerates the basins of attraction of results/README.md (stridemap basin)
and checks them against a second run at a tenfold tighter tolerance.

Each basin of BASINS runs at both tolerances of RUNS (rtol = atol and
Newton's --tol; the return tolerance, 1e-6, and --max-strides, 100, are the
same in both), every cell walked to its end (--no-cell-map).  The tighter
run's basin.csv, basin.json and basin.png go to results/basins/NAME/, the
looser run's to results/basins/NAME/loose/ (not in git).  A third run, at
the tighter tolerance with cell mapping (the default), goes to
results/basins/NAME/mapped/ (not in git): the script counts the cells whose
outcome it changes and the CPU it saves.  The script prints, for each basin, the gait, the cells by outcome,
the area fraction and the reach of the basin from the gait along each axis,
each to the digits both runs share; the cells whose outcome differs between
the runs are counted (a basin's edge is where a change of tolerance can move
a cell's fate).  It exits 1 if a printed number has fewer shared digits
than the table needs, or if more than 1 % of a plane's cells change outcome.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_basins.py [--exe build/src/cli/stridemap] [--only NAME] [--jobs N]
"""
import argparse
import csv
import resource
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = [("rtol 1e-10", ["--rtol", "1e-10", "--atol", "1e-10", "--tol", "1e-9"]),
        ("rtol 1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-10"])]
MAX_CHANGED = 0.01  # of a plane's cells
SIMPLEST_WIDE = "theta=0:0.4:121,theta_dot=-0.6:0:121"
BASINS = {
    "simplest_gamma0.004": ["simplest", "--set", "gamma=0.004", "--plane", SIMPLEST_WIDE],
    "simplest_gamma0.009": ["simplest", "--set", "gamma=0.009", "--plane", SIMPLEST_WIDE],
    # The same two about their gaits (0.1534, -0.1561) and (0.2003, -0.1998), a tenth of the size.
    "simplest_gamma0.004_zoom": ["simplest", "--set", "gamma=0.004", "--plane",
                                 "theta=0.1134:0.1934:101,theta_dot=-0.1961:-0.1161:101"],
    "simplest_gamma0.009_zoom": ["simplest", "--set", "gamma=0.009", "--plane",
                                 "theta=0.1603:0.2403:101,theta_dot=-0.2398:-0.1598:101"],
    # Goswami's compass gait at 3 degrees (the model's default slope), dth_sw at the gait's value.
    "compass_3deg": ["compass", "--plane", "th_st=-0.4:-0.05:121,dth_st=0.4:2.0:121"],
}


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def basin(exe, spec, tol, out, jobs):
    os.makedirs(out, exist_ok=True)
    # A directory holding another run is refused: start from an empty one.
    for f in glob.glob(out + "/part-*") + glob.glob(out + "/basin.*"):
        os.remove(f)
    cmd = [exe, "basin"] + spec + tol + ["--jobs", str(jobs), "-q", "--out", out]
    print("+ stridemap " + " ".join(cmd[1:]), file=sys.stderr)
    t0, c0 = time.time(), cpu_children()
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    cpu = cpu_children() - c0
    for f in glob.glob(out + "/part-*"):
        os.remove(f)
    with open(out + "/basin.csv") as f:
        rows = list(csv.DictReader(f))
    with open(out + "/basin.json") as f:
        doc = json.load(f)
    return rows, doc, time.time() - t0, "stridemap " + " ".join(cmd[1:-3] + ["--out", out]), cpu


def reach(v):
    return None if isinstance(v, str) else v


def table(ck, name, a, b, da, db):
    lines = []
    ma, mb = da["measures"], db["measures"]
    axes = mb["axes"]
    ga, gb = da["gait"], db["gait"]
    lines.append("Gait on the plane: %s = %s, %s = %s; max |λ| = %s." % (
        axes[0], ck.dec(name + " gait0", da["gait_plane"][0], db["gait_plane"][0], 6),
        axes[1], ck.dec(name + " gait1", da["gait_plane"][1], db["gait_plane"][1], 6),
        ck.dec(name + " max|lambda|", ga["max_abs_eigenvalue"], gb["max_abs_eigenvalue"], 6)))
    changed = [rb["index"] for ra, rb in zip(a, b) if ra["outcome"] != rb["outcome"]]
    counts = {}
    for r in b:
        k = r["outcome"] if r["outcome"] != "fell" else r["status"]
        counts[k] = counts.get(k, 0) + 1
    lines.append("%d cells: %s." % (len(b), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items()))))
    if len(changed) > MAX_CHANGED * len(b):
        ck.fail(name + " outcomes", "%d of %d cells change outcome between %s and %s" % (
            len(changed), len(b), RUNS[0][0], RUNS[1][0]))
    lines.append("Cells whose outcome differs between %s and %s: %d%s." % (
        RUNS[0][0], RUNS[1][0], len(changed), (" (indices %s)" % ", ".join(changed[:8]) +
                                               (", …" if len(changed) > 8 else "")) if changed else ""))
    lines.append("Converging fraction of the plane: %s." % ck.sig(name + " area", ma["area_fraction"],
                                                                  mb["area_fraction"], 2, show=3))
    parts = []
    for k in range(2):
        side = []
        for key, sign in (("reach_below", "−"), ("reach_above", "+")):
            va, vb = reach(ma[key][k]), reach(mb[key][k])
            if va is None or vb is None:
                ck.same(name + " " + key, str(va), str(vb))
                side.append("%s beyond the plane" % sign)
            else:
                side.append("%s%s" % (sign, ck.sig(name + " " + key + str(k), va, vb, 1, show=2)))
        parts.append("%s %s" % (axes[k], " / ".join(side)))
    lines.append("Reach from the gait to the nearest cell that does not converge: %s." % "; ".join(parts))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--only", choices=sorted(BASINS))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    ck = stable_digits.Checker("basins")
    for name, spec in BASINS.items():
        if a.only not in (None, name):
            continue
        top = "results/basins/" + name
        walked = spec + ["--no-cell-map"]
        loose, dl, t_loose, _, _ = basin(a.exe, walked, RUNS[0][1], top + "/loose", a.jobs)
        tight, dt, t_tight, cmd, cpu_walked = basin(a.exe, walked, RUNS[1][1], top, a.jobs)
        mapped, _, _, _, cpu_mapped = basin(a.exe, spec, RUNS[1][1], top + "/mapped", a.jobs)
        with open(top + "/.gitignore", "w") as f:
            f.write("# The looser of the two runs scripts/reproduce_basins.py compares, and the one with cell mapping.\n"
                    "loose/\nmapped/\n")
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_basin.py"), top + "/basin.csv",
                        top + "/basin.png"], check=True, stdout=sys.stderr)
        print("### %s\n\n`%s` (data and picture); checked against %s.  %.0f s and %.0f s with --jobs %d.\n" % (
            name, cmd, RUNS[0][0], t_loose, t_tight, a.jobs))
        lines = table(ck, name, loose, tight, dl, dt)
        n_map = sum(1 for r in mapped if r["mapped_from"] != "-1")
        diff = [r for r, w in zip(mapped, tight) if r["outcome"] != w["outcome"]]
        conv = sum(1 for r in mapped if r["outcome"] == "converged")
        lines.append("With cell mapping (the default, %s): %d cells mapped, %d with another outcome than walked to "
                     "their end (%d converged instead of %d), %.2f of the CPU." % (
                         RUNS[1][0], n_map, len(diff), conv, sum(1 for r in tight if r["outcome"] == "converged"),
                         cpu_mapped / cpu_walked if cpu_walked > 0 else float("nan")))
        print("\n".join(lines) + "\n")
        sys.stdout.flush()
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
