#!/usr/bin/python3
"""Joint references of the walking controller of models/biped12_3d.yaml.

A kinematic plan of one step (right stance, foot a; the left foot b swings),
in s = (hat_x - theta+) / (theta- - theta+) from 0 at the section (the
stance foot flat, just after the previous step's Foot2flat/Toe1off) to 1
(the swing foot flat, the next Toe1off), in the frame the section uses:
the stance foot's inner toe corner at the origin, x ahead, z up.
- the pelvis (hips' midpoint) moves ahead at a constant rate in s, from x0
  to x0 + L (L the step), at the height zp, upright (pitch 0), swaying
  across by a cosine, from y0 to w - y0 (w the step width, inner corner to
  inner corner), nearest the stance foot at mid-step;
- the stance foot turns about its toe line, heel up, by phi_end s^2;
- the swing foot leaves from its toe line at (-L, w) pitched phi_end, going
  on turning about its toe at the rate the stance foot had at s = 1 (the
  references' rates continuous across Toe1off), its toe rising by
  clear (1 - cos(2 pi s / s_hs)) / 2 on its way (at rest as it leaves), comes down heel first at
  s_hs with the toe up by psi, its heel centre where the foot, laid flat,
  has its toe at (L, w); then, the heel held, turns down to flat at s = 1.
Each joint angle follows from the plan by inverse kinematics of the file's
own tree (the forward kinematics below, with its bodies and sites):
  stance leg: thigh_a, knee_a, ankle_x_a, foot_a and the trunk's roll and
    yaw, from the pelvis' position and pitch and the foot's pose (hip_x_a is
    the servo's constant rest, ankle_z_a held at 0 by its lock);
  swing leg: hip_x_b, thigh_b, knee_b, foot_b from the foot's toe (or heel)
    position and pitch (ankle_x_b, ankle_z_b held by their locks, at the
    values of the section).
The step is the mirror image of the next (the relabel): the swing hip's
roll at s = 1 is minus the stance hip's rest, the swing ankle's held roll
minus the stance ankle's roll at s = 1; a fixed-point iteration on those
two, and w solved so that the swing hip's roll ends at minus the rest.
Writes the spline knots and values of the eight outputs (KNOTS) and the
phase's ends into the file (--write), or prints them.

  /usr/bin/python3 scripts/design_biped12_3d.py --write models/biped12_3d.yaml

The guess it writes (--plan-guess) is the plan's state at s = 0, which does
not walk (the PD holds the weight only through tracking errors): the file's
guess is the gait found from the previous one (the model file's header says
how).  Without --plan this remakes the file's own numbers (the sine plan).

--plan lip (issue 15 item 4, not yet a gait): the centre of mass of a linear
inverted pendulum (scripts/lip.py) over a planned centre of pressure, in
time over the gait's step T: laterally on the stance foot's centre line
until the heel-strike, then toward the front heel (share_end of the load on
it at the step's end, the rest jumping at Toe1off: the front foot must land
on its inner toe corner first, and a larger share rolls the pelvis so that
the outer corner lands first, landing_tilt); sagittally from cop_x0 to the
toe line at the heel's lift, there in single stance, then toward the front
heel; the start solved so the step repeats (sagittally) and mirrors
(laterally); then ZMP rounds of the multibody correction (the plan's true
centre of pressure by scripts/body3d.py).  Its inverse dynamics
(inverse_step: square on the flat foot, least squares in single stance,
the smallest weighted norm in double stance) is the feedforward of all
eight actuators, 8 knots (the file's 256 parameters: the outputs then take
12 knots, KNOTS_LIP), the swing hip's and knee's feedback off in double
stance, the stance hip servo's rest moved by its mean torque over k_hip_x.

  /usr/bin/python3 scripts/design_biped12_3d.py --plan lip --write FILE --plan-guess
"""
import argparse
import math
import os
import re
import sys

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import body3d  # noqa: E402
import lip  # noqa: E402

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "biped12_3d.yaml")

