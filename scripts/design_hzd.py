#!/usr/bin/python3
"""Bezier coefficients of an impact-invariant HZD gait for models/five_link.yaml.

The standard construction (Westervelt, Grizzle, Chevallereau, Choi & Morris
2007, Feedback Control of Dynamic Bipedal Robot Locomotion, ch. 6): the four
outputs (stance hip, swing hip, stance knee, swing knee: relative joint
angles) are Bezier polynomials of degree M in s = (theta - theta+) /
(theta- - theta+), theta the stance leg's angle from the foot to the hip.
- The last coefficients put the swing foot on the ground at theta- =
  theta_end with both knees at knee_end and the torso at torso_end; the
  first ones are the last ones with the legs swapped (position invariance:
  theta+ = -theta_end).
- The second ones make the post-impact velocity tangent to the zero
  dynamics (velocity invariance): alpha_1 = alpha_0 + (theta- - theta+)/M *
  H qdot+ / thetadot+, qdot+ the impact map (extended coordinates, plastic
  impulse at the swing foot, then the swap) of qdot- = dq/dtheta at theta-.
- The rest (knee_end, torso_end, alpha_2..alpha_{M-1}) by least squares
  (scipy.optimize.least_squares): the walking speed, a swing foot that
  clears the ground by clear * sin(pi s), delta^2 below a margin, and a
  posture near a nominal one (hips moving linearly between their ends,
  the stance knee near knee_end, the swing knee bent by about 0.8 rad).
  theta_end follows from the step length: 2 d sin(theta_end), d the leg's
  length 2 l cos(knee_end / 2) (femur and tibia equally long).
Each candidate's gait on the zero dynamics: sigma the angular momentum about
the stance foot, sigma = kappa1(theta) thetadot, sigma' = kappa2(theta) (the
gravity torque), zeta = sigma^2/2, V(theta) = -int kappa1 kappa2, the
impact's delta from the angular momentum about the swing foot (conserved by
the impulse there), zeta* = -V(theta-)/(1 - delta^2), the step's duration
int kappa1 / sqrt(2 (zeta+ - V)) dtheta.  The dynamics are the seed's (seed
004, Zanchi & Cecic 1993, eqs. 1-7) from the centres of mass, independent
of the library; stridemap fixed checks the result with its own.

  /usr/bin/python3 scripts/design_hzd.py --step 0.4 --speed 0.6 --write models/five_link.yaml
"""
import argparse
import math
import re
import sys

import numpy as np

M_DEG = 5
G = 9.81
# RABBIT (Chevallereau et al. 2003), as models/five_link.yaml
TORSO = dict(m=12.0, com=0.24, I=1.33)
FEMUR = dict(m=6.8, com=0.11, I=0.47, l=0.4)
TIBIA = dict(m=3.2, com=0.24, I=0.20, l=0.4)
NAMES = ["sh", "wh", "sk", "wk"]


def links():
    """Masses, inertias and the seed's c[j][k]: G_j = sum_k c u(theta_k)."""
    l1, l2, l4 = TIBIA["l"], FEMUR["l"], FEMUR["l"]
    a1, a2, a3 = TIBIA["l"] - TIBIA["com"], FEMUR["l"] - FEMUR["com"], TORSO["com"]
    b4, b5 = FEMUR["com"], TIBIA["com"]
    c = np.array([[a1, 0, 0, 0, 0],
                  [l1, a2, 0, 0, 0],
                  [l1, l2, a3, 0, 0],
                  [l1, l2, 0, -b4, 0],
                  [l1, l2, 0, -l4, -b5]])
    foot = np.array([l1, l2, 0, -l4, -TIBIA["l"]])
    m = np.array([TIBIA["m"], FEMUR["m"], TORSO["m"], FEMUR["m"], TIBIA["m"]])
    inertia = np.array([TIBIA["I"], FEMUR["I"], TORSO["I"], FEMUR["I"], TIBIA["I"]])
    return c, foot, m, inertia


C, FOOT, MASS, INERTIA = links()


