#!/usr/bin/python3
"""The 3-D biped of seed 000 under a controller sampled and held every
sample_dt (models/biped12_3d_sampled.yaml, issue 15 item 4; its header gives
the law's split into a continuous damper and a held stiffness and
feed-forward): its gait by `stridemap fixed --json` at two tolerances, the
multipliers with the mode each belongs to, how a step tends to the same law
unsampled as the period shrinks, the held torques against the law they
sample, the ground forces per foot and per contact point, and the front and
side stick figures (drawn by scripts/reproduce_biped12_3d.py's pictures).

Every number is printed to the digits on which the two tolerances' runs
agree (scripts/stable_digits.py), as reproduce_biped12_3d.py does.  The
looser `fixed` starts from the file's guess (the continuous biped12_3d's
gait), the tighter one from the looser one's fixed point (Newton's answer
does not depend on where it starts, only its cost does).  Nothing about the
gait is typed in here: if models/biped12_3d.yaml changes and
scripts/gen_biped12_3d_sampled.py regenerates the sampled file, this script
reads the new gait from its runs.

The convergence in the period is the slow test's (tests/
test_biped12_3d_sampled.c, test_tends_to_unsampled): one step from the
file's guess (lifted to the section) at sample_dt = 2, 1 and 0.5 ms, and one
step of the same law unsampled (the file without its `sampling:` line) from
the same start; the distance is the largest difference of the section's
free coordinates at the step's end.

--reuse reads the two `fixed` runs a previous run wrote (gait_lo.json,
gait.json) and redraws the page from them, running only the simulations.

Writes results/biped12_3d_sampled/: README.md, gait.json (the tighter run),
gait_lo.json (the looser), gait.csv (one step from the tighter run's
fixed point, every 2 ms and at the events), side.png,
front.png, forces.png, torques.png and summary.json (both runs' numbers,
every command, the time taken).  The tables go to stdout as well
('### NAME' sections).  About 17 minutes of CPU (half an hour on the
clock on a shared 2-core machine), most of it the two `fixed` runs (each
sample is an event: about 1100 stops of the integrator a step); with
--reuse about 2.

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_biped12_3d_sampled.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import json
import math
import os
import resource
import shutil
import sys
import tempfile
import textwrap
import time

import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stable_digits  # noqa: E402
import reproduce_biped12_3d as base  # noqa: E402
import gen_biped12_3d_sampled as gen  # noqa: E402

OUT = "results/biped12_3d_sampled"
MODEL = "models/biped12_3d_sampled.yaml"
NAME = "biped12_3d_sampled"
TOLS = [("1e-10", ["--rtol", "1e-10", "--atol", "1e-10"], ["--tol", "1e-8"]),
        ("1e-11", ["--rtol", "1e-11", "--atol", "1e-11"], ["--tol", "1e-9"])]
DTS = [2e-3, 1e-3, 5e-4]  # the slow test's periods
ROW_DT = 2.5e-4  # simulate's rows: four a sample at 1 ms, and rows inside the few-ms roll phase
KEEP_DT = 2e-3  # gait.csv keeps a row this often (and every event's)
ZOOM = 0.03  # s: the torque plot's close-up, around Heel2strike
agreed = base.agreed


def resolved(zl, zh):
    """Two tolerances' multipliers that are one: both real or both complex, modulus and real part agreeing
    in at least their first digit (and the imaginary part, if complex)."""
    same = stable_digits.sig_agree
    if (abs(zl.imag) < 1e-9) != (abs(zh.imag) < 1e-9):
        return False
    return (same(abs(zl), abs(zh)) >= 1 and same(zl.real, zh.real) >= 1
            and (abs(zh.imag) < 1e-9 or same(abs(zl.imag), abs(zh.imag)) >= 1))


def fixed_args(tol, guess=None):
    args = ["fixed", MODEL, "--json", "--method", "bdf"] + tol[1] + tol[2]
    if guess is not None:
        args += ["--guess", ",".join("%.17g" % v for v in guess)]
    return args


def fixed(exe, tol, guess=None):
    d = json.loads(base.run(exe, fixed_args(tol, guess)).stdout)
    if d["status"] != "ok":
        sys.exit("stridemap fixed: %s (%s)" % (d["status"], d.get("message")))
    return d


def simulate(exe, model, tol, path, dt, x0=None, sets=()):
    args = ["simulate", model, "--steps", "1", "--method", "bdf"] + tol[1] + ["--dt", "%g" % dt, "--out", path]
    for s in sets:
        args += ["--set", s]
    if x0 is not None:
        args += ["--x0", ",".join("%.17g" % v for v in x0)]
    base.run(exe, args)
    with open(path) as f:
        return list(csv.DictReader(f))


def unsampled_file(tmp):
    """The sampled file without its `sampling:` line: the same law, continuous (dt -> 0)."""
    with open(MODEL) as f:
        lines = f.readlines()
    kept = [ln for ln in lines if not ln.startswith("  sampling:")]
    if len(kept) != len(lines) - 1:
        sys.exit("%s: expected one '  sampling:' line under controller:, found %d" % (MODEL, len(lines) - len(kept)))
    path = os.path.join(tmp, "biped12_3d_unsampled.yaml")
    with open(path, "w") as f:
        f.writelines(kept)
    return path


def end_of_step(rows, after):
    """(the step's time, its end state) from the row after the section's event (`after`)."""
    post = [r for r in rows if r["kind"] == "post"][-1]
    if post["event"] != after:
        sys.exit("a step ended on %s, not on the section's event %s" % (post["event"], after))
    return float(post["time"]), post


def convergence(exe, tol, unsampled, section, tmp):
    """{dt or None (unsampled): (step time, largest distance of the free coordinates from the unsampled end)}."""
    path = os.path.join(tmp, "conv.csv")
    free, after = section["free"], section["after"]
    Tu, eu = end_of_step(simulate(exe, unsampled, tol, path, 0.01), after)
    out = {None: (Tu, 0.0)}
    for dt in DTS:
        T, e = end_of_step(simulate(exe, MODEL, tol, path, 0.01, sets=["sample_dt=%.17g" % dt]), after)
        out[dt] = (T, max(abs(float(e[q]) - float(eu[q])) for q in free))
    return out


class Law:
    """The sampled law, evaluated continuously: u_i = -kp y_i + u_ff,i(s), the feed-forward's natural
    splines (src/control/spline.c: beyond the ends the end pieces continue, as scipy's) through the
    file's knots, s the controller's phase variable; an output's term only in its phases: and an
    actuator's feed-forward only in its feedforward: phases:.  Checked against the engine's own torques
    on the unsampled file (check())."""

    def __init__(self, doc):
        params, ctl = doc["parameters"], doc["controller"]
        self.kp = gen.value_of(ctl["gains"]["kp"], params)
        ph = ctl["phase"]
        self.on = ph["on"]
        self.s0, self.s1 = gen.value_of(ph["start"], params), gen.value_of(ph["end"], params)
        ff = ctl["feedforward"]
        self.ff = {a: gen.natural(ff["knots"], [gen.number(v, params) for v in vals])
                   for a, vals in ff["torques"].items()}
        self.acts = [(a["name"], gen.only_joint(a["on"], a["name"])) for a in ctl["actuators"]]
        self.outputs = {gen.only_joint(o["on"], o["name"]): o["name"] for o in ctl["outputs"]}
        # the phases an output's feedback and an actuator's feed-forward act in (absent: every phase)
        self.out_phases = {gen.only_joint(o["on"], o["name"]): o.get("phases") for o in ctl["outputs"]}
        self.ff_phases = ff.get("phases", {})

    def s(self, r):
        return (sum(w * float(r[q]) for q, w in self.on.items()) - self.s0) / (self.s1 - self.s0)

    def u(self, r, act):
        """The law's torque for actuator act at row r (its output y from the row's own column)."""
        joint = dict(self.acts)[act]
        on = self.out_phases[joint] is None or r["phase"] in self.out_phases[joint]
        ff_on = act in self.ff and (act not in self.ff_phases or r["phase"] in self.ff_phases[act])
        return (-self.kp * float(r[self.outputs[joint] + ".y"]) if on else 0.0) + (self.ff[act](self.s(r)) if ff_on
                                                                                    else 0.0)


def torque_lag(law, rows):
    """Per actuator, the largest abs(held - law) over the step's sample rows (the hold's lag), N m."""
    samp = [r for r in rows if r["kind"] == "sample"]
    return {a: max(abs(float(r[a + ".held"]) - law.u(r, a)) for r in samp) for a, _ in law.acts}


def law_check(law, rows):
    """The largest abs(engine's torque - law.u) over an unsampled step's rows, N m (the law read right)."""
    return max(abs(float(r[a + ".torque"]) - law.u(r, a)) for r in rows if r["kind"] == "sample" for a, _ in law.acts)


def segments(rows):
    """The step's phases in order, each from its start (the section, or the event that began it) to the
    event that ended it: dicts of phase, event, t0, t1, n (sample rows inside), per foot (min F_z,
    max abs(F_t)/F_z) over those rows (None: the foot is off the ground, or no row falls inside), and
    "points": each held contact point's smallest normal force there."""
    out, cur = [], None
    for r in rows:
        if r["kind"] in ("start", "post"):
            cur = {"phase": r["phase"], "event": r["event"] or "section", "t0": float(r["time"]), "rows": []}
        elif r["kind"] == "pre" and cur is not None:
            cur["t1"] = float(r["time"])
            out.append(cur)
            cur = None
        elif r["kind"] == "sample" and cur is not None:
            cur["rows"].append(r)
    # Phases with no row inside (shorter than ROW_DT) fold into the next: near Heel1off the heel's force
    # is near zero and jumps at each sample, so the heel may lift and land again several times in a few
    # tens of microseconds, and how many times the tolerance decides.
    folded, first = [], None
    for k, seg in enumerate(out):
        if not seg["rows"]:
            first = k if first is None else first
            continue
        if first is not None:
            seg.update(t0=out[first]["t0"], event=out[first]["event"], chatter=(seg["t0"], k - first))
            first = None
        folded.append(seg)
    out = folded + (out[first:] if first is not None else [])
    for seg in out:
        inside = seg.pop("rows")
        samples = base.per_foot(inside)
        seg["n"] = len(samples)
        for k, f in ((2, "a"), (3, "b")):
            fz = [x[k][2] for x in samples if x[k] is not None]
            ratio = [math.hypot(x[k][0], x[k][1]) / x[k][2] for x in samples if x[k] is not None and x[k][2] > 0]
            seg[f] = (min(fz), max(ratio) if ratio else math.inf) if fz else None
        seg["points"] = {}
        for c in base.CONTACTS:
            fz = [base.num(r, c + ".fz") for r in inside if not math.isnan(base.num(r, c + ".fz"))]
            if fz:
                seg["points"][c] = min(fz)
    return out


def keep_rows(rows, path):
    """gait.csv: every event's rows and a sample row about every KEEP_DT (the full one is 8x larger);
    the rows kept."""
    kept, last = [], -math.inf
    for r in rows:
        t = float(r["time"])
        if r["kind"] != "sample" or t >= last + KEEP_DT - 1e-9:
            kept.append(r)
            if r["kind"] == "sample":
                last = t
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(kept)
    return kept


def torque_picture(law, rows, sample_dt):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    samp = [r for r in rows if r["kind"] == "sample"]
    t = np.array([float(r["time"]) for r in samp])
    ev = [(float(r["time"]), r["event"]) for r in rows if r["kind"] == "pre"]
    strike = next((te for te, e in ev if e == "heelstrike"), t[len(t) // 2])
    lo, hi = strike - ZOOM / 2, strike + ZOOM / 2
    fig, axes = plt.subplots(len(law.acts), 2, figsize=(12, 2.0 * len(law.acts)), sharex="col",
                             gridspec_kw={"width_ratios": [2.2, 1]})
    for (a, _), (full, zoom) in zip(law.acts, axes):
        held = np.array([float(r[a + ".held"]) for r in samp])
        cont = np.array([law.u(r, a) for r in samp])
        for ax, m in ((full, np.ones_like(t, bool)), (zoom, (t >= lo) & (t <= hi))):
            ax.plot(t[m], held[m], drawstyle="steps-post", lw=0.9, color="C0", label="held (sampled)")
            ax.plot(t[m], cont[m], lw=0.8, color="C3", ls="--", label="the law, continuous")
            for te, e in ev:
                if ax is full or lo <= te <= hi:
                    ax.axvline(te, color="grey", lw=0.5)
        full.set_ylabel("%s\n(N m)" % a, fontsize=8)
        full.axvspan(lo, hi, color="0.9", zorder=0)
    for te, e in ev:
        axes[-1][0].text(te, axes[-1][0].get_ylim()[0], e, fontsize=7, rotation=90, va="bottom")
    axes[0][0].legend(fontsize=7, loc="lower left")
    axes[-1][0].set_xlabel("t (s)")
    axes[-1][1].set_xlabel("t (s), %g ms around Heel2strike (the grey band)" % (ZOOM * 1e3))
    fig.suptitle("%s: the held torques (sampled every %g ms) against the law they sample, -kp y + u_ff(s), "
                 "at the same states, over one step of the gait" % (NAME, sample_dt * 1e3), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(OUT + "/torques.png", dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--reuse", action="store_true",
                    help="read the two fixed runs from %s/gait_lo.json and gait.json (a previous run's) instead "
                    "of running them again; the simulations run anew" % OUT)
    a = ap.parse_args()
    t_wall = time.time()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.makedirs(OUT, exist_ok=True)
    with open(MODEL) as f:
        doc = yaml.load(f, Loader=gen.Yaml12)
    law = Law(doc)
    ck = stable_digits.Checker(NAME)
    tmp = tempfile.mkdtemp(prefix="b12s_")
    unsampled = unsampled_file(tmp)

    prev = {}
    if a.reuse:
        with open(OUT + "/gait_lo.json") as f:
            lo = json.load(f)
        with open(OUT + "/gait.json") as f:
            hi = json.load(f)
        base.LOG.extend("stridemap %s (read from %s)" % (" ".join(fixed_args(tol, g)), name) for tol, g, name in
                        ((TOLS[0], None, "gait_lo.json"), (TOLS[1], lo["fixed_point"], "gait.json")))
        if os.path.exists(OUT + "/summary.json"):
            with open(OUT + "/summary.json") as f:
                prev = json.load(f)
    else:
        lo = fixed(a.exe, TOLS[0])
        hi = fixed(a.exe, TOLS[1], guess=lo["fixed_point"])
    with open(OUT + "/gait_lo.json", "w") as f:
        json.dump(lo, f, indent=1)
    runs = [lo, hi]
    with open(OUT + "/gait.json", "w") as f:
        json.dump(hi, f, indent=1)
    sample_dt = gen.value_of("sample_dt", doc["parameters"])
    rec = {"runs": {name: {k: d[k] for k in ("residual", "iterations", "stride_evaluations", "step_period",
                                              "step_length", "speed", "eigenvalues", "eigenvalues_fd", "modes",
                                              "ground", "fixed_point")}
                    for (name, _, _), d in zip(TOLS, runs)}}

    gait = ["| quantity | value |", "|---|---|"]
    gait.append("| sample period (the file's sample_dt, s) | %g |" % sample_dt)
    gait.append("| Newton's residual (max abs P(x) − x) | %.2g, %.2g |" % (lo["residual"], hi["residual"]))
    gait.append("| step period (s) | %s |" % agreed(ck, "period", lo["step_period"], hi["step_period"]))
    gait.append("| samples in a step | %d |" % math.floor(hi["step_period"] / sample_dt))
    gait.append("| step length (m) | %s |" % agreed(ck, "length", lo["step_length"], hi["step_length"]))
    gait.append("| speed (m/s) | %s |" % agreed(ck, "speed", lo["speed"], hi["speed"]))
    gait.append("| kinetic energy lost at the impacts (J) | %s |"
                % agreed(ck, "loss", lo["impact_energy_loss"], hi["impact_energy_loss"]))
    gait.append("| swing toe clearance, min (m) | %s |"
                % agreed(ck, "clearance", lo["min_foot_clearance"], hi["min_foot_clearance"]))

    mult = ["| # | multiplier | modulus | mode (eigenvector) |", "|---|---|---|---|"]
    ml, mh = base.multipliers(lo), base.multipliers(hi)
    for k, ((zl, _), (zh, mode)) in enumerate(zip(ml, mh)):
        if abs(zh) < 1e-4 and abs(zl) < 1e-4:
            mult.append("| %d–%d | below 1e-4 in modulus (%d more) | | |" % (k + 1, len(mh), len(mh) - k))
            break
        if not resolved(zl, zh):
            # the exact Jacobian straddles the map's kinks (an event on a sample): past here the two
            # tolerances' multipliers differ in their first digit, so only a bound on them is a result
            big = max(abs(z) for z, _ in ml[k:] + mh[k:])
            mult.append("| %d–%d | not resolved: the two tolerances' values differ in their first digit; "
                        "every one below %s in modulus at both | | %s |"
                        % (k + 1, len(mh), ck.bound("mult rest", big, big),
                           ", ".join(sorted({m for _, m in mh[k:] if m}))))
            rec["unresolved"] = {"1e-10": [[z.real, z.imag] for z, _ in ml[k:]],
                                 "1e-11": [[z.real, z.imag] for z, _ in mh[k:]]}
            break
        re_ = agreed(ck, "mult %d re" % k, zl.real, zh.real)
        im = "" if abs(zh.imag) < 1e-9 else " %s %si" % ("+" if zh.imag > 0 else "−",
                                                          agreed(ck, "mult %d im" % k, abs(zl.imag), abs(zh.imag)))
        mult.append("| %d | %s%s | %s | %s |" % (k + 1, re_, im, agreed(ck, "mult %d abs" % k, abs(zl), abs(zh)), mode))
    mult.append("")
    mult.append("Jacobian: %s." % hi.get("jacobian_method"))
    fd = [sorted((abs(complex(*z)) for z in d.get("eigenvalues_fd") or [] if abs(complex(*z) + 1) > 1e-3),
                 reverse=True) for d in runs]
    ex = [[abs(p[0]) for p in m if abs(p[0] + 1) > 1e-3] for m in (ml, mh)]
    if all(fd):
        n = stable_digits.sig_agree(fd[0][0], fd[1][0], 3)
        shown = ("%s" % stable_digits._show_sig(fd[0][0], fd[1][0], n) if n else
                 "%.2g and %.2g at the two tolerances" % (fd[0][0], fd[1][0]))
        mult.append("Finite differences beside it (Richardson's, `fixed`'s cross-check): the largest modulus but "
                    "the heading's %s, against the exact Jacobian's %s.  Where they part, the differences "
                    "straddle the map's kinks: an event that falls on a sample sees the force it watches jump by "
                    "the torques' change (the file's header)." % (shown, agreed(ck, "exact largest", ex[0][0], ex[1][0])))

    conv_runs = [convergence(a.exe, tol, unsampled, doc["section"], tmp) for tol in TOLS]
    rec["convergence"] = {name: {("unsampled" if k is None else "%g" % k): v for k, v in c.items()}
                          for (name, _, _), c in zip(TOLS, conv_runs)}
    cl, ch = conv_runs
    conv = ["| sample period | step time (s) | minus the unsampled step's (s) | distance from the unsampled "
            "step's end (max abs of the free coordinates) | ratio to the next period's |", "|---|---|---|---|---|"]
    conv.append("| unsampled (the same law, continuous) | %s | | | |"
                % agreed(ck, "conv T unsampled", cl[None][0], ch[None][0]))
    ratios = []
    for k, dt in enumerate(DTS):
        ratio = ""
        if k + 1 < len(DTS):
            ratio = agreed(ck, "conv ratio %g" % dt, cl[dt][1] / cl[DTS[k + 1]][1], ch[dt][1] / ch[DTS[k + 1]][1], 3)
            ratios.append((ch[dt][1] / ch[DTS[k + 1]][1], ratio))
        conv.append("| %g ms | %s | %s | %s | %s |" % (
            dt * 1e3, agreed(ck, "conv T %g" % dt, cl[dt][0], ch[dt][0]),
            agreed(ck, "conv dT %g" % dt, cl[dt][0] - cl[None][0], ch[dt][0] - ch[None][0], 3),
            agreed(ck, "conv d %g" % dt, cl[dt][1], ch[dt][1], 3), ratio))

    # one step from each run's fixed point, rows every ROW_DT: the per-foot checks and the hold's lag
    # to the digits the two agree on (the tighter run's step is the one drawn and kept)
    steps, lags, checks, phases, lawchk = [], [], [], [], []
    for tol, d in zip(TOLS, runs):
        rows = simulate(a.exe, MODEL, tol, os.path.join(tmp, "step.csv"), ROW_DT, x0=d["fixed_point"])
        samples = base.per_foot(rows)
        steps.append((rows, samples))
        lags.append(torque_lag(law, rows))
        checks.append(base.foot_checks(samples))
        phases.append(segments(rows))
        # the same law unsampled from the same start: its engine's torques against Law's reading of them
        n_cont = len(hi["fixed_point"]) - len(law.acts)
        urows = simulate(a.exe, unsampled, tol, os.path.join(tmp, "u.csv"), ROW_DT, x0=d["fixed_point"][:n_cont])
        lawchk.append(law_check(law, urows))
    rows, samples = steps[1]
    kept = keep_rows(rows, OUT + "/gait.csv")
    rec["per_foot"] = {name: c for (name, _, _), c in zip(TOLS, checks)}
    rec["phases"] = {name: c for (name, _, _), c in zip(TOLS, phases)}
    rec["torque_lag"] = {name: c for (name, _, _), c in zip(TOLS, lags)}
    rec["law_check"] = lawchk

    gl, g = lo["ground"], hi["ground"]
    torque = ["| actuator | largest held torque over the step (N m) | largest abs(held − the law at the same "
              "state) (N m) |", "|---|---|---|"]
    for u, _ in law.acts:
        k = u + ".max_torque"
        torque.append("| %s | %s | %s |" % (u, agreed(ck, k, gl[k], g[k]),
                                            agreed(ck, "lag " + u, lags[0][u], lags[1][u], 3)))
    if max(lawchk) > 1e-6:
        ck.fail("law check", "the law read from %s misses the engine's torques by %g N m: the lag column is not "
                "the hold's" % (MODEL, max(lawchk)))
    torque.append("")
    torque.append("The law is read from the file (kp, the phase variable, the feed-forward's splines) and "
                  "evaluated on simulate's rows every %g ms; against the engine's own torques on a step of the "
                  "unsampled file it differs by at most %s N m, so the lag above is the hold's."
                  % (ROW_DT * 1e3, ck.bound("law check", lawchk[0], lawchk[1])))

    cl_, c_ = checks
    forces = ["| check | foot a (stance) | foot b (front heel and inner toe corner, double stance and roll) |",
              "|---|---|---|"]
    forces.append("| min F_z (N), seed eq. 25 | %s | %s |"
                  % tuple(agreed(ck, "fz %s" % f, cl_[f][0], c_[f][0]) for f in "ab"))
    forces.append("| max abs(F_t)/F_z, seed eq. 26 (μ = %.1f assumed) | %s | %s |"
                  % ((base.MU,) + tuple(agreed(ck, "ratio %s" % f, cl_[f][1], c_[f][1]) for f in "ab")))
    forces.append("")
    forces.append("Per phase, in the step's order (rows every %g ms of one step from the gait; a point "
                  "that pulls has a negative normal force):" % (ROW_DT * 1e3))
    forces.append("")
    forces.append("| phase (begun by) | from (s) | to (s) | foot a: min F_z (N) | max abs(F_t)/F_z | "
                  "foot b: min F_z (N) | max abs(F_t)/F_z | points that pull: least F_z (N) |")
    forces.append("|---|---|---|---|---|---|---|---|")
    pl, ph_ = phases
    if [x["phase"] for x in pl] != [x["phase"] for x in ph_]:
        ck.fail("phases", "the two runs' steps pass different phases: %s and %s"
                % ([x["phase"] for x in pl], [x["phase"] for x in ph_]))
    for k, (xl, x) in enumerate(zip(pl, ph_)):
        tag = "seg %d %s" % (k, x["phase"])
        cells = []
        for f in "ab":
            if x["n"] == 0 or xl["n"] == 0:
                cells += ["no row inside", ""]
            elif x[f] is None or xl[f] is None:
                cells += ["off the ground", ""]
            else:
                cells += [agreed(ck, "%s fz %s" % (tag, f), xl[f][0], x[f][0], 3),
                          agreed(ck, "%s ratio %s" % (tag, f), xl[f][1], x[f][1], 3)]
        pull = [c for c in x["points"] if c in xl["points"] and max(x["points"][c], xl["points"][c]) < 0]
        cells.append(", ".join("%s %s" % (c, agreed(ck, "%s %s" % (tag, c), xl["points"][c], x["points"][c], 3))
                               for c in pull) or ("none" if x["n"] else ""))
        forces.append("| %s (%s) | %s | %s | %s |" % (
            x["phase"], x["event"].replace("_", " "), agreed(ck, tag + " t0", xl["t0"], x["t0"], 4),
            agreed(ck, tag + " t1", xl["t1"], x["t1"], 4), " | ".join(cells)))
    for k, (xl, x) in enumerate(zip(pl, ph_)):
        if "chatter" in x or "chatter" in xl:
            a_, b_ = xl.get("chatter", (xl["t0"], 0)), x.get("chatter", (x["t0"], 0))
            forces.append("")
            forces.append("In the %s phase's first %s s the phases changed back and forth %d times at rtol %s and "
                          "%d at %s before it settled (too short for a row: folded into the row above): "
                          "near Heel1off the heel's force is near zero and jumps at each sample by the torques' "
                          "change, so the heel lifts and lands again (the file's heel_down), and how often the "
                          "tolerance decides." % (x["phase"], agreed(ck, "chatter %d" % k, a_[0], b_[0], 3),
                                                  a_[1], TOLS[0][0], b_[1], TOLS[1][0]))
    forces.append("")
    forces.append("Per contact point (`fixed`'s ground group): smallest normal force of each, N: "
                  + ", ".join("%s %s" % (c, base.normal_min(ck, c, gl[c + ".min_normal_force"],
                                                             g[c + ".min_normal_force"]))
                              for c in base.CONTACTS if c + ".min_normal_force" in g)
                  + "; largest abs(F_t)/F_n of a point %s." % base.point_ratio(ck, gl, g))

    # the stick figures from the kept rows (a figure every 60 rows: about ten a step), the forces from
    # every row (the roll phase lasts a few ms)
    base.pictures(kept, base.per_foot(kept), out=OUT, name=NAME)
    base.pictures(rows, samples, out=tmp, name=NAME)
    shutil.move(os.path.join(tmp, "forces.png"), OUT + "/forces.png")
    torque_picture(law, rows, sample_dt)

    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec["commands"] = base.LOG
    rec["unstable"] = ck.unstable
    rec["seconds"] = {"cpu_children": cpu.ru_utime + cpu.ru_stime, "wall": time.time() - t_wall}
    # the time of the last run that ran fixed too (this one, or the one --reuse read)
    rec["full_run_seconds"] = (prev.get("full_run_seconds", prev.get("seconds")) if a.reuse else None) \
        or rec["seconds"]
    rec["reused_fixed"] = a.reuse
    with open(OUT + "/summary.json", "w") as f:
        json.dump(rec, f, indent=1, default=lambda z: [z.real, z.imag] if isinstance(z, complex) else str(z))
    sections = {"gait": gait, "multipliers": mult, "convergence": conv, "torques": torque, "forces": forces}
    slips = ["the %s phase (foot %s)" % (x["phase"], f) for x in ph_ for f in "ab"
             if x[f] is not None and x[f][1] >= base.MU]
    pulls = [c for c in base.CONTACTS if c + ".min_normal_force" in g and
             max(g[c + ".min_normal_force"], gl[c + ".min_normal_force"]) < -1e-6]
    with open(OUT + "/README.md", "w") as f:
        f.write(README_HEAD.format(cpu=rec["full_run_seconds"]["cpu_children"] / 60,
                                   wall=rec["full_run_seconds"]["wall"] / 60,
                                   dt=sample_dt * 1e3, row=ROW_DT * 1e3))
        for name, lines in sections.items():
            f.write("\n## %s\n\n%s\n" % (TITLES[name], "\n".join(lines)))
        f.write("\n## Reading it\n\n" + "\n".join(
            textwrap.fill(b, 76, initial_indent="- ", subsequent_indent="  ")
            for b in reading(ratios, base.per_foot_verdict(c_).replace("\n  ", " "), slips, pulls,
                                "unresolved" in rec)) + "\n")
    shutil.rmtree(tmp)
    for name, lines in sections.items():
        print("### %s\n%s\n" % (name, "\n".join(lines)))
    print("time: %.0f s of CPU in stridemap, %.0f s wall" % (rec["seconds"]["cpu_children"], rec["seconds"]["wall"]),
          file=sys.stderr)
    return ck.finish()


TITLES = {"gait": "The gait", "multipliers": "Multipliers and their modes",
          "convergence": "As the sample period shrinks", "torques": "Joint torques: held against the law",
          "forces": "Ground forces"}

README_HEAD = """# biped12_3d_sampled: the 3-D biped's gait under a controller sampled every {dt:g} ms

`stridemap fixed biped12_3d_sampled --json` (models/biped12_3d_sampled.yaml,
made from models/biped12_3d.yaml by scripts/gen_biped12_3d_sampled.py; its
header gives the split of the law: the velocity feedback a continuous
damper in each drive, the stiffness and a feed-forward sampled at t = k dt of
the step's clock and held, each sample an event of the engine).  Written by
`scripts/reproduce_biped12_3d_sampled.py`; each number to the digits on which
the runs at rtol 1e-10 (Newton to 1e-8) and 1e-11 (to 1e-9) agree.  The
looser `fixed` starts from the file's guess (the continuous file's gait),
the tighter from the looser one's fixed point.  The last full run took
{cpu:.1f} minutes of CPU in stridemap ({wall:.0f} minutes on the clock, under
nice on a 2-core machine shared with other work), most of it the two `fixed`
runs (each sample an event: about 1100 stops of the integrator a step).

Pictures: [side.png](side.png) and [front.png](front.png), stick figures over
one step (drawn by scripts/reproduce_biped12_3d.py's pictures); [torques.png](torques.png),
each held torque against the law it samples at the same states, over the
step and in close-up around Heel2strike; [forces.png](forces.png), the
ground force per foot and per contact point, each foot's friction ratio
against μ (eq. 26), and the centre of pressure (eq. 24) over the step, in
time and from above over each phase's contact points.  Rows every {row:g} ms
(gait.csv keeps every 2 ms and the events).
"""



def reading(ratios, per_foot, slips, pulls, unresolved):
    """The page's closing bullets, each sentence from the numbers it speaks of (ratios: the distances'
    ratios as (value, its agreed digits))."""
    first = all(1.7 <= r <= 2.3 for r, _ in ratios)
    between = all(1.7 <= r <= 4.5 for r, _ in ratios)
    out = ["The multipliers and their modes are read as in [../biped12_3d/README.md](../biped12_3d/README.md): "
           "the heading's -1 is the mirror's, and no stability is judged on it." + (
               "  The small ones are not resolved: the stride map has kinks (an event that falls on a sample "
               "sees the force it watches jump by the torques' change), the exact Jacobian is the derivative "
               "on one side of them, and which side moves with the tolerance; Richardson's differences "
               "straddle them.  What holds at both tolerances is the table's bound on them." if unresolved else ""),
           "Each time the period halves, the step's end comes nearer the same law's unsampled step by a factor "
           "of %s: %s (tests/test_biped12_3d_sampled.c, test_tends_to_unsampled, asserts each ratio between "
           "1.7 and 4.5, at least first order and no faster than second, with STRIDEMAP_SLOW_TESTS=1).  The "
           "unsampled law is not models/biped12_3d.yaml's: the feed-forward stands in for its reference-rate "
           "term along the continuous gait only."
           % (" and ".join(txt for _, txt in ratios),
              "the hold is first order in the period, a held torque lagging the law by dt/2 on average" if first
              else "faster than the factor 2 of a first-order hold's lag of dt/2 (the distance is the largest "
              "over the free coordinates, whose errors of order dt may partly cancel; why is not known)"
              if between else "NOT the factor 2 of a first-order hold")]
    text = "The seed checks the ground reaction per foot (eqs. 25-26): " + per_foot + "  Per phase, "
    text += ("the friction ratio passes μ in %s." % " and ".join(slips)) if slips else "no phase passes μ."
    if pulls:
        text += ("  Per contact point, %s %s (a negative normal force): the centre of pressure leaves the points "
                 "in use, which a real foot cannot do.  models/biped12_3d.yaml's header says why its law does "
                 "this (the ankle's roll torque the 0.055 m foot can carry, a lateral sway that is not the "
                 "walker's pendulum's; issue 15 item 4, left open); the sampled law keeps that law's references "
                 "and stiffness." % (", ".join(pulls), "pulls" if len(pulls) == 1 else "pull"))
    else:
        text += "  Per contact point, none pulls: every normal force stays positive."
    return out + [text]


if __name__ == "__main__":
    sys.exit(main())
