#!/usr/bin/python3
"""Draws one step of the nine-segment human under control
(models/human9.yaml) to OUTDIR/step.png, a sagittal strip of stick figures,
and OUTDIR/forces.png, each ground contact's normal and tangential force,
its friction ratio against mu, and the centre of pressure over the step.

  stridemap simulate models/human9.yaml --steps 1 --out step.csv
  stridemap params models/human9.yaml --json > params.json
  /usr/bin/python3 scripts/plot_human9.py OUTDIR --csv step.csv --params params.json
  /usr/bin/python3 scripts/plot_human9.py OUTDIR --exe build/src/cli/stridemap  # runs those two itself

Everything comes from the two files: the phases, the events and the times
from the CSV's rows, the forces from its NAME.fx / NAME.fz columns (NaN
where a phase does not hold the contact), the geometry and mu from the
parameters.  The figures are plot_human.py's human_hu9 drawing (the same
bodies; human9's base is hip_x, hip_z), the trunk drawn to the shoulder,
hat_com / 0.626 above the hip (Winter: the HAT's centre of mass is 0.626
of the way from the hip to the shoulder).

The centre of pressure includes the paper's fictitious toe moment tau0,
the ground's moment on the stance toe: x = (sum x_i F_n,i - tau0) / sum
F_n,i (single support: -tau0 / F_n from the stance toe tip).  The ZMP
column (from the whole body's accelerations alone) is drawn beside it as
a check, and their largest difference printed: they differ only by the
controller clock's weight (a point on a slide of the world, which the ZMP
counts as borne by the ground): 8e-5 m at the file's clock_mass of
0.01 kg, 8e-9 m at 1e-6 kg (tests/test_plot_human9.sh).
scripts/reproduce_human9.py's ground checks are this file's cop() and
friction() over the rows of load_step(), so the tables and the picture
are one computation.
"""
import json
import math
import os
import subprocess
import tempfile

from plot_common import EX_DATAERR, EX_NOINPUT, EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_human9")
import matplotlib.pyplot as plt  # noqa: E402
from plot_human import human_points, phases, shade  # noqa: E402

STATE = ("hip_x", "hip_z", "hat", "thigh_a", "shank_a", "foot_a", "toe_a", "thigh_b", "shank_b", "foot_b", "toe_b")
# models/human9.yaml's geometry, fractions of the height H (Winter 1990,
# Table 3.1 and Fig. 3.1; the foot's 0.152 H split 55 : 155 : 56 between
# the heel behind the ankle, the toe joint ahead of it and the toe)
WINTER = {"thigh_length": 0.245, "shank_length": 0.246, "ankle_height": 0.039, "heel_back": 0.152 * 55 / 266,
          "mtp_forward": 0.152 * 155 / 266, "toe_length": 0.152 * 56 / 266, "hat_length": 0.288}
COLOURS = {"a": "tab:blue", "b": "tab:red", "trunk": "0.25"}


def stridemap(exe, args):
    """Runs `exe args`; returns its stdout (a fall, exit 1, still wrote its rows)."""
    try:
        p = subprocess.run([exe] + args, capture_output=True, text=True)
    except OSError as e:
        fail(EX_NOINPUT, f"cannot run '{exe}': {e.strerror or e} (build it, or give --exe)")
    if p.returncode not in (0, 1):
        why = (p.stderr.strip().splitlines() or ["no message"])[-1]
        fail(p.returncode, f"stridemap {' '.join(args)}: {why}")
    return p.stdout


def load_params(path):
    try:
        with open(path) as f:
            d = json.load(f)
        p = {q["name"]: float(q["default"]) for q in d["params"]}
    except FileNotFoundError:
        fail(EX_NOINPUT, f"no file '{path}': check the path")
    except (ValueError, KeyError, TypeError) as e:
        fail(EX_DATAERR, f"'{path}' is not `stridemap params MODEL --json` output ({type(e).__name__}: {e})")
    if "height" not in p:
        fail(EX_DATAERR, f"'{path}' has no parameter 'height': expected the parameters of models/human9.yaml")
    p.update({k: f * p["height"] for k, f in WINTER.items()})
    return p


