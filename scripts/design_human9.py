#!/usr/bin/python3
"""The reference gait and feedforward of models/human9.yaml.

One step of a periodic walk of the nine-segment human (models/human_hu9.yaml's
segments: Winter's fractions of 75 kg, 1.75 m), prescribed as smooth
functions of time, T = STEP_T s from toe-off to toe-off, the hip moving
forward as the centre of mass of a linear inverted pendulum over a planned
centre of pressure (LIP; LIP = 0: at constant speed L/T), the phase
variable the file's clock (CLOCK; CLOCK = 0: the stance leg's angle):
- single support (ss1, T1): the stance foot flat on its pinned toe tip; the
  swing foot's heel and angle from the last toe-off's to the heel-strike's
  (positions, rates and accelerations matched at both ends: quintic
  Hermite), its heel lifted by a clearance bump; the swing heel lands with
  a small downward speed (a crossing for the event) and no forward speed;
- ds1 (T2): the front heel pinned, the front foot turning down from PHI0
  (toe up) to flat, reaching it with a rate (the foot-flat impact, small);
- ds_flat (T3): the front foot flat, the hind heel rising, the hind toe
  tip pinned (the hind foot from 0 to PSI_END, from T_HR on: it rises
  through ds1 as well; about the toe tip with the toe joint straight,
  TOE_ROLL = 1, or about the toe joint with the toe flat).
The hip's height is H0 + DH cos(2 pi (t - T1/2)/T), the trunk's lean
constant; each leg's thigh and knee from the hip-to-ankle distance
(two-link closure, knee flexed).  Periodic by construction: the front foot
at toe-off is the next step's flat stance foot, the hind foot at toe-off is
the next swing foot's start, the hip L further on.

The joint moments of that motion (stridemap inverse on models/human_hu9.yaml,
the same bodies; the smallest sum of squared moments in double support) are
the controller's feedforward; the motion's joint angles (and the trunk's
lean) its outputs' references: natural cubic splines in s through N_KNOTS
knots, fitted by least squares.  In double support an internal force
hands the load to the front foot (SHARE, share_load; SHARE = 0: a blend
toward the moments that carry the body on the front foot alone), so that
the hind toe's normal force falls through zero, the toe-off, at the
step's end, the hind foot's own centre of pressure held on its toe
(HIND_P), where the toe moment tau0 can put it, so that tau0 falls with
the force.  The hip's forward motion is then corrected, ZMP_ITER rounds, so that
the step's true centre of pressure (its inverse dynamics on the stance
foot alone, which the pendulum's plan leaves the swing leg and the trunk
out of) is the planned one (zmp_correct).  Every setting can be changed
for one run:
DESIGN=NAME=VALUE,... (the file's header lists the values in use).

Writes the numbers into models/human9.yaml (--write), between the lines
'# design: begin' and '# design: end' and in the guess (the reference's
start; --guess-from FIXED.json writes a gait there instead).

  /usr/bin/python3 scripts/design_human9.py --write models/human9.yaml
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lip  # noqa: E402


def body_height(path="models/human_hu9.yaml"):
    """The file's parameter height (m): its segments are Winter's fractions of it."""
    m = re.search(r"^  height: \{value: ([^,}]+)", open(path).read(), re.M)
    if not m:
        sys.exit(f"design_human9: no parameter 'height' in {path}")
    return float(m.group(1))


# models/human_hu9.yaml's geometry: Winter's fractions of the height (thigh,
# shank, the ankle above the sole; the foot's 0.152 H split 55 : 155 : 56
# between the heel behind the ankle, the toe joint ahead of it and the toe)
H_BODY = body_height()
LT, LS, AH = 0.245 * H_BODY, 0.246 * H_BODY, 0.039 * H_BODY
HB, MTP, LTOE = (0.152 * H_BODY * k / 266 for k in (55, 155, 56))
FOOT = HB + MTP + LTOE  # heel to toe tip

STEP_L, STEP_T = 0.55, 0.50
T1, T2 = 0.36, 0.04  # single support, ds1; ds_flat the rest
H0, DH = 0.80, 0.015
HAT = 0.05
PSI_END = 0.30  # hind foot's heel-up angle at toe-off
T_HR = 0.33  # the stance heel starts rising
PHI0 = 0.10  # front foot's toe-up angle at heel-strike
BETA = 0.3  # share of the front foot's rate kept at foot-flat
V_LAND = 0.15  # swing heel's downward speed at heel-strike
CLEAR = 0.05  # swing heel's lift at mid-swing
LIFT = 0.02  # the swing foot's early lift (m at mid-swing; its acceleration at toe-off 32 LIFT / T1^2 upward)
X_MID = 0.04  # hip ahead of the stance ankle at mid single support
HIP_A = 0.0  # the hip's sway about its steady forward motion (m)
FS = 1000.0
PRESS_KNEE, PRESS_TOE = 0.10, 0.01  # the front leg's press in double support (rad)
PRESS_OFF = 1.0  # share of the press taken off after foot-flat
W_DS1 = 0.3  # share of the front foot's load at heel-strike, rising to 1 at toe-off
# LIP = 1: the hip's forward motion from the centre of mass as a linear
# inverted pendulum x'' = W2 (x - p) over a planned centre of pressure p
# (from the stance toe tip; the heel is 0.266 m behind it, the toe joint
# 0.056 m): COP_SS0 to COP_SS1 in single support, to COP_DS at foot-flat,
# to the next step's COP_SS0 at toe-off; the start (x, x') solved so that
# the step is periodic, the forward speed scaled by R1, R2 at the
# heel-strike and the foot-flat.  LIP = 0: constant speed (and HIP_A).
LIP = 1.0
W2 = 9.81 / 0.966  # g over the centre of mass's height
COP_SS0, COP_SS1, COP_DS = -0.12, -0.035, 0.20
COM_DX = 0.011  # centre of mass ahead of the hip (the trunk's lean)
R1, R2 = 1.0, 1.0  # forward speed kept through the heel-strike and the foot-flat
# FRONT_ANKLE = 1: the front ankle's moment blended as the others (the
# front leg carries the body in B: without it the load is left to the
# press alone); 0: left to the feedback
FRONT_ANKLE = 0.0
FIT_W = 10.0  # the outputs' fit weight at the heel-strike and the step's ends
# SHARE = 1: double support's load handed over by an internal force (below,
# share_load) rather than the blend with B: the front foot's share
# W_DS1 + (1 - W_DS1) u^SHARE_POW (u from heel-strike to toe-off), its
# centre of pressure on its heel in ds1 and P_FRONT in front of it after
# foot-flat (reached in P_RAMP s), the hind foot keeping the rest of the moment
SHARE = 1.0
SHARE_POW = 8.0
T_POW = 1.0  # the hind toe keeps (1 - w)^T_POW of the tangential force (share_load)
P_FRONT = 0.18  # the front foot's centre of pressure ahead of its heel after foot-flat (m)
P_RAMP = 0.0  # s: the front foot's centre of pressure moves from its heel to P_FRONT over this time after foot-flat
CLOCK = 1.0  # 1: references and feedforward in time (the file's clock), not in the stance leg's angle
PSI_SMOOTH = 1.0  # 1: the hind foot's heel-up angle reaches PSI_END with no rate (no toe-lock impulse at toe-off)
# ZMP_ITER rounds of the multibody correction of the centre of mass plan
# (Kajita's, Nishiwaki's): the pendulum leaves out the swing leg and the
# trunk, so the plan's true centre of pressure (its inverse dynamics,
# -tau0 / F_n of the stance foot alone) is not the planned p; the hip is
# moved by the pendulum's periodic response dx to the error e = p_true -
# p, dx - dx'' / W2 = -e in single support (0 in double support, where
# the two feet share the load), and the round repeated
ZMP_ITER = 8.0
# TOE_ROLL = 1: the stance foot rises about its toe tip with the toe joint
# straight, so that the swing toe, locked straight at the section, leaves
# the ground where it stood (0: about the toe joint, the toe flat: the
# section's straightening put the swing toe's tip 9 mm under the ground)
TOE_ROLL = 1.0
TOE_BIAS = 0.0005  # rad, below
ZMP_DS = 1.0  # 1: the error over the whole step (the total centre of pressure in double support)
# HIND_P (m from the hind toe tip; NaN: off): the hind foot's own centre of
# pressure in double support, held on its toe (between the toe joint,
# 0.056 m behind the tip, and the tip) rather than left where the moments
# put it: in ds1, where the front foot bears on its heel alone, the share
# of the load the front foot takes follows from it, w = (p - HIND_P) /
# (heel - HIND_P), p the total centre of pressure (at least W_MIN); after
# foot-flat the share rises from that to 1 at toe-off and the front foot's
# centre of pressure follows, (p - (1 - w) HIND_P) / w (so tau0 goes to
# zero with the hind toe's force)
HIND_P = -0.015
W_MIN = 0.05
# COP_HS (NaN: COP_SS1): the planned centre of pressure at heel-strike, the
# start of ds1 (a jump: the front heel takes its share at once)
COP_HS = 0.05

NAMES = ["hat.x", "hat.z", "hat", "thigh_a", "shank_a", "foot_a", "toe_a", "thigh_b", "shank_b", "foot_b", "toe_b"]
ACTS = ["hip_a", "hip_b", "knee_a", "knee_b", "ankle_a", "ankle_b", "toe_a", "tau0"]
TORQUE_OF = {"hip_a": "thigh_a.torque", "hip_b": "thigh_b.torque", "knee_a": "shank_a.torque",
             "knee_b": "shank_b.torque", "ankle_a": "foot_a.torque", "ankle_b": "foot_b.torque",
             "toe_a": "toe_a.torque", "tau0": "tau0"}


def rot(th, v):
    c, s = math.cos(th), math.sin(th)
    return np.array([v[0] * c + v[1] * s, -v[0] * s + v[1] * c])


def lip_piece(x0, v0, p0, p1, t):
    """The linear inverted pendulum x'' = W2 (x - p0 - p1 t) from (x0, v0)
    at 0: position and rate at t (scripts/lip.py)."""
    return lip.piece(x0, v0, p0, p1, t, W2)


def lip_run(x0, v0, t):
    """The centre of mass at t from (x0, v0) at the step's start, over the
    planned centre of pressure (linear in each phase)."""
    plan = [(0.0, T1, COP_SS0, COP_SS1), (T1, T1 + T2, cop_hs(), COP_DS), (T1 + T2, STEP_T, COP_DS, COP_SS0 + STEP_L)]
    x, v = x0, v0
    for k, (ta, tb, pa, pb) in enumerate(plan):
        p1 = (pb - pa) / (tb - ta)
        if t <= tb or k == 2:
            return lip_piece(x, v, pa, p1, t - ta)
        x, v = lip_piece(x, v, pa, p1, tb - ta)
        v *= (R1, R2)[k]
    raise AssertionError


def lip_start():
    """(x0, v0) making the step periodic, x(T) = x0 + L and x'(T) = v0
    (affine in (x0, v0): two runs beside the zero one)."""
    f0 = np.array(lip_run(0.0, 0.0, STEP_T))
    fx = np.array(lip_run(1.0, 0.0, STEP_T)) - f0
    fv = np.array(lip_run(0.0, 1.0, STEP_T)) - f0
    A = np.array([[fx[0] - 1.0, fv[0]], [fx[1], fv[1] - 1.0]])
    return np.linalg.solve(A, np.array([STEP_L, 0.0]) - f0)


# the hip's correction dx (ZMP_ITER), on the grid DX_T of one step, periodic
DX_T = None
DX = None


def hip_dx(t):
    return 0.0 if DX is None else float(np.interp(t, DX_T, DX, period=STEP_T))


def zmp_response(e):
    """dx on the grid DX_T (N samples of one period, no repeated end) with
    dx - dx'' / W2 = -e, periodic (scripts/lip.py)."""
    return lip.response(e, STEP_T, W2)


def cop_hs():
    return COP_SS1 if math.isnan(COP_HS) else COP_HS


def planned_cop(t):
    """The pendulum's planned centre of pressure (from the stance toe tip)."""
    if t <= T1:
        return COP_SS0 + (COP_SS1 - COP_SS0) * t / T1
    if t <= T1 + T2:
        return cop_hs() + (COP_DS - cop_hs()) * (t - T1) / T2
    return COP_DS + (COP_SS0 + STEP_L - COP_DS) * (t - T1 - T2) / (STEP_T - T1 - T2)


