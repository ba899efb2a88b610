#!/usr/bin/python3
"""A basin of attraction: the cells of 'stridemap basin' by outcome.

    scripts/plot_basin.py DIR/basin.csv basin.png [--json DIR/basin.json] [--title TEXT]

Cells that converge to the gait are green, darker the fewer strides they
took; cells that fell are coloured by the way they fell (backward blue,
forward orange, any other walker status purple), undecided cells (no verdict
within --max-strides) light grey, cells the solver could not finish
magenta.  The gait is a white star, taken from the run's JSON (basin.json
beside the CSV unless --json names another; without it, no star).  Uses
only the standard library and matplotlib (Agg): Debian's /usr/bin/python3
with python3-matplotlib.
"""
import argparse
import json
import math
import os

from plot_common import EX_DATAERR, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_basin")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

FALLS = {"fell_backward": "#3060c0", "fell_forward": "#f08020"}
OTHER_FALL, UNDECIDED, FAILED = "#8040a0", "#d0d0d0", "magenta"


def main():
    ap = Parser(prog="plot_basin", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--json")
    ap.add_argument("--title")
    a = ap.parse_args()

    rows = read_csv(a.csv, ("index", "outcome", "status", "strides"), "'stridemap basin' CSV (DIR/basin.csv)")
    cols = list(rows[0].keys())
    axes = cols[1:cols.index("outcome")]
    if len(axes) != 2:
        fail(EX_DATAERR, f"'{a.csv}' has {len(axes)} coordinate columns, not 2: expected a 'stridemap basin' CSV")
    xname, yname = axes
    xs = sorted({float(r[xname]) for r in rows})
    ys = sorted({float(r[yname]) for r in rows})
    xi = {v: i for i, v in enumerate(xs)}
    yi = {v: i for i, v in enumerate(ys)}
    nan = float("nan")
    strides = [[nan] * len(xs) for _ in ys]
    kind = [[None] * len(xs) for _ in ys]
    counts = {}
    for r in rows:
        i, j = yi[float(r[yname])], xi[float(r[xname])]
        o = r["outcome"]
        if o not in ("converged", "fell", "undecided", "failed"):
            fail(EX_DATAERR, f"'{a.csv}': outcome '{o}' is not one of converged, fell, undecided, failed")
        k = r["status"] if o == "fell" else o
        kind[i][j] = k
        counts[k] = counts.get(k, 0) + 1
        if o == "converged":
            strides[i][j] = float(int(r["strides"]))

    def flag(pred):
        return [[1.0 if kind[i][j] is not None and pred(kind[i][j]) else nan for j in range(len(xs))]
                for i in range(len(ys))]

    def edges(v):
        if len(v) == 1:
            return [v[0] - 0.5, v[0] + 0.5]
        mids = [(p + q) / 2 for p, q in zip(v, v[1:])]
        return [2 * v[0] - mids[0]] + mids + [2 * v[-1] - mids[-1]]

    X, Y = edges(xs), edges(ys)
    fig = plt.figure(figsize=(8.0, 6.4), dpi=110)
    gs = fig.add_gridspec(1, 2, width_ratios=[30, 1], wspace=0.12)
    ax, cax = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
    finite = [s for row in strides for s in row if not math.isnan(s)]
    greens = colors.LinearSegmentedColormap.from_list("conv", plt.get_cmap("Greens_r")(
        [k / 255 * 0.75 for k in range(256)]))
    mesh = ax.pcolormesh(X, Y, strides, cmap=greens, shading="flat",
                         norm=colors.Normalize(min(finite, default=0), max(max(finite, default=1), 1)))
    for name, colour in FALLS.items():
        ax.pcolormesh(X, Y, flag(lambda k, n=name: k == n), cmap=colors.ListedColormap([colour]), shading="flat")
    ax.pcolormesh(X, Y, flag(lambda k: k not in FALLS and k not in ("converged", "undecided", "failed")),
                  cmap=colors.ListedColormap([OTHER_FALL]), shading="flat")
    ax.pcolormesh(X, Y, flag(lambda k: k == "undecided"), cmap=colors.ListedColormap([UNDECIDED]), shading="flat")
    ax.pcolormesh(X, Y, flag(lambda k: k == "failed"), cmap=colors.ListedColormap([FAILED]), shading="flat")
    cb = fig.colorbar(mesh, cax=cax)
    cb.set_label("converged: strides to come within the return tolerance")

    side = a.json or os.path.join(os.path.dirname(a.csv) or ".", "basin.json")
    gait = None
    if os.path.exists(side):
        try:
            with open(side) as f:
                doc = json.load(f)
            gp = doc.get("gait_plane")
            if isinstance(gp, list) and len(gp) == 2:
                gait = (float(gp[0]), float(gp[1]))
        except (OSError, ValueError) as e:
            fail(EX_DATAERR, f"'{side}' is not a basin's JSON ({e})")
    elif a.json:
        fail(66, f"no file '{a.json}': check the path")
    if gait:
        ax.plot([gait[0]], [gait[1]], marker="*", ms=14, color="white", mec="black", mew=0.8, ls="none")

    other = sum(v for k, v in counts.items() if k not in FALLS and k not in ("converged", "undecided", "failed"))
    handles = [Patch(facecolor=greens(0.3), label=f"converged ({counts.get('converged', 0)})"),
               Patch(facecolor=FALLS["fell_backward"], label=f"fell backward ({counts.get('fell_backward', 0)})"),
               Patch(facecolor=FALLS["fell_forward"], label=f"fell forward ({counts.get('fell_forward', 0)})"),
               Patch(facecolor=OTHER_FALL, label=f"fell otherwise ({other})"),
               Patch(facecolor=UNDECIDED, label=f"undecided ({counts.get('undecided', 0)})"),
               Patch(facecolor=FAILED, label=f"solver failed ({counts.get('failed', 0)})")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize=8, frameon=False)
    ax.set_xlabel(xname)
    ax.set_ylabel(yname)
    conv = counts.get("converged", 0)
    ax.set_title(a.title or f"basin of attraction: {conv} of {len(rows)} cells converge")
    save(fig, a.png, bbox_inches="tight")
    print(f"{a.png}: {len(xs)} x {len(ys)} cells; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    run("plot_basin", main)
