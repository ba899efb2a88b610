"""What the plot scripts share: bad input is one line on stderr and a
sysexits code (64 usage, 65 data, 66 no input, 69 no matplotlib, 73 cannot
write), never a Python traceback.  Standard library only."""
import argparse
import csv
import sys

EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_UNAVAILABLE, EX_CANTCREAT = 64, 65, 66, 69, 73


class Failure(Exception):
    """An error the user can fix: a message and an exit code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def fail(code, message):
    raise Failure(code, message)


def need_matplotlib(prog):
    """matplotlib with the Agg backend, or one line saying how to get it."""
    try:
        import matplotlib
    except ImportError:
        print(f"{prog}: matplotlib is missing: apt-get install python3-matplotlib", file=sys.stderr)
        sys.exit(EX_UNAVAILABLE)
    matplotlib.use("Agg")


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit 64."""

    def error(self, message):
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        sys.exit(EX_USAGE)


def read_csv(path, need=(), what="CSV"):
    """The rows of a CSV file as dicts.  A file that is missing or unreadable
    fails with 66; one that is empty, not text, has no rows or lacks a column
    of `need`, with 65."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            cols = reader.fieldnames
    except FileNotFoundError:
        fail(EX_NOINPUT, f"no file '{path}': check the path")
    except OSError as e:
        fail(EX_NOINPUT, f"cannot read '{path}': {e.strerror or e}")
    except (UnicodeDecodeError, csv.Error) as e:
        fail(EX_DATAERR, f"'{path}' is not a CSV file ({e})")
    if not cols:
        fail(EX_DATAERR, f"'{path}' is empty: expected a {what}")
    missing = [c for c in need if c not in cols]
    if missing:
        fail(EX_DATAERR, f"'{path}' has no column '{missing[0]}': expected a {what}")
    if not rows:
        fail(EX_DATAERR, f"'{path}' has a header but no rows: expected a {what}")
    for i, r in enumerate(rows):
        if None in r or any(v is None for v in r.values()):
            fail(EX_DATAERR, f"'{path}' line {i + 2} has {'more' if None in r else 'fewer'} fields than the header")
    return rows


def save(fig, path, **kw):
    """fig to path; a path that cannot be written fails with 73."""
    try:
        fig.savefig(path, **kw)
    except OSError as e:
        fail(EX_CANTCREAT, f"cannot write '{path}': {e.strerror or e}")


def run(prog, main):
    """Runs main(); a Failure, or data a script cannot use (a value that is
    not a number, ...), becomes one line on stderr and its exit code."""
    try:
        main()
    except Failure as e:
        print(f"{prog}: {e}", file=sys.stderr)
        sys.exit(e.code)
    except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as e:
        print(f"{prog}: cannot use the data: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(EX_DATAERR)
