#!/usr/bin/python3
"""Reproduces the route to chaos of the simplest walker (Garcia et al. 1998)
and of the compass gait (Goswami, Thuilot & Espiau 1996/1998) with
`stridemap continue --switch`, `stridemap fixed --period 8` and
`stridemap orbit`, draws them, and prints the tables of results/README.md.

Every computation runs twice, at the two tolerances in TOLS below (the
integrator's rtol = atol, Newton's --tol and the finite-difference step,
all given explicitly so that no engine default enters), and each number is
printed only to the digits on which the two runs agree
(scripts/stable_digits.py).  If a number agrees to fewer digits than its
table needs, the script names it and exits 1.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_route_to_chaos.py [--exe build/src/cli/stridemap]
        [--quick] [--only simplest|compass]

Writes results/route_to_chaos/: the tighter run's *_branch.csv and .json
(continuation), *_orbit.json (per-value summary of the orbit diagram; the
orbit CSVs are large and left out of git), *.png, and summary.json (both
runs' numbers and every command); the looser run's files go to
results/route_to_chaos/loose/ (not in git).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

import stable_digits

OUT = "results/route_to_chaos"
LOOSE = OUT + "/loose"
HERE = os.path.dirname(os.path.abspath(__file__))

# The two runs: (label, stridemap options).  Continuation and Newton need
# tight integration and a small central-difference step: on the period-8
# branch the multipliers are derivatives of P^8, whose third derivatives are
# large, so the step's O(h^2) error moved the 8 -> 16 doubling by 2e-5 at
# the old default h = sqrt(1e-10) = 1e-5, and 2.4e-7 between h = 1e-6 and
# 3e-7 (measured at rtol 1e-12 and 1e-13).  Below h ~ 1e-7 the integration
# noise (~ rtol / h) takes over.  The two runs change rtol and h together,
# so the check sees both errors.
CONT = [("rtol 1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"]),
        ("rtol 1e-13", ["--rtol", "1e-13", "--atol", "1e-13", "--tol", "1e-12"])]
# The compass gait's state is of order 1 and its P^8 mild, so a larger step
# serves; at rtol <= 3e-13 the switch at the 4 -> 8 doubling lands far up
# the branch (gamma 0.092-0.094) and at 1e-13 a PD is labelled where the
# multiplier is -0.89, so its pair is one decade looser.
CONT_COMPASS = [("rtol 1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-10"]),
                ("rtol 1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"])]
# Orbit diagrams only simulate: a period or a fall at a grid value needs the
# attractor, not derivatives, and a tenfold tighter run costs twice the time.
ORBIT = [("rtol 1e-10", ["--rtol", "1e-10", "--atol", "1e-10"]),
         ("rtol 1e-11", ["--rtol", "1e-11", "--atol", "1e-11"])]

# What the literature says (see results/README.md for the sources).
PUBLISHED = {
    "simplest": {
        "stable_period_1": "0 < gamma < 0.015 (Garcia et al. 1998, abstract)",
        "chaos": "0.01839 < gamma < 0.0189 (Kurz & Stergiou 2007, fig. 1, citing Garcia et al. 1998)",
        "falls": "no stable gait for gamma > 0.019 (same)",
    },
}


def run(exe, args, log, quiet=False):
    cmd = [exe] + args
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    p = subprocess.run(cmd, capture_output=True, text=True)
    log.append({"command": "stridemap " + " ".join(args), "exit": p.returncode, "stderr": p.stderr})
    if not quiet:
        sys.stderr.write(p.stderr)
    if p.returncode not in (0, 1):
        sys.exit("failed: %s" % " ".join(cmd))
    return p


def plot(script, *args):
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, script)] + list(args), check=True, stdout=sys.stderr)


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


PD_MULTIPLIER_TOL = 1e-3  # a located PD has a multiplier this close to -1


PARAM = ["gamma"]  # the continued parameter's column (both walkers continue gamma)


def pd_rows_of(csv_path):
    """Every PD row of a branch CSV: (period, value, distance of the nearest multiplier from -1)."""
    out = []
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            if r["type"] != "PD":
                continue
            k, best = 1, float("inf")
            while "eig%d_re" % k in r:
                best = min(best, abs(complex(float(r["eig%d_re" % k]), float(r["eig%d_im" % k])) + 1))
                k += 1
            out.append((int(r["period"]), float(r[PARAM[0]]), best))
    return out


def first_pds(csv_path):
    """The first PD on each branch period whose multiplier is -1: where period p
    doubles to 2p.  A PD label without a multiplier at -1 is not a doubling
    (it is listed in 'false_pd')."""
    out, false = {}, []
    for period, value, err in pd_rows_of(csv_path):
        if err > PD_MULTIPLIER_TOL:
            false.append({"period": period, "value": value, "distance_from_minus_1": err})
        elif period not in out:
            out[period] = value
    return out, false


def pd_multiplier_error(csv_path):
    """max over the doublings first_pds keeps of the distance of the nearest multiplier from -1."""
    seen, worst = set(), 0.0
    for period, _, err in pd_rows_of(csv_path):
        if err <= PD_MULTIPLIER_TOL and period not in seen:
            seen.add(period)
            worst = max(worst, err)
    return worst


def chaos_onset(sidecar, run=5):
    """The first value of the first run of `run` consecutive grid values
    whose attractor has no period <= 32 (a single such value next to a
    doubling is an orbit that 1000 strides did not settle, not chaos)."""
    with open(sidecar) as f:
        d = json.load(f)
    start, n = None, 0
    for v in d["values"]:
        if v["status"] == "ok" and not v["period"]:
            start = v["value"] if n == 0 else start
            n += 1
            if n >= run:
                return start
        else:
            n = 0
    return None


def period8_gait(exe, out, tol, log, gamma=0.01822):
    """The period-8 gait between the 4 -> 8 and 8 -> 16 doublings, by Newton
    from the branch's nearest point; its multipliers."""
    best = None
    with open(out + "/simplest_branch.csv") as f:
        for r in csv.DictReader(f):
            if r["period"] == "8" and r["type"] != "MX":
                if best is None or abs(float(r["gamma"]) - gamma) < abs(float(best["gamma"]) - gamma):
                    best = r
    if best is None:
        return None
    guess = ",".join(best[k] for k in ("theta", "theta_dot", "phi", "phi_dot"))
    p = run(exe, ["fixed", "simplest", "--set", "gamma=%g" % gamma, "--period", "8", "--guess", guess,
                  "--json"] + tol, log, quiet=True)
    d = json.loads(p.stdout)
    return {"gamma": gamma, "status": d["status"], "eigenvalues": d["eigenvalues"],
            "max_abs_eigenvalue": d["max_abs_eigenvalue"], "residual": d["residual"]}


