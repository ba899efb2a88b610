#!/usr/bin/python3
"""Draws Garcia's 3-D walker (models/garcia3d.yaml) over a few steps from a
`stridemap simulate` CSV, from behind (cross-slope y against the slope's
normal z) and from the side (downhill x against z), to PNG; or, with
--eigen, the eigenvectors of a gait's multipliers from `stridemap fixed
--json`: a bar chart of each large multiplier's eigenvector components,
coloured by the kind of motion (sagittal, lateral, heading) of each.

  stridemap simulate models/garcia3d.yaml --steps 4 --out walk.csv
  /usr/bin/python3 scripts/plot_walker3d.py walk.csv walk.png [--param NAME=VALUE]...
  stridemap fixed models/garcia3d.yaml --json > gait.json
  /usr/bin/python3 scripts/plot_walker3d.py --eigen gait.json modes.png [--min-modulus M]

Coordinates are the slope's (x downhill along it, y to the left, z normal
to it).  The file's mirror (y -> -y, legs swapped) is undone: rows of odd
steps are reflected back, so the picture shows left and right steps.
--param gives the geometry when it differs from the file's defaults
(hip_width, leg_length, foot_radius).
"""
import argparse
import json
import math

from plot_common import EX_DATAERR, EX_NOINPUT, EX_USAGE, Parser, fail, need_matplotlib, read_csv, run, save

need_matplotlib("plot_walker3d")
import matplotlib.pyplot as plt  # noqa: E402

DEFAULTS = {"hip_width": 0.02, "leg_length": 1.0, "foot_radius": 0.2}
STATE = ("hip_x", "hip_y", "hip_z", "hip_yaw", "hip_roll", "leg_a", "leg_b")
MODE_COLOURS = {"sagittal": "tab:blue", "lateral": "tab:red", "heading": "tab:green"}


def mat(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def apply(r, v):
    return [sum(r[i][k] * v[k] for k in range(3)) for i in range(3)]


def rot_z(t):
    c, s = math.cos(t), math.sin(t)
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def rot_x(t):
    c, s = math.cos(t), math.sin(t)
    return [[1, 0, 0], [0, c, -s], [0, s, c]]


def rot_y(t):
    c, s = math.cos(t), math.sin(t)
    return [[c, 0, s], [0, 1, 0], [-s, 0, c]]


def walker(s, p):
    """The hip, and for each leg its hip joint, disk centre and disk rim
    (points in the slope frame), for state s as the file's bodies place them:
    hip slides, heading about z, bank about x; legs hinged about -y at
    y = -+w/2, each disk of radius R in its leg's plane, l - R below the hip."""
    w, l, rad = p["hip_width"], p["leg_length"], p["foot_radius"]
    hip = [s["hip_x"], s["hip_y"], s["hip_z"]]
    r_hip = mat(rot_z(s["hip_yaw"]), rot_x(s["hip_roll"]))
    legs = []
    for angle, side in ((s["leg_a"], -1), (s["leg_b"], 1)):
        joint = [h + d for h, d in zip(hip, apply(r_hip, [0, side * w / 2, 0]))]
        r_leg = mat(r_hip, rot_y(-angle))  # a hinge about -y
        centre = [j + d for j, d in zip(joint, apply(r_leg, [0, 0, rad - l]))]
        fwd, up = apply(r_leg, [1, 0, 0]), apply(r_leg, [0, 0, 1])
        rim = [[c + rad * (math.cos(t) * f + math.sin(t) * u) for c, f, u in zip(centre, fwd, up)]
               for t in (2 * math.pi * k / 36 for k in range(37))]
        legs.append((joint, centre, rim))
    return hip, legs


def mirror(points):
    return [[x, -y, z] for x, y, z in points]


def draw_walk(a):
    p = dict(DEFAULTS)
    for kv in a.param:
        k, _, v = kv.partition("=")
        if k not in p:
            fail(EX_USAGE, f"--param {k}: the drawing reads only {', '.join(p)}")
        try:
            p[k] = float(v)
        except ValueError:
            fail(EX_USAGE, f"--param takes NAME=VALUE with a number, not '{kv}'")
    rows = read_csv(a.input, ("kind", "step", "time") + STATE, "'stridemap simulate' CSV of models/garcia3d.yaml")
    states = [r for r in rows if r["kind"] in ("start", "sample", "pre", "post", "fail")]
    if not states:
        fail(EX_DATAERR, f"'{a.input}' has no state rows (kind start, sample, pre, post or fail)")
    for r in states:
        for k in ("step", "time") + STATE:
            try:
                r[k] = float(r[k])
            except ValueError:
                fail(EX_DATAERR, f"'{a.input}': column {k} holds '{r[k]}', not a number")
    steps = int(max(r["step"] for r in states)) + 1
    samples = sum(r["kind"] == "sample" for r in states)
    every = a.every or max(1, samples // (10 * steps))
    t_end = max(states[-1]["time"], 1e-12)

    fig, (back, side) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1, 2.2]})
    n_sample = 0
    for r in states:
        n_sample += r["kind"] == "sample"
        if not (r["kind"] in ("start", "pre", "fail") or (r["kind"] == "sample" and n_sample % every == 0)):
            continue
        # the file mirrors the world at each heel-strike: a post row is the next step's
        flips = int(r["step"]) + (1 if r["kind"] == "post" else 0)
        hip, legs = walker(r, p)
        colour = plt.cm.viridis(r["time"] / t_end)
        lw = 2.2 if r["kind"] != "sample" else 1.0
        for joint, centre, rim in legs:
            pts = [hip, joint, centre]
            if flips % 2:
                pts, rim = mirror(pts), mirror(rim)
            for ax, i in ((back, 1), (side, 0)):
                ax.plot([q[i] for q in pts], [q[2] for q in pts], color=colour, lw=lw)
                ax.plot([q[i] for q in rim], [q[2] for q in rim], color=colour, lw=0.6)
        h = mirror([hip])[0] if flips % 2 else hip
        back.scatter([h[1]], [h[2]], s=40, color=colour, zorder=3)
        side.scatter([h[0]], [h[2]], s=40, color=colour, zorder=3)
    for ax, label in ((back, "y across the slope (m)"), (side, "x down the slope (m)")):
        ax.axhline(0.0, color="0.4", lw=1)
        ax.set_xlabel(label)
        ax.set_ylabel("z normal to the slope (m)")
        ax.set_aspect("equal", adjustable="datalim")
    back.set_title("from behind")
    side.set_title(f"from the side, {steps} step{'s' if steps != 1 else ''} (colour: time)")
    fig.tight_layout()
    save(fig, a.output, dpi=110)


