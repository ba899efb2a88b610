#!/usr/bin/python3
"""models/biped12_3d_sampled.yaml from models/biped12_3d.yaml: the same
walker under a controller sampled at a fixed period (issue 15, item 4).

The continuous file's law on each driven joint i is
    u_i = -kp y_i - kd y_i' - c q_i',   y_i = q_i - h_i(s),
    y_i' = q_i' - h_i'(s) s',
(kd = 60 in the law, c = c_joint = 15 the joint's viscous damper).  Held
between samples, the kd y' term is unstable on the light feet unless the
period is below about 1e-4 s (2 I / kd).  Here the velocity feedback lives
in the actuator, continuous, and the sampled part is stiffness and a
velocity feed-forward:
    continuous (every instant):  -(c + kd) q_i'           (c_joint := c + kd)
    sampled at t = k dt, held:   -kp y_i + kd h_i'(s) s'_nom(s)
s'_nom(s) the phase variable's rate along the continuous file's own gait
(its guess), so that on that gait the sum is the continuous law to the
splines' interpolation: the feed-forward is `feedforward:`, one natural
spline per actuator through 16 knots in s, values kd h_i'(s_k) s'_nom(s_k).
As dt -> 0 the law tends to the continuous one with s' replaced by
s'_nom(s).

Runs the continuous file's guess for one step with the stridemap program to
read s'_nom(s) (so it needs a build), then writes the variant:

  /usr/bin/python3 scripts/gen_biped12_3d_sampled.py [--stridemap build/src/cli/stridemap]
"""
import argparse
import csv
import io
import re
import subprocess
import sys

import numpy as np
from scipy.interpolate import CubicSpline

BASE = "models/biped12_3d.yaml"
OUT = "models/biped12_3d_sampled.yaml"
FF_KNOTS = np.linspace(0.0, 1.0, 16)  # the loader's most: BODY_MAX_COEF
ACTUATORS = {  # actuator -> the output (and joint) it drives
    "hip_a": "thigh_a", "knee_a": "knee_a", "ankle_a": "foot_a", "ankle_roll_a": "ankle_x_a",
    "hip_b": "thigh_b", "knee_b": "knee_b", "ankle_b": "foot_b", "hip_roll_b": "hip_x_b",
}

HEADER = """\
# biped12_3d under a SAMPLED controller (issue 15, item 4): the walker,
# phases, events, section and references of models/biped12_3d.yaml (its
# header follows, unchanged), with the controller split in two:
#   continuous, in the actuator: a viscous damper on each driven joint,
#     -c_joint q_i', c_joint = {c_total:g} N m s/rad (the continuous file's
#     damper {c_base:g} plus its law's kd {kd:g}): the drive's velocity loop
#     (a current-controlled motor with velocity feedback in its amplifier,
#     or the back-EMF of a geared motor), which real humanoids close at
#     10-40 kHz, so that it is no part of a 1 kHz controller's sample;
#   sampled at t = k sample_dt of the step's clock (each sample an event of
#     the engine: a stop of the integrator, the torques recomputed and held,
#     docs/body-walkers.md "sampling"): u_i = -kp y_i + u_ff,i(s), the
#     references' stiffness and a feed-forward u_ff,i(s) = kd_ff h_i'(s)
#     s'_nom(s), the damper's drag on the reference motion along the
#     continuous gait (s'_nom read from the continuous file's guess by
#     scripts/gen_biped12_3d_sampled.py, natural splines through 16 knots),
#     so that on that gait the two parts sum to the continuous file's law.
# Why this split: held for a period dt, a velocity gain kd on a joint of
# inertia I is stable only for dt below about 2 I / kd (1e-4 s on the feet,
# I = 0.003 kg m^2); a continuous damper c >= the sampled velocity gain
# keeps a held stiffness kp stable at any dt with kp dt / c small (one joint:
# spectral radius 0.96 at dt 1 ms, 0.92 at 2 ms, c = 75, kp = 3000).  The
# law (no kd in the sampled part) is the continuous file's law with the
# velocity term's reference rate s' replaced by s'_nom(s), as dt -> 0.
# One event differs: in single stance the stance heel back on the ground
# (heel_down) is a plastic impact back to the flat foot, not a fall.  Near
# Heel1off the heel's force is near zero and jumps at each sample by the
# torques' change: a sample can take it below zero (the heel lifts: Heel1off
# at that sample) and the next push it back (at 0.5 ms the heel lands again
# 0.3 ms later and lifts for good at the next sample), which a held law does
# and the continuous one does not.
# The held torques are state components (ACTUATOR.held), not free on the
# section (the law's at the section state).  Where the header below speaks
# of the PD's kd, continuous gains and the sampled variant left to do, read
# this split; its guess and "The gait" are the continuous file's (from that
# guess this file walks: bench/README.md, tests/test_biped12_3d_sampled.c).
# Cost: a step at 1 ms is about 1400 restarts of CVODE and 145k steps, 3 s
# of one core (the continuous file's 0.26 s).  Generated: do not edit; run
#   /usr/bin/python3 scripts/gen_biped12_3d_sampled.py
#
"""


