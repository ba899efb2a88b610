#!/usr/bin/python3
"""Draws a step of the human walkers from a `stridemap simulate` CSV, to PNG:
stick figures (human_hu9 from the side; biped3d from behind and from the
side), or with --forces the ground forces of each contact, their sum
against the weight, and the centre of pressure and the ZMP over the step,
phase by phase.

  stridemap simulate models/human_hu9.yaml --steps 1 --out hu.csv
  /usr/bin/python3 scripts/plot_human.py human_hu9 hu.csv hu.png [--forces] [--param NAME=VALUE]...

MODEL is human_hu9 or biped3d (models/*.yaml); --param gives the geometry
where it differs from the file's defaults.  Positions come from the state
columns alone, by the files' joints: hinges about +y turn +z toward +x,
about +x turn +y toward +z, about +z turn +x toward +y, each relative to
its parent.  Rows after the stride's last relabel (the legs swapped) are
not drawn: their names are the next step's.
"""
import math

from plot_common import EX_DATAERR, EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_human")
import matplotlib.pyplot as plt  # noqa: E402

DEFAULTS = {
    "human_hu9": {"thigh_length": 0.42875, "shank_length": 0.4305, "ankle_height": 0.06825, "heel_back": 0.055,
                  "mtp_forward": 0.155, "toe_length": 0.056, "hat_length": 0.504, "mass": 75.0, "gravity": 9.81},
    "biped3d": {"hip_half": 0.08, "thigh_len": 0.245, "shank_len": 0.246, "ankle_h": 0.039, "heel_back": 0.04,
                "toe_fwd": 0.112, "half_width": 0.0275, "hat_length": 0.288, "mass": 30.0, "gravity": 9.81},
}
STATE = {
    "human_hu9": ("hat.x", "hat.z", "hat", "thigh_a", "shank_a", "foot_a", "toe_a", "thigh_b", "shank_b", "foot_b",
                  "toe_b"),
    "biped3d": ("hat_x", "hat_y", "hat_z", "hat_yaw", "hat_roll", "hat", "hip_x_a", "thigh_a", "knee_a", "ankle_z_a",
                "ankle_x_a", "foot_a", "hip_x_b", "thigh_b", "knee_b", "ankle_z_b", "ankle_x_b", "foot_b"),
}
CONTACTS = {
    "human_hu9": ("tip_a", "tip_slide_a", "heel_b", "heel_slide_b", "flat_b"),
    "biped3d": ("heel_a", "heel_ao", "toe_a", "toe_ao", "toe_a_z", "heel_b", "heel_bo", "toe_b", "toe_bo"),
}
LEG_COLOURS = {"a": "tab:blue", "b": "tab:red", "trunk": "0.2"}


# ---- rotations (3x3 lists) -------------------------------------------------------

