#!/usr/bin/python3
"""The walking 3-D biped of seed 000 (models/biped12_3d.yaml, issue 15 item
4): its gait by `stridemap fixed --json` at two tolerances, the multipliers
with the mode each belongs to, the joint torques, the ground forces per foot
and per contact point, and pictures of a stride (front and side stick
figures, the ground force and the centre of pressure over the step).

Every number is printed to the digits on which the two runs agree
(scripts/stable_digits.py), as many as they share up to a cap (SHOW), not
a fixed count: a number is unstable only if not even its first digit
agrees.  A stride costs a few seconds (a stiff PD, BDF,
the state's 36 components): the two `fixed` runs take about 10 minutes of
CPU from the file's guess (the fixed point), most of it in the
finite-difference cross-check of the multipliers.

Writes results/biped12_3d/: README.md (the tables), gait.json (the tighter
run), gait.csv (one stride from it, `simulate`), front.png, side.png,
forces.png and summary.json (both runs' numbers and every command).  The
tables go to stdout as well ('### NAME' sections).

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_biped12_3d.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stable_digits  # noqa: E402
import design_biped12_3d as kin  # noqa: E402

OUT = "results/biped12_3d"
MODEL = "models/biped12_3d.yaml"
FIXED = [("1e-10", ["--rtol", "1e-10", "--atol", "1e-10", "--tol", "1e-8"]),
         ("1e-11", ["--rtol", "1e-11", "--atol", "1e-11", "--tol", "1e-9"])]
ACTUATORS = ["hip_a", "knee_a", "ankle_a", "ankle_roll_a", "hip_b", "knee_b", "ankle_b", "hip_roll_b"]
CONTACTS = ["toe_a", "toe_ao", "heel_a", "heel_b", "toe_bz"]
MU = 0.7  # the friction coefficient of the seed's check (eq. 26), ASSUMED (the seed gives none)
LOG = []
# The most significant digits a table shows; each number shows the digits
# its two runs share, up to this.
SHOW = 6


def agreed(ck, name, a, b, show=SHOW):
    """a and b to the significant digits they share (at most `show`)."""
    return ck.sig(name, a, b, 1, show=show)


def normal_min(ck, contact, a, b):
    """A contact's smallest normal force: 0 where an event ends the contact as
    its force reaches zero (heel_a, Heel1off), printed with its bound (the
    root finder's, which the tolerance moves), else the digits that agree."""
    if max(abs(a), abs(b)) < 1e-6:
        return "0 (to %s, where it lets go)" % ck.bound(contact + " fn", a, b)
    return agreed(ck, contact + " fn", a, b)


def point_ratio(ck, ground_lo, ground_hi):
    """The largest abs(F_t)/F_n of one contact point.  Where a point lets go
    (its normal force reaches zero, e.g. heel_a at Heel1off) while its
    tangential force does not, that ratio has no bound, and the two
    tolerances read it at different distances from the zero: then it is
    said so, with both values, rather than printed as a number."""
    a, b = ground_lo["max_friction_ratio"], ground_hi["max_friction_ratio"]
    least = {c: (ground_lo[c + ".min_normal_force"], ground_hi[c + ".min_normal_force"])
             for c in CONTACTS if c + ".min_normal_force" in ground_hi}
    letting_go = [c for c, f in least.items() if max(abs(f[0]), abs(f[1])) < 1e-6]
    pulling = [c for c, f in least.items() if min(f) < 0 and c not in letting_go]
    if abs(a - b) <= 1e-3 * max(abs(a), abs(b)) or not (letting_go or pulling):
        return agreed(ck, "max friction", a, b)
    if letting_go:
        where = "%s lets go (its normal force to zero, its tangential force not" % " and ".join(letting_go)
    else:
        where = "the normal force of %s passes through zero (a pull, the tangential force not" % ", ".join(pulling)
    return ("without bound where %s: %.4g and %.4g at the two tolerances); the seed's check is the foot's, above"
            % (where, a, b))


def run(exe, args):
    LOG.append("stridemap " + " ".join(args))
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("stridemap %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p


def fixed(exe, tol):
    d = json.loads(run(exe, ["fixed", MODEL, "--json"] + tol).stdout)
    if d["status"] != "ok":
        sys.exit("stridemap fixed: %s (%s)" % (d["status"], d.get("message")))
    return d


def multipliers(d):
    """(value, mode) by decreasing modulus."""
    modes = d.get("modes") or ["?"] * len(d["eigenvalues"])
    pairs = [(complex(re, im), m) for (re, im), m in zip(d["eigenvalues"], modes)]
    return sorted(pairs, key=lambda p: (-abs(p[0]), -p[0].imag))


def simulate(exe, d, path):
    x0 = ",".join("%.17g" % v for v in d["fixed_point"])
    run(exe, ["simulate", MODEL, "--x0", x0, "--steps", "1", "--rtol", "1e-12", "--atol", "1e-12",
              "--dt", "0.002", "--out", path])
    with open(path) as f:
        return list(csv.DictReader(f))


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return float("nan")


def per_foot(rows):
    """Per sample: time, phase, (F foot a), (F foot b), cop x, cop y."""
    out = []
    for r in rows:
        if r["kind"] != "sample":
            continue
        feet = []
        for cs in (["toe_a", "toe_ao", "heel_a"], ["heel_b", "toe_bz"]):
            F = np.zeros(3)
            held = False
            for c in cs:
                if not math.isnan(num(r, c + ".fz")):
                    held = True
                    F += [num(r, c + ".fx"), num(r, c + ".fy"), num(r, c + ".fz")]
            feet.append(F if held else None)
        out.append((num(r, "time"), r["phase"], feet[0], feet[1], num(r, "cop.x"), num(r, "cop.y")))
    return out


def foot_checks(samples):
    res = {}
    for k, name in ((2, "a"), (3, "b")):
        fz = [s[k][2] for s in samples if s[k] is not None]
        ratio = [math.hypot(s[k][0], s[k][1]) / s[k][2] for s in samples if s[k] is not None and s[k][2] > 0]
        res[name] = (min(fz), max(ratio))
    return res


def per_point_verdict(g):
    """Whether every contact point pushes (stricter than the seed's per-foot eq. 25: a corner of a toe line
    cannot pull), from `fixed`'s ground group, as README text."""
    pulls = [c for c in CONTACTS if c + ".min_normal_force" in g and g[c + ".min_normal_force"] is not None
             and g[c + ".min_normal_force"] < -1e-6]  # N: heel_a lets go at 0 to 7e-12
    if not pulls:
        text = "Per contact point F_z > 0 holds too: the centre of pressure stays inside the support polygon."
    else:
        text = ("Per contact point F_z > 0, stricter than the seed's check (a corner of a toe line cannot pull), "
                "fails: %s pull%s (the smallest normal forces above), so the centre of pressure leaves the "
                "support polygon, and `fixed --json` reports `contact.unilateral` false. The foot is 0.055 m "
                "wide, so the ankle's roll torque may not exceed about 294 N x 0.0275 m = 8 N m, which the PD "
                "(kp = 3000) reaches at a roll tracking error of 2.7e-3 rad, and the plan's lateral sway "
                "(0.025 m) is not the one the walker's lateral pendulum needs (issue 15 item 4, left open: "
                "models/biped12_3d.yaml's header)."
                % (" and ".join(pulls), "" if len(pulls) > 1 else "s"))
    return textwrap.fill(text, width=74, subsequent_indent="  ")


def per_foot_verdict(checks):
    """The per-foot checks in words, from the numbers (eqs. 25-26)."""
    bad = ["foot %s's %s" % (f, what) for f in "ab"
           for what, fails in (("F_z > 0", checks[f][0] <= 0), ("abs(F_t) < mu F_z", checks[f][1] >= MU)) if fails]
    if not bad:
        return "both hold over\n  the step."
    return "over the step\n  " + " and ".join(bad) + (" fails" if len(bad) == 1 else " fail") + " (the table above)."


def state_of(r):
    return {c: num(r, c) for c in kin.COORDS}


def skeleton(q):
    """Points of the stick figure from the file's coordinates (the design script's kinematics)."""
    Rp = kin.pelvis([q["hat_x"], q["hat_y"], q["hat_z"]], q["hat_yaw"], q["hat_roll"], q["hat"])
    R, p = Rp
    head = p + R @ np.array([0, 0, 0.36])
    lines = [[p, head], [p + R @ np.array([0, -kin.HIP_HALF, 0]), p + R @ np.array([0, kin.HIP_HALF, 0])]]
    for side, leg in ((-1, "a"), (+1, "b")):
        hip = p + R @ np.array([0, side * kin.HIP_HALF, 0])
        Rk = R @ kin.rot("x", q["hip_x_" + leg]) @ kin.rot("y", q["thigh_" + leg])
        knee = hip + Rk @ np.array([0, 0, -kin.THIGH])
        Rf, ankle = kin.leg(R, p, side, q["hip_x_" + leg], q["thigh_" + leg], q["knee_" + leg],
                            q["ankle_z_" + leg], q["ankle_x_" + leg], q["foot_" + leg])
        toe_in, toe_out, heel = (kin.site((Rf, ankle), side, w) for w in ("toe_in", "toe_out", "heel"))
        lines += [[hip, knee, ankle], [heel, toe_in, toe_out, heel]]
    return lines


def sole(q):
    """{contact: its site's position} of both feet's sole points (toe_a the
    inner toe corner, toe_ao the outer, heel_a the heel; b alike)."""
    R, p = kin.pelvis([q["hat_x"], q["hat_y"], q["hat_z"]], q["hat_yaw"], q["hat_roll"], q["hat"])
    out = {}
    for side, leg in ((-1, "a"), (+1, "b")):
        foot = kin.leg(R, p, side, q["hip_x_" + leg], q["thigh_" + leg], q["knee_" + leg], q["ankle_z_" + leg],
                       q["ankle_x_" + leg], q["foot_" + leg])
        for name, where in (("toe_" + leg, "toe_in"), ("toe_%so" % leg, "toe_out"), ("heel_" + leg, "heel")):
            out[name] = kin.site(foot, side, where)
    return out


def pictures(rows, samples, out=OUT, name="biped12_3d"):
    """side.png, front.png and forces.png of one step into `out` (rows: a
    `simulate` CSV's; samples: per_foot's), titled with the model's name
    (scripts/reproduce_biped12_3d_sampled.py draws its gait with these)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    picks = [r for r in rows if r["kind"] == "sample"][::60] + [r for r in rows if r["kind"] == "pre"]
    picks.sort(key=lambda r: num(r, "time"))
    T = num(rows[-1], "time")
    cmap = plt.get_cmap("viridis")
    for view, (i, j), label in (("side", (0, 2), "x (m)"), ("front", (1, 2), "y (m)")):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for r in picks:
            col = cmap(num(r, "time") / T)
            for line in skeleton(state_of(r)):
                pts = np.array(line)
                ax.plot(pts[:, i], pts[:, j], "-", color=col, lw=1.2 if r["kind"] == "sample" else 2.2)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_aspect("equal")
        ax.set_xlabel(label)
        ax.set_ylabel("z (m)")
        ax.set_title("%s: one step of the gait, %s view (colour: time, 0 to %.2f s; thick: events)"
                     % (name, view, T), fontsize=9)
        fig.tight_layout()
        fig.savefig("%s/%s.png" % (out, view), dpi=110)
        plt.close(fig)
    t = np.array([s[0] for s in samples])
    fa = np.array([s[2][2] if s[2] is not None else np.nan for s in samples])
    fb = np.array([s[3][2] if s[3] is not None else np.nan for s in samples])
    fig = plt.figure(figsize=(12, 9))
    gs = fig.add_gridspec(4, 2, width_ratios=[1.5, 1])
    a1 = fig.add_subplot(gs[0, 0])
    a2, a3, a4 = (fig.add_subplot(gs[k, 0], sharex=a1) for k in (1, 2, 3))
    a1.plot(t, fa, label="foot a (stance) F_z")
    a1.plot(t, fb, label="foot b (front heel) F_z")
    a1.plot(t, np.nan_to_num(fa) + np.nan_to_num(fb), "k--", lw=0.8, label="total F_z")
    a1.set_ylabel("N")
    a1.legend(fontsize=8)
    # per contact point: a negative normal force is a corner the ground pulls
    point = {c: np.array([num(r, c + ".fz") for r in rows if r["kind"] == "sample"]) for c in CONTACTS}
    for c, fz in point.items():
        if np.isfinite(fz).any():
            a2.plot(t, fz, lw=1.0, label=c)
    a2.axhline(0, color="k", lw=0.6)
    a2.set_ylabel("N, per point")
    a2.legend(fontsize=7, ncol=4, loc="best")
    for k, foot in ((2, "foot a"), (3, "foot b")):
        a3.plot(t, [math.hypot(s[k][0], s[k][1]) / s[k][2] if s[k] is not None and s[k][2] > 0 else np.nan
                    for s in samples], label=foot)
    a3.axhline(MU, color="k", ls="--", lw=1, label="mu = %g (assumed)" % MU)
    a3.set_ylabel("abs(F_t) / F_z")
    a3.legend(fontsize=8)
    a4.plot(t, [s[4] for s in samples], label="CoP x")
    a4.plot(t, [s[5] for s in samples], label="CoP y")
    a4.set_ylabel("m (stance toe's inner corner at 0)")
    a4.set_xlabel("t (s)")
    a4.legend(fontsize=8)
    for r in rows:
        if r["kind"] == "pre":
            for a in (a1, a2, a3, a4):
                a.axvline(num(r, "time"), color="grey", lw=0.6)
            a1.text(num(r, "time"), a1.get_ylim()[1] * 0.95, r["event"], fontsize=7, rotation=90, va="top")
    # seen from above: each phase's contact points in use (their hull, the
    # support polygon the seed's CoP must stay in) and its CoP path
    top = fig.add_subplot(gs[:, 1])
    # (the last row, after the relabel, is the next step's)
    first = [r for r in rows if r["kind"] == "start"][:1] + [r for r in rows[:-1] if r["kind"] == "post"]
    seen = []
    for n, r in enumerate(first):
        pts = sole(state_of(r))
        used = [c for c in pts if math.isfinite(num(r, c + ".fz"))]
        colour = "C%d" % (n + 2)
        for leg in {c[-1] if c[-1] in "ab" else c[-2] for c in used}:
            rim = [pts[c] for c in ("heel_" + leg, "toe_" + leg, "toe_%so" % leg, "heel_" + leg)]
            top.plot([q[0] for q in rim], [q[1] for q in rim], color="0.6", lw=0.8, zorder=1)
            seen += [q[:2] for q in rim]
        ring = [pts[c] for c in used] + [pts[used[0]]] if used else []
        # earlier phases' rings wider: a later one may share their edges
        top.plot([q[0] for q in ring], [q[1] for q in ring], "o-", color=colour, alpha=0.45, lw=4.5 - 1.5 * min(n, 2),
                 ms=4, zorder=2)
        path = [(s[4], s[5]) for s in samples if s[1] == r["phase"]]
        top.plot([q[0] for q in path], [q[1] for q in path], color=colour, lw=1.4, zorder=3,
                 label="%s: CoP and the points in use" % r["phase"])
        seen += [q[:2] for q in ring] + path
    lo, hi = np.nanmin(seen, axis=0) - 0.03, np.nanmax(seen, axis=0) + 0.03
    top.set_xlim(lo[0], hi[0])
    top.set_ylim(lo[1], hi[1])
    top.set_aspect("equal", adjustable="box")
    top.set_xlabel("x (m)")
    top.set_ylabel("y (m)")
    top.set_title("from above (grey: the soles touching at each phase's start)", fontsize=8)
    top.legend(fontsize=7, loc="best")
    fig.suptitle("%s: ground force per foot and per point, friction, and the centre of pressure over a step" % name,
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out + "/forces.png", dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    ck = stable_digits.Checker("biped12_3d")
    runs = [fixed(a.exe, tol) for _, tol in FIXED]
    lo, hi = runs
    with open(OUT + "/gait.json", "w") as f:
        json.dump(hi, f, indent=1)
    rec = {"runs": {name: {k: d[k] for k in ("residual", "iterations", "step_period", "step_length", "speed",
                                              "eigenvalues", "ground", "fixed_point")}
                    for (name, _), d in zip(FIXED, runs)}}
    gait = ["| quantity | value |", "|---|---|"]
    gait.append("| Newton's residual (max abs P(x) − x) | %.2g, %.2g |" % (lo["residual"], hi["residual"]))
    gait.append("| step period (s) | %s |" % agreed(ck, "period", lo["step_period"], hi["step_period"]))
    gait.append("| step length (m) | %s |" % agreed(ck, "length", lo["step_length"], hi["step_length"]))
    gait.append("| speed (m/s) | %s |" % agreed(ck, "speed", lo["speed"], hi["speed"]))
    gait.append("| kinetic energy lost at the impacts (J) | %s |"
                % agreed(ck, "loss", lo["impact_energy_loss"], hi["impact_energy_loss"]))
    gait.append("| swing toe clearance, min (m) | %s |"
                % agreed(ck, "clearance", lo["min_foot_clearance"], hi["min_foot_clearance"]))

    mult = ["| # | multiplier | modulus | mode (eigenvector) |", "|---|---|---|---|"]
    ml, mh = multipliers(lo), multipliers(hi)
    for k, ((zl, _), (zh, mode)) in enumerate(zip(ml, mh)):
        if abs(zh) < 1e-4:
            mult.append("| %d–%d | below 1e-4 in modulus (%d more) | | |" % (k + 1, len(mh), len(mh) - k))
            break
        re = agreed(ck, "mult %d re" % k, zl.real, zh.real)
        im = "" if abs(zh.imag) < 1e-9 else " %s %si" % ("+" if zh.imag > 0 else "−",
                                                          agreed(ck, "mult %d im" % k, abs(zl.imag), abs(zh.imag)))
        mult.append("| %d | %s%s | %s | %s |" % (k + 1, re, im, agreed(ck, "mult %d abs" % k, abs(zl), abs(zh)), mode))
    mult.append("")
    mult.append("Jacobian: %s (finite differences beside it: %s)."
                % (hi.get("jacobian_method"), "yes" if hi.get("eigenvalues_fd") else "no"))

    torque = ["| actuator | largest torque over the step (N m) |", "|---|---|"]
    for u in ACTUATORS:
        k = u + ".max_torque"
        torque.append("| %s | %s |" % (u, agreed(ck, k, lo["ground"][k], hi["ground"][k])))

    # one stride from each run's fixed point: the per-foot checks to the
    # digits the two agree on (the tighter run's stride is the one kept)
    checks_lo = foot_checks(per_foot(simulate(a.exe, lo, OUT + "/gait_lo.csv")))
    os.remove(OUT + "/gait_lo.csv")
    rows = simulate(a.exe, hi, OUT + "/gait.csv")
    samples = per_foot(rows)
    checks = foot_checks(samples)
    rec["per_foot"] = {"1e-10": checks_lo, "1e-11": checks}
    forces = ["| check | foot a (stance) | foot b (front heel and inner toe corner, double stance and roll) |",
              "|---|---|---|"]
    forces.append("| min F_z (N), seed eq. 25 | %s | %s |"
                  % tuple(agreed(ck, "fz %s" % f, checks_lo[f][0], checks[f][0]) for f in "ab"))
    forces.append("| max abs(F_t)/F_z, seed eq. 26 (μ = %.1f assumed) | %s | %s |"
                  % ((MU,) + tuple(agreed(ck, "ratio %s" % f, checks_lo[f][1], checks[f][1]) for f in "ab")))
    gl, g = lo["ground"], hi["ground"]
    forces.append("")
    forces.append("Per contact point (`fixed`'s ground group): smallest normal force of each, N: "
                  + ", ".join("%s %s" % (c, normal_min(ck, c, gl[c + ".min_normal_force"], g[c + ".min_normal_force"]))
                              for c in CONTACTS if c + ".min_normal_force" in g)
                  + "; largest abs(F_t)/F_n of a point %s." % point_ratio(ck, gl, g))
    pictures(rows, samples)

    rec["commands"] = LOG
    rec["unstable"] = ck.unstable
    with open(OUT + "/summary.json", "w") as f:
        json.dump(rec, f, indent=1, default=lambda z: [z.real, z.imag] if isinstance(z, complex) else str(z))
    sections = {"gait": gait, "multipliers": mult, "torques": torque, "forces": forces}
    with open(OUT + "/README.md", "w") as f:
        f.write(README_HEAD)
        for name, lines in sections.items():
            f.write("\n## %s\n\n%s\n" % (TITLES[name], "\n".join(lines)))
        f.write(README_TAIL.format(per_foot=per_foot_verdict(checks), per_point=per_point_verdict(g)))
    for name, lines in sections.items():
        print("### %s\n%s\n" % (name, "\n".join(lines)))
    return ck.finish()


TITLES = {"gait": "The gait", "multipliers": "Multipliers and their modes",
          "torques": "Joint torques", "forces": "Ground forces"}

README_HEAD = """# biped12_3d: a periodic 3-D gait of seed 000's 12-joint biped

`stridemap fixed biped12_3d --json` (models/biped12_3d.yaml; its header gives
the model, the phases, the section and every choice).  Written by
`scripts/reproduce_biped12_3d.py`; each number to the digits on which the
runs at rtol 1e-10 (Newton to 1e-8) and 1e-11 (to 1e-9) agree.  The
parameters are ASSUMED (the seed gives none): a humanoid of 1 m and 30 kg
with Winter's segments, as models/biped3d.yaml.  The controller is a PD law
on eight joints tracking references planned kinematically
(scripts/design_biped12_3d.py), not the seed's preview control.

Pictures: [side.png](side.png) and [front.png](front.png), stick figures over
one step (the right stance foot at the origin; the thick ones at the events
Heel1off, Heel2strike and Foot2flat/Toe1off); [forces.png](forces.png), the
ground force per foot and per contact point, each foot's friction ratio
against mu (eq. 26), and the centre of pressure over the step, in time and
from above over each phase's contact points (the support polygon).
"""

README_TAIL = """
## Reading it

- The mode of a multiplier is the kind of motion that holds most of its
  eigenvector (`fixed`'s `modes`, src/body/modes.c): sagittal (pitch hinges,
  slides along x and z), lateral (roll and yaw hinges, the slide along y) or
  the heading.  The heading's multiplier is -1: a gait turned about the
  vertical is a gait, and the mirror turns a heading h into -h (no
  stability is judged on it).  The largest other one is the sagittal zero
  dynamics, the walker's rotation about the stance toe line that the PD
  leaves free; the lateral ones are small: the lateral motion is driven.
- The seed checks the ground reaction per foot (eqs. 25-26): {per_foot}
  {per_point}
- The gait is an orbit of the dynamics: the section's reset moves no
  position (the roll phase lays the landing foot flat, the swing ankle's
  roll is held where it is), and a right step and the next left step agree
  at their events (tests/test_biped12_3d.c, test_mirror).
"""


if __name__ == "__main__":
    sys.exit(main())
