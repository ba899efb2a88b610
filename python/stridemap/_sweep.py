"""Reading a sweep's CSV (sweep.h) into a table."""
import csv

import numpy as np

from . import _tables
from ._errors import DataError

_WORDS = {"outcome", "status", "stride_status", "seed"}
_WHOLE = {"index", "iterations", "stride_evals", "trivial_eig"}
_FLAGS = {"converged", "stable"}


def read_csv(path, frame=None):
    """sweep.csv's rows: words as strings, flags as booleans, counts as
    integers, every other column as float64 (an empty field is NaN)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise DataError("bad_data", f"'{path}' holds no header")
    names, body = rows[0], rows[1:]
    cols = []
    for j, name in enumerate(names):
        values = [r[j] for r in body]
        try:
            if name in _WORDS:
                col = np.array(values, dtype=str) if values else np.array([], dtype="<U1")
            elif name in _WHOLE:
                col = np.array([int(v) for v in values], dtype=np.int64)
            elif name in _FLAGS:
                col = np.array([int(v) != 0 for v in values], dtype=bool)
            else:
                col = np.array([float(v) if v else np.nan for v in values], dtype=np.float64)
        except ValueError as e:
            raise DataError("bad_data", f"'{path}', column {name}: {e}") from None
        cols.append((name, col))
    return _tables.make(cols, frame)