def bernstein(s, deriv):
    """B[k](s) of degree M_DEG or its s-derivative, shape (len(s), M+1)."""
    s = np.atleast_1d(s)
    out = np.zeros((len(s), M_DEG + 1))
    if deriv == 0:
        for k in range(M_DEG + 1):
            out[:, k] = math.comb(M_DEG, k) * s**k * (1 - s)**(M_DEG - k)
    else:
        for k in range(M_DEG):
            b = math.comb(M_DEG - 1, k) * s**k * (1 - s)**(M_DEG - 1 - k)
            out[:, k] -= M_DEG * b
            out[:, k + 1] += M_DEG * b
    return out


def angles(alpha, th_p, th_m, theta):
    """Seed angles th[5, n] and d th / d theta on the zero dynamics."""
    s = (theta - th_p) / (th_m - th_p)
    h = bernstein(s, 0) @ alpha.T              # (n, 4)
    dh = bernstein(s, 1) @ alpha.T / (th_m - th_p)
    t = np.empty((5, len(theta)))
    w = np.empty((5, len(theta)))
    t[1] = theta - h[:, 2] / 2
    w[1] = 1 - dh[:, 2] / 2
    t[0] = t[1] + h[:, 2]
    w[0] = w[1] + dh[:, 2]
    t[2] = t[1] - h[:, 0]
    w[2] = w[1] - dh[:, 0]
    t[3] = t[2] + h[:, 1]
    w[3] = w[2] + dh[:, 1]
    t[4] = t[3] + h[:, 3]
    w[4] = w[3] + dh[:, 3]
    return t, w


def about(t, w, o):
    """Angular momentum (y: z vx - x vz) about o and gravity's torque about it."""
    x = C @ np.sin(t) - o[0]
    z = C @ np.cos(t) - o[1]
    vx = C @ (np.cos(t) * w)
    vz = -C @ (np.sin(t) * w)
    sigma = MASS @ (z * vx - x * vz) + INERTIA @ w
    return sigma, G * (MASS @ x)


def impact(t, w):
    """Post-impact seed rates (after the swap) from the pre-impact ones:
    extended coordinates (stance foot p, theta), the plastic impulse at the
    swing foot."""
    n = 7
    Mx = np.zeros((n, n))
    for j in range(5):
        J = np.zeros((2, n))
        J[:, :2] = np.eye(2)
        J[0, 2:] = C[j] * np.cos(t)
        J[1, 2:] = -C[j] * np.sin(t)
        Mx += MASS[j] * J.T @ J
        Mx[2 + j, 2 + j] += INERTIA[j]
    E = np.zeros((2, n))
    E[:, :2] = np.eye(2)
    E[0, 2:] = FOOT * np.cos(t)
    E[1, 2:] = -FOOT * np.sin(t)
    A = np.zeros((n + 2, n + 2))
    A[:n, :n] = Mx
    A[:n, n:] = -E.T
    A[n:, :n] = E
    rhs = np.zeros(n + 2)
    rhs[:n] = Mx @ np.concatenate([[0, 0], w])
    v = np.linalg.solve(A, rhs)[2:n]
    tp = t[[4, 3, 2, 1, 0]]
    return tp, v[[4, 3, 2, 1, 0]]


def outputs_of(t):
    """(stance hip, swing hip, stance knee, swing knee) of seed angles."""
    return np.array([t[1] - t[2], t[3] - t[2], t[0] - t[1], t[4] - t[3]])


