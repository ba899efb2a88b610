#!/usr/bin/python3
"""Draws a disturbance sweep (scripts/reproduce_disturb.py's CSV: one row per
design, its max |multiplier|, largest surviving step down and up, and gait
sensitivity norm to the step) in three panels sharing the design axis, so
that where the multipliers and the step-down rank the designs differently
shows at a glance.

    /usr/bin/python3 scripts/plot_disturb.py compass_b.csv compass_b.png [--x b] [--xlabel TEXT]

Uses Debian's python3-matplotlib with the Agg backend (no display needed).
"""
import argparse
import math

from plot_common import Parser, need_matplotlib, read_csv, run, save

need_matplotlib("plot_disturb")
import matplotlib.pyplot as plt  # noqa: E402

NEED = ("max_abs_eigenvalue", "step_down", "step_up", "gsn_step_down")


def num(v):
    """A number; an empty field is NaN."""
    return math.nan if v == "" else float(v)


def main():
    ap = Parser(prog="plot_disturb", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--x", default="b", help="the design column (default b)")
    ap.add_argument("--xlabel", default="b: leg mass's distance below the hip (m; a = 0.5 m)")
    a = ap.parse_args()
    rows = read_csv(a.csv, need=(a.x,) + NEED, what="disturbance sweep CSV (scripts/reproduce_disturb.py)")
    x = [num(r[a.x]) for r in rows]
    col = {k: [num(r[k]) for r in rows] for k in NEED}
    fig, ax = plt.subplots(3, 1, figsize=(6.4, 7.2), sharex=True)
    ax[0].plot(x, col["max_abs_eigenvalue"], "o-", color="tab:blue")
    ax[0].set_ylabel("max |multiplier|")
    ax[0].set_title("lower: more stable by the multipliers")
    ax[1].plot(x, [1e3 * v for v in col["step_down"]], "o-", color="tab:red", label="step down")
    ax[1].plot(x, [1e3 * v for v in col["step_up"]], "s--", color="tab:orange", label="step up")
    ax[1].set_ylabel("largest survived (mm)")
    ax[1].set_title("higher: more robust to a one-step floor change")
    ax[1].legend(loc="best", fontsize=8)
    ax[2].plot(x, col["gsn_step_down"], "o-", color="tab:green")
    ax[2].set_ylabel("GSN to step_down (1/m)")
    ax[2].set_title("lower: gait indicators less sensitive (Hobbelen & Wisse)")
    ax[2].set_xlabel(a.xlabel)
    for k in ax:
        k.grid(alpha=0.3)
    fig.tight_layout()
    save(fig, a.png, dpi=120)


if __name__ == "__main__":
    run("plot_disturb", main)