def hip(t):
    if LIP:
        x0, v0 = lip_start()
        x, _ = lip_run(x0, v0, t)
        return np.array([x - COM_DX + hip_dx(t), H0 + DH * math.cos(2 * math.pi * (t - T1 / 2) / STEP_T)])
    x0 = -(LTOE + MTP) + X_MID - STEP_L / STEP_T * T1 / 2
    return np.array([x0 + STEP_L / STEP_T * t + HIP_A * math.sin(2 * math.pi * (t - T1 / 2) / STEP_T),
                     H0 + DH * math.cos(2 * math.pi * (t - T1 / 2) / STEP_T)])


def psi(t):
    """Stance foot's angle (heel up, about the toe joint), from T_HR to T."""
    if t <= T_HR:
        return 0.0
    u = (t - T_HR) / (STEP_T - T_HR)
    if PSI_SMOOTH:
        return PSI_END * u * u * (3 - 2 * u)
    return PSI_END * u ** 3


def hind_ankle(t):
    """The stance foot's ankle (toe tip at the origin; TOE_ROLL = 0: the
    toe flat, the heel rising about the toe joint; 1: the toe joint
    straight, the whole foot rising about the toe tip)."""
    if TOE_ROLL:
        return -rot(psi(t), [MTP + LTOE, -AH])
    mtp = np.array([-LTOE, 0.0])
    return mtp - rot(psi(t), [MTP, -AH])


