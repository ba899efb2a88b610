"""What the computations return: a gait, a trajectory."""
import ctypes
import math

import numpy as np

from . import _lib, _tables
from ._words import words


class Gait:
    """A fixed point of P^N and what 'stridemap fixed' says of it.

    status: 'ok', or why not ('not_converged', 'stalled', ...); stride_status:
    the last failed stride's ('fell_backward', ...), 'ok' if none failed;
    message: the status in words.  x: the fixed point (the last iterate if
    not converged), in state_names order; jacobian: dP^N/dz in the free
    coordinates (shape (n_free, n_free); (0, 0) without one); eigenvalues:
    the multipliers by decreasing modulus (complex; empty without them),
    moduli: their absolute values; eigenvalues_fd: the finite-difference
    cross-check beside exact ones; orbit: the N states of a period-N gait;
    measures: step_period, step_length, speed, ... (and a model's own as
    GROUP.NAME)."""

    def __repr__(self):
        x = ", ".join(f"{n}={v:.12g}" for n, v in zip(self.state_names, self.x))
        eig = " ".join(f"{e.real:.9g}{e.imag:+.9g}i" for e in self.eigenvalues)
        return (f"<stridemap.Gait {self.model} period {self.period}: {self.status}; x = ({x}); "
                f"eigenvalues {eig or 'none'}; stable {self.stable}>")

    @property
    def ok(self):
        """Converged, with its stability known."""
        return self.status == "ok"

    @property
    def moduli(self):
        return np.abs(self.eigenvalues)

    @classmethod
    def _from_handle(cls, model, g, params):
        lib = _lib.lib()
        self = cls()
        self.model = model.name
        self.params = params
        self.state_names = list(model.state_names)
        self.free_coordinates = list(model.free_coordinates)
        self.period = int(lib.sm_ffi_gait_period(g))
        st = lib.sm_ffi_gait_status(g)
        self.status = _lib.status_name(st)
        self.message = words(_lib.text(lib.sm_strerror(st)))
        self.stride_status = _lib.status_name(lib.sm_ffi_gait_stride_status(g))
        self.family = _lib.text(lib.sm_ffi_gait_family(g))
        self.jacobian_method = _lib.text(lib.sm_ffi_gait_jacobian_method(g))
        ns, nf = len(self.state_names), len(self.free_coordinates)
        self.x = np.empty(ns)
        lib.sm_ffi_gait_x(g, _lib.as_doubles(self.x))
        jac = np.empty((nf, nf))
        self.jacobian = jac if lib.sm_ffi_gait_jacobian(g, _lib.as_doubles(jac)) else np.empty((0, 0))
        self.eigenvalues = _eigenvalues(lib, g, 0, nf)
        self.eigenvalues_fd = _eigenvalues(lib, g, 1, nf)
        orbit = np.empty((self.period, ns))
        self.orbit = orbit[: lib.sm_ffi_gait_orbit(g, _lib.as_doubles(orbit))]
        account = _values(lib, g, 0)
        self.converged = bool(account["converged"])
        self.iterations = int(account["iterations"])
        self.residual = account["residual"]
        self.stride_evaluations = int(account["stride_evaluations"])
        self.newton_stride_evaluations = int(account["newton_stride_evaluations"])
        mp = account["minimal_period"]
        self.minimal_period = None if math.isnan(mp) else int(mp)
        self.invariant_drift = account["invariant_drift"]
        self.max_abs_eigenvalue = account["max_abs_eigenvalue"]
        self.stable = bool(account["stable"])
        ti = int(account["trivial_index"])
        self.trivial_index = None if ti < 0 else ti
        self.measures = _values(lib, g, 1)
        return self


def _eigenvalues(lib, g, fd, nf):
    re, im = np.empty(nf), np.empty(nf)
    n = lib.sm_ffi_gait_eigenvalues(g, fd, _lib.as_doubles(re), _lib.as_doubles(im))
    return (re + 1j * im)[:n]


def _values(lib, g, group):
    out, v = {}, ctypes.c_double()
    i = 0
    while True:
        name = lib.sm_ffi_gait_value(g, group, i, ctypes.byref(v))
        if name is None:
            return out
        out[_lib.text(name)] = v.value
        i += 1


class Trajectory:
    """A walk as 'stridemap simulate' writes it: one row per sample every dt
    and one before ('pre') and after ('post') every event.

    t: time, running on across steps; step: the step a row belongs to; kind:
    'start', 'sample', 'pre', 'post', 'fail'; phase, event: their names (''
    for none); x: the state, one row per row (columns state_names); samples:
    a model's per-sample measures (columns sample_names: a body walker's
    contact forces).  status: 'ok', or how the walk ended (a fall:
    'fell_forward', ...) with message; steps_done: steps completed; steps:
    each completed step's measures (step, step_period, step_length, ...).
    trajectory['theta'] is a state's column; table() all columns as a
    DataFrame or structured array."""

    def __repr__(self):
        return (f"<stridemap.Trajectory {self.model}: {len(self.t)} rows, {self.steps_done} steps, "
                f"{self.status}>")

    def __len__(self):
        return len(self.t)

    def __getitem__(self, name):
        if name in ("t", "time"):
            return self.t
        if name in self.state_names:
            return self.x[:, self.state_names.index(name)]
        if name in self.sample_names:
            return self.samples[:, self.sample_names.index(name)]
        raise KeyError(name)

    @property
    def ok(self):
        return self.status == "ok"

    def table(self, frame=None):
        cols = [("kind", self.kind), ("step", self.step), ("time", self.t), ("phase", self.phase),
                ("event", self.event)]
        cols += [(n, self.x[:, i]) for i, n in enumerate(self.state_names)]
        cols += [(n, self.samples[:, i]) for i, n in enumerate(self.sample_names)]
        return _tables.make(cols, frame)

    @classmethod
    def _from_tables(cls, model, rows, steps, status, message, done):
        lib = _lib.lib()
        self = cls()
        self.model = model.name
        self.params = model.params
        self.state_names = list(model.state_names)
        self.sample_names = list(model.sample_names)
        self.status, self.message, self.steps_done = status, message, int(done)
        _, data = rows
        ns = len(self.state_names)
        self.kind = _tables.words(data[:, 0], lambda c: _lib.text(lib.sm_ffi_row_kind(c)))
        self.step = data[:, 1].astype(np.int64)
        self.t = data[:, 2].copy()
        self.phase = _tables.words(data[:, 3], lambda c: model.phase_names[c] if 0 <= c < len(model.phase_names)
                                   else "")
        self.event = _tables.words(data[:, 4], lambda c: model.event_names[c] if 0 <= c < len(model.event_names)
                                   else "")
        self.x = data[:, 5:5 + ns].copy()
        self.samples = data[:, 5 + ns:].copy()
        names, sdata = steps
        self.steps = _tables.make([(n, sdata[:, j].astype(np.int64) if j == 0 else sdata[:, j])
                                   for j, n in enumerate(names)], frame=False)
        return self