THIGH, SHANK, ANKLE_H, HEEL, TOE, HALF_W, HIP_HALF = 0.245, 0.246, 0.039, 0.04, 0.112, 0.0275, 0.08
# denser near the ends, where the swing leg starts and lands, and at heel-strike (s_hs): the spline's
# slope at s = 0 is the reference's rate at Toe1off (at most 16 knots: the engine's limit)
KNOTS = np.array([0, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.875, 0.95, 1])
# the pendulum plan's (--plan lip): 12 knots, in the plan's s, so that with the feedforward's 8 x 8 the file
# stays within SM_MAX_PARAMS (256; the bodies and the rest take 94)
KNOTS_LIP = np.array([0, 0.025, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.85, 0.95, 1])
OUTPUTS = ["thigh_a", "knee_a", "foot_a", "ankle_x_a", "thigh_b", "knee_b", "foot_b", "hip_x_b"]


def rot(axis, a):
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def leg(R, p, side, hip_x, thigh, knee, ank_z, ank_x, foot):
    """Foot frame (R, origin at the ankle) from the pelvis frame; side -1 for a (right), +1 for b."""
    p = p + R @ np.array([0, side * HIP_HALF, 0])
    R = R @ rot("x", hip_x) @ rot("y", thigh)
    p = p + R @ np.array([0, 0, -THIGH])
    R = R @ rot("y", knee)
    p = p + R @ np.array([0, 0, -SHANK])
    R = R @ rot("z", ank_z) @ rot("x", ank_x) @ rot("y", foot)
    return R, p


def pelvis(pos, yaw, roll, pitch):
    return rot("z", yaw) @ rot("x", roll) @ rot("y", pitch), np.asarray(pos, float)


def site(Rp, side, where):
    """A sole point of a foot: where = toe_in, toe_out, heel (centre)."""
    R, p = Rp
    y_in = -side * HALF_W  # a (right, side -1): inner is +y
    loc = {"toe_in": [TOE, y_in, -ANKLE_H], "toe_out": [TOE, -y_in, -ANKLE_H], "heel": [-HEEL, 0, -ANKLE_H]}[where]
    return p + R @ np.array(loc)


def foot_pose_ok(R, pitch):
    """Residuals of a foot frame against roll 0, yaw 0 and the given pitch."""
    return np.array([R[1, 0], R[1, 2], math.atan2(R[0, 2], R[0, 0]) - pitch])


class Plan:
    def __init__(self, L=0.25, zp=0.50, x0=-0.13, y0=0.0525, sway=0.025, w=0.105, phi_end=0.35, psi=-0.15,
                 s_hs=0.75, s_off=0.3, clear=0.03, hip_rest=0.0, ank_x_b=0.0, smooth=True, lip=False, T=1.136,
                 w2=9.81 / 0.55, cop_x0=-0.12, lip_x=False, press=0.0, cop_y_in=0.0, share_end=1.0):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.corr = None  # the multibody correction (dx, dy) of the pendulum's plan: splines in t

    def cop_plan(self):
        """The planned centre of pressure (x and y lists of (t, p)): on the stance foot, from (cop_x0, its
        centre line moved cop_y_in inward) to its toe line at the heel's lift s_off, there till the
        heel-strike, then toward the front heel's centre, the share share_end of the load on it at the
        step's end (the rest jumps there, the old stance toe leaving the ground at Toe1off)."""
        T, hx, hy = self.T, self.L - TOE - HEEL, self.w + HALF_W
        y0, f = -HALF_W + self.cop_y_in, self.share_end
        px = [(0.0, self.cop_x0), (self.s_off * T, 0.0), (self.s_hs * T, 0.0), (T, f * hx)]
        py = [(0.0, y0), (self.s_hs * T, y0), (T, (1 - f) * y0 + f * hy)]
        return px, py

    def pelvis_at(self, s):
        if self.lip:
            t = s * self.T
            px, py = self.cop_plan()
            x = (lip.run(*lip.start(self.T, px, self.w2, 1.0, self.L), t, px, self.w2)[0] if self.lip_x
                 else self.x0 + self.L * s)
            y = lip.run(*lip.start(self.T, py, self.w2, -1.0, self.w), t, py, self.w2)[0]
            if self.corr is not None:
                x, y = x + float(self.corr[0](t)), y + float(self.corr[1](t))
            return np.array([x, y, self.zp])
        y_end = self.w - self.y0
        y = self.y0 + (y_end - self.y0) * s - self.sway * math.sin(math.pi * s)
        return np.array([self.x0 + self.L * s, y, self.zp])

    def stance_pitch(self, s):
        u = max(0.0, (s - self.s_off) / (1 - self.s_off))
        return self.phi_end * u * u

    def swing(self, s):
        """(which point, its target, the foot's pitch)."""
        if s >= self.s_hs:
            heel = np.array([self.L - TOE - HEEL, self.w + HALF_W, 0.0])
            u = (s - self.s_hs) / (1 - self.s_hs)
            return "heel", heel, self.psi * (1 - u)
        u = s / self.s_hs
        # the toe from (-L, w) to where it is at heel-strike, the pitch from phi_end to psi; at s = 0 the foot
        # goes on turning about its toe as the stance foot did at s = 1 (the references' rates continuous
        # across Toe1off: a jump in them is a kick of kd times the jump, which the ground feels)
        m0 = 2 * self.phi_end / (1 - self.s_off) * self.s_hs if self.smooth else 0.0
        pitch = (self.phi_end * (2 * u ** 3 - 3 * u * u + 1) + m0 * (u ** 3 - 2 * u * u + u)
                 + self.psi * (3 * u * u - 2 * u ** 3))
        heel_hs = np.array([self.L - TOE - HEEL, self.w + HALF_W, 0.0])
        Rf = rot("y", self.psi)
        toe_hs = heel_hs + Rf @ np.array([TOE + HEEL, -HALF_W, 0.0])
        toe0 = np.array([-self.L, self.w, 0.0])
        a = 3 * u * u - 2 * u ** 3
        toe = toe0 + (toe_hs - toe0) * a
        toe[2] += self.clear * (0.5 * (1 - math.cos(2 * math.pi * u)) if self.smooth else math.sin(math.pi * u))
        return "toe_in", toe, pitch


