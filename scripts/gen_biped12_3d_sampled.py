#!/usr/bin/python3
"""models/biped12_3d_sampled.yaml from models/biped12_3d.yaml: the same
walker under a controller sampled at a fixed period (issue 15, item 4).

The base file's pd law on each driven joint i is
    u_i = u_ff,i(s) - kp y_i - kd y_i' - c q_i',   y_i = q_i - h_i(s),
    y_i' = q_i' - h_i'(s) s',
(kd the law's velocity gain, c = c_joint the joint's viscous damper, u_ff
the base's own feed-forward if it has one, else 0).  Held between samples,
the kd y' term is unstable on the light feet unless the period is below
about 1e-4 s (2 I / kd).  Here the velocity feedback lives in the actuator,
continuous, and the sampled part is stiffness and feed-forward:
    continuous (every instant):  -(c + kd) q_i'           (kd_c := kd)
    sampled at t = k dt, held:   -kp y_i + u_ff,i(s) + kd h_i'(s) s'_nom(s)
s'_nom(s) the phase variable's rate along the base's own gait (its guess),
so that on that gait the sum is the base's law up to the splines'
interpolation of the added drag term.  An output whose feedback the base
switches off in some phases (its phases:) keeps them here, and so do the
parts of the split that stand for that feedback: the output's stiffness
(its phases:), the damper's kd share (a force of its own, kd_c, with the
same phases:; the base's c in every phase) and the drag's feed-forward
(feedforward: phases:).  So as dt -> 0 the law tends to the base's, in
every phase, with s' replaced by s'_nom(s).

Everything is read from the base file (PyYAML): the gains' parameters, the
actuators and the joint each drives, the outputs' splines, the phase
variable (its coordinates, weights, start and end), the dampers, and the
guess, which is the base's gait.  Its s'(s) comes from one step of the base
from that guess (`stridemap simulate`, so this needs a build).  The knots of
the added term:
  - a base WITHOUT `feedforward:`: the outputs' knots (h_i' is a spline on
    them; else 16 even ones, the loader's most), each interior knot then
    moved in turn to where the splines' largest miss of the term over s in
    [0.02, 0.98] (every actuator, N m) is least (SWEEPS rounds; the values
    at the knots are the term's there, so the spline interpolates it);
  - a base WITH `feedforward:` (knots K, torques u_k, numbers or
    expressions), whichever of three misses least (each printed):
    A. K itself, each torque written `(u_k) + kd_ff * d_k`: a natural
       spline is linear in its values, so the base's feed-forward is kept
       exactly and only the drag is interpolated, on K;
    B. (K shorter than 16) K and knots added, each of K taking the place of
       the nearest output knot, the added ones moved as above;
    C. 16 knots placed afresh, as above.
    In B and C the base's feed-forward at a knot not in K is its own
    spline's value there, written as the fixed combination of its torques
    that gives it (so an expression of the parameters stays one), and the
    miss counts its re-interpolation too.  The base's knots and torques are
    replaced by the written ones, which include them.
Then, unless --no-fixed (or --gait-json with its output), `stridemap fixed`
on the written file at the default period (about 7 minutes of one core) and
the gait's multipliers go into its header.  One command:

  /usr/bin/python3 scripts/gen_biped12_3d_sampled.py [--stridemap build/src/cli/stridemap]
"""
import argparse
import csv
import io
import json
import math
import re
import subprocess
import sys

import numpy as np
import yaml
from scipy.interpolate import CubicSpline

BASE = "models/biped12_3d.yaml"
OUT = "models/biped12_3d_sampled.yaml"
MAX_KNOTS = 16  # the loader's most: BODY_MAX_COEF
SWEEPS = 5
FIXED_ARGS = ["--method", "bdf", "--rtol", "1e-10", "--atol", "1e-10", "--tol", "1e-8"]

