"""Numbers for the results tables, printed only to the digits on which two
runs at different tolerances agree.

A reproduce script runs each computation twice (a looser and a tighter
tolerance, see results/README.md) and passes both values here.  A value is
printed with the digits the two runs share; if they share fewer than the
table needs, the number is recorded as unstable, and Checker.finish() names
every such number on stderr and returns a non-zero exit status, so a table
never shows a digit that a change of tolerance would move.

"Agree to n digits" means the two values, each rounded to n digits, print
the same: the printed digits are those of either run.  Rounding can put two
very close values on either side of a half (0.1234549 and 0.1234551 agree
to 6 digits, not 7); that errs on the safe side.
"""
import math
import sys

MAX_DIGITS = 15


def _fixed(x, decimals):
    s = "%.*f" % (max(decimals, 0), x) if decimals >= 0 else "%.0f" % (round(x, decimals))
    if s.lstrip("-").strip("0.") == "":
        s = s.lstrip("-")  # -0.000 and 0.000 are the same digits
    return s


def _decimals_for(a, b, sig):
    """Decimal places that show `sig` significant digits of the larger of |a|, |b|."""
    m = max(abs(a), abs(b))
    if m == 0:
        return sig - 1
    return sig - 1 - math.floor(math.log10(m))


def _show_sig(a, b, sig):
    """b to `sig` significant digits: fixed point, or 1.2e-11 for tiny or huge values."""
    m = max(abs(a), abs(b))
    if m != 0 and (m < 1e-4 or m >= 1e7):
        return "%.*e" % (sig - 1, b)
    return _fixed(b, _decimals_for(a, b, sig))


def sig_agree(a, b, most=MAX_DIGITS):
    """Largest n <= most such that a and b rounded to n significant digits print
    the same; 0 if not even the first digit agrees (or a value is not finite)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return 0
    if a == b:
        return most
    n = 0
    for k in range(1, most + 1):
        d = _decimals_for(a, b, k)
        if _fixed(a, d) != _fixed(b, d):
            break
        n = k
    return n


def dec_agree(a, b, most=MAX_DIGITS):
    """Largest number of decimal places <= most at which a and b print the same;
    -1 if they differ even rounded to an integer."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return -1
    if a == b:
        return most
    n = -1
    for k in range(0, most + 1):
        if _fixed(a, k) != _fixed(b, k):
            break
        n = k
    return n


class Checker:
    """Collects the numbers of one script; finish() fails if any was unstable."""

    def __init__(self, what=""):
        self.what = what
        self.unstable = []
        self.checked = 0

    def fail(self, name, text):
        """Records a number (or a point) that is not stable, saying why."""
        self.unstable.append("%s: %s" % (name, text))

    _fail = fail

    def sig(self, name, a, b, need, show=None):
        """a and b to the significant digits they share, at most `show` (default
        `need`); fewer than `need` shared digits makes the number unstable."""
        self.checked += 1
        show = need if show is None else max(show, need)
        n = sig_agree(a, b, show)
        if n < need:
            self._fail(name, "%r and %r agree to %d significant digits, the table needs %d" % (a, b, n, need))
            return "%s [UNSTABLE: %r vs %r]" % (_show_sig(a, b, max(n, 1)), a, b)
        return _show_sig(a, b, n)

    def dec(self, name, a, b, need, show=None):
        """a and b to the decimal places they share, at most `show` (default
        `need`); fewer than `need` shared places makes the number unstable."""
        self.checked += 1
        show = need if show is None else max(show, need)
        n = dec_agree(a, b, show)
        if n < need:
            self._fail(name, "%r and %r agree to %d decimal places, the table needs %d" % (a, b, n, need))
            return "%s [UNSTABLE: %r vs %r]" % (_fixed(b, max(n, 0)), a, b)
        return _fixed(b, n)

    def bound(self, name, a, b):
        """An error that the tolerance may move but must keep small: the larger
        of the two, rounded up to one digit (printed as <= that)."""
        self.checked += 1
        m = max(abs(a), abs(b))
        if not math.isfinite(m):
            self._fail(name, "not finite: %r, %r" % (a, b))
            return "nan"
        if m == 0:
            return "0"
        e = math.floor(math.log10(m))
        d = math.ceil(m / 10 ** e - 1e-12)
        if d == 10:
            d, e = 1, e + 1
        return "%de%+03d" % (d, e) if e < -3 else _fixed(d * 10.0 ** e, max(0, -e))

    def same(self, name, a, b):
        """A label, a count or a grid value that must not change at all."""
        self.checked += 1
        if a != b:
            self._fail(name, "%r at the looser tolerance, %r at the tighter" % (a, b))
            return "%s [UNSTABLE: %r vs %r]" % (b, a, b)
        return a

    def finish(self, out=sys.stderr):
        """0 if every number was stable; else names each unstable one and returns 1."""
        if not self.unstable:
            print("%s: all %d numbers agree at both tolerances" % (self.what or "check", self.checked), file=out)
            return 0
        for u in self.unstable:
            print("UNSTABLE %s%s" % (self.what + " " if self.what else "", u), file=out)
        print("%s: %d of %d numbers differ between the two tolerances" % (
            self.what or "check", len(self.unstable), self.checked), file=out)
        return 1
