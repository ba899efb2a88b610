"""Tables: the library's named columns as NumPy structured arrays, or as
pandas DataFrames where pandas is installed (it is optional)."""
import numpy as np

from . import _lib


def have_pandas():
    try:
        import pandas  # noqa: F401
        return True
    except ImportError:
        return False


def take(handle):
    """(column names, rows x cols float64 array) of an sm_ffi_table, which is freed."""
    lib = _lib.lib()
    try:
        rows, cols = lib.sm_ffi_table_rows(handle), lib.sm_ffi_table_cols(handle)
        names = [_lib.text(lib.sm_ffi_table_column(handle, j)) for j in range(cols)]
        data = np.empty((rows, cols), dtype=np.float64)
        if rows:
            lib.sm_ffi_table_copy(handle, _lib.as_doubles(data))
        return names, data
    finally:
        lib.sm_ffi_table_free(handle)


def words(codes, name_of):
    """A string array from integer codes and a function naming one."""
    cache = {}
    out = []
    for c in codes:
        c = int(c)
        if c not in cache:
            cache[c] = name_of(c) or ""
        out.append(cache[c])
    return np.array(out, dtype=str) if out else np.array([], dtype="<U1")


def make(columns, frame=None):
    """columns: (name, 1-D array) pairs in order.  A DataFrame when frame is
    True, or None and pandas is installed; else a structured array."""
    if frame is None:
        frame = have_pandas()
    if frame:
        import pandas
        return pandas.DataFrame({name: values for name, values in columns})
    n = len(columns[0][1]) if columns else 0
    out = np.empty(n, dtype=[(name, values.dtype) for name, values in columns])
    for name, values in columns:
        out[name] = values
    return out
