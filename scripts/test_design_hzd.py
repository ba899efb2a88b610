"""Tests of scripts/design_hzd.py (run by meson test design_hzd, or
/usr/bin/python3 -m unittest discover -s scripts -p 'test_design_hzd.py'):
its impact map keeps the angular momentum about the new foot, its second Bezier coefficients make the impact invariant, its
restricted map's period is the integral of dt by another rule, it remakes
models/five_link.yaml's coefficients, and bad arguments are one line with
a sysexits code."""
import math
import os
import re
import subprocess
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import design_hzd as dz  # noqa: E402

SCRIPT = os.path.join(HERE, "design_hzd.py")
MODEL = os.path.join(HERE, "..", "models", "five_link.yaml")


def scipy_missing():
    try:
        import scipy.optimize  # noqa: F401
        return False
    except ImportError:
        return True


def file_values():
    """The model file's parameter defaults, by name."""
    vals = {}
    with open(MODEL) as f:
        text = f.read()
    for m in re.finditer(r"^  (\w+): \{value: ([^,]+),", text, re.M):
        vals[m.group(1)] = float(m.group(2))
    return vals


def design_of_file():
    v = file_values()
    mid = np.array([[v["%s%d" % (n, k)] for k in range(2, dz.M_DEG)] for n in dz.NAMES]).ravel()
    d = dz.Design(2 * 2 * 0.4 * math.cos(v["knee_end"] / 2) * math.sin(v["theta_end"]), v["knee_end"],
                  v["torso_end"], mid)
    return d, v


class Impact(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(13)
        self.t = rng.uniform(-0.6, 0.6, 5)
        self.w = rng.uniform(-2, 2, 5)

    def test_momentum_about_the_new_foot_kept(self):
        t, w = self.t, self.w
        foot = (dz.FOOT @ np.sin(t), dz.FOOT @ np.cos(t))
        before, _ = dz.about(t[:, None], w[:, None], foot)
        tp, wp = dz.impact(t, w)
        # after the swap the new stance foot is at the seed's origin, at rest
        after, _ = dz.about(tp[:, None], wp[:, None], (0.0, 0.0))
        self.assertAlmostEqual(after[0] / before[0], 1.0, places=12)

    def test_swap_permutes_the_angles(self):
        tp, _ = dz.impact(self.t, self.w)
        self.assertTrue(np.array_equal(tp, self.t[[4, 3, 2, 1, 0]]))


class Design(unittest.TestCase):
    def setUp(self):
        self.d, self.v = design_of_file()

    def test_impact_invariant(self):
        d = self.d
        t, w = dz.angles(d.alpha, d.th_p, d.th_m, np.array([d.th_m]))
        tp, wp = dz.impact(t[:, 0], w[:, 0])
        # positions: the outputs after the swap are h_d(theta+)
        y = dz.outputs_of(tp)
        self.assertTrue(np.allclose(y, d.alpha[:, 0], atol=1e-14))
        self.assertAlmostEqual((tp[0] + tp[1]) / 2, d.th_p, places=14)
        # rates: tangent to the zero dynamics, dy/dtheta = h_d'(theta+)
        dth = (wp[0] + wp[1]) / 2
        want = dz.M_DEG * (d.alpha[:, 1] - d.alpha[:, 0]) / (d.th_m - d.th_p)
        self.assertTrue(np.allclose(dz.outputs_of(wp) / dth, want, atol=1e-12))

    def test_swing_foot_on_the_ground_at_the_end(self):
        g = self.d.gait(401)
        self.assertAlmostEqual(g["foot_z"][-1], 0.0, places=14)
        self.assertAlmostEqual(g["foot_z"][0], 0.0, places=14)
        self.assertTrue(np.all(g["foot_z"][1:-1] > 0))

    def test_period_by_two_rules(self):
        # trapezoid on 4001 points against 8001: the period converges
        coarse, fine = self.d.gait(4001)["period"], self.d.gait(8001)["period"]
        self.assertAlmostEqual(coarse, fine, places=6)
        self.assertAlmostEqual(0.4 / fine, 0.6, places=4)

    @unittest.skipIf(scipy_missing(), "no scipy (Debian: python3-scipy)")
    def test_remakes_the_files_coefficients(self):
        out = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, check=True).stdout
        got = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+) +(\S+)$", out, re.M)}
        for name in ["theta_end", "knee_end", "torso_end"] + ["%s%d" % (n, k) for n in dz.NAMES
                                                              for k in range(1, dz.M_DEG)]:
            # the least-squares optimum to its tolerances: the BLAS's thread
            # count moves it by ~1e-8
            self.assertAlmostEqual(got[name], self.v[name], delta=1e-6, msg=name)


class Arguments(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_step_longer_than_the_leg(self):
        r = self.run_script("--step", "2")
        self.assertEqual(r.returncode, 64)
        self.assertEqual(r.stderr.count("\n"), 1)
        self.assertIn("--step must lie in", r.stderr)

    def test_missing_model_file(self):
        r = self.run_script("--write", "/nonexistent/walker.yaml")
        self.assertEqual(r.returncode, 66)
        self.assertEqual(r.stderr.count("\n"), 1)


if __name__ == "__main__":
    unittest.main()