def run_guess(stridemap):
    """s and s' along one step of the continuous file from its guess."""
    out = subprocess.run([stridemap, "simulate", BASE, "--steps", "1", "--method", "bdf", "--rtol", "1e-10",
                          "--atol", "1e-10", "--dt", "0.002"], check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stridemap", default="build/src/cli/stridemap")
    ap.add_argument("--period", type=float, default=1e-3, help="the default sample_dt (s)")
    a = ap.parse_args()
    src = open(BASE).read()

    def param(name):
        m = re.search(r"^  %s: \{value: ([-+0-9.e]+)," % name, src, re.M)
        return float(m.group(1))

    kd, c_base = param("kd"), param("c_joint")
    th0, th1 = param("theta_start"), param("theta_end")
    rows = run_guess(a.stridemap)
    s, sdot = [], []
    for r in rows:
        if r["kind"] not in ("sample", "pre", "post", "start") or r["step"] != "0":
            continue
        if r["kind"] == "post" and r["event"] == "toeoff":
            continue
        s.append((float(r["hat"]) + float(r["thigh_a"]) - th0) / (th1 - th0))
        sdot.append((float(r["hat_dot"]) + float(r["thigh_a_dot"])) / (th1 - th0))
    s, sdot = np.array(s), np.array(sdot)
    order = np.argsort(s, kind="stable")
    sd_k = np.interp(FF_KNOTS, s[order], sdot[order])

    ff = {}
    for act, out in ACTUATORS.items():
        m = re.search(r"- \{name: %s, on: \{%s: 1\}, spline: \{knots: \[([^]]*)\], values: \[([^]]*)\]" % (out, out),
                      src)
        knots = np.array([float(v) for v in m.group(1).split(",")])
        vals = np.array([float(v) for v in m.group(2).split(",")])
        dh = CubicSpline(knots, vals, bc_type="natural")(FF_KNOTS, 1)
        ff[act] = kd * dh * sd_k

    text = src.replace("name: biped12_3d\n", "name: biped12_3d_sampled\n", 1)
    text = re.sub(r"^title: .*$", "title: 3-D biped of seed 000, 12 joints, a controller sampled at a fixed period "
                  "over joint dampers", text, count=1, flags=re.M)
    text = re.sub(r"^  kd: \{value: [^,]*,", "  kd: {value: 0,", text, count=1, flags=re.M)
    text = re.sub(r"^  c_joint: \{value: [^,]*,", "  c_joint: {value: %.17g," % (c_base + kd), text, count=1,
                  flags=re.M)
    extra = ("  sample_dt: {value: %g, min: 1e-6, max: 0.1, unit: s, description: \"the controller's sample "
             "period\"}\n  kd_ff: {value: %.17g, min: 0, max: 1e5, unit: N m s/rad, description: \"the damper's "
             "drag on the reference motion, fed forward (the feed-forward's scale)\"}\n" % (a.period, kd))
    text = text.replace("bodies:\n", extra + "bodies:\n", 1)
    heel_down = "      - {name: heel_down, when: {gap: heel_a, crosses: down}, fail: fell_backward}\n"
    assert text.count(heel_down) == 1, "the single phase's heel_down line of %s has changed" % BASE
    text = text.replace(heel_down, "      - {name: heel_down, when: {gap: heel_a, crosses: down}, impact: true, "
                        "then: flat}\n")
    lines = ["  sampling: {period: sample_dt}", "  feedforward:",
             "    knots: [%s]" % ", ".join("%.12g" % k for k in FF_KNOTS), "    torques:"]
    for act, v in ff.items():
        lines.append("      %s: [%s]" % (act, ", ".join("kd_ff * %.12g" % (x / kd) for x in v)))
    text = text.replace("  gains: {kp: kp, kd: kd}\n", "  gains: {kp: kp, kd: kd}\n" + "\n".join(lines) + "\n", 1)
    header = HEADER.format(c_total=c_base + kd, c_base=c_base, kd=kd)
    open(OUT, "w").write(header + text)
    print("wrote %s (s'_nom from %d rows: %.3f .. %.3f per s)" % (OUT, len(s), sdot.min(), sdot.max()),
          file=sys.stderr)


if __name__ == "__main__":
    main()
