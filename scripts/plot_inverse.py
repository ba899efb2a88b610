#!/usr/bin/python3
"""Draws what `stridemap inverse` wrote: the moments (each actuator's, or
each joint's and tau0: the columns before the first contact force), the
ground forces, and, for a run with --forward, the data's segment angles
(dotted) against the forward simulation's (solid), as the seed's Fig. 2.

Usage: /usr/bin/python3 scripts/plot_inverse.py MOMENTS.csv PICTURE.png
A missing input exits 66, a CSV that is not stridemap inverse's 65, a
picture that cannot be written 73; one line each."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def number(text, line, col):
    try:
        return float(text)
    except ValueError:
        pc.fail(pc.EX_DATAERR, "line %d: %s '%s' is not a number" % (line, col, text))


def main():
    ap = pc.Parser(prog="plot_inverse", description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="the output of stridemap inverse")
    ap.add_argument("png", help="the picture to write")
    args = ap.parse_args()
    rows = pc.read_csv(args.csv, need=("time", "phase", "residual"), what="stridemap inverse CSV")
    cols = list(rows[0].keys())
    # the CSV's order: the moments, then the contacts' columns (a lock's .torque among them)
    last = next((i for i, c in enumerate(cols) if c.endswith((".fx", ".fz"))), len(cols))
    torques = [c for c in cols[:last] if c.endswith(".torque") or c == "tau0"]
    forces = [c for c in cols if c.endswith((".fx", ".fz"))]
    fwd = [c[4:] for c in cols if c.startswith("fwd.") and c[4:] in cols]
    if not torques:
        pc.fail(pc.EX_DATAERR, "'%s' has no moment columns (NAME.torque, tau0) before the contacts': expected a "
                "stridemap inverse CSV" % args.csv)
    t = [number(r["time"], i + 2, "time") for i, r in enumerate(rows)]
    pc.need_matplotlib("plot_inverse")
    import matplotlib.pyplot as plt

    n = 3 if fwd else 2
    fig, axes = plt.subplots(n, 1, figsize=(9, 3.2 * n), sharex=True)
    for c in torques:
        axes[0].plot(t, [number(r[c], i + 2, c) for i, r in enumerate(rows)], label=c.replace(".torque", ""))
    axes[0].set_ylabel("moment (N m)")
    axes[0].legend(fontsize=7, ncol=3)
    for c in forces:
        v = [number(r[c], i + 2, c) for i, r in enumerate(rows)]
        if any(x != 0 for x in v):
            axes[1].plot(t, v, label=c)
    axes[1].set_ylabel("ground force (N)")
    axes[1].legend(fontsize=7, ncol=2)
    if fwd:
        angles = [c for c in fwd if "." not in c]
        for k, c in enumerate(angles):
            color = "C%d" % (k % 10)
            data = [math.degrees(number(r[c], i + 2, c)) for i, r in enumerate(rows)]
            sim = [math.degrees(number(r["fwd." + c], i + 2, "fwd." + c)) for i, r in enumerate(rows)]
            axes[2].plot(t, data, ":", color=color)
            axes[2].plot(t, sim, "-", color=color, label=c)
        lo = min(math.degrees(number(r[c], 2, c)) for r in rows for c in angles)
        hi = max(math.degrees(number(r[c], 2, c)) for r in rows for c in angles)
        axes[2].set_ylim(lo - 20, hi + 20)
        axes[2].set_ylabel("angle (deg): data dotted,\nforward solid")
        axes[2].legend(fontsize=7, ncol=4)
    # the contact cases' boundaries
    for i in range(1, len(rows)):
        if rows[i]["phase"] != rows[i - 1]["phase"]:
            for ax in axes:
                ax.axvline(t[i], color="grey", lw=0.6, ls="--")
    axes[-1].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    pc.save(fig, args.png, dpi=110)
    return 0


if __name__ == "__main__":
    pc.run("plot_inverse", main)
