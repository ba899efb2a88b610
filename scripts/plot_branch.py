#!/usr/bin/python3
"""Draws the branches of a `stridemap continue` CSV: a state variable (or the
step period, or max |multiplier|) against the continued parameter, solid
where the gait is stable and dashed where it is not, one colour per period,
bifurcations marked with AUTO's labels (LP, PD, NS; EP ends; MX failures).

    /usr/bin/python3 scripts/plot_branch.py branch.csv branch.png [--y theta]
        [--title TEXT] [--orbit orbit.csv]

--y names a CSV column (default: the first state variable); --orbit overlays
the dots of a `stridemap orbit` CSV of the same model and parameter.
Uses Debian's python3-matplotlib with the Agg backend (no display needed).
"""
import argparse
import math

from plot_common import EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_branch")
import matplotlib.pyplot as plt  # noqa: E402

FIXED = ("branch", "period")


def num(v):
    """A number; an empty field is NaN."""
    return math.nan if v == "" else float(v)


def main():
    ap = Parser(prog="plot_branch", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--y", help="column to draw (default: the first state variable)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--orbit", help="a stridemap orbit CSV to overlay")
    ap.add_argument("--xmin", type=float)
    ap.add_argument("--xmax", type=float)
    a = ap.parse_args()

    rows = read_csv(a.csv, ("branch", "period", "type", "stable"), "'stridemap continue' CSV")
    cols = list(rows[0].keys())
    param = cols[2]
    y = a.y or cols[4]
    if y not in cols:
        fail(EX_USAGE, "no column '%s' in %s (columns: %s)" % (y, a.csv, ", ".join(cols)))

    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ox, oy = [], []
    if a.orbit:
        orows = read_csv(a.orbit, ("kind",), "'stridemap orbit' CSV")
        if y in orows[0] and param in orows[0]:
            ox = [num(r[param]) for r in orows if r["kind"] == "visit"]
            oy = [num(r[y]) for r in orows if r["kind"] == "visit"]
            ax.plot(ox, oy, ".", ms=0.8, color="0.55", zorder=1)
            ax.plot([], [], ".", ms=5, color="0.55", label="orbit (simulation)")

    branches = {}
    for r in rows:
        branches.setdefault(int(r["branch"]), []).append(r)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    periods_seen = set()
    for b, pts in sorted(branches.items()):
        period = int(pts[0]["period"])
        colour = colours[(period.bit_length() - 1) % len(colours)]
        # Consecutive points of one stability form one segment; a located
        # bifurcation (LP, PD, NS) ends one segment and starts the next.
        pts_ok = [r for r in pts if r["type"] != "MX"]
        seg_x, seg_y, seg_stable = [], [], None
        for i, r in enumerate(pts_ok):
            xv, yv = num(r[param]), num(r[y])
            s = r["stable"] == "1"
            boundary = r["type"] in ("LP", "PD", "NS", "BP")
            if boundary:
                seg_x.append(xv)
                seg_y.append(yv)
                if seg_x and seg_stable is not None:
                    ax.plot(seg_x, seg_y, "-" if seg_stable else "--", color=colour, lw=1.6 if seg_stable else 1.0)
                nxt = pts_ok[i + 1]["stable"] == "1" if i + 1 < len(pts_ok) else s
                seg_x, seg_y, seg_stable = [xv], [yv], nxt
                continue
            if seg_stable is not None and s != seg_stable:
                seg_x.append(xv)
                seg_y.append(yv)
                ax.plot(seg_x, seg_y, "-" if seg_stable else "--", color=colour, lw=1.6 if seg_stable else 1.0)
                seg_x, seg_y = [], []
            seg_x.append(xv)
            seg_y.append(yv)
            seg_stable = s
        if len(seg_x) > 1:
            ax.plot(seg_x, seg_y, "-" if seg_stable else "--", color=colour, lw=1.6 if seg_stable else 1.0)
        if period not in periods_seen:
            ax.plot([], [], "-", color=colour, label="period %d (solid: stable, dashed: unstable)" % period)
            periods_seen.add(period)
        for r in pts:
            t = r["type"]
            if t in ("LP", "PD", "NS", "BP", "MX"):
                xv, yv = num(r[param]), num(r[y])
                marker = {"LP": "s", "PD": "o", "NS": "D", "BP": "^", "MX": "x"}[t]
                ax.plot([xv], [yv], marker, color="k", ms=5, mfc="none" if t != "MX" else "k", zorder=5)
                ax.annotate(t, (xv, yv), textcoords="offset points", xytext=(4, 4), fontsize=8)
    if a.xmin is not None or a.xmax is not None:
        ax.set_xlim(a.xmin, a.xmax)
        # Fit y to what is visible.
        lo, hi = ax.get_xlim()
        ys = [num(r[y]) for r in rows if lo <= num(r[param]) <= hi and r["type"] != "MX"]
        if a.orbit:
            ys += [v for xv, v in zip(ox, oy) if lo <= xv <= hi]
        ys = [v for v in ys if math.isfinite(v)]
        if ys:
            pad = 0.05 * (max(ys) - min(ys) or 1.0)
            ax.set_ylim(min(ys) - pad, max(ys) + pad)
    ax.set_xlabel(param)
    ax.set_ylabel(y)
    ax.set_title(a.title or "stridemap continue: %s against %s" % (y, param))
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    save(fig, a.png)
    print("wrote %s" % a.png)


if __name__ == "__main__":
    run("plot_branch", main)
