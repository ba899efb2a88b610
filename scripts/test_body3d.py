"""Tests of scripts/body3d.py and scripts/lip.py (run by meson test design_3d, or
/usr/bin/python3 scripts/test_body3d.py STRIDEMAP):
- body3d's equations of motion against the engine's: on one step of
  models/biped12_3d.yaml simulated by stridemap, the generalized force its
  motion needs (M a + C v + G, from the samples' rates differenced) equals
  the one the engine applied (the controller's torques, the servo, the
  dampers, every contact force and lock torque it reports) in each phase,
  and the centre of pressure from the motion alone equals the one from the
  reported contact forces;
- lip: the pendulum's start makes a step that repeats (or mirrors), its
  piece is the closed form's, and the correction solves its equation."""
import csv
import math
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import body3d  # noqa: E402
import lip  # noqa: E402

MODEL = os.path.join(HERE, "..", "models", "biped12_3d.yaml")
EXE = os.environ.get("STRIDEMAP_CLI", os.path.join(HERE, "..", "build", "src", "cli", "stridemap"))
ACTUATED = {"hip_a": "thigh_a", "knee_a": "knee_a", "ankle_a": "foot_a", "ankle_roll_a": "ankle_x_a",
            "hip_b": "thigh_b", "knee_b": "knee_b", "ankle_b": "foot_b", "hip_roll_b": "hip_x_b"}
PINS = {"toe_a": "toe_a", "toe_ao": "toe_ao", "heel_a": "heel_a", "toe_b": "toe_b", "heel_b": "heel_b",
        "toe_bz": "toe_b"}
LOCKS = {"yaw_a": "ankle_z_a", "yaw_b": "ankle_z_b", "roll_b": "ankle_x_b"}


class EnginesAgree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tree = body3d.Tree(MODEL)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "step.csv")
            subprocess.run([EXE, "simulate", MODEL, "--steps", "1", "--dt", "0.0002", "--rtol", "1e-10", "--atol",
                            "1e-10", "--out", out], check=True, capture_output=True)
            cls.rows = [r for r in csv.DictReader(open(out)) if r["kind"] == "sample"]

    def applied(self, r, q, v):
        """The generalized force the engine applied at sample r."""
        t, p = self.tree, self.tree.p
        F = np.zeros(t.n)
        for act, c in ACTUATED.items():
            F[t.names.index(c)] += float(r[act + ".torque"]) - p["c_joint"] * v[t.names.index(c)]
        i = t.names.index("hip_x_a")
        F[i] -= p["k_hip_x"] * (q[i] - p["hip_rest"]) + p["c_hip_x"] * v[i]
        for c, site in PINS.items():
            f = np.array([float(r[c + "." + k]) for k in ("fx", "fy", "fz")])
            if not np.all(np.isnan(f)):
                F += t.site_jacobian(q, site).T @ np.nan_to_num(f)
        for c, coord in LOCKS.items():
            if not math.isnan(float(r[c + ".torque"])):
                F[t.names.index(coord)] += float(r[c + ".torque"])
        return F

    def test_equations_of_motion_and_cop(self):
        t = self.tree
        seen, worst, worst_cop = set(), 0.0, 0.0
        for k in range(2, len(self.rows) - 2, 50):
            near = self.rows[k - 2:k + 3]
            r = near[2]
            if len({x["phase"] for x in near}) > 1:
                continue
            seen.add(r["phase"])
            h = float(near[3]["time"]) - float(r["time"])
            q = np.array([float(r[n]) for n in t.names])
            v = np.array([float(r[n + "_dot"]) for n in t.names])
            # the accelerations by the five-point central difference of the rates (error O(h^4))
            w = [1 / 12, -2 / 3, 0, 2 / 3, -1 / 12]
            a = np.array([sum(c * float(x[n + "_dot"]) for c, x in zip(w, near)) / h for n in t.names])
            worst = max(worst, np.max(np.abs(t.generalized_force(q, v, a) - self.applied(r, q, v))))
            worst_cop = max(worst_cop, np.max(np.abs(t.cop(q, v, a) - [float(r["cop.x"]), float(r["cop.y"])])))
        # every phase but the roll phase (about 6 ms) holds a checked sample; it does when one lands in it
        self.assertTrue({"flat", "single", "double"} <= seen <= {"flat", "single", "double", "roll"}, seen)
        # the body weighs 294 N; measured (every 50th sample): 0.18 N (N m) and 4.4e-5 m, the differences' error
        self.assertLess(worst, 0.5)
        self.assertLess(worst_cop, 2e-4)
        print("body3d against the engine: generalized force within %.2e, centre of pressure within %.2e m"
              % (worst, worst_cop), file=sys.stderr)


class Pendulum(unittest.TestCase):
    W2 = 9.81 / 0.55
    COP = [(0.0, -0.0275), (0.8, -0.0275), (1.1, 0.1325)]

    def test_piece_is_the_closed_form(self):
        w = math.sqrt(self.W2)
        x, v = lip.piece(0.1, -0.2, 0.03, 0.05, 0.7, self.W2)
        e = 0.07 * math.cosh(0.7 * w) - 0.25 / w * math.sinh(0.7 * w)
        self.assertAlmostEqual(x, 0.03 + 0.05 * 0.7 + e, places=12)
        self.assertAlmostEqual(v, 0.05 + 0.07 * w * math.sinh(0.7 * w) - 0.25 * math.cosh(0.7 * w), places=12)

    def test_start_repeats_and_mirrors(self):
        for sign, shift in ((1.0, 0.25), (-1.0, 0.105)):
            x0, v0 = lip.start(1.1, self.COP, self.W2, sign, shift)
            x1, v1 = lip.run(x0, v0, 1.1, self.COP, self.W2)
            self.assertAlmostEqual(x1, sign * x0 + shift, places=10)
            self.assertAlmostEqual(v1, sign * v0, places=10)

    def test_response_solves_its_equation(self):
        n, T = 200, 1.1
        e = np.sin(np.linspace(0, 3, n)) + 0.3
        h = T / n
        for sign in (1.0, -1.0):
            dx = lip.response(e, T, self.W2, sign)
            ext = np.concatenate([[sign * dx[-1]], dx, [sign * dx[0]]])
            d2 = (ext[2:] - 2 * ext[1:-1] + ext[:-2]) / (h * h)
            self.assertLess(np.max(np.abs(dx - d2 / self.W2 + e)), 1e-10)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        EXE = sys.argv.pop(1)
    unittest.main()