def solve_stance(plan, s, guess):
    """thigh_a, knee_a, ankle_x_a, foot_a, yaw, roll with the stance toe at the origin."""
    pos = plan.pelvis_at(s)
    pitch = plan.stance_pitch(s)

    def res(z):
        th, kn, ax, ft, yaw, roll = z
        Rp = pelvis(pos, yaw, roll, 0.0)
        R, p = leg(*Rp, -1, plan.hip_rest, th, kn, 0.0, ax, ft)
        return np.concatenate([site((R, p), -1, "toe_in"), foot_pose_ok(R, pitch)])

    r = least_squares(res, guess, xtol=1e-14, ftol=1e-14, gtol=1e-14)
    if np.max(np.abs(r.fun)) > 1e-9:
        raise RuntimeError("stance IK at s=%g: residual %g" % (s, np.max(np.abs(r.fun))))
    return r.x


def solve_swing(plan, s, stance, guess):
    th, kn, ax, ft, yaw, roll = stance
    Rp = pelvis(plan.pelvis_at(s), yaw, roll, 0.0)
    which, target, pitch = plan.swing(s)

    def res(z):
        hx, th_b, kn_b, ft_b = z
        R, p = leg(*Rp, +1, hx, th_b, kn_b, 0.0, plan.ank_x_b, ft_b)
        # the pitch of the foot about its own y: the angle of its x axis below the horizontal
        sole_pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
        return np.concatenate([site((R, p), +1, which) - target, [sole_pitch - pitch]])

    r = least_squares(res, guess, xtol=1e-14, ftol=1e-14, gtol=1e-14)
    if np.max(np.abs(r.fun)) > 1e-9:
        raise RuntimeError("swing IK at s=%g: residual %g" % (s, np.max(np.abs(r.fun))))
    return r.x


def design(plan, grid):
    st = np.array([-0.3, 0.6, 0.1, -0.3, 0.0, 0.0])
    sw = np.array([0.0, 0.3, 0.6, -0.3])
    rows = []
    for s in grid:
        st = solve_stance(plan, s, st)
        sw = solve_swing(plan, s, st, sw)
        rows.append(np.concatenate([st, sw]))
    return np.array(rows)  # thigh_a knee_a ankle_x_a foot_a yaw roll hip_x_b thigh_b knee_b foot_b


