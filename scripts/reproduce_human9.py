#!/usr/bin/python3
"""The nine-segment human's closed-loop gait (models/human9.yaml, issue 15
item 3): the gait by `stridemap fixed --json` at two tolerances (period,
multipliers, impact loss, the largest torques, the ground-force measures,
each slide contact's sliding distance),
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

The ground checks over the step (the issue's: normal forces positive,
friction ratio below mu, centre of pressure inside the foot, the swing
toe's clearance) from `stridemap simulate --steps 1` from each run's gait
at its tolerance (step_checks, below; tests/test_human9.c asserts them).

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
import tempfile

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


def step_checks(exe, tol, gait):
    """The ground checks over one step from the gait (simulate, 1e-4 s
    apart and at the events), by scripts/plot_human9.py's own per-row
    measures (the numbers its forces.png draws): per contact its smallest
    normal force; per foot its largest |F_t| / F_n, its contacts together
    (plot_human9.friction: the front foot's toe is a frictionless slide,
    so its heel pin carries the whole foot's friction); the centre of
    pressure (plot_human9.cop, with tau0) from the stance toe tip (the
    heel 0.266 m behind it), in single support -tau0 / F_n, the total
    one in double support, and there the hind foot's own, -tau0 / F_n,
    which must lie on its toe (the toe joint 0.056 m behind the tip),
    with tau0 at toe-off; the swing toe tip's lowest point in single
    support."""
    import plot_human9 as P
    from plot_common import Failure
    args = ["simulate", MODEL, "--steps", "1", "--dt", "1e-4", "--x0",
            ",".join(repr(v) for v in gait["fixed_point"])] + tol[:4]
    LOG.append("stridemap " + " ".join(args[:4]) + " <the gait> " + " ".join(tol[:4]))
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("stridemap simulate from the gait failed (%d): %s" % (p.returncode, p.stderr.strip()))
    q = subprocess.run([exe, "params", MODEL, "--json"], capture_output=True, text=True)
    if q.returncode != 0:
        sys.exit("stridemap params %s failed (%d): %s" % (MODEL, q.returncode, q.stderr.strip()))
    with tempfile.TemporaryDirectory(prefix="reproduce_human9_") as tmp:
        for name, text in (("step.csv", p.stdout), ("params.json", q.stdout)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        try:
            rows, contacts = P.load_step(os.path.join(tmp, "step.csv"),
                                         P.load_params(os.path.join(tmp, "params.json")))
        except Failure as e:
            sys.exit("the step from the gait: %s" % e)
    out = {"ss1_cop_min": 1e9, "ss1_cop_max": -1e9, "ds_cop_min": 1e9, "ds_cop_max": -1e9,
           "swing_tip_min": 1e9, "hind_ratio": 0.0, "front_ratio": 0.0,
           "tip_a_fn": 1e9, "heel_b_fn": 1e9, "flat_b_fn": 1e9, "hind_cop_min": 1e9, "hind_cop_max": -1e9}
    for r in rows:
        if r["kind"] == "pre":
            if r["event"] == "toeoff":
                out["toeoff_tau0"] = r["tau0.torque"]
            continue
        out["tip_a_fn"] = min(out["tip_a_fn"], r["tip_a.fz"])
        out["hind_ratio"] = max(out["hind_ratio"], P.friction(r, contacts, "a"))
        c = P.cop(r, contacts)[0]
        if r["phase"] == "ss1":
            out["ss1_cop_min"], out["ss1_cop_max"] = min(out["ss1_cop_min"], c), max(out["ss1_cop_max"], c)
            out["swing_tip_min"] = min(out["swing_tip_min"], r["legs"]["b"][5][2])  # the toe tip's z
            continue
        out["heel_b_fn"] = min(out["heel_b_fn"], r["heel_b.fz"])
        if r["phase"] == "ds_flat":
            out["flat_b_fn"] = min(out["flat_b_fn"], r["flat_b.fz"])
        out["front_ratio"] = max(out["front_ratio"], P.friction(r, contacts, "b"))
        out["ds_cop_min"], out["ds_cop_max"] = min(out["ds_cop_min"], c), max(out["ds_cop_max"], c)
        h = P.cop(r, contacts)[1]
        out["hind_cop_min"], out["hind_cop_max"] = min(out["hind_cop_min"], h), max(out["hind_cop_max"], h)
    return out


SLIDES = [("tip_slide_a", "stance toe"), ("heel_slide_b", "front heel"),
          ("flat_b", "front toe (a frictionless slide, the foot flat)")]


def sliding_rows(ck, gl, gh):
    """The table's rows of each slide contact's sliding over the step, from
    the gait's ground group (CONTACT.sliding_distance, the path, and
    .sliding_displacement, signed along x): a path within the larger of the
    two runs' constraint drifts is no sliding the runs can tell from the
    constraints' round-off, and is shown as that bound."""
    rows = []
    drift = max(gl["constraint_drift"], gh["constraint_drift"])
    for name, label in SLIDES:
        path, net = name + ".sliding_distance", name + ".sliding_displacement"
        if gl[path] == 0 and gh[path] == 0:
            rows.append("| %s: sliding distance (m) | 0 |" % label)
        elif max(abs(gl[path]), abs(gh[path])) <= drift:
            rows.append("| %s: sliding distance (m) | 0 (%s, within the constraints' drift) |"
                        % (label, ck.bound(path, gl[path], gh[path])))
        else:
            rows.append("| %s: sliding distance (m; path, and signed along x) | %s, %s |"
                        % (label, ck.sig(path, gl[path], gh[path], 2), ck.sig(net, gl[net], gh[net], 2)))
    return rows


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
    for key, label, need in [("min_normal_force", "smallest normal force of a ground contact (N; the toe-off's 40)", 2),
                             ("max_friction_ratio", "largest \\|F_t\\|/F_n of one contact (the front heel pin's, which"
                              " carries its foot's friction alone: the foot's is below)", 3),
                             ("cop_margin", "double support: centre of pressure inside the contacts by (m)", 3),
                             ("heel_b.min_normal_force", "front heel's smallest normal force (N)", 3),
                             ("flat_b.min_normal_force", "front toe's smallest normal force (N)", 2)]:
        lines.append("| %s | %s |" % (label, ck.sig(key, gl[key], gh[key], need)))
    lines += sliding_rows(ck, gl, gh)
    cl, ch = [step_checks(a.exe, tol, d) for (_, tol), d in zip(FIXED, runs)]
    lines += ["", "## Ground checks over the step", "",
              "`stridemap simulate --steps 1` from each gait (1e-4 s apart and at the events); distances"
              " from the stance toe tip, forward positive (the stance heel is 0.266 m behind it).", "",
              "| check | value |", "|---|---|"]
    for key, label, need in [("tip_a_fn", "stance toe's smallest normal force (N; toe-off when it falls to 40)", 3),
                             ("heel_b_fn", "front heel's smallest normal force (N)", 3),
                             ("flat_b_fn", "front toe's smallest normal force (N)", 3),
                             ("hind_ratio", "stance toe's largest friction ratio (mu 0.6)", 2),
                             ("front_ratio", "front foot's largest friction ratio, heel and toe together (mu 0.6)", 2),
                             ("ss1_cop_min", "single support: centre of pressure, hindmost (m)", 2),
                             ("ss1_cop_max", "single support: centre of pressure, foremost (m)", 2),
                             ("ds_cop_min", "double support: centre of pressure, hindmost (m)", 2),
                             ("ds_cop_max", "double support: centre of pressure, foremost (m)", 2),
                             ("hind_cop_min", "double support: the hind foot's own (-tau0/F_n), hindmost (m; its toe"
                              " joint 0.056 m behind the tip)", 2),
                             ("hind_cop_max", "double support: the hind foot's own, foremost (m)", 2),
                             ("toeoff_tau0", "the toe moment tau0 at toe-off (N m)", 2)]:
        lines.append("| %s | %s |" % (label, ck.sig(key, cl[key], ch[key], need)))
    above = ck.same("swing_tip_above", bool(cl["swing_tip_min"] >= 0), bool(ch["swing_tip_min"] >= 0))
    lines.append("| single support: the swing toe tip's lowest point (m; at the step's start) | %s%s |"
                 % ("" if above is True else "below the ground: ",
                    ck.sig("swing_tip_min", cl["swing_tip_min"], ch["swing_tip_min"], 2)))
    lines += ["", "## Torques", "", "| quantity | value |", "|---|---|"]
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
    lines += ["", "How the gait's ground forces were made admissible, and what is left, is in models/human9.yaml's"
              " header (\"The gait\").", "",
              "## Pictures", "",
              "One step of the gait (`stridemap simulate models/human9.yaml --steps 1`, from the",
              "file's guess), drawn by scripts/plot_human9.py:", "",
              "- [step.png](step.png): stick figures about every 0.05 s and at heel-strike,",
              "  foot-flat and toe-off (thick), side by side; the stance leg blue, the swing",
              "  (then front) leg red, the ground contacts in use marked.",
              "- [forces.png](forces.png): each contact's normal and tangential force, the",
              "  friction ratio |F_t|/F_n against mu, and the centre of pressure (with the",
              "  fictitious toe moment tau0: -tau0/F_n from the stance toe tip in single",
              "  support, both feet's in double support) against the feet's extent, the",
              "  ZMP beside it as a check; the phases shaded.", ""]
    text = "\n".join(lines)
    open(os.path.join(OUT, "README.md"), "w").write(text)
    json.dump({"commands": LOG}, open(os.path.join(OUT, "summary.json"), "w"), indent=1)
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_human9.py"), OUT, "--exe", a.exe, "--model", MODEL],
                   check=True)
    print(text)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
