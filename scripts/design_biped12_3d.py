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

The guess it writes is the plan's state at s = 0, which does not walk (the
PD holds the weight only through tracking errors): the file's guess is the
gait found from the previous one (the model file's header says how).
"""
import argparse
import math
import re
import sys

import numpy as np
from scipy.optimize import least_squares

THIGH, SHANK, ANKLE_H, HEEL, TOE, HALF_W, HIP_HALF = 0.245, 0.246, 0.039, 0.04, 0.112, 0.0275, 0.08
# denser near the ends, where the swing leg starts and lands, and at heel-strike (s_hs): the spline's
# slope at s = 0 is the reference's rate at Toe1off (at most 16 knots: the engine's limit)
KNOTS = np.array([0, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.875, 0.95, 1])
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
                 s_hs=0.75, s_off=0.3, clear=0.03, hip_rest=0.0, ank_x_b=0.0, smooth=True):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def pelvis_at(self, s):
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
    refs = {name: np.interp(KNOTS, sp, q[:, cols[name]]) for name in OUTPUTS}
    return refs, np.array([np.interp(KNOTS, sp, q[:, j]) for j in range(q.shape[1])]).T, (theta[0], theta[-1])


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
    return q, dq * speed / plan.L


def write(path, plan, refs, ends, q, v):
    text = open(path).read()
    for name, vals in refs.items():
        pat = re.compile(r"^(    - \{name: %s, on: \{%s: 1\}, (?:phases: \[[^]]*\], )?spline: \{knots: \[)[^]]*(\], values: \[)[^]]*\]" %
                         (re.escape(name), re.escape(name)), re.M)
        text, n = pat.subn(lambda mo: mo.group(1) + ", ".join("%.6g" % x for x in KNOTS) + mo.group(2)
                           + ", ".join("%.9g" % x for x in vals) + "]", text)
        if n != 1:
            sys.exit("%s: no spline line for output %s" % (path, name))
    values = {"theta_start": ends[0], "theta_end": ends[1], "hip_rest": plan.hip_rest}
    for name, val in values.items():
        pat = re.compile(r"^(  %s: \{value: )[^,]+," % re.escape(name), re.M)
        text, n = pat.subn(lambda mo: "%s%.12g," % (mo.group(1), val), text)
        if n != 1:
            sys.exit("%s: no parameter line for %s" % (path, name))
    for names, vals in ((COORDS, q), ([c + "_dot" for c in COORDS], v)):
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
    ap.add_argument("--speed", type=float, default=0.5, help="hat_x's rate in the guess, m/s")
    args = ap.parse_args()
    plan = mirrored(Plan())
    refs, q, ends = references(plan)
    if args.write:
        q0, v0 = guess(plan, args.speed)
        write(args.write, plan, refs, ends, q0, v0)
    print("hip_rest %.12g ank_x_b %.12g" % (plan.hip_rest, plan.ank_x_b))
    for name in OUTPUTS:
        print(name, " ".join("%.6f" % v for v in refs[name]))
    print("trunk yaw", " ".join("%.4f" % v for v in q[:, 4]))
    print("trunk roll", " ".join("%.4f" % v for v in q[:, 5]))


if __name__ == "__main__":
    main()
