#!/usr/bin/python3
"""Rigid-body kinematics and inverse dynamics of a 3-D body walker file
(the `bodies:` tree of a model YAML: slides and hinges, each body's mass,
centre of mass and principal inertia), for design scripts.

stridemap's own `inverse` is for planar walkers only, so the 3-D design
(scripts/design_biped12_3d.py) takes the equations of motion from here:
the generalized force the motion needs,
    Q(q, q', q'') = sum_i J_v,i^T m_i (a_i + g e_z) + J_w,i^T (I_i al_i + w_i x I_i w_i),
with each body's Jacobians by central differences of the forward
kinematics and its acceleration a_i = J_v,i q'' + d^2/de^2 p_i(q + e q')
(the velocity product term by a second difference along q').  It is an
independent derivation of the engine's recursive sweeps:
`check_against(csv)` compares it with a `stridemap simulate` trajectory
(the torques, contact forces and passive forces the engine applied).
"""
import math

import numpy as np
import yaml


def _rot(axis, a):
    """Rotation by a about the unit vector axis (Rodrigues)."""
    k = np.asarray(axis, float)
    k = k / np.linalg.norm(k)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K


def _vee(S):
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) * 0.5


class Tree:
    """The bodies of a model file, one coordinate per body (its joint)."""

    def __init__(self, path, overrides=None):
        doc = yaml.safe_load(open(path))
        self.p = {k: float(v["value"]) for k, v in doc["parameters"].items()}
        self.p.update(overrides or {})
        self.g = float(doc.get("gravity", 9.81))
        self.names, self.parent, self.kind, self.axis, self.pos = [], [], [], [], []
        self.mass, self.com, self.inertia = [], [], []
        for b in doc["bodies"]:
            self.names.append(b["name"])
            self.parent.append(-1 if b["parent"] == "world" else self.names.index(b["parent"]))
            self.kind.append(b["joint"])
            self.axis.append(np.array(b["axis"], float))
            self.pos.append(self._vec(b.get("pos", [0, 0, 0])))
            self.mass.append(self._num(b.get("mass", 0)))
            self.com.append(self._vec(b.get("com", [0, 0, 0])))
            self.inertia.append(np.diag(self._vec(b.get("inertia", [0, 0, 0]))))
        self.sites = {s["name"]: (self.names.index(s["body"]), self._vec(s.get("pos", [0, 0, 0])))
                      for s in doc.get("sites", [])}
        self.n = len(self.names)
        self.bodies = [i for i in range(self.n) if self.mass[i] > 0]

    def _num(self, v):
        if isinstance(v, (int, float)):
            return float(v)
        v = v.strip()
        sign = -1.0 if v.startswith("-") else 1.0
        return sign * self.p[v.lstrip("-").strip()]

    def _vec(self, v):
        return np.array([self._num(x) for x in v])

    def frames(self, q):
        """Each body's rotation R and origin p (world), after its joint."""
        R, P = [None] * self.n, [None] * self.n
        for i in range(self.n):
            if self.parent[i] < 0:
                Rp, pp = np.eye(3), np.zeros(3)
            else:
                Rp, pp = R[self.parent[i]], P[self.parent[i]]
            p = pp + Rp @ self.pos[i]
            if self.kind[i] == "slide":
                R[i], P[i] = Rp, p + Rp @ self.axis[i] * q[i]
            else:
                R[i], P[i] = Rp @ _rot(self.axis[i], q[i]), p
        return R, P

    def site(self, q, name):
        b, loc = self.sites[name]
        R, P = self.frames(q)
        return P[b] + R[b] @ loc

    def site_jacobian(self, q, name, h=1e-6):
        J = np.zeros((3, self.n))
        for k in range(self.n):
            dq = np.zeros(self.n)
            dq[k] = h
            J[:, k] = (self.site(q + dq, name) - self.site(q - dq, name)) / (2 * h)
        return J

    def _body_state(self, q):
        R, P = self.frames(q)
        return [(R[i], P[i] + R[i] @ self.com[i]) for i in self.bodies]

    def com_total(self, q):
        m = sum(self.mass[i] for i in self.bodies)
        return sum(self.mass[i] * c for i, (_, c) in zip(self.bodies, self._body_state(q))) / m

    def _inertial(self, q, v, a, h=1e-5):
        """Per massive body: its Jacobians Jv, Jw (3 x n), the force m (a_i + g e_z) and the
        moment I al + w x I w (world) the motion needs, and its centre of mass."""
        q, v, a = (np.asarray(x, float) for x in (q, v, a))
        base = self._body_state(q)
        # Jacobians (linear of the centre of mass, angular) by central differences
        Jv = np.zeros((len(self.bodies), 3, self.n))
        Jw = np.zeros((len(self.bodies), 3, self.n))
        for k in range(self.n):
            dq = np.zeros(self.n)
            dq[k] = h
            plus, minus = self._body_state(q + dq), self._body_state(q - dq)
            for j, ((Rp, cp), (Rm, cm), (R0, _)) in enumerate(zip(plus, minus, base)):
                Jv[j, :, k] = (cp - cm) / (2 * h)
                Jw[j, :, k] = _vee((Rp - Rm) / (2 * h) @ R0.T)
        # the velocity products: along the path q + e v
        e = h
        plus, minus = self._body_state(q + e * v), self._body_state(q - e * v)
        out = []
        for j, i in enumerate(self.bodies):
            R0, c0 = base[j]
            acc = Jv[j] @ a + (plus[j][1] - 2 * c0 + minus[j][1]) / (e * e)
            w = Jw[j] @ v
            # d/dt (J_w) v: the rate of w along the path, a central difference of w(q +- e v, v)
            al = Jw[j] @ a + (self._omega(q + e * v, v, i) - self._omega(q - e * v, v, i)) / (2 * e)
            Iw = R0 @ self.inertia[i] @ R0.T
            out.append((Jv[j], Jw[j], self.mass[i] * (acc + np.array([0, 0, self.g])),
                        Iw @ al + np.cross(w, Iw @ w), c0))
        return out

    def generalized_force(self, q, v, a):
        """Q = M(q) a + C(q, v) v + G(q): the force the motion needs."""
        return sum(Jv.T @ f + Jw.T @ t for Jv, Jw, f, t, _ in self._inertial(q, v, a))

    def ground_wrench(self, q, v, a):
        """The force F and the moment M about the origin that the ground must give (the whole body's)."""
        F, M = np.zeros(3), np.zeros(3)
        for _, _, f, t, c in self._inertial(q, v, a):
            F += f
            M += np.cross(c, f) + t
        return F, M

    def cop(self, q, v, a):
        """The centre of pressure (x, y) on z = 0 of that wrench (the zero-moment point)."""
        F, M = self.ground_wrench(q, v, a)
        return np.array([-M[1] / F[2], M[0] / F[2]])

    def _omega(self, q, v, i, h=1e-5):
        """Body i's angular velocity at (q, v)."""
        Rp = self.frames(q + h * v)[0][i]
        Rm = self.frames(q - h * v)[0][i]
        R0 = self.frames(q)[0][i]
        return _vee((Rp - Rm) / (2 * h) @ R0.T)