def load_step(path, p):
    """The step's rows up to its last event (the relabel after it swaps the
    legs' names), numbers as floats, each with the figure's points."""
    rows = read_csv(path, ("kind", "step", "time", "phase", "event") + STATE + ("tau0.torque",),
                    "`stridemap simulate models/human9.yaml` CSV")
    if len({r["step"] for r in rows}) > 1:
        fail(EX_DATAERR, f"'{path}' holds more than one step: simulate with --steps 1")
    ends = [i for i, r in enumerate(rows) if r["kind"] in ("pre", "fail")]
    rows = rows[:ends[-1] + 1] if ends else rows
    words = ("kind", "phase", "event")
    for r in rows:
        for k in r:
            if k not in words:
                r[k] = float(r[k])  # plot_common.run turns a bad value into one line, exit 65
        if not all(math.isfinite(r[k]) for k in STATE):
            fail(EX_DATAERR, f"'{path}': the state at time {r['time']} is not finite")
        legs, trunk = human_points(dict(r, **{"hat.x": r["hip_x"], "hat.z": r["hip_z"]}), p)
        r["legs"], r["trunk"] = legs, trunk
        # points by leg: [hip, knee, ankle, heel, toe joint, toe tip, ankle]
        r["x"] = {"heel_a": legs["a"][3][0], "tip_a": legs["a"][5][0], "heel_b": legs["b"][3][0],
                  "tip_b": legs["b"][5][0]}
    contacts = [k[:-3] for k in rows[0] if k.endswith(".fz")]
    if not contacts or not any(r["kind"] == "sample" for r in rows):
        fail(EX_DATAERR, f"'{path}' has no sample rows with contact forces (NAME.fz): simulate a body walker")
    return rows, contacts


def site(contact):
    """The point a contact of human9 acts at: tip_a, heel_b, ... (a slide
    or the flat-foot contact on a toe tip is at the tip)."""
    return ("heel_" if "heel" in contact else "tip_") + contact[-1]


def held(r, c):
    return math.isfinite(r[c + ".fz"])


# ---- the strip ----------------------------------------------------------------

def picks(rows, every):
    """The start, every event (its pre row), and a sample every `every`
    seconds not within every / 3 of those."""
    keep = [r for r in rows if r["kind"] in ("start", "pre", "fail")]
    samples = [r for r in rows if r["kind"] == "sample"]
    t, t_end = rows[0]["time"] + every, rows[-1]["time"]
    while t < t_end and samples:
        r = min(samples, key=lambda s: abs(s["time"] - t))
        if all(abs(r["time"] - k["time"]) > every / 3 for k in keep):
            keep.append(r)
        t += every
    return sorted(keep, key=lambda r: r["time"])


def extent(r):
    xs = [q[0] for pts in list(r["legs"].values()) + [r["trunk"]] for q in pts]
    return min(xs), max(xs)


def draw_step(rows, contacts, every, out):
    frames = picks(rows, every)
    fig, ax = plt.subplots(figsize=(13, 3.1))
    right = None
    for r in frames:
        # side by side: each frame shifted right to clear the one before it
        lo, hi = extent(r)
        dx = 0.0 if right is None else right + 0.08 - lo
        right = hi + dx
        event = r["kind"] in ("pre", "fail")
        lw = 2.2 if event else 1.3
        for name, pts in list(r["legs"].items()) + [("trunk", r["trunk"])]:
            ax.plot([q[0] + dx for q in pts], [q[2] for q in pts], color=COLOURS[name], lw=lw, solid_capstyle="round")
        touching = [r["x"][site(c)] + dx for c in contacts if held(r, c)]
        ax.plot(touching, [0.0] * len(touching), "k^", ms=5, zorder=3)
        mid = r["trunk"][0][0] + dx
        ax.annotate(f"{r['time']:.3f}" if event else f"{r['time']:.2f}", (mid, -0.03), ha="center", va="top",
                    fontsize=7)
        label = r["event"] if event else ("start" if r["kind"] == "start" else "")
        if label:
            ax.annotate(label.replace("_", "-"), (mid, r["trunk"][1][2] + 0.04), ha="center", fontsize=8,
                        weight="bold")
    ax.axhline(0.0, color="0.4", lw=1)
    ax.set_aspect("equal")
    ax.set_ylim(-0.1, max(r["trunk"][1][2] for r in frames) + 0.14)
    ax.set_yticks([0, 0.5, 1.0, 1.5])
    ax.set_xticks([])
    ax.set_ylabel("z (m)")
    ax.set_xlabel("time (s) under each figure", fontsize=8)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.plot([], [], color=COLOURS["a"], label="leg a: stance (toe tip pinned)")
    ax.plot([], [], color=COLOURS["b"], label="leg b: swing, then the front foot")
    ax.plot([], [], "k^", label="ground contacts in use")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3, frameon=False)
    ax.set_title(f"human9: one step of the gait, about every {every:g} s and at the events (thick), "
                 "side by side (each frame shifted right; true within a frame)", fontsize=9)
    fig.tight_layout()
    save(fig, out, dpi=110)
    plt.close(fig)