def simplest_run(exe, out, tol, orbit_tol, quick, log, draw):
    n_orbit, tr = (121, 300) if quick else (301, 1000)
    t0 = time.time()
    # --max-points: the period-16 branch runs on through the chaotic band
    # (500 points, minutes); its doubling to 32 is within its first points.
    run(exe, ["continue", "simplest", "--param", "gamma", "--from", "0.0001", "--to", "0.0195",
              "--guess", "0.045,-0.047,0,0", "--switch", "--max-period", "16", "--max-points", "60",
              "--out", out + "/simplest_branch.csv"] + tol, log)
    p8 = period8_gait(exe, out, tol, log)
    t1 = time.time()
    run(exe, ["orbit", "simplest", "--param", "gamma=0.0135:0.0195:%d" % n_orbit, "--transient", str(tr),
              "--record", "48", "--out", out + "/simplest_orbit.csv", "--sidecar", out + "/simplest_orbit.json"]
        + orbit_tol, log)
    # Where exactly it starts to fall: a finer sweep over the end of the
    # cascade, starting on the attractor the coarse sweep reached at 0.0188.
    x0 = None
    with open(out + "/simplest_orbit.csv") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "visit" and float(r["gamma"]) <= 0.0188 + 1e-12:
                x0 = ",".join(r[k] for k in ("theta", "theta_dot", "phi", "phi_dot"))
    run(exe, ["orbit", "simplest", "--param", "gamma=0.0188:0.0193:%d" % (101 if quick else 501),
              "--transient", str(tr), "--record", "8", "--x0", x0, "--out", out + "/simplest_fall.csv",
              "--sidecar", out + "/simplest_fall.json"] + orbit_tol, log)
    t2 = time.time()
    if draw:
        plot("plot_branch.py", out + "/simplest_branch.csv", out + "/simplest_branch.png",
             "--title", "simplest walker: gaits against slope (stridemap continue --switch)")
        plot("plot_branch.py", out + "/simplest_branch.csv", out + "/simplest_branch_zoom.png", "--orbit",
             out + "/simplest_orbit.csv", "--xmin", "0.0135", "--xmax", "0.0195",
             "--title", "simplest walker: branches (lines) and simulation (dots)")
        plot("plot_orbit.py", out + "/simplest_orbit.csv", out + "/simplest_orbit.png",
             "--title", "simplest walker: orbit diagram (stridemap orbit)")
        plot("plot_orbit.py", out + "/simplest_orbit.csv", out + "/simplest_orbit_period.png", "--y", "step_period",
             "--title", "simplest walker: step periods visited")
    pds, stops = pd_table(out + "/simplest_branch.json")
    first, false = first_pds(out + "/simplest_branch.csv")
    return {"bifurcations": pds, "branches": stops, "first_pd": first, "false_pd": false,
            "pd_multiplier_error": pd_multiplier_error(out + "/simplest_branch.csv"), "period8": p8,
            "orbit": orbit_transitions(out + "/simplest_orbit.json"),
            "chaos_onset": chaos_onset(out + "/simplest_orbit.json"),
            "orbit_fine": orbit_transitions(out + "/simplest_fall.json"),
            "seconds": {"continuation": round(t1 - t0, 1), "orbit": round(t2 - t1, 1)}}