HEADER = """\
# biped12_3d under a SAMPLED controller (issue 15, item 4): the walker,
# phases, events, section, references and guess of models/biped12_3d.yaml
# (its header follows, unchanged), with the controller split in two:
#   continuous, in the actuator: a viscous damper on each driven joint,
#     -(c_joint + kd_c) q_i', {c_total:g} N m s/rad (the base's damper
#     c_joint {c_base:g} plus its law's kd, kd_c {kd:g}): the drive's velocity loop
#     (a current-controlled motor with velocity feedback in its amplifier,
#     or the back-EMF of a geared motor), which real humanoids close at
#     10-40 kHz, so that it is no part of a 1 kHz controller's sample;
#   sampled at t = k sample_dt of the step's clock (each sample an event of
#     the engine: a stop of the integrator, the torques recomputed and held,
#     docs/body-walkers.md "sampling"): u_i = -kp y_i + u_ff,i(s), the
#     references' stiffness and a feed-forward: the base's own, if it has
#     one, and kd_ff h_i'(s) s'_nom(s), the damper's drag on the reference
#     motion along the base's gait (s'_nom read from one step of the base
#     from its guess by scripts/gen_biped12_3d_sampled.py), natural
#     splines, so that on that gait the two parts sum to the base's law.
# Why this split: held for a period dt, a velocity gain kd on a joint of
# inertia I is stable only for dt below about 2 I / kd (1e-4 s on the feet,
# I = 0.003 kg m^2); a continuous damper c >= the sampled velocity gain
# keeps a held stiffness kp stable at any dt with kp dt / c small (one joint:
# spectral radius 0.96 at dt 1 ms, 0.92 at 2 ms, c = 75, kp = 3000).  The
# law (no kd in the sampled part) is the base's law with the velocity
# term's reference rate s' replaced by s'_nom(s), as dt -> 0.
# An output whose feedback the base switches off in some phases (its
# phases:) has it off here in the same phases, and with it every part of
# the split that stands for that feedback: its sampled stiffness (the
# output's phases:), its damper's kd share (a force of its own, kd_c, with
# the output's phases:, beside the base's c_joint in every phase) and the
# drag's feed-forward (feedforward: phases:).  So the law tends to the
# base's in every phase
# ({phased}).
# Until this file was regenerated that way (issue 15 item 4) the feedback
# was kept in every phase: a force had no phases:, and the stiffness was
# kept with the damper because the steps at 2, 1 and 0.5 ms then converged
# as dt (the damper alone, 2.8 and 2.5 per halving); the front foot then
# pulled sideways in the roll phase, |F_t|/F_z 2.43 against mu = 0.7.
# With the phases kept, the steps at 2, 1 and 0.5 ms from the continuous
# law's section come nearer the unsampled law's by 4.11 and 2.80 per
# halving (1.01e-2, 2.46e-3, 8.8e-4): faster than a hold's first order,
# as with the damper's phases alone before, for a reason not found (the
# distance is the largest over the free coordinates, whose errors of order
# dt may partly cancel); tests/test_biped12_3d_sampled.c asserts a ratio
# between 1.7 and 4.5, at least first order and no faster than second.
# One event differs: in single stance the stance heel back on the ground
# (heel_down) is a plastic impact back to the flat foot, not a fall: near
# Heel1off the heel's force is near zero and jumps at each sample by the
# torques' change, so a sample can lift the heel and the next put it down,
# which a held law does and the continuous one does not.
# The held torques are state components (ACTUATOR.held), not free on the
# section (the law's at the section state).  Where the header below speaks
# of the PD's kd, continuous gains and the sampled variant left to do, read
# this split.
# {gait}
# Generated: do not edit; after any change to models/biped12_3d.yaml run
#   /usr/bin/python3 scripts/gen_biped12_3d_sampled.py [--stridemap build/src/cli/stridemap]
# (it runs the fixed above: about 7 minutes of one core).
#
"""


class Yaml12(yaml.SafeLoader):
    """YAML 1.2's booleans (true, false), as the loader's libyaml reading: `on:` is a key, not True."""


Yaml12.yaml_implicit_resolvers = {k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
                                  for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                             list("tTfF"))


def die(msg):
    sys.exit("gen_biped12_3d_sampled: %s" % msg)


def only_joint(on, what):
    """The one coordinate an `on:` map names with weight 1."""
    if not isinstance(on, dict) or len(on) != 1 or list(on.values())[0] != 1:
        die("%s acts on %s; the split needs one joint with weight 1 (an actuator per output)" % (what, on))
    return next(iter(on))