# ---- the forces ---------------------------------------------------------------

def friction(r, contacts, leg):
    """A foot's |F_t| / F_n, its contacts together, NaN where it has no
    load.  A flat foot is rigid on two points, whose split of the
    tangential force the rigid model leaves open (its toe contact is
    frictionless), so only the foot's whole ratio means anything."""
    feet = [c for c in contacts if c.endswith("_" + leg) and held(r, c)]
    fz = sum(r[c + ".fz"] for c in feet)
    return abs(sum(r[c + ".fx"] for c in feet)) / fz if fz > 0 else math.nan


def cop(r, contacts):
    """(the whole support's centre of pressure, the stance foot's, the front
    foot's), each x from the stance toe tip, NaN where it has no load."""
    x0 = r["x"]["tip_a"]
    sums = {"a": [0.0, 0.0], "b": [0.0, 0.0]}
    for c in contacts:
        if held(r, c):
            s = sums[c[-1]]
            s[0] += (r["x"][site(c)] - x0) * r[c + ".fz"]
            s[1] += r[c + ".fz"]
    sums["a"][0] -= r["tau0.torque"]
    ratio = lambda m, f: m / f if f > 0 else math.nan
    whole = ratio(sums["a"][0] + sums["b"][0], sums["a"][1] + sums["b"][1])
    return whole, ratio(*sums["a"]), ratio(*sums["b"])


