#!/usr/bin/python3
"""Draws a walker's steps from a `stridemap simulate` CSV: a strip of stick
figures (every few samples, the ground, the feet) and the phase portrait of
its stance coordinate, to PNG.

  /usr/bin/python3 scripts/plot_gait.py MODEL walk.csv out.png [--param NAME=VALUE]...

MODEL is simplest, compass, rimless or slip; --param gives the geometry the
drawing needs when it differs from the model's defaults (compass: a, b, gamma;
rimless: n, l, gamma; slip: L0, alpha0; simplest: gamma).
"""
import argparse
import math

from plot_common import EX_DATAERR, EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_gait")
import matplotlib.pyplot as plt  # noqa: E402

DEFAULTS = {
    "simplest": {"gamma": 0.009},
    "compass": {"a": 0.5, "b": 0.5, "gamma": 0.05235987755982988},
    "rimless": {"n": 10, "l": 1.0, "gamma": 0.08},
    "slip": {"L0": 1.0, "alpha0": 1.2042771838760873},
}


def rot(x, y, g):
    """Slope frame (along, normal) to the world (x forward, y up) on a slope g."""
    return x * math.cos(g) + y * math.sin(g), -x * math.sin(g) + y * math.cos(g)


def figure(model, s, p, foot):
    """Segments [(x0, y0, x1, y1)], points [(x, y, size)] and the swing foot's
    position (world), for state s with the stance foot at `foot` (world)."""
    fx, fy = foot
    if model == "simplest":
        th, ph = s["theta"], s["phi"]
        g = p["gamma"]
        hx, hy = rot(-math.sin(th), math.cos(th), g)
        wx, wy = rot(-math.sin(th) + math.sin(th - ph), math.cos(th) - math.cos(th - ph), g)
        hip = (fx + hx, fy + hy)
        swing = (fx + wx, fy + wy)
        return [(fx, fy, *hip), (*hip, *swing)], [(*hip, 60)], swing
    if model == "compass":
        l = p["a"] + p["b"]
        st, sw = s["th_st"], s["th_sw"]
        hip = (fx + l * math.sin(st), fy + l * math.cos(st))
        swing = (hip[0] - l * math.sin(sw), hip[1] - l * math.cos(sw))
        m1 = (fx + p["a"] * math.sin(st), fy + p["a"] * math.cos(st))
        m2 = (hip[0] - p["b"] * math.sin(sw), hip[1] - p["b"] * math.cos(sw))
        return [(fx, fy, *hip), (*hip, *swing)], [(*hip, 60), (*m1, 25), (*m2, 25)], swing
    if model == "rimless":
        th, n, l, g = s["theta"], int(p["n"]), p["l"], p["gamma"]
        hx, hy = rot(-l * math.sin(th), l * math.cos(th), g)
        hub = (fx + hx, fy + hy)
        segs = []
        for k in range(n):
            a = th + 2 * math.pi * k / n
            ex, ey = rot(l * math.sin(a), -l * math.cos(a), g)
            segs.append((*hub, hub[0] + ex, hub[1] + ey))
        a = th + 2 * math.pi / n  # the spoke ahead, which strikes next
        ex, ey = rot(l * math.sin(a), -l * math.cos(a), g)
        return segs, [(*hub, 60)], (hub[0] + ex, hub[1] + ey)
    if model == "slip":
        body = (fx + s["x"], fy + s["y"])
        segs = [(fx, fy, *body)]
        if s["phase"] == "double":
            segs.append((*body, fx + s["xf"], fy))
            swing = (fx + s["xf"], fy)
        else:
            a = p["alpha0"]
            swing = (body[0] + p["L0"] * math.cos(a), body[1] - p["L0"] * math.sin(a))
            segs.append((*body, *swing))
        return segs, [(*body, 80)], swing
    fail(EX_USAGE, f"no drawing for model '{model}'")


# The columns a drawing reads, besides simulate's own.
NEEDS = {"simplest": ("theta", "theta_dot", "phi"), "compass": ("th_st", "th_sw", "dth_st"),
         "rimless": ("theta", "theta_dot"), "slip": ("x", "y", "vy", "xf")}