def value_of(x, params):
    """A number, or a parameter's default value."""
    if isinstance(x, (int, float)):
        return float(x)
    if x in params:
        return float(params[x]["value"])
    die("'%s' is neither a number nor a parameter of %s" % (x, BASE))


def read_base(doc):
    """The law's pieces: gains, actuator -> (joint, spline), damper, phase variable, feed-forward."""
    params, ctl = doc["parameters"], doc.get("controller")
    if not ctl or ctl.get("kind") != "pd":
        die("%s has no pd controller; the split moves a pd law's kd into the dampers" % BASE)
    if "sampling" in ctl:
        die("%s is already sampled (controller.sampling)" % BASE)
    kd_name = ctl["gains"]["kd"]
    if kd_name not in params:
        die("the pd law's kd (%s) is no parameter of %s" % (kd_name, BASE))
    outputs = {}
    for o in ctl["outputs"]:
        if "spline" not in o:
            die("output %s is no natural spline (spline: {knots, values})" % o["name"])
        outputs[only_joint(o["on"], "output " + o["name"])] = o["spline"]
    acts, dampers = {}, set()
    for a in ctl["actuators"]:
        j = only_joint(a["on"], "actuator " + a["name"])
        if j not in outputs:
            die("actuator %s drives %s, which no output reads" % (a["name"], j))
        acts[a["name"]] = (j, outputs[j])
        d = [f for f in doc.get("forces", []) if f.get("on") == {j: 1} and "damping" in f and "stiffness" not in f]
        if len(d) != 1:
            die("joint %s has %d pure dampers in forces:; the split needs one per driven joint" % (j, len(d)))
        dampers.add(d[0]["damping"])
    if len(dampers) != 1 or next(iter(dampers)) not in params:
        die("the driven joints' dampers are %s; the split needs one damping parameter for all" % sorted(dampers))
    ph = ctl["phase"]
    phase = (ph["on"], value_of(ph["start"], params), value_of(ph["end"], params))
    ff = ctl.get("feedforward")
    return kd_name, next(iter(dampers)), acts, phase, ff


def base_rows(stridemap, dt):
    """One step of the base from its guess (its gait): the rows inside the step."""
    out = subprocess.run([stridemap, "simulate", BASE, "--steps", "1", "--method", "bdf", "--rtol", "1e-10",
                          "--atol", "1e-10", "--dt", str(dt)], check=True, capture_output=True, text=True).stdout
    return [r for r in csv.DictReader(io.StringIO(out))
            if r["step"] == "0" and not (r["kind"] == "post" and r["event"] == "toeoff") and r["kind"] != "fail"]


def drag_along_gait(rows, acts, phase):
    """s and, per actuator, h_i'(s) s'(s) (the drag per unit kd) along the base's gait, sorted by s."""
    on, s0, s1 = phase
    s = np.array([(sum(w * float(r[q]) for q, w in on.items()) - s0) / (s1 - s0) for r in rows])
    sd = np.array([sum(w * float(r[q + "_dot"]) for q, w in on.items()) / (s1 - s0) for r in rows])
    order = np.argsort(s, kind="stable")
    s, sd = s[order], sd[order]
    drag = {}
    for a, (_, sp) in acts.items():
        dh = CubicSpline(np.array(sp["knots"], float), np.array(sp["values"], float), bc_type="natural")
        drag[a] = dh(s, 1) * sd
    return s, sd, drag


def natural(knots, values):
    return CubicSpline(np.asarray(knots, float), np.asarray(values, float), bc_type="natural")


def spline_miss(knots, s, kd, unit, base):
    """Per row, the largest miss (N m, every actuator) of the written feed-forward, natural splines through
    base_a(s_k) + kd d_a(s_k) at the knots, of what it stands for, base_a(s) + kd d_a(s) (base: actuator ->
    the base's feed-forward spline where it is re-interpolated; absent, it is kept exactly and cancels)."""
    miss = np.zeros_like(s)
    for a, f in unit.items():
        vals = kd * np.interp(knots, s, f)
        want = kd * f
        if a in base:
            vals = vals + base[a](knots)
            want = want + base[a](s)
        miss = np.maximum(miss, np.abs(natural(knots, vals)(s) - want))
    return miss


