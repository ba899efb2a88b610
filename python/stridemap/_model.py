"""A walker opened in the library, and the computations on it."""
import ctypes
import math
import os
import shutil
import tempfile
import threading
import time

import numpy as np

from . import _lib, _tables
from ._errors import UsageError, error_for
from ._results import Gait, Trajectory
from ._words import words

# Settings by keyword: numbers, and words (sm_ffi_set_option{,_text}).
SOLVER_OPTIONS = ("rtol", "atol", "max_step", "t_max", "max_order", "method")
NEWTON_OPTIONS = ("period", "tol", "max_iter", "fd_step", "central", "two_step", "jacobian", "newton_update")
CONT_OPTIONS = ("step", "step_min", "step_max", "max_points", "corrector_iter", "weight", "locate", "locate_tol",
                "switch", "max_period", "amplitude")
_WORD_OPTIONS = ("method", "jacobian", "newton_update")


def _status(code):
    return _lib.status_name(code)


class Model:
    """A walker: a built-in name (``"simplest"``), a model file's NAME, or a
    path to a model file.  Holds parameter values (``set``) that every
    computation on it uses unless a call gives others for itself.  One
    computation at a time per Model (calls from several threads wait their
    turn); open one Model per thread to run them side by side."""

    def __init__(self, name):
        lib = _lib.lib()
        name = os.fspath(name)
        handle = ctypes.c_void_p()
        why = ctypes.create_string_buffer(2048)
        st = lib.sm_ffi_open(name.encode(), ctypes.byref(handle), why, len(why))
        if st != 0:
            raise error_for(_status(st), words(_lib.text(why.value)) or _lib.text(lib.sm_strerror(st)))
        self._h = handle
        self._lock = threading.RLock()
        h = self._h
        self.name = _lib.text(lib.sm_ffi_model_text(h, b"name"))
        self.title = _lib.text(lib.sm_ffi_model_text(h, b"title"))
        self.reference = _lib.text(lib.sm_ffi_model_text(h, b"reference"))
        self.state_names = [_lib.text(lib.sm_ffi_state_name(h, i)) for i in range(lib.sm_ffi_n_state(h))]
        self.free_index = [int(lib.sm_ffi_free_index(h, k)) for k in range(lib.sm_ffi_n_free(h))]
        self.free_coordinates = [self.state_names[i] for i in self.free_index]
        self.sample_names = [_lib.text(lib.sm_ffi_sample_name(h, i)) for i in range(lib.sm_ffi_n_sample(h))]
        self.phase_names = [_lib.text(lib.sm_ffi_phase_name(h, i)) for i in range(lib.sm_ffi_n_phases(h))]
        self.event_names = [_lib.text(lib.sm_ffi_event_name(h, i)) for i in range(lib.sm_ffi_n_events(h))]
        self._param_names = []
        self.param_table = []
        for i in range(lib.sm_ffi_n_params(h)):
            d, lo, hi = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
            unit, desc, integer = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_int()
            pname = _lib.text(lib.sm_ffi_param(h, i, ctypes.byref(d), ctypes.byref(lo), ctypes.byref(hi),
                                               ctypes.byref(unit), ctypes.byref(desc), ctypes.byref(integer)))
            self._param_names.append(pname)
            self.param_table.append({"name": pname, "default": d.value, "min": lo.value, "max": hi.value,
                                     "unit": _lib.text(unit.value), "description": _lib.text(desc.value),
                                     "integer": bool(integer.value)})

    # ---- life

    def close(self):
        """Releases the model (a model file's memory); the Model is unusable afterwards."""
        h, self._h = getattr(self, "_h", None), None
        if h:
            _lib.lib().sm_ffi_close(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"<stridemap.Model {self.name!r}: {self.title}>"

    def _handle(self):
        if not self._h:
            raise UsageError("bad_option", f"model '{self.name}' was closed")
        return self._h

    def _raise(self, st):
        lib = _lib.lib()
        msg = _lib.text(lib.sm_ffi_message(self._h)) or _lib.text(lib.sm_strerror(st))
        raise error_for(_status(st), words(msg))

    # ---- parameters

    @property
    def params(self):
        """The parameter values in force, name -> value."""
        values = np.empty(len(self._param_names))
        if len(values):
            _lib.lib().sm_ffi_get_params(self._handle(), _lib.as_doubles(values))
        return dict(zip(self._param_names, values.tolist()))

    def set(self, params=None, **kw):
        """Sets parameters by name (keywords, or a dict for names such as
        'bodies.leg_a.mass'); raises UsageError (unknown_param) or DataError
        (bad_param, out of its range)."""
        with self._lock:
            for name, value in {**(params or {}), **kw}.items():
                st = _lib.lib().sm_ffi_set_param(self._handle(), str(name).encode(), float(value))
                if st != 0:
                    self._raise(st)
        return self

    def reset(self):
        """Back to the model's default parameters."""
        _lib.lib().sm_ffi_reset_params(self._handle())
        return self

    def guess(self, **params):
        """The model's starting state at its parameters (and these)."""
        with self._using({}, params):
            x = np.empty(len(self.state_names))
            _lib.lib().sm_ffi_guess(self._h, _lib.as_doubles(x))
            return x

    # ---- settings for one call

    class _Using:
        def __init__(self, model, options, params):
            self.m, self.options, self.params = model, options, params

        def __enter__(self):
            m = self.m
            m._lock.acquire()
            try:
                lib, h = _lib.lib(), m._handle()
                self.saved = m.params
                lib.sm_ffi_reset_options(h)
                for name, value in self.options.items():
                    if value is None:
                        continue
                    if name in _WORD_OPTIONS:
                        st = lib.sm_ffi_set_option_text(h, name.encode(), str(value).encode())
                    else:
                        if isinstance(value, bool):
                            value = int(value)
                        try:
                            value = float(value)
                        except (TypeError, ValueError):
                            raise UsageError("bad_option", f"{name} takes a number, not {value!r}") from None
                        st = lib.sm_ffi_set_option(h, name.encode(), value)
                    if st != 0:
                        m._raise(st)
                m.set(self.params)
            except BaseException:
                self.__exit__()
                raise
            return m

        def __exit__(self, *exc):
            m = self.m
            try:
                if getattr(self, "saved", None) is not None and m._h:
                    lib = _lib.lib()
                    now = m.params
                    for name, value in self.saved.items():
                        if now[name] != value:
                            lib.sm_ffi_set_param(m._h, name.encode(), value)
            finally:
                m._lock.release()

    def _using(self, options, params):
        return Model._Using(self, options, params)

    def _split(self, kw, allowed, params):
        """Keyword arguments as (settings, parameters): a name that is a
        setting of this call is a setting; every other one a parameter."""
        options = {k: v for k, v in kw.items() if k in allowed}
        given = {k: v for k, v in kw.items() if k not in allowed}
        return options, {**(params or {}), **given}

    def _state(self, x, what):
        if x is None:
            return None
        a = np.ascontiguousarray(x, dtype=np.float64).ravel()
        if a.size != len(self.state_names):
            from ._errors import DataError
            raise DataError("bad_state", f"{what} needs {len(self.state_names)} numbers "
                            f"({', '.join(self.state_names)}), got {a.size}")
        return a

    # ---- computations

    def fixed(self, guess=None, params=None, **kw):
        """A gait: Newton on P^N(x) = x from guess (the model's own by default),
        with its Jacobian, multipliers and measures, as 'stridemap fixed'.

        Settings: period, two_step, rtol, atol, method, max_order, tol, max_iter,
        fd_step, central, newton_update, jacobian ('fd' or 'exact'), t_max,
        max_step.  Every other keyword is a parameter (gamma=0.009); params= a
        dict of them.  A walker that falls or no gait found is a result
        (``status``), not an exception."""
        options, p = self._split(kw, SOLVER_OPTIONS + NEWTON_OPTIONS, params)
        g0 = self._state(guess, "guess")
        with self._using(options, p):
            lib = _lib.lib()
            out = ctypes.c_void_p()
            st = lib.sm_ffi_fixed(self._h, _lib.as_doubles(g0) if g0 is not None else None, ctypes.byref(out))
            if not out.value:
                self._raise(st)
            try:
                return Gait._from_handle(self, out, self.params)
            finally:
                lib.sm_ffi_gait_free(out)

    def simulate(self, x0=None, steps=10, dt=None, params=None, **kw):
        """Walks `steps` steps from x0 (the model's guess by default), sampling
        every dt (the stride time limit / 2000 by default), as 'stridemap
        simulate'.  Settings: rtol, atol, method, max_order, t_max, max_step.
        A fall ends the walk: the Trajectory keeps every row up to it and says
        so in ``status``."""
        options, p = self._split(kw, SOLVER_OPTIONS, params)
        x = self._state(x0, "x0")
        if isinstance(steps, bool) or int(steps) != steps:
            raise UsageError("bad_option", f"steps takes a whole number, not {steps!r}")
        with self._using(options, p):
            lib = _lib.lib()
            rows, steps_t, done = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_long()
            st = lib.sm_ffi_simulate(self._h, _lib.as_doubles(x) if x is not None else None, int(steps),
                                     float(dt or 0.0), ctypes.byref(rows), ctypes.byref(steps_t), ctypes.byref(done))
            if not rows.value:
                self._raise(st)
            msg = words(_lib.text(lib.sm_ffi_message(self._h))) if st != 0 else ""
            return Trajectory._from_tables(self, _tables.take(rows), _tables.take(steps_t), _status(st), msg,
                                           done.value)

    def continue_(self, param, /, from_=None, to=None, guess=None, frame=None, branches=False, params=None, **kw):
        """Follows the gait through guess as `param` moves from from_ (its
        current value by default) to `to` (its largest), as 'stridemap
        continue'; switch=True follows the period-doubled branches too (up to
        max_period).  Returns the points, one row per point with the columns of
        the program's CSV (type: '', 'EP', 'LP', 'PD', 'NS', 'MX'; status) as a
        DataFrame (frame=True, or None with pandas installed) or a NumPy
        structured array; with branches=True, (points, branches).

        Settings: step, step_min, step_max, max_points, corrector_iter, weight,
        locate, locate_tol, switch, max_period, amplitude, and those of fixed."""
        options, p = self._split(kw, SOLVER_OPTIONS + NEWTON_OPTIONS + CONT_OPTIONS, params)
        if from_ is not None and param in p:
            raise UsageError("bad_option", f"{param}= and from_= both give the start of '{param}'; keep one")
        g0 = self._state(guess, "guess")
        with self._using(options, p):
            lib = _lib.lib()
            pts, brs = ctypes.c_void_p(), ctypes.c_void_p()
            st = lib.sm_ffi_continue(self._h, str(param).encode(), math.nan if from_ is None else float(from_),
                                     math.nan if to is None else float(to),
                                     _lib.as_doubles(g0) if g0 is not None else None, ctypes.byref(pts),
                                     ctypes.byref(brs))
            if not pts.value:
                self._raise(st)
            points = _point_columns(*_tables.take(pts))
            branch_rows = _branch_columns(*_tables.take(brs))
        points, branch_rows = _tables.make(points, frame), _tables.make(branch_rows, frame)
        return (points, branch_rows) if branches else points

    def sweep(self, grid, /, out=None, guess=None, jobs=None, resume=False, frame=None, params=None, **kw):
        """The gait and its stability at every point of a grid, as 'stridemap
        sweep': grid maps parameter names to (lo, hi, n) or 'lo:hi:n' (the
        first varies fastest), or is a list of 'NAME=LO:HI:N'.  The rows are
        written to out/ (part-local.csv, then sweep.csv), a temporary
        directory removed afterwards when out is None; resume=True keeps the
        rows already in out/.  jobs: threads (SLURM_CPUS_PER_TASK, else every
        core).  Returns sweep.csv's rows as a DataFrame (frame=True, or None
        with pandas installed) or a NumPy structured array.  Settings: those
        of fixed."""
        options, p = self._split(kw, SOLVER_OPTIONS + NEWTON_OPTIONS, params)
        specs = _grid_specs(grid)
        for spec in specs:
            name = spec.split("=", 1)[0]
            if name in p:
                raise UsageError("bad_option", f"'{name}' is both fixed and swept; choose one")
        g0 = self._state(guess, "guess")
        if jobs is None:
            jobs = _default_jobs()
        if isinstance(jobs, bool) or int(jobs) != jobs:
            raise UsageError("bad_option", f"jobs takes a whole number, not {jobs!r}")
        where = os.fspath(out) if out is not None else tempfile.mkdtemp(prefix="stridemap-sweep-")
        try:
            with self._using(options, p):
                lib = _lib.lib()
                arr = (ctypes.c_char_p * len(specs))(*[s.encode() for s in specs])
                w = ctypes.c_void_p()
                st = lib.sm_ffi_sweep_start(self._h, len(specs), arr, where.encode(),
                                            _lib.as_doubles(g0) if g0 is not None else None, int(jobs),
                                            int(bool(resume)), ctypes.byref(w))
                if st != 0:
                    self._raise(st)
                interrupted = None
                try:
                    # Polled, so that Ctrl-C stops the workers after their points.
                    while not lib.sm_ffi_sweep_poll(w, None, None):
                        time.sleep(0.02)
                except KeyboardInterrupt as e:
                    lib.sm_ffi_sweep_stop(w)
                    interrupted = e
                complete = ctypes.c_int()
                st = lib.sm_ffi_sweep_finish(w, ctypes.byref(complete))
                if interrupted is not None:
                    raise interrupted
                if st != 0:
                    self._raise(st)
            from ._sweep import read_csv
            return read_csv(os.path.join(where, "sweep.csv"), frame)
        finally:
            if out is None:
                shutil.rmtree(where, ignore_errors=True)


def _default_jobs():
    slurm = os.environ.get("SLURM_CPUS_PER_TASK", "")
    if slurm.isdigit() and 1 <= int(slurm) <= 1024:
        return int(slurm)
    return max(1, min(1024, os.cpu_count() or 1))


def _grid_specs(grid):
    if isinstance(grid, str):
        grid = [grid]
    if isinstance(grid, dict):
        specs = []
        for name, axis in grid.items():
            if isinstance(axis, str):
                specs.append(f"{name}={axis}")
            else:
                lo, hi, n = axis
                # repr: the shortest text that reads back to the same double.
                specs.append(f"{name}={float(lo)!r}:{float(hi)!r}:{int(n)}")
        return specs
    return [str(s) for s in grid]


def _point_columns(names, data):
    """The continuation table's columns by position (a state may be called
    anything): branch, period, the parameter, type, ..., max_abs_eig, stable,
    four measures, iterations, residual, arclength, status."""
    lib = _lib.lib()
    n = len(names)
    kinds = {0: "int", 1: "int", 3: "type", n - 9: "bool", n - 4: "int", n - 1: "status"}
    out = []
    for j, name in enumerate(names):
        col, kind = data[:, j], kinds.get(j)
        if kind == "int":
            col = col.astype(np.int64)
        elif kind == "bool":
            col = col != 0
        elif kind == "type":
            col = _tables.words(col, lambda c: _lib.text(lib.sm_ffi_point_type(c)))
        elif kind == "status":
            col = _tables.words(col, _status)
        out.append((name, col))
    return out


def _branch_columns(names, data):
    lib = _lib.lib()
    out = []
    for j, name in enumerate(names):
        col = data[:, j]
        if name in ("branch", "period", "parent", "points", "stride_evaluations"):
            out.append((name, col.astype(np.int64)))
        elif name == "stop":
            out.append((name, _tables.words(col, lambda c: _lib.text(lib.sm_ffi_stop_name(c)))))
        elif name in ("status", "stride_status"):
            out.append((name, _tables.words(col, _status)))
        else:
            out.append((name, col))
    return out