def compass_run(exe, out, tol, orbit_tol, quick, log, draw):
    n_orbit, tr = (61, 200) if quick else (251, 500)
    t0 = time.time()
    run(exe, ["continue", "compass", "--param", "gamma", "--from", "0.05235987755982988", "--to", "0.1",
              "--switch", "--max-period", "16", "--max-points", "60", "--out", out + "/compass_branch.csv"] + tol,
        log)
    # The same walker read from its model file by the rigid-body engine (a
    # tree of bodies with a pinned foot): an independent derivation of the
    # dynamics, so its first PD must agree.
    run(exe, ["continue", "models/compass.yaml", "--param", "slope", "--to", "0.08", "--out",
              out + "/compass_yaml_branch.csv"] + tol, log)
    # The rimless wheel's gait ends where it no longer vaults (closed form).
    run(exe, ["continue", "rimless", "--param", "gamma", "--to", "0", "--out", out + "/rimless_branch.csv"]
        + tol, log)
    t1 = time.time()
    run(exe, ["orbit", "compass", "--param", "gamma=0.07:0.095:%d" % n_orbit, "--transient", str(tr),
              "--record", "32", "--out", out + "/compass_orbit.csv", "--sidecar", out + "/compass_orbit.json"]
        + orbit_tol, log)
    t2 = time.time()
    if draw:
        plot("plot_branch.py", out + "/compass_branch.csv", out + "/compass_branch.png", "--y", "th_st", "--orbit",
             out + "/compass_orbit.csv", "--title", "compass gait (m=5, mh=10, a=b=0.5): branches and simulation")
        plot("plot_orbit.py", out + "/compass_orbit.csv", out + "/compass_orbit.png", "--y", "th_st",
             "--title", "compass gait: orbit diagram (stridemap orbit)")
    pds, stops = pd_table(out + "/compass_branch.json")
    ypds, _ = pd_table(out + "/compass_yaml_branch.json")
    _, rstops = pd_table(out + "/rimless_branch.json")
    first, false = first_pds(out + "/compass_branch.csv")
    return {"bifurcations": pds, "branches": stops, "first_pd": first, "false_pd": false,
            "pd_multiplier_error": pd_multiplier_error(out + "/compass_branch.csv"),
            "yaml_first_pd": next((p["value"] for p in ypds if p["type"] == "PD"), None), "rimless_stop": rstops[0],
            "orbit": orbit_transitions(out + "/compass_orbit.json"),
            "chaos_onset": chaos_onset(out + "/compass_orbit.json"),
            "seconds": {"continuation": round(t1 - t0, 1), "orbit": round(t2 - t1, 1)}}