def mat(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def apply(r, v):
    return [sum(r[i][k] * v[k] for k in range(3)) for i in range(3)]


def rot(axis, t):
    c, s = math.cos(t), math.sin(t)
    if axis == "x":
        return [[1, 0, 0], [0, c, -s], [0, s, c]]
    if axis == "y":
        return [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def plus(p, r, v):
    return [a + b for a, b in zip(p, apply(r, v))]


# ---- the two walkers' points ------------------------------------------------------

def human_points(s, p):
    """{leg: [hip, knee, ankle, heel, toe joint, toe tip, ankle]}, and the
    trunk [hip, top], as 3-D points with y = 0."""
    hip = [s["hat.x"], 0.0, s["hat.z"]]
    r_hat = rot("y", s["hat"])
    legs = {}
    for leg in ("a", "b"):
        r1 = mat(r_hat, rot("y", s["thigh_" + leg]))
        knee = plus(hip, r1, [0, 0, -p["thigh_length"]])
        r2 = mat(r1, rot("y", s["shank_" + leg]))
        ankle = plus(knee, r2, [0, 0, -p["shank_length"]])
        r3 = mat(r2, rot("y", s["foot_" + leg]))
        heel = plus(ankle, r3, [-p["heel_back"], 0, -p["ankle_height"]])
        mtp = plus(ankle, r3, [p["mtp_forward"], 0, -p["ankle_height"]])
        tip = plus(mtp, mat(r3, rot("y", s["toe_" + leg])), [p["toe_length"], 0, 0])
        legs[leg] = [hip, knee, ankle, heel, mtp, tip, ankle]
    return legs, [hip, plus(hip, r_hat, [0, 0, p["hat_length"]])]


def biped_points(s, p):
    """{leg: [hip joint, knee, ankle, heel, toe, outer toe, outer heel, heel,
    ankle, toe]}, and the trunk [right hip, left hip, centre, top]."""
    centre = [s["hat_x"], s["hat_y"], s["hat_z"]]
    r_hat = mat(mat(rot("z", s["hat_yaw"]), rot("x", s["hat_roll"])), rot("y", s["hat"]))
    legs = {}
    for leg, side in (("a", -1), ("b", 1)):
        hip = plus(centre, r_hat, [0, side * p["hip_half"], 0])
        r1 = mat(mat(r_hat, rot("x", s["hip_x_" + leg])), rot("y", s["thigh_" + leg]))
        knee = plus(hip, r1, [0, 0, -p["thigh_len"]])
        r2 = mat(r1, rot("y", s["knee_" + leg]))
        ankle = plus(knee, r2, [0, 0, -p["shank_len"]])
        r3 = mat(mat(mat(r2, rot("z", s["ankle_z_" + leg])), rot("x", s["ankle_x_" + leg])), rot("y", s["foot_" + leg]))
        w, h = side * p["half_width"], -p["ankle_h"]
        heel, toe = plus(ankle, r3, [-p["heel_back"], 0, h]), plus(ankle, r3, [p["toe_fwd"], 0, h])
        toe_o, heel_o = plus(ankle, r3, [p["toe_fwd"], w, h]), plus(ankle, r3, [-p["heel_back"], w, h])
        legs[leg] = [hip, knee, ankle, heel, toe, toe_o, heel_o, heel, ankle, toe]
    top = plus(centre, r_hat, [0, 0, p["hat_length"]])
    return legs, [legs["a"][0], legs["b"][0], centre, top]


POINTS = {"human_hu9": human_points, "biped3d": biped_points}


# ---- reading ----------------------------------------------------------------------

def number(path, r, k):
    try:
        return float(r[k])
    except ValueError:
        fail(EX_DATAERR, f"'{path}': column {k} holds '{r[k]}', not a number")


def read(a):
    what = f"'stridemap simulate' CSV of models/{a.model}.yaml"
    rows = read_csv(a.csv, ("kind", "step", "time", "phase") + STATE[a.model], what)
    if len({r["step"] for r in rows}) > 1:
        fail(EX_DATAERR, f"'{a.csv}' holds more than one step: simulate with --steps 1")
    # the stride's last relabel swaps the legs' names: stop before it
    drawn = []
    for r in rows:
        if r["kind"] not in ("start", "sample", "pre", "post", "fail"):
            continue
        if r["kind"] == "post" and r.get("event") in ("toeoff",):
            break
        for k in ("step", "time") + STATE[a.model]:
            r[k] = number(a.csv, r, k)
        drawn.append(r)
    if not drawn:
        fail(EX_DATAERR, f"'{a.csv}' has no state rows (kind start, sample, pre, post or fail)")
    return drawn


def params(a):
    p = dict(DEFAULTS[a.model])
    for kv in a.param:
        k, _, v = kv.partition("=")
        if k not in p:
            fail(EX_USAGE, f"--param {k}: the drawing of {a.model} reads only {', '.join(p)}")
        try:
            p[k] = float(v)
        except ValueError:
            fail(EX_USAGE, f"--param takes NAME=VALUE with a number, not '{kv}'")
    return p


def phases(rows):
    """[(phase, t0, t1)] in the order the rows pass through them."""
    out = []
    for r in rows:
        if r["kind"] != "sample":
            continue
        if out and out[-1][0] == r["phase"]:
            out[-1][2] = r["time"]
        else:
            out.append([r["phase"], r["time"], r["time"]])
    return out


def shade(ax, spans, label=False):
    for i, (name, t0, t1) in enumerate(spans):
        ax.axvspan(t0, t1, color="0.92" if i % 2 else "0.98", zorder=0)
        if label:
            ax.annotate(name, ((t0 + t1) / 2, 1.0), xycoords=("data", "axes fraction"), ha="center", va="bottom",
                        fontsize=7, color="0.3")


# ---- stick figures ----------------------------------------------------------------

def chosen(rows, count):
    """Rows to draw: the start, every event's pre row, and about count samples."""
    samples = [r for r in rows if r["kind"] == "sample"]
    every = max(1, len(samples) // max(1, count))
    keep, n = [], 0
    for r in rows:
        n += r["kind"] == "sample"
        if r["kind"] in ("start", "pre", "fail") or (r["kind"] == "sample" and n % every == 0):
            keep.append(r)
    return keep


def draw_figures(a, rows, p):
    keep = chosen(rows, a.figures)
    t_end = max(rows[-1]["time"], 1e-12)
    views = [("side", 0, "x forward (m)")] if a.model == "human_hu9" else [("from behind", 1, "y to the left (m)"),
                                                                          ("from the side", 0, "x forward (m)")]
    fig, axes = plt.subplots(1, len(views), figsize=(13, 5) if len(views) == 2 else (12, 4.5), squeeze=False,
                             gridspec_kw={"width_ratios": [1, 2.4]} if len(views) == 2 else None)
    for r in keep:
        legs, trunk = POINTS[a.model](r, p)
        fade = 0.25 + 0.75 * r["time"] / t_end
        lw = 2.0 if r["kind"] != "sample" else 0.9
        for ax, (_, i, _) in zip(axes[0], views):
            for leg, pts in legs.items():
                ax.plot([q[i] for q in pts], [q[2] for q in pts], color=LEG_COLOURS[leg], alpha=fade, lw=lw)
            ax.plot([q[i] for q in trunk], [q[2] for q in trunk], color=LEG_COLOURS["trunk"], alpha=fade, lw=lw)
            if r["kind"] == "pre":
                ax.annotate(r.get("event", ""), (trunk[-1][i], trunk[-1][2]), textcoords="offset points",
                            xytext=(2, 4), fontsize=7, rotation=30)
    for ax, (title, _, label) in zip(axes[0], views):
        ax.axhline(0.0, color="0.4", lw=1)
        ax.set_xlabel(label)
        ax.set_ylabel("z up (m)")
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_title(title, fontsize=10)
    fig.suptitle(f"{a.model}: one spring-held step, not a gait ({rows[0]['time']:.3g} to {t_end:.3g} s; "
                 "blue: leg a (stance), red: leg b; thick: events; faint: earlier)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save(fig, a.out, dpi=110)


# ---- forces -----------------------------------------------------------------------

def draw_forces(a, rows, p):
    samples = [r for r in rows if r["kind"] == "sample"]
    if not samples:
        fail(EX_DATAERR, f"'{a.csv}' has no sample rows: simulate writes them with the contact forces")
    three_d = a.model == "biped3d"
    need = ["cop.x", "zmp.x"] + (["cop.y", "zmp.y"] if three_d else [])
    contacts = [c for c in CONTACTS[a.model] if c + ".fz" in samples[0]]
    if not contacts:
        fail(EX_DATAERR, f"'{a.csv}' has no contact force columns (NAME.fz): expected {what_cols(a.model)}")
    for k in need:
        if k not in samples[0]:
            fail(EX_DATAERR, f"'{a.csv}' has no column '{k}': expected a simulate CSV of models/{a.model}.yaml")
    t = [r["time"] for r in samples]
    col = lambda k: [number(a.csv, r, k) for r in samples]
    spans = phases(rows)
    panels = 4 if three_d else 3
    fig, axes = plt.subplots(panels, 1, figsize=(10, 2.4 * panels + 0.6), sharex=True)
    weight = p["mass"] * p["gravity"]
    total = [0.0] * len(samples)
    for n, c in enumerate(contacts):
        fz = col(c + ".fz")
        total = [s + (0.0 if math.isnan(f) else f) for s, f in zip(total, fz)]
        if any(not math.isnan(f) for f in fz):
            colour = plt.cm.tab10(n % 10)
            axes[0].plot(t, fz, lw=1.2, color=colour, label=c)
            axes[1].plot(t, col(c + ".fx"), lw=1.2, color=colour)
            if three_d and c + ".fy" in samples[0]:
                axes[1].plot(t, col(c + ".fy"), lw=0.9, ls="--", color=colour)
    axes[0].plot(t, total, color="k", lw=1.6, label="sum")
    axes[0].axhline(weight, color="tab:green", lw=0.8, ls=":", label=f"weight {weight:.2f} N")
    axes[0].set_ylabel("normal force F_z (N)")
    axes[1].set_ylabel("F_x" + (" (solid), F_y (dashed)" if three_d else "") + " (N)")
    for ax in axes[:2]:
        ax.axhline(0.0, color="0.5", lw=0.6)
    axes[0].legend(fontsize=7, ncol=4, loc="upper right")
    dims = (("x", 2),) + ((("y", 3),) if three_d else ())
    for k, i in dims:
        axes[i].plot(t, col("cop." + k), color="k", lw=1.4, label="centre of pressure (point forces)")
        axes[i].plot(t, col("zmp." + k), color="tab:orange", lw=1.0, ls="--", label="ZMP (the motion's)")
        axes[i].set_ylabel(f"{k} (m)")
        axes[i].legend(fontsize=7, loc="best")
    for i, ax in enumerate(axes):
        shade(ax, spans, label=(i == 0))
    axes[-1].set_xlabel("time (s)")
    note = " (tau0, the ground's moment on the toe, moves the ZMP off the CoP)" if a.model == "human_hu9" else ""
    fig.suptitle(f"{a.model}: ground forces over one spring-held step, not a gait{note}", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    save(fig, a.out, dpi=110)


def what_cols(model):
    return ", ".join(c + ".fz" for c in CONTACTS[model][:3]) + ", ..."


def main():
    ap = Parser(prog="plot_human", description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="human_hu9 or biped3d")
    ap.add_argument("csv", help="stridemap simulate --steps 1 output")
    ap.add_argument("out", help="PNG to write")
    ap.add_argument("--forces", action="store_true", help="ground forces and centre of pressure, not stick figures")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--figures", type=int, default=16, help="stick figures drawn besides the events' (default 16)")
    a = ap.parse_args()
    if a.model not in DEFAULTS:
        fail(EX_USAGE, f"model '{a.model}': expected one of {', '.join(DEFAULTS)}")
    if a.figures < 1:
        fail(EX_USAGE, f"--figures takes a count >= 1, not {a.figures}")
    p = params(a)
    rows = read(a)
    (draw_forces if a.forces else draw_figures)(a, rows, p)


if __name__ == "__main__":
    run("plot_human", main)