def mirrored(plan, iters=30):
    """Makes the step the mirror image of the next: hip_x_b(1) = -hip_rest, ank_x_b = -ankle_x_a(1)."""
    for _ in range(iters):
        end = design(plan, [0.0, 1.0])[-1]
        old = (plan.hip_rest, plan.ank_x_b)
        plan.hip_rest = 0.5 * (plan.hip_rest - end[6])
        plan.ank_x_b = -end[2]
        if max(abs(plan.hip_rest - old[0]), abs(plan.ank_x_b - old[1])) < 1e-12:
            break
    return plan


def landing_tilt(plan):
    """The front foot's outer toe corner's height above its inner one at s = 1 (the plan's mirror sets the
    swing ankle's roll and the swing hip's, so the foot's roll on the ground is what the width leaves)."""
    th, kn, ax, ft, yaw, roll, hx, th_b, kn_b, ft_b = design(plan, [0.0, 1.0])[-1]
    Rp = pelvis(plan.pelvis_at(1.0), yaw, roll, 0.0)
    foot = leg(*Rp, +1, hx, th_b, kn_b, 0.0, plan.ank_x_b, ft_b)
    return site(foot, +1, "toe_out")[2] - site(foot, +1, "toe_in")[2]


def flat_landing(plan, tilt=1e-3, iters=12):
    """The step's width w (inner toe corner to inner toe corner) such that the front foot, its heel down,
    lands on its inner toe corner first, the outer one tilt higher (the phase graph's order: Toe2down, then
    the roll phase lays the foot flat); the mirror made at each w (secant)."""
    def g(w):
        plan.w = w
        mirrored(plan)
        return landing_tilt(plan) - tilt
    w0, w1 = plan.w, plan.w + 0.005
    g0, g1 = g(w0), g(w1)
    for _ in range(iters):
        if abs(g1) < 1e-7:
            break
        w0, w1, g0 = w1, w1 - g1 * (w1 - w0) / (g1 - g0), g1
        g1 = g(w1)
    if abs(g1) > 1e-6:
        raise RuntimeError("flat_landing: the front foot's tilt misses by %g m" % g1)
    return plan


def references(plan):
    """The outputs at the knots of the phase s' = (theta - theta+) / (theta- - theta+), theta = hat + thigh_a the
    stance thigh's pitch (the plan keeps the trunk upright, hat = 0), and (theta+, theta-)."""
    fine = np.linspace(0.0, 1.0, 401)
    q = design(plan, fine)
    theta = q[:, 0]
    if np.any(np.diff(theta) <= 0):
        raise RuntimeError("the stance thigh's pitch is not monotone over the plan")
    sp = (theta - theta[0]) / (theta[-1] - theta[0])
    cols = {"thigh_a": 0, "knee_a": 1, "ankle_x_a": 2, "foot_a": 3, "hip_x_b": 6, "thigh_b": 7, "knee_b": 8,
            "foot_b": 9}
    # the knots where the plan's s has them (a pendulum's pelvis is slow at mid-step, where theta hardly
    # moves while the swing leg does)
    plan.knots = np.interp(KNOTS_LIP, fine, sp) if plan.lip_x else KNOTS
    refs = {name: np.interp(plan.knots, sp, q[:, cols[name]]) for name in OUTPUTS}
    # the front foot's reference pressed toe-down after its heel-strike (press u^2, u from the heel-strike to
    # the step's end): its toe line lands before the phase ends rather than hovering at zero force
    u = np.clip((np.interp(plan.knots, sp, fine) - plan.s_hs) / (1 - plan.s_hs), 0.0, 1.0)
    refs["foot_b"] = refs["foot_b"] + plan.press * u * u
    return refs, np.array([np.interp(plan.knots, sp, q[:, j]) for j in range(q.shape[1])]).T, (theta[0], theta[-1])


COORDS = ["hat_x", "hat_y", "hat_z", "hat_yaw", "hat_roll", "hat", "hip_x_a", "thigh_a", "knee_a", "ankle_z_a",
          "ankle_x_a", "foot_a", "hip_x_b", "thigh_b", "knee_b", "ankle_z_b", "ankle_x_b", "foot_b"]