def front_angle(t):
    """The front foot's absolute angle after heel-strike (toe up: negative)."""
    u = min(max((t - T1) / T2, 0.0), 1.0)
    return -PHI0 * ((1 - BETA) * (1 - u) ** 2 + BETA * (1 - u))


def heel_of(ankle, a3):
    return ankle + rot(a3, [-HB, -AH])


def ankle_of_heel(heel, a3):
    return heel - rot(a3, [-HB, -AH])


def fd(f, t, h=1e-5):
    return (f(t + h) - f(t - h)) / (2 * h), (f(t + h) - 2 * f(t) + f(t - h)) / (h * h)


def hermite5(p0, v0, a0, p1, v1, a1, T, t):
    """Quintic with the given value, rate and acceleration at 0 and T."""
    A = np.array([[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 2, 0, 0, 0],
                  [1, T, T ** 2, T ** 3, T ** 4, T ** 5], [0, 1, 2 * T, 3 * T ** 2, 4 * T ** 3, 5 * T ** 4],
                  [0, 0, 2, 6 * T, 12 * T ** 2, 20 * T ** 3]], dtype=float)
    c = np.linalg.solve(A, np.array([p0, v0, a0, p1, v1, a1], dtype=float))
    return sum(c[k] * t ** k for k in range(6))