def place_knots(s, kd, unit, base, start, movable):
    """From start, each movable knot moved in turn to where the largest miss over s in [0.02, 0.98] is
    least, among 12 places between its neighbours; SWEEPS rounds."""
    mid = (s >= 0.02) & (s <= 0.98)

    def worst(kn):
        return spline_miss(np.array(kn), s, kd, unit, base)[mid].max()
    kn = [float(k) for k in start]
    fixed_at = {k for i, k in enumerate(kn) if i not in movable}
    best = worst(kn)
    for _ in range(SWEEPS):
        for i in range(1, len(kn) - 1):
            if kn[i] in fixed_at:
                continue
            for c in np.linspace(kn[i - 1], kn[i + 1], 14)[1:-1]:
                trial = kn[:i] + [round(float(c), 4)] + kn[i + 1:]
                if trial[i] <= trial[i - 1] or trial[i] >= trial[i + 1]:
                    continue
                w = worst(trial)
                if w < best:
                    best, kn = w, trial
    return np.array(kn), best


def number(v, params):
    """A feed-forward torque of the base (a number or an expression of the parameters) at the defaults."""
    if isinstance(v, (int, float)):
        return float(v)
    env = {k: value_of(k, params) for k in params}
    env.update(sqrt=math.sqrt, sin=math.sin, cos=math.cos, tan=math.tan, atan2=math.atan2, pi=math.pi)
    return float(eval(str(v).replace("^", "**"), {"__builtins__": {}}, env))


def base_text(kb, tb, a, x):
    """The base's feed-forward of actuator a at s = x as text: its own torque at its knots, elsewhere its
    natural spline's value, a fixed combination of its torques (a natural spline is linear in its values),
    so that an expression of the parameters stays one."""
    hit = np.nonzero(kb == x)[0]
    if len(hit):
        return "(%s)" % tb[a][hit[0]]
    w = [natural(kb, np.eye(len(kb))[m])(x) for m in range(len(kb))]
    if all(isinstance(v, (int, float)) for v in tb[a]):
        return "%.12g" % float(np.dot(w, tb[a]))
    return "(%s)" % " + ".join("%.15g * (%s)" % (wm, v) for wm, v in zip(w, tb[a]) if wm != 0.0)