def state_at(plan, s):
    """The tree's 18 coordinates at s of the plan."""
    st = solve_stance(plan, s, np.array([-0.3, 0.6, 0.0, -0.3, 0.0, 0.0]))
    sw = solve_swing(plan, s, st, np.array([0.0, 0.3, 0.6, -0.3]))
    th, kn, ax, ft, yaw, roll = st
    hx, th_b, kn_b, ft_b = sw
    p = plan.pelvis_at(s)
    return np.array([p[0], p[1], p[2], yaw, roll, 0.0, plan.hip_rest, th, kn, 0.0, ax, ft, hx, th_b, kn_b, 0.0,
                     plan.ank_x_b, ft_b])


def guess(plan, speed):
    """The plan's state at s = 0 with hat_x moving at speed (rates by a central difference in s)."""
    h = 1e-5
    q = state_at(plan, 0.0)
    dq = (state_at(plan, h) - state_at(plan, -h)) / (2 * h)
    return q, dq / plan.T if plan.lip else dq * speed / plan.L


ACTUATED = {"hip_a": "thigh_a", "knee_a": "knee_a", "ankle_a": "foot_a", "ankle_roll_a": "ankle_x_a",
            "hip_b": "thigh_b", "knee_b": "knee_b", "ankle_b": "foot_b", "hip_roll_b": "hip_x_b"}
# the plan's contacts by phase: (site or lock, rows); the section's flat foot, the toe line, the front heel
PLAN_CONTACTS = {
    "flat": [("toe_a", "xyz"), ("toe_ao", "xz"), ("heel_a", "z"), "ankle_z_a", "ankle_z_b", "ankle_x_b"],
    "single": [("toe_a", "xyz"), ("toe_ao", "xz"), "ankle_z_a", "ankle_z_b", "ankle_x_b"],
    "double": [("toe_a", "xyz"), ("toe_ao", "xz"), ("heel_b", "xyz"), "ankle_z_a", "ankle_z_b", "ankle_x_b"],
}


def plan_phase(plan, s):
    return "flat" if s < plan.s_off else "single" if s < plan.s_hs else "double"


def plan_rows(plan, grid):
    """The tree's 18 coordinates along the plan at the s of grid (IK continued from point to point)."""
    out = []
    for s, (th, kn, ax, ft, yaw, roll, hx, th_b, kn_b, ft_b) in zip(grid, design(plan, grid)):
        p = plan.pelvis_at(s)
        out.append([p[0], p[1], p[2], yaw, roll, 0.0, plan.hip_rest, th, kn, 0.0, ax, ft, hx, th_b, kn_b, 0.0,
                    plan.ank_x_b, ft_b])
    return np.array(out)


def trajectory(plan, n=41):
    """Cubic splines in time of the coordinates, one per phase of the plan (the rates jump at the
    heel-strike and the accelerations at the heel's lift)."""
    segs = []
    for a, b in ((0.0, plan.s_off), (plan.s_off, plan.s_hs), (plan.s_hs, 1.0)):
        s = np.linspace(a, b, n)
        segs.append((a * plan.T, b * plan.T, CubicSpline(s * plan.T, plan_rows(plan, s), axis=0)))
    return segs


def motion_at(segs, t):
    for a, b, sp in segs:
        if t <= b or b == segs[-1][1]:
            return sp(t), sp(t, 1), sp(t, 2)


