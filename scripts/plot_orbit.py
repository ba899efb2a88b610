#!/usr/bin/python3
"""Draws the orbit diagram of a `stridemap orbit` CSV: one dot per recorded
stride (a state variable or the step period against the parameter), and a
red tick along the bottom at every parameter value where the walker fell.

    /usr/bin/python3 scripts/plot_orbit.py orbit.csv orbit.png [--y theta]
        [--title TEXT] [--mark V]...

--y names a column (default: the first state variable); --mark draws a
vertical line at a parameter value (e.g. a period doubling found by
continuation).  Uses Debian's python3-matplotlib with the Agg backend.
"""
import argparse
import math

from plot_common import EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_orbit")
import matplotlib.pyplot as plt  # noqa: E402


def num(v):
    """A number; an empty field (a fall has no step measures) is NaN."""
    return math.nan if v == "" else float(v)


def main():
    ap = Parser(prog="plot_orbit", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--y")
    ap.add_argument("--title")
    ap.add_argument("--mark", type=float, action="append", default=[])
    a = ap.parse_args()
    rows = read_csv(a.csv, ("index", "kind", "step_period"), "'stridemap orbit' CSV")
    cols = list(rows[0].keys())
    param = cols[0]
    y = a.y or cols[3]
    if y not in cols:
        fail(EX_USAGE, "no column '%s' in %s (columns: %s)" % (y, a.csv, ", ".join(cols)))
    vx = [num(r[param]) for r in rows if r["kind"] == "visit"]
    vy = [num(r[y]) for r in rows if r["kind"] == "visit"]
    fell = sorted({num(r[param]) for r in rows if r["kind"] == "fell"})

    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ax.plot(vx, vy, ".", ms=1.2, color="k")
    ax.plot([], [], ".", ms=5, color="k", label="recorded strides")  # legend entry at a readable size
    for m in a.mark:
        ax.axvline(m, color="tab:blue", lw=0.6, ls=":")
    if fell:
        # Ticks along the bottom edge, whatever the y range.
        ax.plot(fell, [0.02] * len(fell), "|", color="tab:red", ms=8, mew=1.2,
                transform=ax.get_xaxis_transform(), label="fell (first at %s = %.5g)" % (param, fell[0]))
    ax.set_xlabel(param)
    ax.set_ylabel(y)
    ax.set_title(a.title or "stridemap orbit: %s against %s" % (y, param))
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    save(fig, a.png)
    print("wrote %s" % a.png)


if __name__ == "__main__":
    run("plot_orbit", main)
