#!/usr/bin/python3
"""Reproduces Garcia et al. (1998), Table 1 row gamma = 0.009: both period-one
gaits of the simplest walker, at the default and at tight tolerances.

Writes results/simplest_gamma0.009.json (every run's JSON) and prints the
markdown table that results/README.md shows.  Run from the top of the repo
after building:  /usr/bin/python3 scripts/reproduce_simplest.py
"""
import json
import subprocess
import sys

EXE = "build/src/cli/stridemap"
# Garcia, Chatterjee, Ruina & Coleman (1998), Table 1, gamma = 0.009.
PUBLISHED = {
    "stable (long step)": {"theta": 0.20031090049483, "theta_dot": -0.19983247291764,
                           "eig": "-0.19120868949940 +- 0.55633363687106i"},
    "unstable (short step)": {"theta": 0.19393736960624, "theta_dot": -0.20386692731962,
                              "eig": "4.000, 0.459"},
}
GUESS = {"stable (long step)": None, "unstable (short step)": "0.19,-0.2,0.38,-0.01"}
TIGHT = ["--rtol", "1e-13", "--atol", "1e-13", "--tol", "1e-13"]


def run(guess, extra):
    cmd = [EXE, "fixed", "simplest", "--set", "gamma=0.009", "--json"] + extra
    if guess:
        cmd += ["--guess", guess]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return " ".join(cmd[1:]), json.loads(out)


def eig_text(d):
    e = d["eigenvalues"]
    if abs(e[0][1]) > 0:
        return "%.6f ± %.6fi" % (e[0][0], abs(e[0][1]))
    return ", ".join("%.6f" % v[0] for v in e)


def main():
    runs = {}
    rows = []
    for gait, pub in PUBLISHED.items():
        for label, extra in (("1e-10 (default)", []), ("1e-13", TIGHT)):
            cmd, d = run(GUESS[gait], extra)
            runs.setdefault(gait, []).append({"command": "stridemap " + cmd, "result": d})
            x = d["fixed_point"]
            rows.append("| %s | %s | %.11f | %.1e | %.11f | %.1e | %.9f | %s | %s | %d |" % (
                gait, label, x[0], abs(x[0] - pub["theta"]), x[1], abs(x[1] - pub["theta_dot"]),
                d["step_period"], eig_text(d), "yes" if d["stable"] else "no",
                d["stride_evaluations"]))
    with open("results/simplest_gamma0.009.json", "w") as f:
        json.dump({"published": PUBLISHED, "runs": runs}, f, indent=2)
    print("| gait | rtol = atol | θ* | \\|Δθ*\\| | θ̇* | \\|Δθ̇*\\| | step period | eigenvalues | stable | strides |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