def swing(t):
    """Swing foot (heel position, absolute angle) over [0, T1]: from the
    hind foot at the last toe-off (STEP_L behind) to heel-strike."""
    # start: the hind foot at T, one step back
    h_start = lambda tt: heel_of(hind_ankle(tt), psi(tt)) - np.array([STEP_L, 0.0])
    hs = h_start(STEP_T)
    hv, ha = fd(h_start, STEP_T)
    a_s = psi(STEP_T)
    av, aa = fd(psi, STEP_T)
    # end: heel on the ground, STEP_L - FOOT ahead of the stance toe tip
    he = np.array([STEP_L - FOOT, 0.0])
    hve, hae = np.array([0.0, -V_LAND]), np.zeros(2)
    a_e = front_angle(T1)
    ave, aae = fd(lambda tt: -PHI0 * ((1 - BETA) * (1 - (tt - T1) / T2) ** 2 + BETA * (1 - (tt - T1) / T2)), T1)
    x = hermite5(hs[0], hv[0], ha[0], he[0], hve[0], hae[0], T1, t)
    z = hermite5(hs[1], hv[1], ha[1], he[1], hve[1], hae[1], T1, t)
    u = t / T1
    z += CLEAR * 64 * u ** 3 * (1 - u) ** 3 + LIFT * 16 * u ** 2 * (1 - u) ** 2
    a3 = hermite5(a_s, av, aa, a_e, ave, aae, T1, t)
    return np.array([x, z]), a3


def leg_ik(hp, ankle):
    """Thigh and shank absolute angles reaching ankle from hp, knee flexed."""
    d = ankle - hp
    r = math.hypot(d[0], d[1])
    if r >= LT + LS:
        raise ValueError("the leg cannot reach: %.4f m of %.4f" % (r, LT + LS))
    beta = math.atan2(-d[0], -d[1])
    alpha = math.acos((LT * LT + r * r - LS * LS) / (2 * LT * r))
    k = math.acos((r * r - LT * LT - LS * LS) / (2 * LT * LS))
    a1 = beta - alpha
    return a1, a1 + k


def phase_of(t):
    return "ss1" if t < T1 else "ds1" if t < T1 + T2 else "ds_flat"


def pose(t):
    """The eleven coordinates (human_hu9's names) at time t of the step."""
    hp = hip(t)
    # stance leg a: toe tip pinned at the origin, toe flat
    p = psi(t)
    a1, a2 = leg_ik(hp, hind_ankle(t))
    q_a = [a1 - HAT, a2 - a1, p - a2, 0.0 if TOE_ROLL else -p]
    # leg b
    if t < T1:
        heel, a3 = swing(t)
    else:
        a3 = front_angle(t)
        heel = np.array([STEP_L - FOOT, 0.0])
    b1, b2 = leg_ik(hp, ankle_of_heel(heel, a3))
    q_b = [b1 - HAT, b2 - b1, a3 - b2, 0.0]
    return [hp[0], hp[1], HAT] + q_a + q_b


def check(rows):
    """Knee flexion and the swing foot's clearance."""
    knees = [min(r[2][4], r[2][8]) for r in rows]
    print("knee flexion: min %.3f rad" % min(knees), file=sys.stderr)
    low = []
    for t, ph, q in rows:
        if ph != "ss1":
            continue
        hp = np.array(q[:2])
        a = q[2] + q[7]
        knee = hp + rot(a, [0, -LT])
        a += q[8]
        ankle = knee + rot(a, [0, -LS])
        a += q[9]
        heel = ankle + rot(a, [-HB, -AH])
        tip = ankle + rot(a, [MTP + LTOE, -AH])
        low.append((min(heel[1], tip[1]), t))
    print("swing foot lowest point in ss1 after 0.1 s: %.4f m" % min(v for v, t in low if t > 0.1), file=sys.stderr)


def reference():
    n = int(round(STEP_T * FS))
    rows = []
    for i in range(n + 1):
        t = i / FS
        ph = phase_of(t)
        if i == n:
            ph = "ds_flat"
        rows.append((t, ph, pose(t)))
    return rows


def write_csv(path, rows, phase=None):
    # Every digit of the pose: inverse differentiates it twice at FS, so a
    # coordinate rounded to 12 decimals (as it was) turned a 1-ulp change
    # of the geometry (0.245 * 1.75 for 0.42875) into a flipped last
    # decimal at some samples and the double-support feedforward's fifth
    # digit; at 17 digits the output no longer depends on it.
    with open(path, "w") as f:
        f.write("time,phase," + ",".join(NAMES) + "\n")
        for t, ph, q in rows:
            f.write("%.6f,%s," % (t, phase or ph) + ",".join("%.17g" % v for v in q) + "\n")


def inverse(exe, model, ref, out):
    subprocess.run([exe, "inverse", model, ref, "-o", out], check=True)
    with open(out) as f:
        return list(csv.DictReader(f))


