#!/usr/bin/python3
"""Stability map of a two-parameter sweep: max |eigenvalue| as a heat map.

    scripts/plot_stability_map.py DIR/sweep.csv --out map.png \
        [--x NAME] [--y NAME] [--xlabel TEXT] [--ylabel TEXT] [--title TEXT] [--vmax V] [--boundary]

Stable gaits (every |eigenvalue| < 1) are shaded in blues by max |eigenvalue|
(darker: faster convergence), unstable gaits in oranges to reds (max |eigenvalue|
from 1 to --vmax, default 5, log scale), with --boundary a white line at
|eigenvalue| = 1 between converged points; points where the walker fell are black,
points where Newton did not converge are light grey with a cross, gaits whose
stability could not be computed are magenta.  --x and --y name the swept
columns (default: the first two after 'index'); with one swept column the
map is a strip.  Uses only the standard library and matplotlib (Agg), so it
runs with Debian's /usr/bin/python3 and python3-matplotlib.
"""
import argparse
import math

from plot_common import EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_stability_map")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib import colors  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

OUTCOMES = ("stable", "unstable", "fell", "not_converged", "no_stability", "degenerate")


def read(path, xname, yname):
    rows = read_csv(path, ("index", "outcome", "max_abs_eig"), "'stridemap sweep' CSV (DIR/sweep.csv)")
    cols = list(rows[0].keys())
    swept = cols[1:cols.index("outcome")]
    xname = xname or swept[0]
    yname = yname or (swept[1] if len(swept) > 1 else None)
    for n in (xname, yname):
        if n is not None and n not in cols:
            fail(EX_USAGE, f"no column '{n}' in {path} (swept: {', '.join(swept)})")
    return rows, xname, yname


def main():
    ap = Parser(prog="plot_stability_map", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("--x")
    ap.add_argument("--y")
    ap.add_argument("--xlabel")
    ap.add_argument("--ylabel")
    ap.add_argument("--title")
    ap.add_argument("--vmax", type=float, default=5.0)
    ap.add_argument("--boundary", action="store_true",
                    help="draw |eigenvalue| = 1 between converged neighbours (misleading where neighbours "
                         "lie on different gait families)")
    a = ap.parse_args()

    rows, xname, yname = read(a.csv, a.x, a.y)
    xs = sorted({float(r[xname]) for r in rows})
    ys = sorted({float(r[yname]) for r in rows}) if yname else [0.0]
    xi = {v: i for i, v in enumerate(xs)}
    yi = {v: i for i, v in enumerate(ys)}
    nan = float("nan")
    eig = [[nan] * len(xs) for _ in ys]
    kind = [[None] * len(xs) for _ in ys]
    counts = dict.fromkeys(OUTCOMES, 0)
    for r in rows:
        i, j = yi[float(r[yname])] if yname else 0, xi[float(r[xname])]
        kind[i][j] = r["outcome"]
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        v = float(r["max_abs_eig"])
        eig[i][j] = v if math.isfinite(v) else nan

    def layer(which):
        return [[eig[i][j] if kind[i][j] == which else nan for j in range(len(xs))] for i in range(len(ys))]

    def flag(which):
        return [[1.0 if kind[i][j] == which else nan for j in range(len(xs))] for i in range(len(ys))]

    def edges(v):
        if len(v) == 1:
            return [v[0] - 0.5, v[0] + 0.5]
        mids = [(p + q) / 2 for p, q in zip(v, v[1:])]
        return [2 * v[0] - mids[0]] + mids + [2 * v[-1] - mids[-1]]

    X, Y = edges(xs), edges(ys)
    fig = plt.figure(figsize=(8.6, 6.4), dpi=110)
    gs = fig.add_gridspec(1, 3, width_ratios=[30, 1, 1], wspace=0.45)
    ax, cax1, cax2 = fig.add_subplot(gs[0]), fig.add_subplot(gs[1]), fig.add_subplot(gs[2])
    # Neither colour map reaches white, so stable and unstable never look alike.
    blues = colors.LinearSegmentedColormap.from_list("stable", plt.get_cmap("Blues_r")(
        [k / 255 * 0.72 for k in range(256)]))
    reds = colors.LinearSegmentedColormap.from_list("unstable", plt.get_cmap("YlOrRd")(
        [0.3 + k / 255 * 0.7 for k in range(256)]))
    st = ax.pcolormesh(X, Y, layer("stable"), cmap=blues, norm=colors.Normalize(0.0, 1.0), shading="flat")
    un = ax.pcolormesh(X, Y, layer("unstable"), cmap=reds,
                       norm=colors.LogNorm(1.0, max(a.vmax, 1.0001)), shading="flat")
    ax.pcolormesh(X, Y, flag("fell"), cmap=colors.ListedColormap(["black"]), shading="flat")
    ax.pcolormesh(X, Y, flag("not_converged"), cmap=colors.ListedColormap(["#d0d0d0"]), shading="flat")
    ax.pcolormesh(X, Y, flag("no_stability"), cmap=colors.ListedColormap(["magenta"]), shading="flat")
    ax.pcolormesh(X, Y, flag("degenerate"), cmap=colors.ListedColormap(["#806040"]), shading="flat")
    if a.boundary and yname and len(xs) > 1 and len(ys) > 1:
        # The stability boundary |eigenvalue| = 1 between converged neighbours.
        import numpy as np
        z = np.ma.masked_invalid(np.array(eig, dtype=float))
        if z.count() > 3 and z.min() < 1.0 < z.max():
            ax.contour(xs, ys, z, levels=[1.0], colors="white", linewidths=1.2)
    nc = [(xs[j], ys[i]) for i in range(len(ys)) for j in range(len(xs)) if kind[i][j] == "not_converged"]
    if nc:
        ax.plot([p[0] for p in nc], [p[1] for p in nc], "x", color="#606060", ms=3, mew=0.6)
    cb1 = fig.colorbar(st, cax=cax1)
    cb1.set_label("stable: max |eigenvalue|")
    cb2 = fig.colorbar(un, cax=cax2, extend="max")
    cb2.set_label("unstable: max |eigenvalue| (log)")
    cb2.ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    cb2.ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    cb2.set_ticks([t for t in (1, 1.5, 2, 3, 5, 10, 20, 50, 100) if t <= max(a.vmax, 1.0001)])
    handles = [Patch(facecolor="black", label=f"fell ({counts.get('fell', 0)})"),
               Patch(facecolor="#d0d0d0", label=f"not converged ({counts.get('not_converged', 0)})"),
               Patch(facecolor="magenta", label=f"no eigenvalues ({counts.get('no_stability', 0)})"),
               Patch(facecolor="#806040", label=f"no step: standing ({counts.get('degenerate', 0)})"),
               Patch(facecolor=blues(0.5), label=f"stable ({counts.get('stable', 0)})"),
               Patch(facecolor=reds(0.6), label=f"unstable ({counts.get('unstable', 0)})")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=3, fontsize=8, frameon=False)
    ax.set_xlabel(a.xlabel or xname)
    ax.set_ylabel(a.ylabel or (yname or ""))
    if not yname:
        ax.set_yticks([])
    ax.set_title(a.title or f"stability map: {len(rows)} points")
    save(fig, a.out, bbox_inches="tight")
    print(f"{a.out}: {len(xs)} x {len(ys)} points; " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    run("plot_stability_map", main)
