#!/usr/bin/python3
"""The nine-segment human's closed-loop gait (models/human9.yaml, issue 15
item 3): the gait by `stridemap fixed --json` at two tolerances (period,
multipliers, impact loss, the largest torques, the ground-force measures),
and a stability map over the two feedback gains kp and kd (a 3 x 3 grid
about 1000 N m/rad, 40 N m s/rad; the file has 1200, 40), each point a `fixed` run from
the file's guess.

`stridemap sweep` does not take this file: the sweep's record of its
settings (the signature that guards a resumed sweep) has room for 8192
characters and the file's 250 parameters need more ("the sweep's settings
are too long to record"); so the grid is a loop of `fixed --set`.

Every number is printed to the digits on which the two runs agree
(scripts/stable_digits.py).  Each `fixed` spends most of its time on the
finite-difference cross-check of the 18 multipliers: about 30 s at the
looser tolerance and 2 min at the tighter one here.

Writes results/human9/: README.md (the tables), gait.json (the tighter
run at the file's gains), gains.csv (the grid, both tolerances) and
summary.json (every command).  The tables go to stdout as well.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_human9.py [--exe build/src/cli/stridemap]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stable_digits  # noqa: E402

OUT = "results/human9"
MODEL = "models/human9.yaml"
FIXED = [("1e-9", ["--rtol", "1e-9", "--atol", "1e-9", "--tol", "1e-7"]),
         ("1e-10", ["--rtol", "1e-10", "--atol", "1e-10", "--tol", "1e-8"])]
KP = [800, 1000, 1200]  # the file's kp (1200) is the last row
KD = [30, 40, 50]
ACTUATORS = ["hip_a", "hip_b", "knee_a", "knee_b", "ankle_a", "ankle_b", "toe_a", "tau0"]
LOG = []


def fixed(exe, tol, sets=()):
    args = ["fixed", MODEL, "--json"] + tol
    for k, v in sets:
        args += ["--set", "%s=%s" % (k, v)]
    LOG.append("stridemap " + " ".join(args))
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("stridemap %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    ck = stable_digits.Checker("reproduce_human9")
    runs = [fixed(a.exe, tol) for _, tol in FIXED]
    for d in runs:
        if d["status"] != "ok":
            sys.exit("stridemap fixed %s: %s (%s)" % (MODEL, d["status"], d.get("message")))
    lo, hi = runs
    json.dump(hi, open(os.path.join(OUT, "gait.json"), "w"), indent=1)
    lines = ["# human9: the closed-loop gait and its gains", "",
             "`stridemap fixed %s --json` at rtol %s and %s (the digits on which both agree);"
             " made by scripts/reproduce_human9.py." % (MODEL, FIXED[0][0], FIXED[1][0]), "",
             "## The gait", "", "| quantity | value |", "|---|---|"]
    lines.append("| step period (s) | %s |" % ck.sig("period", lo["step_period"], hi["step_period"], 4))
    lines.append("| hip speed at toe-off (m/s) | %s |" % ck.sig("speed", lo["fixed_point"][12], hi["fixed_point"][12], 3))
    lines.append("| energy lost at the impacts (J) | %s |"
                 % ck.sig("impact", lo["impact_energy_loss"], hi["impact_energy_loss"], 3))
    for k in range(4):
        el, eh = lo["eigenvalues"][k], hi["eigenvalues"][k]
        lines.append("| multiplier %d | %s %s %si |" % (k + 1, ck.sig("eig%d_re" % k, el[0], eh[0], 3),
                                                     "-" if eh[1] < 0 else "+",
                                                     ck.sig("eig%d_im" % k, abs(el[1]), abs(eh[1]), 3)
                                                     if abs(eh[1]) > 1e-6 else "0"))
    lines.append("| stable | %s |" % ck.same("stable", lo["stable"], hi["stable"]))
    gl, gh = lo["ground"], hi["ground"]
    for key, label, need in [("min_normal_force", "smallest normal force of a ground contact (N)", 2),
                             ("max_friction_ratio", "largest ratio of friction to normal force (mu 0.6)", 3),
                             ("cop_margin", "double support: centre of pressure inside the contacts by (m)", 3),
                             ("heel_b.min_normal_force", "front heel's smallest normal force (N)", 3),
                             ("flat_b.min_normal_force", "front toe's smallest normal force (N)", 2)]:
        lines.append("| %s | %s |" % (label, ck.sig(key, gl[key], gh[key], need)))
    for act in ACTUATORS:
        key = act + ".max_torque"
        lines.append("| largest torque %s (N m) | %s |" % (act, ck.sig(key, gl[key], gh[key], 3)))
    lines += ["", "## Stability over the gains", "",
              "max |multiplier| of the gait at each (kp, kd), Newton from the file's guess;"
              " 'none' where `fixed` finds no gait (its status).", "",
              "| kp \\ kd | " + " | ".join("%g" % kd for kd in KD) + " |", "|---|" + "---|" * len(KD)]
    rows = ["kp,kd,status_lo,status_hi,max_abs_eig_lo,max_abs_eig_hi"]
    for kp in KP:
        cells = []
        for kd in KD:
            d = [fixed(a.exe, tol, [("kp", kp), ("kd", kd)]) for _, tol in FIXED]
            st = [x["status"] for x in d]
            m = [x.get("max_abs_eigenvalue") if x["status"] == "ok" else None for x in d]
            rows.append("%g,%g,%s,%s,%s,%s" % (kp, kd, st[0], st[1], m[0], m[1]))
            name = "kp=%g,kd=%g" % (kp, kd)
            if ck.same(name + " status", st[0], st[1]) != "ok":
                cells.append("none (%s)" % st[1])
            else:
                cells.append(ck.sig(name, m[0], m[1], 3))
        lines.append("| %g | %s |" % (kp, " | ".join(cells)))
    open(os.path.join(OUT, "gains.csv"), "w").write("\n".join(rows) + "\n")
    lines += ["", "The ground-force checks that fail, and why, are in models/human9.yaml's header.", ""]
    text = "\n".join(lines)
    open(os.path.join(OUT, "README.md"), "w").write(text)
    json.dump({"commands": LOG}, open(os.path.join(OUT, "summary.json"), "w"), indent=1)
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_human9.py"), OUT, "--exe", a.exe, "--model", MODEL],
                   check=True)
    print(text)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
