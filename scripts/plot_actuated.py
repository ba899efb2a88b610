#!/usr/bin/python3
"""Draws an actuated walker's steps from a `stridemap simulate` CSV, to PNG:
a sagittal strip of stick figures, the actuators' torques over the steps
(each one's peak marked), the stance foot's ground force (normal force and
friction ratio |Ft|/Fn) and the swing foot's height.

  /usr/bin/python3 scripts/plot_actuated.py MODEL walk.csv out.png [--param NAME=VALUE]...

MODEL is three_link_hzd or five_link (models/*.yaml); --param gives the
geometry where it differs from the file's (three_link_hzd: r, L;
five_link: femur_length, tibia_length, torso_length).  The positions come
from the state columns alone: hip_x, hip_z and the absolute angles of the
files' hinges about +y (a body at angle q hangs along (-sin q, -cos q)).
"""
import math

from plot_common import EX_DATAERR, EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_actuated")
import matplotlib.pyplot as plt  # noqa: E402

DEFAULTS = {
    "three_link_hzd": {"r": 1.0, "L": 0.5},
    "five_link": {"femur_length": 0.4, "tibia_length": 0.4, "torso_length": 0.625},
}
ANGLES = {
    "three_link_hzd": ("leg_a", "leg_b", "torso"),
    "five_link": ("torso", "thigh_a", "shank_a", "thigh_b", "shank_b"),
}


def down(p, q, l):
    """The point l below p along a link at absolute angle q."""
    return (p[0] - l * math.sin(q), p[1] - l * math.cos(q))


def figure(model, s, p):
    """Segments [(x0, y0, x1, y1)] (stance leg, swing leg, torso), the
    stance and the swing foot."""
    hip = (s["hip_x"], s["hip_z"])
    if model == "three_link_hzd":
        st, sw = down(hip, s["leg_a"], p["r"]), down(hip, s["leg_b"], p["r"])
        top = down(hip, s["torso"], -p["L"])
        return [(*hip, *st), (*hip, *sw), (*hip, *top)], st, sw
    lf, lt = p["femur_length"], p["tibia_length"]
    ka, kb = down(hip, s["thigh_a"], lf), down(hip, s["thigh_b"], lf)
    fa = down(ka, s["thigh_a"] + s["shank_a"], lt)
    fb = down(kb, s["thigh_b"] + s["shank_b"], lt)
    top = down(hip, s["torso"], -p["torso_length"])
    return [(*hip, *ka), (*ka, *fa), (*hip, *kb), (*kb, *fb), (*hip, *top)], fa, fb


def main():
    ap = Parser(prog="plot_actuated", description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="three_link_hzd or five_link")
    ap.add_argument("csv", help="stridemap simulate output")
    ap.add_argument("out", help="PNG to write")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--figures", type=int, default=14, help="stick figures per step in the strip (default 14)")
    a = ap.parse_args()
    if a.model not in DEFAULTS:
        fail(EX_USAGE, f"no drawing for model '{a.model}': use three_link_hzd or five_link")
    p = dict(DEFAULTS[a.model])
    for kv in a.param:
        k, _, v = kv.partition("=")
        if k not in p or not v:
            fail(EX_USAGE, f"--param {kv}: {a.model} takes {', '.join(p)} as NAME=VALUE")
        p[k] = float(v)
    need = ("kind", "step", "time", "hip_x", "hip_z") + ANGLES[a.model]
    rows = read_csv(a.csv, need, "stridemap simulate CSV of %s" % a.model)
    torques = [c[:-len(".torque")] for c in rows[0] if c.endswith(".torque")]
    states = []
    for r in rows:
        if r["kind"] == "fail":
            continue
        s = {k: float(r[k]) for k in need[2:]}
        if not all(math.isfinite(v) for v in s.values()):
            fail(EX_DATAERR, f"'{a.csv}' has a state that is not a number at time {r['time']}")
        s["step"] = int(r["step"])
        s["kind"] = r["kind"]
        for c in torques:
            s[c] = float(r[c + ".torque"])
        for c in ("foot_a.fx", "foot_a.fz"):
            s[c] = float(r[c]) if c in r and r[c] else math.nan
        states.append(s)
    if len(states) < 2:
        fail(EX_DATAERR, f"'{a.csv}' has fewer than two samples: simulate at least one step")

    fig = plt.figure(figsize=(11, 8.5))
    gs = fig.add_gridspec(3, 2, height_ratios=[1.3, 1, 1])
    ax = fig.add_subplot(gs[0, :])
    steps = sorted({s["step"] for s in states})
    cmap = plt.get_cmap("viridis")
    t0, t1 = states[0]["time"], states[-1]["time"]
    for k in steps:
        ss = [s for s in states if s["step"] == k and s["kind"] in ("start", "sample", "pre")]
        pick = [ss[round(i * (len(ss) - 1) / max(a.figures - 1, 1))] for i in range(min(a.figures, len(ss)))]
        for s in pick:
            segs, _, _ = figure(a.model, s, p)
            c = cmap((s["time"] - t0) / (t1 - t0 or 1))
            for x0, y0, x1, y1 in segs:
                ax.plot([x0, x1], [y0, y1], "-", color=c, lw=1.2)
            ax.plot([s["hip_x"]], [s["hip_z"]], "o", color=c, ms=3)
    xs = [s["hip_x"] for s in states]
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlim(min(xs) - 0.5, max(xs) + 0.5)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_title("%s: %d step%s, colour by time" % (a.model, len(steps), "s" * (len(steps) > 1)))

    t = [s["time"] for s in states]
    ax = fig.add_subplot(gs[1, 0])
    for c in torques:
        u = [s[c] for s in states]
        line, = ax.plot(t, u, lw=1.2, label=c)
        i = max(range(len(u)), key=lambda j: abs(u[j]) if math.isfinite(u[j]) else -1)
        ax.plot([t[i]], [u[i]], "o", color=line.get_color(), ms=4)
        ax.annotate("%.1f" % u[i], (t[i], u[i]), textcoords="offset points", xytext=(3, 3), fontsize=7,
                    color=line.get_color())
    ax.set_xlabel("time (s)")
    ax.set_ylabel("torque (N m)")
    ax.set_title("actuators (dots: each one's peak |torque|)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)

    ax = fig.add_subplot(gs[1, 1])
    fz = [s["foot_a.fz"] for s in states]
    ax.plot(t, fz, color="C0", lw=1.2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("normal force (N)", color="C0")
    ax2 = ax.twinx()
    ratio = [abs(s["foot_a.fx"]) / s["foot_a.fz"] if s["foot_a.fz"] else math.nan for s in states]
    ax2.plot(t, ratio, color="C3", lw=1.0)
    ax2.set_ylabel("|Ft| / Fn", color="C3")
    ax.set_title("stance foot's ground force", fontsize=9)
    ax.grid(alpha=0.3)

    ax = fig.add_subplot(gs[2, 0])
    h = [figure(a.model, s, p)[2][1] for s in states]
    ax.plot(t, h, color="C2", lw=1.2)
    ax.axhline(0, color="k", lw=0.8)
    ax.fill_between(t, h, 0, where=[v < 0 for v in h], color="C3", alpha=0.3, label="below the ground")
    if any(v < 0 for v in h):
        ax.legend(fontsize=7)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("swing foot height (m)")
    ax.grid(alpha=0.3)

    ax = fig.add_subplot(gs[2, 1])
    for name in ANGLES[a.model]:
        ax.plot(t, [s[name] for s in states], lw=1.0, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("angle (rad)")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save(fig, a.out, dpi=110)


if __name__ == "__main__":
    run("plot_actuated", main)