def plan(s, kd, unit, acts, ff, params):
    """The feed-forward's knots and, per actuator, its values as text; a line for the header; the miss."""
    # the outputs' knots if they share some (h_i' is a spline on them), else even ones
    ks = {tuple(sp["knots"]) for _, sp in acts.values()}
    start = np.array(next(iter(ks)), float) if len(ks) == 1 and len(next(iter(ks))) <= MAX_KNOTS else None
    if start is None or start[0] != 0.0 or start[-1] != 1.0:
        start = np.linspace(0.0, 1.0, MAX_KNOTS)
    interior = set(range(1, len(start) - 1))
    if not ff:
        knots, miss = place_knots(s, kd, unit, {}, start, interior)
        vals = {a: ["kd_ff * %.12g" % d for d in np.interp(knots, s, unit[a])] for a in acts}
        return knots, vals, ("the base has none; the drag's on %d knots placed where the splines miss "
                             "least" % len(knots)), miss
    kb = np.array(ff["knots"], float)
    tb = ff.get("torques", {})
    base = {a: natural(kb, [number(v, params) for v in tb[a]]) for a in tb}
    mid = (s >= 0.02) & (s <= 0.98)
    # A: the base's knots, the drag added to its torques there: the base's feed-forward kept exactly
    cands = [(kb, spline_miss(kb, s, kd, unit, {})[mid].max(), False,
              "the base's %d knots, its torques kept and the drag added" % len(kb))]
    # B: the base's knots kept and knots added, each base knot taking the place of the nearest of the
    # outputs' knots; the added ones moved where the splines miss least
    if len(kb) < MAX_KNOTS:
        kn = [float(k) for k in start]
        for k in kb:
            if k not in kn:
                free = [i for i in range(1, len(kn) - 1) if kn[i] not in kb]
                kn[min(free, key=lambda i: abs(kn[i] - k))] = float(k)
                kn.sort()
        kn = sorted(set(kn) | set(kb))
        while len(kn) < MAX_KNOTS:
            g = int(np.argmax(np.diff(kn)))
            kn.insert(g + 1, round(0.5 * (kn[g] + kn[g + 1]), 4))
        kn = np.array(kn, float)
        kn, m = place_knots(s, kd, unit, base, kn, {i for i, k in enumerate(kn) if not np.any(kb == k)})
        cands.append((kn, m, True, "the base's %d knots and %d more placed where the splines miss least (there "
                      "the base's feed-forward is its splines' value)" % (len(kb), len(kn) - len(kb))))
    # C: knots placed afresh, the base's feed-forward re-interpolated on them
    kn, m = place_knots(s, kd, unit, base, start, interior)
    cands.append((kn, m, True, "%d knots placed where the splines miss least, the base's feed-forward its "
                  "splines' value there" % len(kn)))
    for c in cands:
        print("feed-forward knots: %s: miss %.3g N m" % (c[3], c[1]), file=sys.stderr)
    knots, miss, reinterp, txt = min(cands, key=lambda c: c[1])
    vals = {}
    for a in list(acts) + [x for x in tb if x not in acts]:
        d = np.interp(knots, s, unit[a]) if a in unit else None
        vals[a] = []
        for m, x in enumerate(knots):
            parts = []
            if a in tb:
                parts.append(base_text(kb, tb, a, x) if reinterp else "(%s)" % tb[a][m])
            if d is not None:
                parts.append("kd_ff * %.12g" % d[m])
            vals[a].append(" + ".join(parts))
    return knots, vals, txt, miss


def gait_lines(g, period):
    """Header lines from `fixed --json`'s output on the written file. tests/test_biped12_3d_sampled.c
    (test_gait_newton) reads the "Multipliers at" sentence back and checks it against its own fixed."""
    if g is None:
        return ["The gait: not measured (--no-fixed)."]
    if g.get("status") != "ok":
        return ["The gait at sample_dt = %g ms: fixed %s ended %s (%s)." % (period * 1e3, " ".join(FIXED_ARGS),
                                                                           g.get("status"), g.get("message"))]
    modes = g.get("modes") or ["?"] * len(g["eigenvalues"])
    ev = sorted(zip(g["eigenvalues"], modes), key=lambda e: -abs(complex(*e[0])))

    def mult(e):
        z = complex(*e[0])
        txt = "%.3g" % z.real if abs(z.imag) < 1e-12 else "%.3g%+.3gi" % (z.real, z.imag)
        return "%s (%s)" % (txt, e[1])
    return ["The gait at sample_dt = %g ms (stridemap fixed biped12_3d_sampled --json %s, from the guess): "
            "residual %.1e after %d Newton iterations, %d strides; multipliers from the %s Jacobian." %
            (period * 1e3, " ".join(FIXED_ARGS), g["residual"], g["iterations"], g["stride_evaluations"],
             g.get("jacobian_method", "?")),
            "Multipliers at %g ms: %s; the rest below %.1g." %
            (period * 1e3, ", ".join(mult(e) for e in ev[:4]), 10 ** math.ceil(math.log10(abs(complex(*ev[4][0]))))),
            "These are the digits of one tolerance: results/biped12_3d_sampled/ prints those that hold at "
            "rtol 1e-10 and 1e-11.",
            "Step %.5f s, %.4f m." % (g["step_period"], g["step_length"])] + fd_line(g, ev)


def fd_line(g, ev):
    """The differences' largest multiplier but the heading's, beside the exact one's (kinks can part them)."""
    fd = g.get("eigenvalues_fd")
    if not fd or g.get("jacobian_method") != "exact":
        return []
    rest = sorted((abs(complex(*z)) for z in fd if abs(complex(*z) + 1) > 1e-3), reverse=True)
    exact = [abs(complex(*e[0])) for e in ev if abs(complex(*e[0]) + 1) > 1e-3]
    return ["Richardson's differences beside the exact Jacobian: the largest multiplier but the heading's "
            "%.3g (exact %.3g); they straddle the map's kinks, where an event falls on a sample and the "
            "force it watches jumps." % (rest[0], exact[0])]