class Design:
    def __init__(self, step, knee, torso, mid):
        self.knee, self.torso = knee, torso
        d = 2 * FEMUR["l"] * math.cos(knee / 2)
        self.th_m = math.asin(step / (2 * d))
        self.th_p = -self.th_m
        e = self.th_m
        end = np.array([e - knee / 2 - torso, -e - knee / 2 - torso, knee, knee])
        a = np.zeros((4, M_DEG + 1))
        a[:, M_DEG] = end
        a[:, 0] = end[[1, 0, 3, 2]]
        a[:, 2:M_DEG] = mid.reshape(4, M_DEG - 2)
        # alpha_1 from the impact map: depends on alpha_{M-1}, alpha_M only
        t, w = angles(a, self.th_p, self.th_m, np.array([self.th_m]))
        tp, wp = impact(t[:, 0], w[:, 0])
        dth = (wp[0] + wp[1]) / 2
        a[:, 1] = a[:, 0] + (self.th_m - self.th_p) / M_DEG * outputs_of(wp) / dth
        self.alpha = a
        self.step = step

    def gait(self, n=801):
        th = np.linspace(self.th_p, self.th_m, n)
        t, w = angles(self.alpha, self.th_p, self.th_m, th)
        k1, k2 = about(t, w, (0.0, 0.0))
        f = k1 * k2
        V = -np.concatenate([[0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(th))])
        tm, wm = t[:, -1], w[:, -1]
        swing = (FOOT @ np.sin(tm), FOOT @ np.cos(tm))
        s_st, _ = about(tm[:, None], wm[:, None], (0.0, 0.0))
        s_sw, _ = about(tm[:, None], wm[:, None], swing)
        delta = s_sw[0] / s_st[0]
        out = dict(th=th, t=t, V=V, delta2=delta**2, v_minus=V[-1])
        if delta**2 < 1 and V[-1] < 0:
            zs = -V[-1] / (1 - delta**2)
            zeta = delta**2 * zs - V
            out.update(zeta_star=zs, zeta_min=zeta.min())
            if zeta.min() > 0:
                dt = np.abs(k1) / np.sqrt(2 * zeta)
                out["period"] = float(np.sum((dt[1:] + dt[:-1]) / 2 * np.diff(th)))
                out["speed"] = self.step / out["period"]
        out["foot_z"] = np.cos(t).T @ FOOT
        return out


def nominal(knee, torso, e):
    end = np.array([e - knee / 2 - torso, -e - knee / 2 - torso, knee, knee])
    start = end[[1, 0, 3, 2]]
    mid = np.zeros((4, M_DEG - 2))
    for k in range(2, M_DEG):
        mid[:, k - 2] = start + (end - start) * k / M_DEG
    mid[3] = [0.7, 0.9, 0.6][:M_DEG - 2] if M_DEG == 5 else 0.8
    return mid.ravel()


def residuals(x, args):
    knee, torso, mid = x[0], x[1], x[2:]
    try:
        d = Design(args.step, knee, torso, mid)
        g = d.gait(401)
    except (ValueError, np.linalg.LinAlgError):
        return np.full(3 + len(mid) + 401, 1e3)
    r = [10 * (g.get("speed", 0.0) - args.speed) if "speed" in g else 1e2 + 10 * max(0, -g.get("zeta_min", -1))]
    r.append(10 * max(0.0, g["delta2"] - args.max_delta2))
    r.append(0.3 * (torso - args.torso))
    r.extend(0.3 * (mid - nominal(knee, torso, d.th_m)))
    s = (g["th"] - d.th_p) / (d.th_m - d.th_p)
    want = args.clear * np.sin(np.pi * s)
    r.extend(30 * np.maximum(0.0, want - g["foot_z"]) * (s > 0.05) * (s < 0.95))
    return np.array(r)


def guess(d, g):
    """The gait's state just after the impact, on the zero dynamics, by the
    file's coordinates: its guess."""
    t, w = angles(d.alpha, d.th_p, d.th_m, np.array([d.th_p]))
    t, w = t[:, 0], w[:, 0]
    k1, _ = about(t[:, None], w[:, None], (0.0, 0.0))
    w = w * math.sqrt(2 * g["zeta_star"] * g["delta2"]) / k1[0]
    l1, l2 = TIBIA["l"], FEMUR["l"]
    q = {"hip_x": l1 * math.sin(t[0]) + l2 * math.sin(t[1]), "hip_z": l1 * math.cos(t[0]) + l2 * math.cos(t[1]),
         "torso": t[2], "thigh_a": t[1], "shank_a": t[0] - t[1], "thigh_b": t[3], "shank_b": t[4] - t[3]}
    v = {"hip_x_dot": l1 * math.cos(t[0]) * w[0] + l2 * math.cos(t[1]) * w[1],
         "hip_z_dot": -l1 * math.sin(t[0]) * w[0] - l2 * math.sin(t[1]) * w[1],
         "torso_dot": w[2], "thigh_a_dot": w[1], "shank_a_dot": w[0] - w[1], "thigh_b_dot": w[3],
         "shank_b_dot": w[4] - w[3]}
    q.update(v)
    return q


