#!/usr/bin/python3
"""Reproduces Garcia et al. (1998), Table 1 row gamma = 0.009: both period-one
gaits of the simplest walker.

Each gait is found twice, at the two tolerances in RUNS (integrator rtol =
atol, Newton's --tol, the finite-difference step, all explicit), and each
number is printed only to the digits on which the two runs agree
(scripts/stable_digits.py); a number that agrees to fewer digits than the
table needs is named on stderr and the script exits 1.

Writes results/simplest_gamma0.009.json (every run's JSON) and prints the
markdown table that results/README.md shows.  Run from the top of the repo
after building:  /usr/bin/python3 scripts/reproduce_simplest.py
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

EXE = os.environ.get("STRIDEMAP", "build/src/cli/stridemap")
# Garcia, Chatterjee, Ruina & Coleman (1998), Table 1, gamma = 0.009.
PUBLISHED = {
    "stable (long step)": {"theta": 0.20031090049483, "theta_dot": -0.19983247291764,
                           "eig": "-0.19120868949940 +- 0.55633363687106i"},
    "unstable (short step)": {"theta": 0.19393736960624, "theta_dot": -0.20386692731962,
                              "eig": "4.000, 0.459"},
}
GUESS = {"stable (long step)": None, "unstable (short step)": "0.19,-0.2,0.38,-0.01"}
# The central-difference Jacobian's error is O(h^2) + O(rtol / h); the two
# runs move both.
RUNS = [("1e-12", ["--rtol", "1e-12", "--atol", "1e-12", "--tol", "1e-11"]),
        ("1e-13", ["--rtol", "1e-13", "--atol", "1e-13", "--tol", "1e-12"])]


def run(guess, extra):
    cmd = [EXE, "fixed", "simplest", "--set", "gamma=0.009", "--json"] + extra
    if guess:
        cmd += ["--guess", guess]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return " ".join(cmd[1:]), json.loads(out)


def eig_text(ck, gait, a, b):
    ea, eb = a["eigenvalues"], b["eigenvalues"]
    if abs(eb[0][1]) > 0:
        return "%s ± %si" % (ck.dec(gait + " eigenvalue re", ea[0][0], eb[0][0], 6, show=7),
                             ck.dec(gait + " eigenvalue |im|", abs(ea[0][1]), abs(eb[0][1]), 6, show=7))
    return ", ".join(ck.dec(gait + " eigenvalue %d" % k, ea[k][0], eb[k][0], 5, show=7) for k in range(len(eb)))


def main():
    runs = {}
    rows = []
    ck = stable_digits.Checker("simplest gamma=0.009")
    for gait, pub in PUBLISHED.items():
        res = []
        for label, extra in RUNS:
            cmd, d = run(GUESS[gait], extra)
            runs.setdefault(gait, []).append({"command": "stridemap " + cmd, "rtol": label, "result": d})
            res.append(d)
        a, b = res
        xa, xb = a["fixed_point"], b["fixed_point"]
        ck.same(gait + " converged", a["converged"], b["converged"])
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            gait,
            ck.dec(gait + " theta*", xa[0], xb[0], 10, show=12),
            ck.bound(gait + " |dtheta*|", xa[0] - pub["theta"], xb[0] - pub["theta"]),
            ck.dec(gait + " theta_dot*", xa[1], xb[1], 10, show=12),
            ck.bound(gait + " |dtheta_dot*|", xa[1] - pub["theta_dot"], xb[1] - pub["theta_dot"]),
            ck.dec(gait + " step period", a["step_period"], b["step_period"], 8, show=11),
            eig_text(ck, gait, a, b),
            ck.same(gait + " stable", "yes" if a["stable"] else "no", "yes" if b["stable"] else "no")))
    with open("results/simplest_gamma0.009.json", "w") as f:
        json.dump({"published": PUBLISHED, "tolerances": [r[0] for r in RUNS], "runs": runs,
                   "unstable": ck.unstable}, f, indent=2)
    print("rtol = atol = %s and %s (Newton --tol, default difference steps: scripts/reproduce_simplest.py); "
          "the digits shown are those both runs give.\n" % (RUNS[0][0], RUNS[1][0]))
    print("| gait | θ* | \\|Δθ*\\| ≤ | θ̇* | \\|Δθ̇*\\| ≤ | step period | eigenvalues | stable |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