def _wrapped_spline(tg, d, period, sign):
    """A smooth d(t) through samples of one step, continued across its ends as the step repeats (sign 1)
    or mirrors (sign -1)."""
    n = len(d)
    k = np.arange(-4, n + 4)
    vals = np.array([d[i % n] * sign ** (i // n) for i in k])
    return CubicSpline(k * period / n, vals)


def zmp_correct(plan, tree, rounds, n=120, log=sys.stderr):
    """The pendulum's plan moved, rounds times, by the response to its multibody centre of pressure's error
    (lip.response: sagittally periodic, laterally mirrored); returns the last error's (x, y) over the step."""
    tg = np.arange(n) * plan.T / n
    dx, dy = np.zeros(n), np.zeros(n)
    for k in range(rounds + 1):
        mirrored(plan)
        segs = trajectory(plan)
        px, py = plan.cop_plan()
        e = np.array([tree.cop(*motion_at(segs, t)) - [np.interp(t, *zip(*px)), np.interp(t, *zip(*py))]
                      for t in tg])
        print("zmp round %d: |error| x %.4f y %.4f m (single stance x %.4f)" % (
            k, np.max(np.abs(e[:, 0])), np.max(np.abs(e[:, 1])),
            np.max(np.abs(e[(tg > plan.s_off * plan.T) & (tg < plan.s_hs * plan.T), 0]))), file=log)
        if k == rounds:
            return e
        if plan.lip_x:
            dx += lip.response(e[:, 0], plan.T, plan.w2, 1.0)
        dy += lip.response(e[:, 1], plan.T, plan.w2, -1.0)
        plan.corr = (_wrapped_spline(tg, dx, plan.T, 1.0), _wrapped_spline(tg, dy, plan.T, -1.0))


def contact_columns(tree, q, phase):
    """The generalized force of a unit of each contact row: names and columns."""
    names, cols = [], []
    for c in PLAN_CONTACTS[phase]:
        if isinstance(c, str):
            col = np.zeros(tree.n)
            col[tree.names.index(c)] = 1.0
            names.append(c + ".torque")
            cols.append(col)
            continue
        J = tree.site_jacobian(q, c[0])
        for r in c[1]:
            names.append("%s.f%s" % (c[0], r))
            cols.append(J["xyz".index(r)])
    return names, np.array(cols).T


def inverse_step(plan, tree, n=400):
    """The plan's actuator torques (and the stance hip servo's, which it must make by its deflection) and
    contact forces at n + 1 instants: the square solve on the flat foot, least squares in single stance
    (one direction unactuated: the foot's roll about its toe line, whose residual the sagittal plan leaves),
    and in double stance (two more unknowns than equations) the smallest weighted norm: the vertical
    forces follow from the motion's centre of pressure (the toe line's two corners and the heel), the
    freedom left is an internal squeeze, taken to the smallest torques and horizontal forces."""
    segs = trajectory(plan)
    p = tree.p
    rows = []
    for t in np.linspace(0.0, plan.T, n + 1):
        s = t / plan.T
        q, v, a = motion_at(segs, t)
        phase = plan_phase(plan, min(s, 1 - 1e-9))
        Q = tree.generalized_force(q, v, a)
        passive = np.zeros(tree.n)
        for c in ACTUATED.values():
            passive[tree.names.index(c)] -= p["c_joint"] * v[tree.names.index(c)]
        B = np.zeros((tree.n, 9))
        for j, c in enumerate(list(ACTUATED.values()) + ["hip_x_a"]):
            B[tree.names.index(c), j] = 1.0
        names, C = contact_columns(tree, q, phase)
        A = np.hstack([B, C])
        b = Q - passive
        if A.shape[1] > A.shape[0]:
            wts = np.array([1.0] * 9 + [0.01 if n.endswith(".fz") else 1.0 for n in names])
            z = (np.linalg.pinv(A / wts) @ b) / wts
        else:
            z = np.linalg.lstsq(A, b, rcond=None)[0]
        res = float(np.max(np.abs(A @ z - b)))
        row = {"t": t, "s": s, "phase": phase, "residual": res, "theta": q[5] + q[7]}
        row.update({k: z[j] for j, k in enumerate(list(ACTUATED) + ["hip_servo"])})
        row.update({k: z[9 + j] for j, k in enumerate(names)})
        rows.append(row)
    return rows


# Feedforward on the stance leg's four actuators only: a file holds at most 256 parameters (SM_MAX_PARAMS),
# of which the bodies and the eight outputs' 16 knots take 222; the swing leg's torques are left to the PD
FF_ACTUATORS = list(ACTUATED)
FF_KNOTS = [0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1]
FF_SKIP = (0.70, 0.765)
SWING_FLAT_SINGLE = ["thigh_b", "knee_b", "hip_x_b"]


def feedforward(rows, ends):
    """The torques of the inverse dynamics as natural cubic splines in the controller's phase, by least
    squares (design_human9.fit); and the largest fit error per actuator."""
    import design_human9
    s = (np.array([r["theta"] for r in rows]) - ends[0]) / (ends[1] - ends[0])
    # the knots at the controller's phase where the plan's s has FF_KNOTS (as the outputs' are)
    sp = np.array([r["s"] for r in rows])
    kn = np.interp(FF_KNOTS, sp, s)
    # the swing leg's stop before its heel-strike (its foot reaching the ground at rest) is left to the
    # feedback: a spike of up to 28 N m over 0.06 of the step that 8 knots cannot follow
    fitted = ~((sp > FF_SKIP[0]) & (sp < FF_SKIP[1]))
    out, err = {}, {}
    for a in FF_ACTUATORS:
        out[a], err[a] = design_human9.fit(kn, s[fitted], np.array([r[a] for r in rows])[fitted])
    return kn, out, err


def write_feedforward(path, knots, ff):
    text = open(path).read()
    text = re.sub(r"\n  feedforward:\n(    .*\n)+", "\n", text)
    block = "  feedforward:\n    knots: [%s]\n    torques:\n" % ", ".join("%.6g" % k for k in knots)
    block += "".join("      %s: [%s]\n" % (a, ", ".join("%.6g" % v for v in c)) for a, c in ff.items())
    # double stance's 7 DOF are the stance leg's four outputs, the hip servo's roll, the front foot's pitch
    # and the stance foot's roll about its toe line: the swing hip's and knee's feedback there would fight the
    # closed chain (the feedforward's force split, inverse_step), so it acts in flat and single stance only
    for name in SWING_FLAT_SINGLE:
        text = re.sub(r"^(    - \{name: %s, on: \{%s: 1\}, )(?:phases: \[[^]]*\], )?spline" % (name, name),
                      lambda m: m.group(1) + "phases: [flat, single], spline", text, flags=re.M)
    text, n = re.subn(r"(\n  gains: \{kp: kp, kd: kd\}\n)", lambda m: m.group(1) + block, text)
    if n != 1:
        sys.exit("%s: no controller gains line to put the feedforward after" % path)
    open(path, "w").write(text)


def write(path, plan, refs, ends, q, v):
    text = open(path).read()
    for name, vals in refs.items():
        pat = re.compile(r"^(    - \{name: %s, on: \{%s: 1\}, (?:phases: \[[^]]*\], )?spline: \{knots: \[)[^]]*(\], values: \[)[^]]*\]" %
                         (re.escape(name), re.escape(name)), re.M)
        text, n = pat.subn(lambda mo: mo.group(1) + ", ".join("%.6g" % x for x in plan.knots) + mo.group(2)
                           + ", ".join("%.9g" % x for x in vals) + "]", text)
        if n != 1:
            sys.exit("%s: no spline line for output %s" % (path, name))
    values = {"theta_start": ends[0], "theta_end": ends[1], "hip_rest": getattr(plan, "servo_rest", plan.hip_rest)}
    for name, val in values.items():
        pat = re.compile(r"^(  %s: \{value: )[^,]+," % re.escape(name), re.M)
        text, n = pat.subn(lambda mo: "%s%.12g," % (mo.group(1), val), text)
        if n != 1:
            sys.exit("%s: no parameter line for %s" % (path, name))
    for names, vals in ((COORDS, q), ([c + "_dot" for c in COORDS], v)) if q is not None else ():
        for name, val in zip(names, vals):
            pat = re.compile(r"^(  %s: )\S+$" % re.escape(name), re.M)
            text, n = pat.subn(lambda mo: "%s%.12g" % (mo.group(1), val), text)
            if n != 1:
                sys.exit("%s: no guess line for %s" % (path, name))
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--plan", choices=["sine", "lip"], default="sine",
                    help="sine: the pelvis at constant speed, a sine sway, no feedforward (the file's gait); lip: "
                    "the pendulum's centre of mass, corrected for the whole body, and the feedforward")
    ap.add_argument("--plan-guess", action="store_true", help="write the plan's state at s = 0 as the guess too")
    ap.add_argument("--speed", type=float, default=0.5, help="hat_x's rate in the sine plan's guess, m/s")
    ap.add_argument("--zmp-rounds", type=int, default=3, help="rounds of the multibody correction (lip)")
    ap.add_argument("--press", type=float, default=0.0, help="the front foot's toe-down press (lip), rad")
    ap.add_argument("--cop-x0", type=float, default=-0.12,
                    help="the planned centre of pressure at the step's start, ahead of the stance toe line, m (lip)")
    ap.add_argument("--step-time", type=float, default=1.136, help="the plan's step, s (lip)")
    ap.add_argument("--plan-set", action="append", default=[], metavar="NAME=VALUE",
                    help="any other setting of Plan (lip), e.g. s_off=0.35")
    ap.add_argument("--share-end", type=float, default=0.06,
                    help="the front foot's share of the load at the step's end in the plan (lip)")
    args = ap.parse_args()
    if args.plan == "sine":
        plan = mirrored(Plan())
        refs, q, ends = references(plan)
        if args.write:
            q0, v0 = guess(plan, args.speed) if args.plan_guess else (None, None)
            write(args.write, plan, refs, ends, q0, v0)
        print("hip_rest %.12g ank_x_b %.12g" % (plan.hip_rest, plan.ank_x_b))
        for name in OUTPUTS:
            print(name, " ".join("%.6f" % v for v in refs[name]))
        return
    tree = body3d.Tree(MODEL)
    plan = Plan(lip=True, lip_x=True, press=args.press, share_end=args.share_end,
                cop_x0=args.cop_x0, T=args.step_time)
    for kv in args.plan_set:
        name, value = kv.split("=")
        if not hasattr(plan, name):
            sys.exit("design_biped12_3d: --plan-set %s: Plan has no setting %s" % (kv, name))
        setattr(plan, name, float(value))
    plan.w2 = tree.g / tree.com_total(plan_rows(plan, [0.0])[0])[2]
    zmp_correct(plan, tree, args.zmp_rounds)
    refs, q, ends = references(plan)
    rows = inverse_step(plan, tree)
    ff_knots, ff, err = feedforward(rows, ends)
    # the stance hip's servo makes its torque by a deflection from its rest: the rest set so that over
    # the flat and single stance (where it carries the trunk's roll) the plan's hip roll is where it holds it
    servo = np.mean([r["hip_servo"] for r in rows if r["phase"] != "double"])
    plan.servo_rest = plan.hip_rest + servo / tree.p["k_hip_x"]
    report(rows, err, servo)
    print("the front foot's outer toe corner %.2e m above its inner one at s = 1" % landing_tilt(plan),
          file=sys.stderr)
    if args.write:
        q0, v0 = guess(plan, args.speed) if args.plan_guess else (None, None)
        write(args.write, plan, refs, ends, q0, v0)
        write_feedforward(args.write, ff_knots, ff)
    print("hip_rest %.12g (servo rest %.12g) ank_x_b %.12g" % (plan.hip_rest, plan.servo_rest, plan.ank_x_b))
    for name in OUTPUTS:
        print(name, " ".join("%.6f" % v for v in refs[name]))
    for a, c in ff.items():
        print("feedforward", a, " ".join("%.3f" % v for v in c))


def report(rows, err, servo):
    """The plan's own ground forces per contact row and phase, its residual, the feedforward's fit."""
    for ph in ("flat", "single", "double"):
        rs = [r for r in rows if r["phase"] == ph]
        fz = {k: (min(r[k] for r in rs), max(r[k] for r in rs)) for k in rs[0] if k.endswith(".fz")}
        print("plan %-6s residual <= %.1e; normal forces %s" % (
            ph, max(r["residual"] for r in rs), ", ".join("%s %.1f..%.1f" % (k, *v) for k, v in fz.items())),
            file=sys.stderr)
    print("stance hip servo's torque %.2f N m over the flat and single stance (mean)" % servo, file=sys.stderr)
    for a, e in err.items():
        print("feedforward %-12s |u| <= %6.1f N m, fit error %.2f" % (a, max(abs(r[a]) for r in rows), e),
              file=sys.stderr)


if __name__ == "__main__":
    main()
