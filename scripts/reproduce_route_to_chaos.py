#!/usr/bin/python3
"""Reproduces the route to chaos of the simplest walker (Garcia et al. 1998)
and of the compass gait (Goswami, Thuilot & Espiau 1996/1998) with
`stridemap continue --switch` and `stridemap orbit`, draws them, and prints
the markdown table that results/README.md shows.

Run from the top of the repository after building (about 4 minutes):
    /usr/bin/python3 scripts/reproduce_route_to_chaos.py [--exe build/src/cli/stridemap]
        [--quick] [--only simplest|compass]

Writes results/route_to_chaos/: *_branch.csv and .json (continuation),
*_orbit.json (per-value summary of the orbit diagram; the orbit CSVs are
large and left out of git), *.png, and summary.json.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

OUT = "results/route_to_chaos"
HERE = os.path.dirname(os.path.abspath(__file__))

# What the literature says (see results/README.md for the sources).
PUBLISHED = {
    "simplest": {
        "stable_period_1": "0 < gamma < 0.015 (Garcia et al. 1998, abstract)",
        "chaos": "0.01839 < gamma < 0.0189 (Kurz & Stergiou 2007, fig. 1, citing Garcia et al. 1998)",
        "falls": "no stable gait for gamma > 0.019 (same)",
    },
}


def run(exe, args, log):
    cmd = [exe] + args
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    p = subprocess.run(cmd, capture_output=True, text=True)
    log.append({"command": "stridemap " + " ".join(args), "exit": p.returncode, "stderr": p.stderr})
    sys.stderr.write(p.stderr)
    if p.returncode not in (0, 1):
        sys.exit("failed: %s" % " ".join(cmd))
    return p


def plot(script, *args):
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, script)] + list(args), check=True)


def pd_table(sidecar):
    """PD and LP points of every branch, and where each branch stopped."""
    with open(sidecar) as f:
        d = json.load(f)
    out = []
    for b in d["branches"]:
        for s in b["special"]:
            out.append({"branch": b["branch"], "period": b["period"], "type": s["type"], "value": s["value"],
                        "max_abs_eigenvalue": s["max_abs_eigenvalue"], "status": s["status"]})
    stops = [{"branch": b["branch"], "period": b["period"], "stop": b["stop"], "stop_value": b["stop_value"],
              "status": b["status"], "stride_status": b["stride_status"], "points": b["points"]}
             for b in d["branches"]]
    return out, stops


def orbit_transitions(sidecar):
    """First parameter value showing each period, chaos (no period found), a fall."""
    with open(sidecar) as f:
        d = json.load(f)
    first = {}
    last_ok = None
    for v in d["values"]:
        if v["status"] == "ok":
            key = "period %d" % v["period"] if v["period"] else "no period <= 32 (chaos or unsettled)"
            first.setdefault(key, v["value"])
            if "first fall" not in first:
                last_ok = v["value"]
        elif v["status"] not in ("integrator_failed", "nonfinite", "rhs_failed"):
            first.setdefault("first fall", v["value"])
            first.setdefault("first fall status", v["status"])
    first["last value before the first fall"] = last_ok
    walked = [v["value"] for v in d["values"] if v["status"] == "ok"]
    first["largest value that walked"] = max(walked) if walked else None
    first["values that fell"] = sum(1 for v in d["values"] if v["status"] not in ("ok", "integrator_failed", "nonfinite", "rhs_failed"))
    first["values"] = len(d["values"])
    return first


def simplest(exe, quick, log, summary):
    n_orbit, tr = (121, 300) if quick else (301, 1000)
    run(exe, ["continue", "simplest", "--param", "gamma", "--from", "0.0001", "--to", "0.0195",
              "--guess", "0.045,-0.047,0,0", "--switch", "--max-period", "16",
              "--out", OUT + "/simplest_branch.csv"], log)
    run(exe, ["orbit", "simplest", "--param", "gamma=0.0135:0.0195:%d" % n_orbit, "--transient", str(tr),
              "--record", "48", "--out", OUT + "/simplest_orbit.csv", "--sidecar", OUT + "/simplest_orbit.json"], log)
    # Where exactly it starts to fall: a finer sweep over the end of the
    # cascade, starting on the attractor the coarse sweep reached at 0.0188.
    x0 = None
    with open(OUT + "/simplest_orbit.csv") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "visit" and float(r["gamma"]) <= 0.0188 + 1e-12:
                x0 = ",".join(r[k] for k in ("theta", "theta_dot", "phi", "phi_dot"))
    run(exe, ["orbit", "simplest", "--param", "gamma=0.0188:0.0193:%d" % (101 if quick else 501),
              "--transient", str(tr), "--record", "8", "--x0", x0, "--out", OUT + "/simplest_fall.csv",
              "--sidecar", OUT + "/simplest_fall.json"], log)
    plot("plot_branch.py", OUT + "/simplest_branch.csv", OUT + "/simplest_branch.png",
         "--title", "simplest walker: gaits against slope (stridemap continue --switch)")
    plot("plot_branch.py", OUT + "/simplest_branch.csv", OUT + "/simplest_branch_zoom.png", "--orbit",
         OUT + "/simplest_orbit.csv", "--xmin", "0.0135", "--xmax", "0.0195",
         "--title", "simplest walker: branches (lines) and simulation (dots)")
    plot("plot_orbit.py", OUT + "/simplest_orbit.csv", OUT + "/simplest_orbit.png",
         "--title", "simplest walker: orbit diagram (stridemap orbit)")
    plot("plot_orbit.py", OUT + "/simplest_orbit.csv", OUT + "/simplest_orbit_period.png", "--y", "step_period",
         "--title", "simplest walker: step periods visited")
    pds, stops = pd_table(OUT + "/simplest_branch.json")
    summary["simplest"] = {"bifurcations": pds, "branches": stops,
                           "orbit": orbit_transitions(OUT + "/simplest_orbit.json"),
                           "orbit_fine": orbit_transitions(OUT + "/simplest_fall.json"),
                           "published": PUBLISHED["simplest"]}


def compass(exe, quick, log, summary):
    tol = ["--rtol", "3e-12", "--atol", "3e-12"]
    n_orbit, tr = (61, 200) if quick else (251, 500)
    run(exe, ["continue", "compass", "--param", "gamma", "--from", "0.05235987755982988", "--to", "0.1",
              "--switch", "--max-period", "16", "--out", OUT + "/compass_branch.csv"] + tol, log)
    run(exe, ["orbit", "compass", "--param", "gamma=0.07:0.095:%d" % n_orbit, "--transient", str(tr),
              "--record", "32", "--out", OUT + "/compass_orbit.csv", "--sidecar", OUT + "/compass_orbit.json"] + tol,
        log)
    plot("plot_branch.py", OUT + "/compass_branch.csv", OUT + "/compass_branch.png", "--y", "th_st", "--orbit",
         OUT + "/compass_orbit.csv", "--title", "compass gait (m=5, mh=10, a=b=0.5): branches and simulation")
    plot("plot_orbit.py", OUT + "/compass_orbit.csv", OUT + "/compass_orbit.png", "--y", "th_st",
         "--title", "compass gait: orbit diagram (stridemap orbit)")
    pds, stops = pd_table(OUT + "/compass_branch.json")
    summary["compass"] = {"bifurcations": pds, "branches": stops,
                          "orbit": orbit_transitions(OUT + "/compass_orbit.json")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--quick", action="store_true", help="coarser orbit diagrams (about 1 minute)")
    ap.add_argument("--only", choices=["simplest", "compass"])
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    log, summary = [], {}
    if a.only and os.path.exists(OUT + "/summary.json"):
        with open(OUT + "/summary.json") as f:
            summary = json.load(f)  # keep the other model's results
        summary.pop("runs", None)
    if a.only in (None, "simplest"):
        simplest(a.exe, a.quick, log, summary)
    if a.only in (None, "compass"):
        compass(a.exe, a.quick, log, summary)
    summary["runs"] = log
    with open(OUT + "/summary.json", "w") as f:
        json.dump(summary, f, indent=2)

    for model, s in summary.items():
        if model == "runs":
            continue
        print("\n%s\n" % model)
        print("| branch period | point | parameter | max \\|multiplier\\| |")
        print("|---|---|---|---|")
        for p in s["bifurcations"]:
            print("| %d | %s | %.10f | %.8f |" % (p["period"], p["type"], p["value"], p["max_abs_eigenvalue"]))
        for b in s["branches"]:
            print("| %d | stop (%s) | %.10f | %s%s |" % (b["period"], b["stop"], b["stop_value"], b["status"],
                                                         "" if b["stride_status"] == "ok" else ", " + b["stride_status"]))
        for k in ("orbit", "orbit_fine"):
            if k in s:
                print("\n%s: " % k + "; ".join("%s: %s" % (kk, vv) for kk, vv in s[k].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