def one_foot_model(tmp, front):
    """human_hu9 with phases of one foot's contacts: 'front' (heel and toe)
    with the section's origin (where inverse applies its ground moment) at
    the front heel: with heel and toe on the ground that moment is
    redundant with their forces, and the smallest sum of squared moments
    leaves it 0; or 'hind1', 'hind2' (the stance toe tip, the moment on it
    as in ss1: the same case under other names, so that each run of one
    phase is differentiated alone)."""
    text = open("models/human_hu9.yaml").read()
    add = ""
    for name, cs in ((("front", "heel_b, flat_b"),) if front else (("hind1", "tip_a"), ("hind2", "tip_a"))):
        add += ("  - name: %s\n    contacts: [%s, toe_lock_b]\n    events:\n"
                "      - {name: toeoff, when: {force: %s}, impact: true, relabel: true, then: section}\n"
                % (name, cs, cs.split(",")[0]))
    text = text.replace("relabel: [", add + "relabel: [", 1)
    if front:
        text = text.replace("origin: tip_a", "origin: heel_b", 1)
    path = os.path.join(tmp, "front.yaml" if front else "hind.yaml")
    open(path, "w").write(text)
    return path


def natural_spline_basis(knots, s):
    """B[i, k]: the natural cubic spline through unit value k at s[i]."""
    n = len(knots)
    B = np.zeros((len(s), n))
    for k in range(n):
        vals = np.zeros(n)
        vals[k] = 1.0
        B[:, k] = spline_eval(knots, vals, s)
    return B


def spline_eval(knots, vals, s):
    knots, vals = np.asarray(knots, float), np.asarray(vals, float)
    n = len(knots)
    h = np.diff(knots)
    A = np.zeros((n, n))
    r = np.zeros(n)
    A[0, 0] = A[-1, -1] = 1.0
    for k in range(1, n - 1):
        A[k, k - 1], A[k, k], A[k, k + 1] = h[k - 1], 2 * (h[k - 1] + h[k]), h[k]
        r[k] = 6 * ((vals[k + 1] - vals[k]) / h[k] - (vals[k] - vals[k - 1]) / h[k - 1])
    M = np.linalg.solve(A, r)
    out = np.zeros(len(s))
    for i, x in enumerate(s):
        k = min(max(np.searchsorted(knots, x) - 1, 0), n - 2)
        a, b = (knots[k + 1] - x) / h[k], (x - knots[k]) / h[k]
        out[i] = a * vals[k] + b * vals[k + 1] + ((a ** 3 - a) * M[k] + (b ** 3 - b) * M[k + 1]) * h[k] ** 2 / 6
    return out


def theta(q):
    """The phase variable: the stance leg's angle, thigh plus half the
    knee (the hip-to-ankle line's for equal thigh and shank), from the
    vertical, growing as the body passes over the stance foot; free of the
    base's position, so that a walk's steps need no shift to read it."""
    return q[2] + q[3] + 0.5 * q[4]


S1, S2 = T1 / STEP_T, (T1 + T2) / STEP_T


def knots(kind):
    """Knots in s: more where the motion or the moments change fast (the
    heel-strike, s1, and the foot-flat, s2); fewer for the stance leg's
    smooth angles (the parameters are counted: at most 256 in a file)."""
    s1, s2 = S1, S2
    if kind == "stance":
        k = list(np.linspace(0, s1, 5)) + [(s1 + 1) / 2, 1.0]
    elif kind == "swing":
        k = list(np.linspace(0, s1, 6)) + [s1 + 0.5 * (s2 - s1), s2, (s2 + 1) / 2, 1.0]
    else:
        k = list(np.linspace(0, s1, 5)) + [s1 - 0.04, s1, s1 + 0.5 * (s2 - s1), s2, s2 + 0.02, (s2 + 1) / 2, 1.0]
    return sorted(set(round(v, 6) for v in k))


def fit(kn, s, y, w=None):
    """Least squares, each sample weighted by w (default 1)."""
    B = natural_spline_basis(kn, s)
    w = np.ones(len(s)) if w is None else w
    c, *_ = np.linalg.lstsq(B * w[:, None], y * w, rcond=None)
    return c, float(np.max(np.abs(B @ c - y)))


def landing_weights(s):
    """FIT_W on the samples around the heel-strike and at the step's ends
    (where the swing foot meets the ground and the section's state lies),
    1 elsewhere: there the references' fit errors move the heel-strike."""
    w = np.ones(len(s))
    if FIT_W != 1.0:
        w[(s > S1 - 0.04) & (s < S2)] = FIT_W
        w[(s < 0.01) | (s > 0.99)] = FIT_W
    return w


def sites(q):
    """Hind toe tip, front heel and front toe tip (x, z) of the pose q
    (the model's chain: each angle relative to its parent)."""
    hp = np.array(q[:2])
    out = []
    for k in (3, 7):
        a = q[2] + q[k]
        knee = hp + rot(a, [0, -LT])
        a += q[k + 1]
        ankle = knee + rot(a, [0, -LS])
        a += q[k + 2]
        heel = ankle + rot(a, [-HB, -AH])
        mtp = ankle + rot(a, [MTP, -AH])
        a += q[k + 3]
        out.append((heel, mtp + rot(a, [LTOE, 0])))
    return out[0][1], out[1][0], out[1][1]