def pd_rows(ck, model, a, b, orbit_key, orbit_need, orbit_show):
    """Rows (event, continuation, orbit diagram) of the PD cascade, and the
    ratios of successive PD intervals."""
    rows = []
    pa, pb = a["first_pd"], b["first_pd"]
    periods = sorted(set(map(int, pa)) | set(map(int, pb)))
    vals = []
    for p in periods:
        va, vb = pa.get(p, pa.get(str(p))), pb.get(p, pb.get(str(p)))
        name = "%s PD %d->%d" % (model, p, 2 * p)
        if va is None or vb is None:
            ck.same(name + " found", va is not None, vb is not None)
            cont = "not found"
        else:
            cont = "γ = " + ck.sig(name, va, vb, 5, show=7)
            vals.append((va, vb))
        oa, ob = a[orbit_key].get("period %d" % (2 * p)), b[orbit_key].get("period %d" % (2 * p))
        if oa is None or ob is None:
            ck.same(name + " orbit diagram shows period %d" % (2 * p), oa is not None, ob is not None)
            orb = "no period %d" % (2 * p)
        else:
            orb = "period %d from %s" % (2 * p, ck.sig(name + " orbit diagram", oa, ob, orbit_need, show=orbit_show))
        rows.append(("PD %d→%d" % (p, 2 * p), cont, orb))
    ratios = []
    for k in range(len(vals) - 2):
        ra = (vals[k + 1][0] - vals[k][0]) / (vals[k + 2][0] - vals[k + 1][0])
        rb = (vals[k + 1][1] - vals[k][1]) / (vals[k + 2][1] - vals[k + 1][1])
        ratios.append(ck.sig("%s interval ratio %d" % (model, k + 1), ra, rb, 1, show=3))
    return rows, ratios


def pd_notes(a, b):
    """How close to -1 the doublings' multipliers are, and PD labels that were not doublings."""
    out = ["Multipliers at the doublings in the table: −1 to within %.0e." % max(a["pd_multiplier_error"],
                                                                            b["pd_multiplier_error"])]
    for r in (a, b):
        for f in r.get("false_pd", []):
            out.append("At %s the continuation also labels a PD on the period-%d branch at γ = %.7f whose nearest"
                       " multiplier is %.3g from −1: not a doubling, left out of the table." % (
                           r["tolerance"]["continuation"], f["period"], f["value"], f["distance_from_minus_1"]))
    return out


def orbit_row(ck, name, a, b, key, need, show):
    va, vb = a.get(key), b.get(key)
    if va is None or vb is None:
        ck.same(name, va, vb)
        return "—"
    return ck.sig(name, va, vb, need, show=show)


