"""Finds libstridemap and declares its flat C interface (stridemap/ffi.h) to ctypes.

No compilation: the shared library is loaded as it is.  Where it is looked
for, in order: the file named by STRIDEMAP_LIBRARY; the build tree of the
source tree this package sits in (``build/``); the library directory of the
prefix the package was installed into (``_config.py``, written by meson
install); the system's search path (``ctypes.util.find_library``); and
pkg-config's ``libdir`` for ``stridemap``.
"""
import ctypes
import ctypes.util
import os
import pathlib
import subprocess
import threading

from ._errors import LibraryNotFound

_lib = None
_lock = threading.Lock()

c_double_p = ctypes.POINTER(ctypes.c_double)
c_char_p = ctypes.c_char_p
c_size_t = ctypes.c_size_t
c_int = ctypes.c_int
c_long = ctypes.c_long
c_void_p = ctypes.c_void_p

# name: (restype, argtypes).  Handles travel as void pointers.
_PROTOTYPES = {
    "sm_status_name": (c_char_p, [c_int]),
    "sm_strerror": (c_char_p, [c_int]),
    "sm_status_kind": (c_int, [c_int]),
    "sm_registry_count": (c_size_t, []),
    "sm_registry_model_dir": (c_char_p, [c_size_t, c_char_p, c_size_t]),
    "sm_ffi_builtin": (c_char_p, [c_size_t]),
    "sm_ffi_open": (c_int, [c_char_p, ctypes.POINTER(c_void_p), c_char_p, c_size_t]),
    "sm_ffi_close": (None, [c_void_p]),
    "sm_ffi_message": (c_char_p, [c_void_p]),
    "sm_ffi_model_text": (c_char_p, [c_void_p, c_char_p]),
    "sm_ffi_n_state": (c_size_t, [c_void_p]),
    "sm_ffi_state_name": (c_char_p, [c_void_p, c_size_t]),
    "sm_ffi_n_free": (c_size_t, [c_void_p]),
    "sm_ffi_free_index": (c_size_t, [c_void_p, c_size_t]),
    "sm_ffi_n_sample": (c_size_t, [c_void_p]),
    "sm_ffi_sample_name": (c_char_p, [c_void_p, c_size_t]),
    "sm_ffi_n_phases": (c_size_t, [c_void_p]),
    "sm_ffi_phase_name": (c_char_p, [c_void_p, c_size_t]),
    "sm_ffi_n_events": (c_size_t, [c_void_p]),
    "sm_ffi_event_name": (c_char_p, [c_void_p, c_size_t]),
    "sm_ffi_n_params": (c_size_t, [c_void_p]),
    "sm_ffi_param": (c_char_p, [c_void_p, c_size_t, c_double_p, c_double_p, c_double_p,
                                ctypes.POINTER(c_char_p), ctypes.POINTER(c_char_p), ctypes.POINTER(c_int)]),
    "sm_ffi_set_param": (c_int, [c_void_p, c_char_p, ctypes.c_double]),
    "sm_ffi_get_params": (None, [c_void_p, c_double_p]),
    "sm_ffi_reset_params": (None, [c_void_p]),
    "sm_ffi_guess": (None, [c_void_p, c_double_p]),
    "sm_ffi_set_option": (c_int, [c_void_p, c_char_p, ctypes.c_double]),
    "sm_ffi_set_option_text": (c_int, [c_void_p, c_char_p, c_char_p]),
    "sm_ffi_reset_options": (None, [c_void_p]),
    "sm_ffi_fixed": (c_int, [c_void_p, c_double_p, ctypes.POINTER(c_void_p)]),
    "sm_ffi_gait_free": (None, [c_void_p]),
    "sm_ffi_gait_status": (c_int, [c_void_p]),
    "sm_ffi_gait_stride_status": (c_int, [c_void_p]),
    "sm_ffi_gait_period": (c_int, [c_void_p]),
    "sm_ffi_gait_family": (c_char_p, [c_void_p]),
    "sm_ffi_gait_jacobian_method": (c_char_p, [c_void_p]),
    "sm_ffi_gait_x": (None, [c_void_p, c_double_p]),
    "sm_ffi_gait_jacobian": (c_size_t, [c_void_p, c_double_p]),
    "sm_ffi_gait_eigenvalues": (c_size_t, [c_void_p, c_int, c_double_p, c_double_p]),
    "sm_ffi_gait_orbit": (c_int, [c_void_p, c_double_p]),
    "sm_ffi_gait_value": (c_char_p, [c_void_p, c_int, c_size_t, c_double_p]),
    "sm_ffi_table_rows": (c_size_t, [c_void_p]),
    "sm_ffi_table_cols": (c_size_t, [c_void_p]),
    "sm_ffi_table_column": (c_char_p, [c_void_p, c_size_t]),
    "sm_ffi_table_copy": (None, [c_void_p, c_double_p]),
    "sm_ffi_table_free": (None, [c_void_p]),
    "sm_ffi_row_kind": (c_char_p, [c_int]),
    "sm_ffi_simulate": (c_int, [c_void_p, c_double_p, c_long, ctypes.c_double, ctypes.POINTER(c_void_p),
                                ctypes.POINTER(c_void_p), ctypes.POINTER(c_long)]),
    "sm_ffi_continue": (c_int, [c_void_p, c_char_p, ctypes.c_double, ctypes.c_double, c_double_p,
                                ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p)]),
    "sm_ffi_point_type": (c_char_p, [c_int]),
    "sm_ffi_stop_name": (c_char_p, [c_int]),
    "sm_ffi_sweep_start": (c_int, [c_void_p, c_size_t, ctypes.POINTER(c_char_p), c_char_p, c_double_p, c_int,
                                   c_int, ctypes.POINTER(c_void_p)]),
    "sm_ffi_sweep_poll": (c_int, [c_void_p, ctypes.POINTER(c_long), ctypes.POINTER(c_long)]),
    "sm_ffi_sweep_stop": (None, [c_void_p]),
    "sm_ffi_sweep_finish": (c_int, [c_void_p, ctypes.POINTER(c_int)]),
}