# generalized force per actuator over the 11 coordinates (the file's B)
B_ACT = np.zeros((11, 8))
for j, cols in enumerate([[3], [7], [4], [8], [5], [9], [6], [2, 3, 4, 5, 6]]):
    B_ACT[cols, j] = 1.0


def share_load(q, lam, tau0, front_flat, w):
    """The actuators' change that moves the share w of the ground force
    lam = (Fx, Fz) of the hind foot alone (with its ground moment tau0) to
    the front foot, the hind foot keeping its centre of pressure where the
    moments put it: the motion unchanged, B du + J^T dlam = 0 (a pure
    internal force, which double support's extra actuators carry).  The
    front foot takes its share at P_FRONT, the centre of pressure in
    front of its heel (front_flat; else on its heel alone), the hind moment
    what is left of tau0.  Returns du (8) and the hind centre of pressure."""
    h = 1e-7
    tip_a, heel_b, tip_b = sites(q)
    J = np.zeros((3, 2, 11))
    for k in range(11):
        qp, qm = list(q), list(q)
        qp[k] += h
        qm[k] -= h
        for c, (a, b) in enumerate(zip(sites(qp), sites(qm))):
            J[c, :, k] = (a - b) / (2 * h)
    Fx, Fz = lam
    p_tot = -tau0 / Fz  # from the hind toe tip (at x = 0)
    pf = heel_b[0] + P_FRONT * front_flat
    if not math.isnan(HIND_P) and front_flat and w > 0:
        # the front foot's centre of pressure where the hind one stays at HIND_P
        pf = min(max((p_tot - (1 - w) * HIND_P) / w, heel_b[0] + 0.01), tip_b[0] - 0.01)
    pf = min(pf, tip_b[0])
    # front forces: (1 - r) at the heel, r at the toe tip, for its centre
    # of pressure at pf
    r = (pf - heel_b[0]) / (tip_b[0] - heel_b[0]) if front_flat else 0.0
    # the tangential share wt >= w: the hind toe's friction goes to zero
    # faster than its normal force (T_POW > 1), its ratio falling to toe-off
    wt = 1 - (1 - w) ** T_POW
    dQ = -J[0].T @ np.array([wt * Fx, w * Fz]) + J[1].T @ np.array([wt * Fx, (1 - r) * w * Fz]) \
        + J[2].T @ np.array([0.0, r * w * Fz])
    # the hind moment: the total moment about the hind tip kept
    new_tau0 = -(p_tot * Fz - w * Fz * pf)
    du = np.zeros(8)
    du[7] = new_tau0 - tau0
    # the front toe joint's row is the lock's (its torque takes it)
    rhs = (-dQ - B_ACT[:, 7] * du[7])[:10]
    sol, *_ = np.linalg.lstsq(B_ACT[:10, :7], rhs, rcond=None)
    du[:7] = sol
    res = float(np.max(np.abs((B_ACT @ du + dQ)[:10])))
    ph = -new_tau0 / ((1 - w) * Fz) if w < 1 else float("nan")
    return du, ph, res


def hind_alone(exe, tmp, rows):
    """The inverse dynamics of the step on the hind (stance) foot alone."""
    ref = os.path.join(tmp, "ref_a.csv")
    write_csv(ref, [(t, {"ss1": "ss1", "ds1": "hind1", "ds_flat": "hind2"}[ph], q) for t, ph, q in rows])
    return inverse(exe, one_foot_model(tmp, False), ref, os.path.join(tmp, "inv_a.csv"))


def zmp_correct(exe):
    """ZMP_ITER rounds of the hip's correction (above, ZMP_ITER); the
    single-support centre of pressure's range before and after."""
    global DX_T, DX
    n = int(round(STEP_T * FS))
    DX_T = np.arange(n) / FS
    DX = np.zeros(n)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(int(ZMP_ITER) + 1):
            rows = reference()
            inv_a = hind_alone(exe, tmp, rows)
            e = np.zeros(n)
            for i in range(n):
                if rows[i][1] == "ss1" or ZMP_DS:
                    e[i] = -float(inv_a[i]["tau0"]) / float(inv_a[i]["tip_a.fz"]) - planned_cop(rows[i][0])
            p = [planned_cop(rows[i][0]) + e[i] for i in range(n) if rows[i][1] == "ss1"]
            print("zmp round %d: single support's true centre of pressure %.3f..%.3f m, |error| <= %.3f m, "
                  "|dx| <= %.3f m" % (k, min(p), max(p), np.max(np.abs(e)), np.max(np.abs(DX))), file=sys.stderr)
            if k < int(ZMP_ITER):
                DX = DX + zmp_response(e)


