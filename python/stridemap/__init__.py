"""stridemap from Python: periodic gaits of walking models by Poincaré maps.

    import stridemap
    g = stridemap.fixed("simplest", gamma=0.009)
    g.x, g.eigenvalues, g.stable, g.measures["step_length"]

A thin layer over libstridemap's flat C interface (stridemap/ffi.h) through
ctypes: nothing is compiled at import.  The computations are the stridemap
program's, with its defaults, so the numbers are the ones 'stridemap fixed
--json' prints.  Model files work by path (or NAME for models/NAME.yaml)
wherever a model name does.  A walker that falls, or Newton that finds no
gait, is a result with its status; a bad name, value or setting raises a
stridemap.Error carrying the library's status name and a message.
"""
import ctypes
import os

from . import _lib
from ._errors import (DataError, Error, InputFileError, LibraryNotFound, OutOfMemory, SolverError,
                      UsageError)
from ._model import Model
from ._results import Gait, Trajectory

__all__ = ["models", "params", "fixed", "simulate", "continue_", "sweep", "Model", "Gait", "Trajectory",
           "Error", "UsageError", "DataError", "InputFileError", "SolverError", "OutOfMemory",
           "LibraryNotFound", "library_path"]


def library_path():
    """The file libstridemap was loaded from."""
    lib = _lib.lib()
    return lib._name


def models():
    """The walkers, as 'stridemap models --json' lists them: the built-ins,
    then the model files of each model directory (STRIDEMAP_MODEL_PATH,
    ./models, the installed ones), by the name that opens them (their path
    where an earlier one has the name).  Files that do not load are left out."""
    lib = _lib.lib()
    out, seen = [], set()
    i = 0
    while (name := lib.sm_ffi_builtin(i)) is not None:
        with Model(_lib.text(name)) as m:
            out.append(_describe(m))
            seen.add(m.name)
        i += 1
    buf = ctypes.create_string_buffer(1024)
    d = 0
    while lib.sm_registry_model_dir(d, buf, len(buf)) is not None:
        folder = _lib.text(buf.value)
        d += 1
        try:
            files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml") and len(f) > 5)
        except OSError:
            continue
        for f in files:
            path = os.path.join(folder, f)
            name = f[:-5]
            if name in seen:
                name = path
            if name in seen:
                continue
            try:
                with Model(path) as m:
                    entry = _describe(m)
            except Error:
                continue
            entry["name"], entry["file"] = name, path
            out.append(entry)
            seen.add(name)
    return out


def _describe(m):
    return {"name": m.name, "title": m.title, "reference": m.reference, "n_state": len(m.state_names),
            "n_free": len(m.free_coordinates)}


def _model(model):
    return (model, False) if isinstance(model, Model) else (Model(model), True)


def _call(model, what, /, *args, **kw):
    m, owned = _model(model)
    try:
        return getattr(m, what)(*args, **kw)
    finally:
        if owned:
            m.close()


def params(model, /):
    """The model's parameters, as 'stridemap params --json' lists them: name,
    default, min, max, unit, description, integer (and value: the one in
    force, for a Model)."""
    m, owned = _model(model)
    try:
        values = m.params
        return [{**d, "value": values[d["name"]]} for d in m.param_table]
    finally:
        if owned:
            m.close()


def fixed(model, /, guess=None, params=None, **kw):
    return _call(model, "fixed", guess, params=params, **kw)


def simulate(model, /, x0=None, steps=10, dt=None, params=None, **kw):
    return _call(model, "simulate", x0, steps, dt, params=params, **kw)


def continue_(model, param, /, from_=None, to=None, guess=None, frame=None, branches=False, params=None, **kw):
    return _call(model, "continue_", param, from_, to, guess, frame, branches, params=params, **kw)


def sweep(model, grid, /, out=None, guess=None, jobs=None, resume=False, frame=None, params=None, **kw):
    return _call(model, "sweep", grid, out, guess, jobs, resume, frame, params=params, **kw)


fixed.__doc__ = "model: a name, a model file's path or a Model.\n\n" + Model.fixed.__doc__
simulate.__doc__ = "model: a name, a model file's path or a Model.\n\n" + Model.simulate.__doc__
continue_.__doc__ = "model: a name, a model file's path or a Model.\n\n" + Model.continue_.__doc__
sweep.__doc__ = "model: a name, a model file's path or a Model.\n\n" + Model.sweep.__doc__