def _candidates():
    env = os.environ.get("STRIDEMAP_LIBRARY")
    if env:
        # Named by the caller: that file or nothing.
        yield env
        return
    here = pathlib.Path(__file__).resolve().parent
    tree = here.parent.parent  # python/stridemap/ -> the source tree
    if (tree / "meson.build").is_file():
        yield str(tree / "build" / "libstridemap.so")
    try:
        from . import _config
        yield os.path.join(_config.LIBDIR, "libstridemap.so")
    except ImportError:
        pass
    found = ctypes.util.find_library("stridemap")
    if found:
        yield found
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "stridemap"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
        if libdir:
            yield os.path.join(libdir, "libstridemap.so")
    except (OSError, subprocess.SubprocessError):
        pass


def _declare(lib):
    for name, (restype, argtypes) in _PROTOTYPES.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes
    return lib


def lib():
    """The loaded library, loaded on first use."""
    global _lib
    with _lock:
        if _lib is None:
            tried = []
            for path in _candidates():
                try:
                    _lib = _declare(ctypes.CDLL(path))
                    break
                except OSError as e:
                    tried.append(f"{path} ({e})")
                except AttributeError as e:
                    tried.append(f"{path} (not a stridemap library with the flat interface: {e})")
            if _lib is None:
                raise LibraryNotFound(
                    "cannot load libstridemap: tried " + ("; ".join(tried) or "nothing") +
                    "; set STRIDEMAP_LIBRARY to the path of libstridemap.so (build/libstridemap.so after a build)")
        return _lib


def text(b):
    return b.decode("utf-8", "replace") if b is not None else None


def status_name(code):
    return text(lib().sm_status_name(code))


def as_doubles(array):
    """A ctypes pointer to a C-contiguous float64 NumPy array's data."""
    return array.ctypes.data_as(c_double_p)