def design(exe):
    if LIP and ZMP_ITER:
        zmp_correct(exe)
    rows = reference()
    check(rows)
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref.csv")
        write_csv(ref, rows)
        # the minimal-norm moments of every case, the stance foot alone
        # through the whole step (A), the front foot alone in ds_flat (B)
        inv = inverse(exe, "models/human_hu9.yaml", ref, os.path.join(tmp, "inv.csv"))
        # the hind foot alone (each run of one phase differentiated alone)
        write_csv(ref, [(t, {"ss1": "ss1", "ds1": "hind1", "ds_flat": "hind2"}[ph], q) for t, ph, q in rows])
        inv_a = inverse(exe, one_foot_model(tmp, False), ref, os.path.join(tmp, "inv_a.csv"))
        flat = [r for r in rows if r[1] == "ds_flat"]
        fref = os.path.join(tmp, "front.csv")
        write_csv(fref, flat, phase="front")
        inv_b = inverse(exe, one_foot_model(tmp, True), fref, os.path.join(tmp, "inv_b.csv"))
    t = np.array([r[0] for r in rows])
    # CLOCK = 1: the phase variable is the file's clock, the step's time
    th = t.copy() if CLOCK else np.array([theta(r[2]) for r in rows])
    if np.any(np.diff(th) <= 0):
        raise SystemExit("design_human9: the phase variable is not monotone over the reference")
    s = (th - th[0]) / (th[-1] - th[0])
    global S1, S2
    S1, S2 = np.interp([T1, T1 + T2], t, s)
    i0 = next(i for i, r in enumerate(rows) if r[1] == "ds_flat")
    tq = {a: np.array([float(r[TORQUE_OF[a]]) for r in inv_a]) for a in ACTS}
    fz = np.array([float(r["tip_a.fz"]) for r in inv_a])
    # double support: each foot alone carries the motion (A: the hind, B:
    # the front), and so does any blend of them; the load passes from A to
    # B, the hind toe's force (1 - w) times A's reaching zero at the step's
    # end, its ground moment with it (its centre of pressure A's)
    if SHARE:
        worst = 0.0
        ph_rng = [1e9, -1e9]
        w_ff = None  # HIND_P: the share at foot-flat
        for i, r in enumerate(rows):
            if r[1] == "ss1":
                continue
            u = (t[i] - T1) / (STEP_T - T1)
            w = W_DS1 + (1 - W_DS1) * u ** SHARE_POW
            lam = (float(inv_a[i]["tip_a.fx"]), float(inv_a[i]["tip_a.fz"]))
            if not math.isnan(HIND_P):
                if r[1] == "ds1":
                    heel = sites(r[2])[1][0]
                    w = max((-tq["tau0"][i] / lam[1] - HIND_P) / (heel - HIND_P), W_MIN)
                    w_ff = w
                else:
                    u = (t[i] - T1 - T2) / (STEP_T - T1 - T2)
                    w = w_ff + (1 - w_ff) * u ** SHARE_POW
            flat = min(max((t[i] - T1 - T2) / P_RAMP, 0.0), 1.0) if P_RAMP > 0 else float(r[1] == "ds_flat")
            du, ph, res = share_load(r[2], lam, tq["tau0"][i], flat, w)
            worst = max(worst, res)
            if w < 0.99:
                ph_rng = [min(ph_rng[0], ph), max(ph_rng[1], ph)]
            for j, a in enumerate(ACTS):
                tq[a][i] += du[j]
        print("load sharing: residual %.1e, hind centre of pressure %.3f..%.3f m" % (worst, *ph_rng),
              file=sys.stderr)
    for i, r in enumerate(rows):
        if SHARE or r[1] == "ss1":
            continue
        if r[1] == "ds1":
            continue
        w = W_DS1 + (1 - W_DS1) * (t[i] - t[i0]) / (STEP_T - t[i0])
        other = inv_b[i - i0]
        for a in ACTS:
            # the front ankle is left to the feedback (its press): its
            # moment sets where on the front foot the load falls
            if a != "ankle_b" or FRONT_ANKLE:
                tq[a][i] = (1 - w) * tq[a][i] + w * float(other[TORQUE_OF[a]])
    print("hind toe tip normal force: %.1f N at the start, %.1f N at ds_flat's start (hind foot alone)"
          % (fz[0], fz[i0]), file=sys.stderr)
    print("front ground moment in B: max |tau0| %.2e N m" % max(abs(float(r["tau0"])) for r in inv_b),
          file=sys.stderr)
    kn = knots("ff")
    q = np.array([r[2] for r in rows])
    outs = {
        "trunk": q[:, 2],
        "stance_hip": q[:, 3], "stance_knee": q[:, 4], "stance_ankle": q[:, 5], "stance_toe": q[:, 6],
        "swing_hip": q[:, 7], "swing_knee": q[:, 8], "swing_ankle": q[:, 9],
    }
    # the front leg presses on the ground in double support: its knee's
    # reference a little straighter and its foot's a little toe-down than
    # the contacts allow, so that the feedback loads the heel (and then the
    # toe, making foot-flat a crossing) rather than hovering at zero force
    ramp = np.clip((t - T1) / T2, 0.0, 1.0) - PRESS_OFF * np.clip((t - T1 - T2) / 0.04, 0.0, 1.0)
    outs["swing_knee"] = outs["swing_knee"] - PRESS_KNEE * ramp
    # the stance toe joint a little bent down at toe-off (TOE_BIAS, reached
    # over ds_flat) rather than a little up by its tracking error: the
    # section straightens the swing toe, which then lifts its tip off the
    # ground instead of pushing it under
    u = np.clip((t - T1 - T2) / (STEP_T - T1 - T2), 0.0, 1.0)
    outs["stance_toe"] = outs["stance_toe"] + TOE_BIAS * u * u * (3 - 2 * u)
    outs["swing_ankle"] = outs["swing_ankle"] + PRESS_TOE * ramp
    fits = {}
    for name, y in outs.items():
        # the trunk's lean is constant: a straight spline of two knots
        k = [0.0, 1.0] if name == "trunk" else knots("stance" if name.startswith("stance") else "swing")
        c, err = fit(k, s, y, landing_weights(s))
        fits[name] = (k, c)
        print("output %-13s fit error %.2e rad" % (name, err), file=sys.stderr)
    ff = {}
    for a in ACTS:
        c, err = fit(kn, s, tq[a])
        ff[a] = c
        if os.environ.get("DESIGN_DEBUG"):
            e = np.abs(natural_spline_basis(kn, s) @ c - tq[a])
            print("  %s: worst at t = %.3f (%s); over 10 N m at %d of %d samples"
                  % (a, t[np.argmax(e)], rows[int(np.argmax(e))][1], int(np.sum(e > 10)), len(e)), file=sys.stderr)
        print("feedforward %-8s |u| <= %7.1f N m, fit error %.2e" % (a, np.max(np.abs(tq[a])), err), file=sys.stderr)
    # the state at the section: pose and rates at t = 0 (the rates by central
    # differences of the smooth reference, continued across the step's end)
    q0 = np.array(pose(0.0))
    h = 1e-6
    qd = (np.array(pose(h)) - np.array(pose_before_start(h))) / (2 * h)
    return kn, fits, ff, q0, qd, (th[0], th[-1])