def draw_eigen(a):
    try:
        with open(a.input) as f:
            doc = json.load(f)
    except FileNotFoundError:
        fail(EX_NOINPUT, f"no file '{a.input}': check the path")
    except OSError as e:
        fail(EX_NOINPUT, f"cannot read '{a.input}': {e.strerror or e}")
    except (ValueError, UnicodeDecodeError) as e:
        fail(EX_DATAERR, f"'{a.input}' is not JSON ({e})")
    if not isinstance(doc, dict):
        fail(EX_DATAERR, f"'{a.input}' is not the output of 'stridemap fixed --json'")
    for key in ("eigenvalues", "eigenvectors", "free_coordinates"):
        if not doc.get(key):
            fail(EX_DATAERR, f"'{a.input}' has no '{key}': expected 'stridemap fixed --json' of a converged gait")
    eig, vec, names = doc["eigenvalues"], doc["eigenvectors"], doc["free_coordinates"]
    kinds = doc.get("free_modes") or ["sagittal"] * len(names)
    modes = doc.get("modes") or ["?"] * len(eig)
    chosen = [i for i, (re, im) in enumerate(eig) if math.hypot(re, im) >= a.min_modulus]
    if not chosen:
        fail(EX_DATAERR, f"'{a.input}': no multiplier has modulus >= {a.min_modulus} (lower --min-modulus)")
    fig, axes = plt.subplots(len(chosen), 1, figsize=(8, 1.9 * len(chosen) + 0.6), squeeze=False, sharex=True)
    trivial = doc.get("trivial_multiplier")
    for ax, i in zip(axes[:, 0], chosen):
        re, im = eig[i]
        ax.bar(range(len(names)), vec[i], color=[MODE_COLOURS.get(k, "0.5") for k in kinds])
        value = f"{re:.4g}" + (f" {'+' if im >= 0 else '-'} {abs(im):.4g}i" if im else "")
        note = " (the family's, not judged)" if trivial is not None and [re, im] == trivial else ""
        ax.set_title(f"multiplier {value}, |.| = {math.hypot(re, im):.4g}: {modes[i]}{note}", fontsize=9)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("|component|")
    axes[-1, 0].set_xticks(range(len(names)))
    axes[-1, 0].set_xticklabels(names, rotation=30, ha="right")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in MODE_COLOURS.values()]
    fig.legend(handles, list(MODE_COLOURS), loc="upper right", ncol=3, fontsize=8)
    fig.suptitle(f"{doc.get('model', '')}: eigenvectors of the multipliers >= {a.min_modulus}", fontsize=10, x=0.35)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    save(fig, a.output, dpi=110)


def main():
    ap = Parser(prog="plot_walker3d", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", help="simulate CSV, or with --eigen a 'fixed --json' file")
    ap.add_argument("output", help="PNG")
    ap.add_argument("--eigen", action="store_true", help="draw the eigenvectors of 'fixed --json'")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE (hip_width, leg_length, foot_radius)")
    ap.add_argument("--every", type=int, default=0, help="draw every K-th sample (default: about 10 per step)")
    ap.add_argument("--min-modulus", type=float, default=0.3, help="--eigen: multipliers at least this large")
    a = ap.parse_args()
    if a.every < 0:
        fail(EX_USAGE, f"--every takes a count >= 0, not {a.every}")
    (draw_eigen if a.eigen else draw_walk)(a)


if __name__ == "__main__":
    run("plot_walker3d", main)