def report(summary, ck):
    """The markdown tables of results/README.md, from both runs."""
    lines = []

    oa, ob = ORBIT[0][0], ORBIT[1][0]
    if "simplest" in summary:
        a, b = summary["simplest"]["runs"]
        rows, ratios = pd_rows(ck, "simplest", a, b, "orbit", 4, 4)
        lines += ["### simplest", "",
                  "Continuation at %s and %s, orbit diagrams at %s and %s; every number is printed to the digits"
                  " on which the two agree." % (a["tolerance"]["continuation"], b["tolerance"]["continuation"],
                                                oa, ob), "",
                  "| event | continuation (PD located to 1e-10 in arclength) | orbit diagram (grid 2e-5, fine grid 1e-6) |",
                  "|---|---|---|"]
        lines += ["| %s | %s | %s |" % r for r in rows]
        lines.append("| chaos (no period ≤ 32 at 5 grid values in a row) | | from γ = %s |" % orbit_row(
            ck, "simplest orbit chaos", a, b, "chaos_onset", 3, 4))
        lines.append("| falls | | first fall at γ = %s (fine grid; %s / %s); the largest slope that still walked: %s |" % (
            orbit_row(ck, "simplest first fall", a["orbit_fine"], b["orbit_fine"], "first fall", 3, 5),
            a["orbit_fine"].get("first fall status"), b["orbit_fine"].get("first fall status"),
            orbit_row(ck, "simplest largest walked", a["orbit_fine"], b["orbit_fine"], "largest value that walked", 3, 5)))
        lines += ["", "Ratios of successive PD intervals: %s." % ", ".join(ratios)]
        lines += pd_notes(a, b)
        ea, eb = a["period8"], b["period8"]
        if ea and eb:
            ck.same("simplest period-8 gait status", ea["status"], eb["status"])
            mult = []
            for k in range(min(len(ea["eigenvalues"]), len(eb["eigenvalues"]))):
                # Absolute decimals: the multipliers of P^8 come from a
                # Jacobian with entries of order 10, so the small one is
                # known only to its first decimals.
                re = ck.dec("simplest period-8 multiplier %d (re)" % (k + 1), ea["eigenvalues"][k][0],
                            eb["eigenvalues"][k][0], 2, show=5)
                im = ck.dec("simplest period-8 multiplier %d (im)" % (k + 1), ea["eigenvalues"][k][1],
                            eb["eigenvalues"][k][1], 2, show=5)
                mult.append(re if float(im.split()[0]) == 0 else "%s %+si" % (re, im))
            lines.append("The period-8 gait at γ = %g (`fixed --period 8`): multipliers %s." % (ea["gamma"], ", ".join(mult)))
        else:
            ck.same("simplest period-8 gait found", ea is not None, eb is not None)
        lines.append("")
    if "compass" in summary:
        a, b = summary["compass"]["runs"]
        rows, ratios = pd_rows(ck, "compass", a, b, "orbit", 3, 4)
        lines += ["### compass", "",
                  "Continuation at %s and %s, orbit diagram at %s and %s." % (
                      a["tolerance"]["continuation"], b["tolerance"]["continuation"], oa, ob), "",
                  "| event | continuation | orbit diagram (grid 1e-4) |", "|---|---|---|"]
        lines += ["| %s | %s | %s |" % r for r in rows]
        lines.append("| chaos (no period ≤ 32 at 5 grid values in a row) | | from γ = %s |" % orbit_row(
            ck, "compass orbit chaos", a, b, "chaos_onset", 3, 4))
        lines.append("| falls | | from γ = %s; the largest value that walks: %s |" % (
            orbit_row(ck, "compass first fall", a["orbit"], b["orbit"], "first fall", 2, 4),
            orbit_row(ck, "compass largest walked", a["orbit"], b["orbit"], "largest value that walked", 2, 4)))
        lines += ["", "Ratios of successive PD intervals: %s." % ", ".join(ratios)]
        lines += pd_notes(a, b)
        if a["yaml_first_pd"] is not None and b["yaml_first_pd"] is not None:
            lines.append("models/compass.yaml (rigid-body engine), first PD: γ = %s; the closed-form walker's: %s." % (
                ck.sig("compass.yaml PD 1->2", a["yaml_first_pd"], b["yaml_first_pd"], 7, show=10),
                ck.sig("compass PD 1->2 (10 digits)", a["first_pd"]["1"] if "1" in a["first_pd"] else a["first_pd"][1],
                       b["first_pd"]["1"] if "1" in b["first_pd"] else b["first_pd"][1], 7, show=10)))
        else:
            ck.same("compass.yaml PD found", a["yaml_first_pd"] is not None, b["yaml_first_pd"] is not None)
        ra, rb = a["rimless_stop"], b["rimless_stop"]
        ck.same("rimless branch stop", (ra["stop"], ra["stride_status"]), (rb["stop"], rb["stride_status"]))
        lines += ["", "### rimless", ""]
        lines.append("`continue rimless --param gamma --to 0` stops (%s, %s) at γ = %s; the closed form's end of the"
                     " gait is 0.0334390643." % (
                         rb["stop"], rb["stride_status"],
                         ck.sig("rimless branch end", ra["stop_value"], rb["stop_value"], 5, show=10)))
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--quick", action="store_true", help="coarser orbit diagrams (about 1 minute)")
    ap.add_argument("--only", choices=["simplest", "compass"])
    ap.add_argument("--report-only", action="store_true", help="print the tables from summary.json, run nothing")
    a = ap.parse_args()
    os.makedirs(LOOSE, exist_ok=True)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    log, summary = [], {}
    if a.report_only or a.only and os.path.exists(OUT + "/summary.json"):
        with open(OUT + "/summary.json") as f:
            summary = json.load(f)  # keep the other model's results
        if not a.report_only:
            summary.pop("commands", None)
    for model, fn, cont in (("simplest", simplest_run, CONT), ("compass", compass_run, CONT_COMPASS)):
        if a.report_only or a.only not in (None, model):
            continue
        runs = []
        for (label, tol), (olabel, otol), out in zip(cont, ORBIT, (LOOSE, OUT)):
            r = fn(a.exe, out, tol, otol, a.quick, log, out == OUT)
            r["tolerance"] = {"continuation": label, "orbit": olabel}
            runs.append(r)
        summary[model] = {"runs": runs}
        if model == "simplest":
            summary[model]["published"] = PUBLISHED["simplest"]
    if not a.report_only:
        summary["commands"] = log
        with open(OUT + "/summary.json", "w") as f:
            json.dump(summary, f, indent=2)
    ck = stable_digits.Checker("route to chaos")
    text = report(summary, ck)
    summary["table"] = text
    summary["unstable"] = ck.unstable
    with open(OUT + "/summary.json", "w") as f:
        json.dump(summary, f, indent=2)
    print(text)
    for model in ("simplest", "compass"):
        if model in summary:
            print("%s seconds: %s" % (model, [r["seconds"] for r in summary[model]["runs"]]), file=sys.stderr)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