def pose_before_start(h):
    """The pose h before the step's start: the last step's end, one step
    back and the legs swapped (the swing toe locked straight)."""
    q = pose(STEP_T - h)
    q[0] -= STEP_L
    a, b = q[3:7], q[7:11]
    return q[:3] + b[:3] + [0.0] + a[:3] + [0.0]


def fmt(v):
    return "%.6g" % v


def write(path, kn, fits, ff, q0, qd, ths):
    text = open(path).read()
    lines = ["# design: begin (scripts/design_human9.py)"]
    lines.append("  theta_start: {value: %.9f, unit: rad, description: the stance leg's angle at the step's start}"
                 % ths[0])
    lines.append("  theta_end: {value: %.9f, unit: rad, description: the stance leg's angle at its end (toe-off)}"
                 % ths[1])
    lines.append("# design: end")
    text = re.sub(r"# design: begin.*?# design: end", "\n".join(lines), text, flags=re.S)
    ks = "[" + ", ".join(fmt(k) for k in kn) + "]"
    for name, (k, c) in fits.items():
        k = "[" + ", ".join(fmt(v) for v in k) + "]"
        text = re.sub(r"(- \{name: %s, .*?spline: \{knots: )\[.*?\], values: \[.*?\]\}\}" % name,
                      lambda m: m.group(1) + k + ", values: [" + ", ".join(fmt(v) for v in c) + "]}}", text)
    text = re.sub(r"(feedforward:\n    knots: )\[.*?\]", lambda m: m.group(1) + ks, text)
    for a, c in ff.items():
        text = re.sub(r"(\n      %s: )\[.*?\]" % a, lambda m: m.group(1) + "[" + ", ".join(fmt(v) for v in c) + "]",
                      text)
    names = ["hip_x", "hip_z", "hat", "thigh_a", "shank_a", "foot_a", "toe_a", "thigh_b", "shank_b", "foot_b",
             "toe_b"]
    for n, v in zip(names, q0):
        text = re.sub(r"(\n  %s: )\S+" % re.escape(n), lambda m: m.group(1) + "%.9f" % v, text)
    for n, v in zip(names, qd):
        text = re.sub(r"(\n  %s_dot: )\S+" % re.escape(n), lambda m: m.group(1) + "%.9f" % v, text)
    open(path, "w").write(text)


def main():
    for kv in filter(None, os.environ.get("DESIGN", "").split(",")):
        k, v = kv.split("=")
        globals()[k] = float(v)
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    ap.add_argument("--write", help="model file to write the numbers into")
    ap.add_argument("--csv", help="write the reference here")
    ap.add_argument("--guess-from", help="only write the fixed point of this 'stridemap fixed --json' output into "
                    "the model file's guess (--write)")
    args = ap.parse_args()
    if args.guess_from:
        d = json.load(open(args.guess_from))
        if not d.get("converged"):
            raise SystemExit("design_human9: %s holds no converged gait" % args.guess_from)
        text = open(args.write).read()
        for n, v in zip(d["state_names"], d["fixed_point"]):
            text, k = re.subn(r"(\n  %s: )\S+" % re.escape(n), lambda m: m.group(1) + "%.12g" % v, text)
            if k != 1:
                raise SystemExit("design_human9: the guess has no line for %s" % n)
        open(args.write, "w").write(text)
        return
    kn, fits, ff, q0, qd, ths = design(args.exe)
    if args.csv:
        write_csv(args.csv, reference())
    if args.write:
        write(args.write, kn, fits, ff, q0, qd, ths)


if __name__ == "__main__":
    main()
