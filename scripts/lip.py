"""The linear inverted pendulum of walking-pattern design (Kajita et al.,
"Biped walking pattern generation by using preview control of zero-moment
point", ICRA 2003): the centre of mass at constant height h over a planned
centre of pressure p, x'' = w2 (x - p), w2 = g / h; and the periodic
response that moves a plan's centre of mass so that its multibody centre of
pressure comes nearer the planned one (the correction of Kajita's and
Nishiwaki's).  Shared by scripts/design_human9.py (sagittal) and
scripts/design_biped12_3d.py (sagittal and lateral)."""
import math

import numpy as np


def piece(x0, v0, p0, p1, t, w2):
    """x'' = w2 (x - p0 - p1 t) from (x0, v0) at 0: position and rate at t
    (x - p is a sum of exponentials, p'' = 0)."""
    w = math.sqrt(w2)
    e0, ed0 = x0 - p0, v0 - p1
    e = e0 * math.cosh(w * t) + ed0 / w * math.sinh(w * t)
    ed = e0 * w * math.sinh(w * t) + ed0 * math.cosh(w * t)
    return p0 + p1 * t + e, p1 + ed


def run(x0, v0, t, cop, w2):
    """The centre of mass at t from (x0, v0) at 0 over the centre of pressure
    cop = [(t_k, p_k), ...], linear between its points (jumps allowed: two
    points at one time)."""
    x, v = x0, v0
    for (ta, pa), (tb, pb) in zip(cop, cop[1:]):
        if tb <= ta:
            continue
        p1 = (pb - pa) / (tb - ta)
        if t <= tb:
            return piece(x, v, pa, p1, t - ta, w2)
        x, v = piece(x, v, pa, p1, tb - ta, w2)
    return x, v


def start(period, cop, w2, sign=1.0, shift=0.0):
    """(x0, v0) with x(T) = sign x0 + shift and x'(T) = sign v0: a step that
    repeats (sign 1, shift the step length) or mirrors into the next (sign
    -1, the lateral coordinate across the feet: shift the step's width).
    The end is affine in (x0, v0): two runs beside the zero one."""
    f0 = np.array(run(0.0, 0.0, period, cop, w2))
    fx = np.array(run(1.0, 0.0, period, cop, w2)) - f0
    fv = np.array(run(0.0, 1.0, period, cop, w2)) - f0
    A = np.array([[fx[0] - sign, fv[0]], [fx[1], fv[1] - sign]])
    return np.linalg.solve(A, np.array([shift, 0.0]) - f0)


def response(e, period, w2, sign=1.0):
    """dx on n samples of one step (no repeated end) with dx - dx'' / w2 =
    -e, dx'' by central differences, the ends joined as the step repeats
    (sign 1) or mirrors (sign -1: dx(T) = -dx(0)).  The operator I - D2 / w2
    is positive definite, so the solve is regular."""
    n = len(e)
    h = period / n
    c = 1 / (w2 * h * h)
    A = np.eye(n) * (1 + 2 * c)
    for i in range(n):
        A[i, (i + 1) % n] -= c * (sign if i == n - 1 else 1.0)
        A[i, (i - 1) % n] -= c * (sign if i == 0 else 1.0)
    return np.linalg.solve(A, -np.asarray(e, float))