def draw_forces(rows, contacts, p, out):
    samples = [r for r in rows if r["kind"] == "sample"]
    t = [r["time"] for r in samples]
    fig, axes = plt.subplots(4, 1, figsize=(9, 10), sharex=True)
    ax_n, ax_t, ax_mu, ax_c = axes
    total = [sum(r[c + ".fz"] for c in contacts if held(r, c)) for r in samples]
    ax_n.plot(t, total, color="k", lw=1.6, label="sum")
    mus = set()
    for n, c in enumerate(contacts):
        if not any(held(r, c) for r in samples):
            continue
        colour = plt.cm.tab10(n % 10)
        ax_n.plot(t, [r[c + ".fz"] for r in samples], color=colour, lw=1.2, label=c)
        ax_t.plot(t, [r[c + ".fx"] for r in samples], color=colour, lw=1.2, label=c)
        mus.add(p.get("mu_heel" if "heel" in c else "mu_toe", math.nan))
    for leg, name in (("a", "stance foot"), ("b", "front foot")):
        ratio = [friction(r, contacts, leg) for r in samples]
        if any(math.isfinite(v) for v in ratio):
            ax_mu.plot(t, ratio, color=COLOURS[leg], lw=1.2, label=name + " (its contacts together)")
    for mu in sorted(m for m in mus if math.isfinite(m)):
        ax_mu.axhline(mu, color="k", ls="--", lw=1, label=f"mu = {mu:g}")
    top = 1.6 * max([m for m in mus if math.isfinite(m)] or [1.0])
    ax_mu.set_ylim(0, top)
    ax_n.set_ylabel("normal force F_n (N)")
    ax_t.set_ylabel("tangential force F_t (N)\n(+ forward)")
    ax_mu.set_ylabel("|F_t| / F_n")
    for ax in (ax_n, ax_t):
        ax.axhline(0.0, color="0.5", lw=0.6)
        ax.legend(fontsize=7, ncol=4, loc="best")
    ax_mu.legend(fontsize=7, ncol=4, loc="upper left")
    ax_mu.set_title(f"(where F_n > 0; cut off above {top:.2g})", fontsize=8, loc="right")

    # the feet from the stance toe tip: the stance foot heel .. tip, the
    # front foot heel .. tip while it touches
    rel = lambda r, k: r["x"][k] - r["x"]["tip_a"]
    ax_c.fill_between(t, [rel(r, "heel_a") for r in samples], 0.0, color=COLOURS["a"], alpha=0.15, lw=0,
                      label="stance foot (heel .. toe tip)")
    front = [any(held(r, c) for c in contacts if c.endswith("_b")) for r in samples]
    ax_c.fill_between(t, [rel(r, "heel_b") for r in samples], [rel(r, "tip_b") for r in samples], where=front,
                      color=COLOURS["b"], alpha=0.15, lw=0, label="front foot (heel .. toe tip)")
    three = [cop(r, contacts) for r in samples]
    ax_c.plot(t, [c[0] for c in three], color="k", lw=1.6, label="centre of pressure (with tau0)")
    ax_c.plot(t, [c[1] if b else math.nan for c, b in zip(three, front)], color=COLOURS["a"], lw=0.9,
              label="double support: stance foot's")
    ax_c.plot(t, [c[2] if b else math.nan for c, b in zip(three, front)], color=COLOURS["b"], lw=0.9,
              label="front foot's")
    if "zmp.x" in samples[0]:
        ax_c.plot(t, [r["zmp.x"] - r["x"]["tip_a"] for r in samples], color="tab:orange", lw=1.0, ls=(0, (4, 3)),
                  label="ZMP (from the motion), a check")
    ys = [c[0] for c in three if math.isfinite(c[0])] + [rel(r, "heel_a") for r in samples] + \
         [rel(r, "tip_b") for r, f in zip(samples, front) if f]
    ax_c.set_ylim(min(ys) - 0.05, max(ys) + 0.05)
    ax_c.set_ylabel("x from the stance toe tip (m)")
    ax_c.legend(fontsize=7, ncol=2, loc="upper left")

    spans = phases(rows)
    for i, ax in enumerate(axes):
        shade(ax, spans, label=(i == 0))
        for r in rows:
            if r["kind"] == "pre":
                ax.axvline(r["time"], color="0.5", lw=0.6)
    for r in rows:
        if r["kind"] == "pre":
            ax_c.annotate(r["event"].replace("_", "-"), (r["time"], 0.02), xycoords=("data", "axes fraction"),
                          rotation=90, fontsize=7, ha="right", va="bottom", color="0.3")
    ax_c.set_xlabel("time (s)")
    fig.suptitle("human9: ground forces and the centre of pressure over one step of the gait (phases shaded)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    save(fig, out, dpi=110)
    plt.close(fig)


def main():
    ap = Parser(prog="plot_human9", description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", help="directory for step.png and forces.png")
    ap.add_argument("--csv", help="stridemap simulate models/human9.yaml --steps 1 output")
    ap.add_argument("--params", help="stridemap params models/human9.yaml --json output")
    ap.add_argument("--exe", help="run stridemap (this program) for the two files instead")
    ap.add_argument("--model", default="models/human9.yaml", help="the model file --exe runs (default %(default)s)")
    ap.add_argument("--every", type=float, default=0.05, help="seconds between figures of the strip (default 0.05)")
    a = ap.parse_args()
    if bool(a.exe) == bool(a.csv and a.params) or bool(a.csv) != bool(a.params):
        fail(EX_USAGE, "give either --csv FILE and --params FILE, or --exe STRIDEMAP")
    if not a.every > 0:
        fail(EX_USAGE, f"--every takes seconds > 0, not {a.every:g}")
    with tempfile.TemporaryDirectory(prefix="plot_human9_") as tmp:
        if a.exe:
            a.csv, a.params = os.path.join(tmp, "step.csv"), os.path.join(tmp, "params.json")
            stridemap(a.exe, ["simulate", a.model, "--steps", "1", "--out", a.csv])
            with open(a.params, "w") as f:
                f.write(stridemap(a.exe, ["params", a.model, "--json"]))
        p = load_params(a.params)
        rows, contacts = load_step(a.csv, p)
    draw_step(rows, contacts, a.every, os.path.join(a.outdir, "step.png"))
    draw_forces(rows, contacts, p, os.path.join(a.outdir, "forces.png"))
    gap = [abs(cop(r, contacts)[0] - (r["zmp.x"] - r["x"]["tip_a"])) for r in rows
           if r["kind"] == "sample" and "zmp.x" in r and math.isfinite(r["zmp.x"])]
    if gap:
        # two derivations of one point: the drawing's (forces, tau0, the
        # figure's sites) and the library's (the accelerations alone)
        print(f"centre of pressure against the ZMP: largest difference {max(gap):.2g} m over {len(gap)} samples")


if __name__ == "__main__":
    run("plot_human9", main)
