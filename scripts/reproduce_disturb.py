#!/usr/bin/python3
"""Regenerates results/disturb/: the largest one-step disturbances the
walkers' gaits survive (stridemap disturb), their gait sensitivity norms
(stridemap fixed), and a sweep of the compass walker's leg-mass position b
where the largest surviving step-down and max |eigenvalue| disagree about
which design is more stable, with its picture (scripts/plot_disturb.py).

Every number is computed at two tolerances (RUNS) and printed only to the
digits both agree on (scripts/stable_digits.py); the script exits 1 naming
any number that does not keep the digits its table needs.  The brackets'
ends are where a trajectory stops coming back, so they move with the
tolerance more than a gait does: they are shown to 3 significant digits.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_disturb.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import push_response  # noqa: E402
import stable_digits  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = "results/disturb"
RUNS = [("rtol 1e-10", ["--rtol", "1e-10", "--atol", "1e-10"]),
        ("rtol 1e-12", ["--rtol", "1e-12", "--atol", "1e-12"])]
MAX_STRIDES = "100"
# (label, model, disturbance, range)
WALKERS = [
    ("simplest, γ = 0.009", "simplest", "step_down", 0.02),
    ("simplest, γ = 0.009", "simplest", "push", 0.2),
    ("simplest, γ = 0.009", "simplest", "slope_step", 0.05),
    ("compass, 3°", "compass", "step_down", 0.05),
    ("compass, 3°", "compass", "push", 20),
    ("compass, 3°", "compass", "slope_step", 0.05),
    ("kneed_mcgeer (body file)", "models/kneed_mcgeer.yaml", "step_down", 0.03),
    ("compass.yaml (body file)", "models/compass.yaml", "push", 20),
    ("five_link (HZD, body file)", "five_link", "step_down", 0.1),
    ("five_link (HZD, body file)", "five_link", "push", 50),
    ("five_link (HZD, body file)", "five_link", "slope_step", 0.2),
    ("garcia3d (3-D, body file)", "garcia3d", "step_down", 0.02),
    ("garcia3d (3-D, body file)", "garcia3d", "slope_step", 0.05),
    ("garcia3d (3-D, body file)", "garcia3d", "push", 10),
    ("garcia3d (3-D, body file)", "garcia3d", "push_left", 10),
]
SWEEP_B = [round(0.3 + 0.3 * k / 9, 6) for k in range(10)]
# (label, model, push P in N s, strides): small pushes, a few per cent of
# the largest survived, so that the response is nearly linear
PUSHED = [
    ("compass", "compass", 0.05, 40),
    ("compass.yaml", "models/compass.yaml", 0.05, 40),
    ("kneed_mcgeer", "kneed_mcgeer", 0.01, 60),
    ("three_link_hzd", "three_link_hzd", 0.1, 40),
    ("five_link", "five_link", 0.5, 60),
]


def run(exe, args):
    cmd = [exe] + args
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("reproduce_disturb.py: %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return json.loads(r.stdout)


def disturb(exe, model, name, rng, tol, sets=()):
    return run(exe, ["disturb", model, "--param", name, "--from", str(-rng), "--to", str(rng), "--max-strides",
                     MAX_STRIDES, "--json"] + list(sets) + tol)


def fixed(exe, model, tol, sets=()):
    return run(exe, ["fixed", model, "--json"] + list(sets) + tol)


def bracket(ck, key, a, b):
    """'survives .. fails (failure)' to the digits both runs share.  A gait
    that survives nothing (an unstable one: every trial, however small,
    fails) shows 0 and the failure at the smallest trial."""
    if a is None or b is None:
        return "–"
    if a["failure"] is None and b["failure"] is None:
        return "all of it (%s)" % ck.sig(key, a["survives"], b["survives"], 3)
    ck.same(key + " failure", a["failure"], b["failure"])
    if a["survives"] == 0 and b["survives"] == 0:
        return "none (%s at %.1g)" % (b["failure"], b["fails"])
    return "%s (%s beyond)" % (ck.sig(key, a["survives"], b["survives"], 3), b["failure"])


def gsn_text(ck, key, f):
    """The GSN to 4 digits, or why there is none (fixed --json's reason)."""
    g = [x["gsn"] for x in f]
    if g[0] is None or g[1] is None:
        why = [x.get("reason") for x in f]
        ck.same(key + " reason", why[0], why[1])
        return "– (%s)" % why[1]
    return ck.sig(key, g[0], g[1], 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    ck = stable_digits.Checker("disturb")
    t0 = time.time()

    print("### walkers\n")
    print("Largest one-step disturbance each way that the gait survives (back within 1e-6 of the gait in the "
          "section's free coordinates within %s strides, no fall; `stridemap disturb MODEL --param NAME --from -R "
          "--to R --max-strides %s`), the failure just beyond it, and the gait sensitivity norm to it "
          "(step length and step time, per unit disturbance; `stridemap fixed MODEL --json`).  Checked at %s "
          "and %s.\n" % (MAX_STRIDES, MAX_STRIDES, RUNS[0][0], RUNS[1][0]))
    print("| walker | disturbance | searched | largest negative | largest positive | GSN |")
    print("|---|---|---|---|---|---|")
    record = []
    gsn_cache = {}
    for label, model, name, rng in WALKERS:
        d = [disturb(a.exe, model, name, rng, tol) for _, tol in RUNS]
        if model not in gsn_cache:
            gsn_cache[model] = [fixed(a.exe, model, tol) for _, tol in RUNS]
        gf = [f["gait_sensitivity"]["disturbances"][name] for f in gsn_cache[model]]
        g = [x["gsn"] for x in gf]
        key = "%s %s" % (model, name)
        unit = d[1]["unit"]
        print("| %s | %s (%s) | ±%g | %s | %s | %s |" % (
            label, name, unit, rng, bracket(ck, key + " negative", d[0]["negative"], d[1]["negative"]),
            bracket(ck, key + " positive", d[0]["positive"], d[1]["positive"]),
            gsn_text(ck, key + " gsn", gf)))
        record.append({"model": model, "disturbance": name, "unit": unit, "range": rng, "runs": [
            {"tolerance": RUNS[k][0], "negative": d[k]["negative"], "positive": d[k]["positive"], "gsn": g[k]}
            for k in range(2)]})
    with open(OUT + "/walkers.json", "w") as f:
        json.dump(record, f, indent=1)

    print("\n### compass_b\n")
    print("The compass walker (m = 5 kg, mh = 10 kg, a = 0.5 m from the foot to the leg's mass, 3°) with b, "
          "the leg's mass's distance below the hip, varied, so the leg is a + b long "
          "(`stridemap fixed compass --set b=B` and `stridemap disturb compass --set b=B --param "
          "step_down --from -0.05 --to 0.05`, scripts/reproduce_disturb.py), at %s (checked at %s).  "
          "Picture: compass_b.png.\n" % (RUNS[1][0], RUNS[0][0]))
    print("| b (m) | max \\|λ\\| | largest step-down (m) | largest step-up (m) | GSN to step_down |")
    print("|---|---|---|---|---|")
    rows = []
    for b in SWEEP_B:
        sets = ["--set", "b=%r" % b]
        f = [fixed(a.exe, "compass", tol, sets) for _, tol in RUNS]
        d = [disturb(a.exe, "compass", "step_down", 0.05, tol, sets) for _, tol in RUNS]
        key = "compass b=%g" % b
        eig = ck.sig(key + " max|eig|", f[0]["max_abs_eigenvalue"], f[1]["max_abs_eigenvalue"], 4)
        gs = [x["gait_sensitivity"]["disturbances"]["step_down"]["gsn"] for x in f]
        down = ck.sig(key + " step-down", d[0]["positive"]["survives"], d[1]["positive"]["survives"], 3)
        up = ck.sig(key + " step-up", -d[0]["negative"]["survives"], -d[1]["negative"]["survives"], 3)
        print("| %g | %s | %s | %s | %s |" % (b, eig, down, up, ck.sig(key + " gsn", gs[0], gs[1], 4)))
        rows.append({"b": b, "max_abs_eigenvalue": f[1]["max_abs_eigenvalue"], "step_down": d[1]["positive"]["survives"],
                     "step_down_fails": d[1]["positive"]["fails"], "step_down_failure": d[1]["positive"]["failure"],
                     "step_up": -d[1]["negative"]["survives"], "step_up_fails": -d[1]["negative"]["fails"],
                     "step_up_failure": d[1]["negative"]["failure"], "gsn_step_down": gs[1]})
    with open(OUT + "/compass_b.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    # Where the two rankings disagree: a pair of designs one calls better and
    # the other worse.
    pairs = [(p, q) for i, p in enumerate(rows) for q in rows[i + 1:]
             if (p["max_abs_eigenvalue"] - q["max_abs_eigenvalue"]) * (p["step_down"] - q["step_down"]) > 0
             and abs(p["step_down"] - q["step_down"]) > 1e-3 and abs(p["max_abs_eigenvalue"] - q["max_abs_eigenvalue"]) > 1e-3]
    if pairs:
        p, q = max(pairs, key=lambda pq: abs(pq[0]["step_down"] - pq[1]["step_down"]) *
                   abs(pq[0]["max_abs_eigenvalue"] - pq[1]["max_abs_eigenvalue"]))
        lo, hi = (p, q) if p["max_abs_eigenvalue"] < q["max_abs_eigenvalue"] else (q, p)
        print("\nThe multipliers and the step-down disagree in %d of %d pairs of designs; most plainly b = %g m "
              "against b = %g m: max |λ| %.4f < %.4f calls b = %g m the more stable, yet it survives a step "
              "down of %.3g m against %.3g m." % (len(pairs), len(rows) * (len(rows) - 1) // 2, lo["b"], hi["b"],
                                                  lo["max_abs_eigenvalue"], hi["max_abs_eigenvalue"], lo["b"],
                                                  lo["step_down"], hi["step_down"]))
    else:
        print("\nThe multipliers and the step-down agree on every pair of designs here.")
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_disturb.py"), OUT + "/compass_b.csv",
                    OUT + "/compass_b.png"], check=True, stdout=sys.stderr)

    print("\n### push_response\n")
    print("The gait sensitivity norm against the strides themselves: a push of ±P on one stride from the gait, "
          "the walker left to walk on, each stride's step time and length differenced between +P and −P per "
          "unit push (`stridemap simulate MODEL --x0 GAIT --steps 1 --set push=±P`, then the rest from where "
          "it lands; scripts/push_response.py).  The H2 norm of that response, summed over the strides shown, "
          "tends to the GSN `fixed` computes from the linearised map as P² (compass: 1.3e-3, 8e-5, 5e-6 "
          "relative at P = 0.2, 0.05, 0.0125 N s).  Checked at %s and %s.  Picture: push_response.png.\n"
          % (RUNS[0][0], RUNS[1][0]))
    print("| walker | P (N s) | strides | max \\|λ\\| | GSN (`fixed`) | the strides' H2 norm | relative difference |")
    print("|---|---|---|---|---|---|---|")
    records = []
    for label, model, P, n in PUSHED:
        rs = [push_response.response(a.exe, model, "push", P, n, tol) for _, tol in RUNS]
        key = "%s push" % model
        diff = [abs(r["direct"] / r["gsn"] - 1) for r in rs]
        print("| %s | %g | %d | %s | %s | %s | %s |" % (
            label, P, n, ck.sig(key + " max|eig|", rs[0]["max_abs_eigenvalue"], rs[1]["max_abs_eigenvalue"], 4),
            ck.sig(key + " gsn", rs[0]["gsn"], rs[1]["gsn"], 3, 5),
            ck.sig(key + " direct", rs[0]["direct"], rs[1]["direct"], 3, 5),
            ck.bound(key + " difference", diff[0], diff[1])))
        rs[1]["label"] = label
        records.append(rs[1])
    with open(OUT + "/push_response.json", "w") as f:
        json.dump(records, f, indent=1)
    push_response.plot(records, OUT + "/push_response.png")
    print("\n%.0f s." % (time.time() - t0), file=sys.stderr)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