PORTRAIT = {"simplest": ("theta", "theta_dot"), "compass": ("th_st", "dth_st"), "rimless": ("theta", "theta_dot"),
            "slip": ("y", "vy")}


def main():
    ap = Parser(prog="plot_gait", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--every", type=int, default=0, help="draw every K-th sample (default: about 12 per step)")
    a = ap.parse_args()
    if a.model not in DEFAULTS:
        fail(EX_USAGE, f"no drawing for model '{a.model}' (have {', '.join(DEFAULTS)})")
    p = dict(DEFAULTS[a.model])
    for kv in a.param:
        k, _, v = kv.partition("=")
        try:
            p[k] = float(v)
        except ValueError:
            fail(EX_USAGE, f"--param takes NAME=VALUE with a number, not '{kv}'")
    rows = read_csv(a.csv, ("kind", "step", "time", "phase", "event") + NEEDS[a.model],
                    f"'stridemap simulate {a.model}' CSV")
    states = [r for r in rows if r["kind"] in ("start", "sample", "pre", "post", "fail")]
    if not states:
        fail(EX_DATAERR, f"'{a.csv}' has no state rows (kind start, sample, pre, post or fail)")
    for r in states:
        for k, v in r.items():
            if k not in ("kind", "phase", "event"):
                try:
                    r[k] = float(v)
                except ValueError:
                    fail(EX_DATAERR, f"'{a.csv}': column {k} holds '{v}', not a number")
    steps = max(int(r["step"]) for r in states) + 1
    per_step = 4 if a.model == "rimless" else 12  # a wheel draws all its spokes
    every = a.every or max(1, sum(r["kind"] == "sample" for r in states) // (per_step * steps))

    fig, (ax, axp) = plt.subplots(1, 2, figsize=(13, 4.2), gridspec_kw={"width_ratios": [2.3, 1]})
    foot = (0.0, 0.0)
    xs = []
    n_sample = 0
    colours = plt.cm.viridis
    for r in states:
        segs, pts, swing = figure(a.model, r, p, foot)
        if r["kind"] == "sample":
            n_sample += 1
        draw = r["kind"] in ("start", "fail") or (r["kind"] == "sample" and n_sample % every == 0) or r["kind"] == "pre"
        if draw:
            c = colours(r["time"] / max(states[-1]["time"], 1e-12))
            for x0, y0, x1, y1 in segs:
                ax.plot([x0, x1], [y0, y1], color=c, lw=1.2 if r["kind"] == "sample" else 2.2)
            for x, y, size in pts:
                ax.scatter([x], [y], s=size, color=c, zorder=3)
            xs += [s[0] for s in segs] + [s[2] for s in segs]
        if r["kind"] == "pre" and r["event"] in ("heelstrike", "spoke_strike"):
            foot = swing
        if r["kind"] == "pre" and r["event"] == "toeoff":
            foot = (foot[0] + r["xf"], foot[1])
    lo, hi = min(xs) - 0.2, max(xs) + 0.2
    g = p.get("gamma", 0.0)
    ax.plot([lo, hi], [-lo * math.tan(g), -hi * math.tan(g)], color="0.3", lw=1)
    ax.set_aspect("equal")
    ax.set_title(f"{a.model}: {steps} step{'s' if steps > 1 else ''} (colour: time)")
    ax.set_xlabel("forward")

    u, v = PORTRAIT[a.model]
    for k in range(steps):
        seg = [r for r in states if int(r["step"]) == k and r["kind"] in ("start", "sample", "pre")]
        axp.plot([r[u] for r in seg], [r[v] for r in seg], lw=1.2, label=f"step {k}")
    axp.set_xlabel(u)
    axp.set_ylabel(v)
    axp.set_title("phase portrait")
    axp.grid(alpha=0.3)
    if steps <= 6:
        axp.legend(fontsize=8)
    fig.tight_layout()
    save(fig, a.png, dpi=110)


if __name__ == "__main__":
    run("plot_gait", main)