def fail(code, msg):
    print("design_hzd: " + msg, file=sys.stderr)
    sys.exit(code)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        fail(66, "cannot read %s: %s" % (path, e.strerror))


def write(path, text, values, start):
    for name, v in start.items():
        pat = re.compile(r"^(  %s: )\S+$" % re.escape(name), re.M)
        text, n = pat.subn(lambda mo: "%s%.12g" % (mo.group(1), v), text)
        if n != 1:
            fail(65, "%s has no guess line '  %s: ...' to write" % (path, name))
    for name, v in values.items():
        pat = re.compile(r"^(  %s: \{value: )[^,]+," % re.escape(name), re.M)
        text, n = pat.subn(lambda mo: "%s%.12g," % (mo.group(1), v), text)
        if n != 1:
            fail(65, "%s has no line '  %s: {value: ...' to write" % (path, name))
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        fail(73, "cannot write %s: %s" % (path, e.strerror))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--step", type=float, default=0.4, help="step length, m")
    ap.add_argument("--speed", type=float, default=0.6, help="walking speed, m/s")
    ap.add_argument("--clear", type=float, default=0.04, help="swing foot clearance at mid-step, m")
    ap.add_argument("--torso", type=float, default=0.1, help="nominal torso lean, rad")
    ap.add_argument("--max-delta2", type=float, default=0.8, help="delta^2 above this is penalised")
    ap.add_argument("--write", metavar="YAML", help="write the coefficients into this model file")
    args = ap.parse_args()
    leg = 2 * FEMUR["l"]
    if not 0 < args.step < leg:
        fail(64, "--step must lie in (0, %g) m (the straight leg's length), not %g" % (leg, args.step))
    if not args.speed > 0:
        fail(64, "--speed must be positive, not %g" % args.speed)
    try:
        from scipy.optimize import least_squares
    except ImportError:
        fail(69, "needs scipy (Debian: apt-get install python3-scipy)")
    text = read(args.write) if args.write else None
    knee0 = 0.25
    x0 = np.concatenate([[knee0, args.torso], nominal(knee0, args.torso, 0.25)])
    sol = least_squares(residuals, x0, args=(args,), xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=4000)
    d = Design(args.step, sol.x[0], sol.x[1], sol.x[2:])
    g = d.gait(4001)
    if "speed" not in g or not g["delta2"] < 1:
        fail(65, "no walking gait at step %g m, speed %g m/s (delta^2 %.3g): try a slower speed"
             % (args.step, args.speed, g["delta2"]))
    s = (g["th"] - d.th_p) / (d.th_m - d.th_p)
    inner = (s > 0.05) & (s < 0.95)
    print("theta_end %.6f knee_end %.6f torso_end %.6f" % (d.th_m, d.knee, d.torso))
    print("delta^2 %.6f  zeta* %.6g  period %.6f s  speed %.6f m/s  min swing foot height (5-95%%) %.4f m"
          % (g["delta2"], g.get("zeta_star", float("nan")), g.get("period", float("nan")),
             g.get("speed", float("nan")), g["foot_z"][inner].min()))
    values = {"theta_end": d.th_m, "knee_end": d.knee, "torso_end": d.torso}
    for i, n in enumerate(NAMES):
        for k in range(1, M_DEG):
            values["%s%d" % (n, k)] = d.alpha[i, k]
    for k, v in values.items():
        print("%-10s %.12g" % (k, v))
    if args.write:
        write(args.write, text, values, guess(d, g))


if __name__ == "__main__":
    main()