def run_fixed(stridemap, path):
    """fixed --json on the written file (about 7 minutes of one core at 1 ms), its output."""
    r = subprocess.run([stridemap, "fixed", path, "--json"] + FIXED_ARGS, capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"status": "exit %d" % r.returncode, "message": r.stderr.strip().splitlines()[-1:]}


def wrap(lines, width=76):
    out = []
    for para in lines:
        cur = ""
        for w in para.split():
            if cur and len(cur) + 1 + len(w) > width:
                out.append(cur)
                cur = w
            else:
                cur = w if not cur else cur + " " + w
        out.append(cur)
    return "\n# ".join(out)


def main():
    global BASE, OUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stridemap", default="build/src/cli/stridemap")
    ap.add_argument("--period", type=float, default=1e-3, help="the default sample_dt (s)")
    ap.add_argument("--base", default=BASE, help="the continuous file (default %(default)s)")
    ap.add_argument("--out", default=OUT, help="the sampled file (default %(default)s)")
    ap.add_argument("--gait-json", help="fixed --json's output on the written file, instead of running fixed")
    ap.add_argument("--no-fixed", action="store_true", help="skip fixed (the header then says the gait is not measured)")
    ap.add_argument("--save-gait-json", help="write fixed --json's output here too (for a later --gait-json)")
    a = ap.parse_args()
    BASE, OUT = a.base, a.out
    src = open(BASE).read()
    doc = yaml.load(src, Loader=Yaml12)
    kd_name, c_name, acts, phase, ff = read_base(doc)
    params = doc["parameters"]
    phase_names = [p["name"] for p in doc["phases"]]
    kd, c_base = value_of(kd_name, params), value_of(c_name, params)
    s, sd, drag = drag_along_gait(base_rows(a.stridemap, 5e-4), acts, phase)
    unit = drag  # per unit kd: kd_ff scales it
    knots, vals, ff_txt, miss = plan(s, kd, unit, acts, ff, params)
    drag_max = kd * max(np.abs(f)[(s >= 0.02) & (s <= 0.98)].max() for f in unit.values())

    text = src.replace("name: %s\n" % doc["name"], "name: biped12_3d_sampled\n", 1)
    text = re.sub(r"^title: .*$", "title: 3-D biped of seed 000, 12 joints, a controller sampled at a fixed period "
                  "over joint dampers", text, count=1, flags=re.M)

    def set_param(name, value):
        nonlocal text
        text, n = re.subn(r"^(  %s: \{value: )[^,]*," % re.escape(name), r"\g<1>%s," % value, text, count=1,
                          flags=re.M)
        if n != 1:
            die("parameter line '  %s: {value: ...' not found in %s" % (name, BASE))
    set_param(kd_name, "0")
    extra = ("  sample_dt: {value: %g, min: 1e-6, max: 0.1, unit: s, description: \"the controller's sample "
             "period\"}\n  kd_c: {value: %.17g, min: 0, max: 1e5, unit: N m s/rad, description: \"the law's "
             "velocity gain, continuous in the drive, where the output's feedback acts\"}\n"
             "  kd_ff: {value: %.17g, min: 0, max: 1e5, unit: N m s/rad, description: \"the damper's "
             "drag on the reference motion, fed forward (the feed-forward's scale)\"}\n" % (a.period, kd, kd))
    text = text.replace("\nbodies:\n", "\n" + extra + "bodies:\n", 1)
    heel_down = "      - {name: heel_down, when: {gap: heel_a, crosses: down}, fail: fell_backward}\n"
    if text.count(heel_down) != 1:
        die("the single phase's heel_down line of %s has changed; say here what a heel down is" % BASE)
    text = text.replace(heel_down, "      - {name: heel_down, when: {gap: heel_a, crosses: down}, impact: true, "
                        "then: flat}\n")

    # the phases each driven joint's output acts in (None: every phase)
    out_phases = {only_joint(o["on"], "output " + o["name"]): o.get("phases") for o in doc["controller"]["outputs"]}
    for j, phs in out_phases.items():
        line = re.search(r"^  - \{name: ([^,]+), on: \{%s: 1\}, damping: %s\}\n" % (re.escape(j), re.escape(c_name)),
                         text, flags=re.M)
        if not line:
            die("the damper line of %s ('  - {name: ..., on: {%s: 1}, damping: %s}') is not in %s" % (j, j, c_name,
                                                                                                 BASE))
        if phs is None:
            new = "  - {name: %s, on: {%s: 1}, damping: %s + kd_c}\n" % (line.group(1), j, c_name)
        else:
            new = line.group(0) + "  - {name: drive_%s, on: {%s: 1}, damping: kd_c, phases: [%s]}\n" % (
                j, j, ", ".join(phs))
        text = text[:line.start()] + new + text[line.end():]
    ff_phases = {}
    for act, (j, _) in acts.items():
        if out_phases.get(j) is None:
            continue
        if ff and act in ff.get("torques", {}):
            die("actuator %s has the base's own feed-forward and its output %s has phases:; the drag's share of "
                "the written feed-forward could not be switched off apart from the base's" % (act, j))
        ff_phases[act] = out_phases[j]
    lines = ["  sampling: {period: sample_dt}", "  feedforward:",
             "    knots: [%s]" % ", ".join("%.12g" % k for k in knots), "    torques:"]
    order = [x for x in acts] + [x for x in vals if x not in acts]
    for act in order:
        lines.append("      %s: [%s]" % (act, ", ".join(vals[act])))
    if ff_phases:
        lines.append("    phases: {%s}" % ", ".join("%s: [%s]" % (act, ", ".join(phs))
                                                    for act, phs in ff_phases.items()))
    block = "\n".join(lines) + "\n"
    if ff:
        # the base's feedforward block: its line and every deeper-indented line after it
        text, n = re.subn(r"^  feedforward:\n(?:    .*\n)+", "", text, count=1, flags=re.M)
        if n != 1:
            die("the base's controller.feedforward block is not where it was looked for")
    m = re.search(r"^  gains: .*\n", text, flags=re.M)
    if not m:
        die("no '  gains:' line under controller: in %s" % BASE)
    text = text[:m.end()] + block + text[m.end():]

    off = {}  # the phases an output's feedback is off in -> the outputs
    for o in doc["controller"]["outputs"]:
        if "phases" in o:
            off.setdefault(", ".join(p for p in phase_names if p not in o["phases"]), []).append(o["name"])
    phased = ["the base's %s off in %s" % (" and ".join(names), where) for where, names in off.items()]
    fmt = dict(c_total=c_base + kd, c_base=c_base, kd=kd, ff=ff_txt, phased="; ".join(phased) or "here none")
    fit = ("The feed-forward's knots: %s.  Along the base's gait, s in [0.02, 0.98], it misses what it "
           "stands for by at most %.3g N m (the drag kd h'(s) s' is up to %.3g N m there; at the knots it is "
           "exact: tests/test_biped12_3d_sampled.c)." % (ff_txt, miss, drag_max))
    g = json.load(open(a.gait_json)) if a.gait_json else None
    open(OUT, "w").write(HEADER.format(gait=wrap([fit] + gait_lines(g, a.period)), **fmt) + text)
    print("wrote %s: s' %.3f .. %.3f per unit s over %d rows; knots %s; %s; interpolation's miss %.3g N m" %
          (OUT, sd.min(), sd.max(), len(s), list(knots), ff_txt, miss), file=sys.stderr)
    if not a.no_fixed and not a.gait_json:
        print("running fixed on %s (minutes)..." % OUT, file=sys.stderr)
        g = run_fixed(a.stridemap, OUT)
        if a.save_gait_json:
            json.dump(g, open(a.save_gait_json, "w"))
        open(OUT, "w").write(HEADER.format(gait=wrap([fit] + gait_lines(g, a.period)), **fmt) + text)
    print("\n".join(gait_lines(g, a.period)), file=sys.stderr)


if __name__ == "__main__":
    main()
