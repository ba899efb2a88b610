#!/usr/bin/python3
"""The human walkers' section of results/README.md (issue 15, item 5): one
spring-held step of models/human_hu9.yaml (seed 002's nine-segment human)
and of models/biped3d.yaml (seed 000's 3-D biped), each from
`stridemap simulate MODEL --steps 1`: the events and their times, the
step's impact and contact numbers, and pictures (stick figures, the ground
forces and the centre of pressure, scripts/plot_human.py).  Neither file is
a gait: springs hold a posture through one step (the next step fails in
both: human_hu9's stance toe lifts; biped3d's, see its header).

Each model runs at the two tolerances of its list below and every number is
printed to the digits on which the two runs agree (scripts/stable_digits.py);
one that agrees to fewer digits than its table needs is named on stderr with
exit 1.  biped3d's first step is on a knife edge (its swing foot clears the
ground by 1e-13 m; tests/test_biped3d.c): at rtol 1e-12 it falls backwards,
so it runs at 1e-10 and 1e-11.  About 10 s.

Writes results/humans/: the tighter run's CSV of each model, the pictures
and summary.json (both runs' numbers and every command).  Tables on stdout,
'### NAME' sections for scripts/fill_results_readme.py
(results/tables/humans.md#NAME).

Run from the top of the repository after building:
    /usr/bin/python3 scripts/reproduce_humans.py [--exe build/src/cli/stridemap]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stable_digits  # noqa: E402

OUT = "results/humans"
HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {
    "human_hu9": {"tols": ["1e-11", "1e-12"], "mass": 75.0},
    "biped3d": {"tols": ["1e-10", "1e-11"], "mass": 30.0},
}
G = 9.81
LOG = []


def simulate(exe, model, tol, path):
    args = ["simulate", "models/%s.yaml" % model, "--steps", "1", "--rtol", tol, "--atol", tol, "--out", path]
    LOG.append("stridemap " + " ".join(args))
    print("+ stridemap " + " ".join(args), file=sys.stderr)
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("stridemap %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    summary = {}
    for line in p.stderr.splitlines():
        if line.startswith("step 0:"):
            words = line[len("step 0:"):].split()
            summary = {k: float(v) for k, v in zip(words[::2], words[1::2])}
    if not summary:
        sys.exit("stridemap %s printed no step summary" % " ".join(args))
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {"summary": summary, "rows": rows}


def events(run):
    return [(r["phase"], r["event"], float(r["time"])) for r in run["rows"] if r["kind"] == "pre"]


def contact_stats(run, mass):
    """Over the samples: the largest |sum of normal forces − m g| / m g (not
    zero: the body accelerates), how many samples have a held contact
    pulling the ground (F_z < 0), and the CoP's range along x."""
    rows = [r for r in run["rows"] if r["kind"] == "sample"]
    fz = [k for k in rows[0] if k.endswith(".fz")]
    pulling, low, high = 0, math.inf, -math.inf
    for r in rows:
        v = [float(r[k]) for k in fz if not math.isnan(float(r[k]))]
        pulling += any(f < 0 for f in v)
        total = sum(v)
        low, high = min(low, total), max(high, total)
    return {"samples": len(rows), "pulling": pulling, "sum_fz_min": low, "sum_fz_max": high,
            "weight": mass * G}


def section(model, ck, runs):
    a, b = runs
    ea, eb = events(a), events(b)
    tl, tt = MODELS[model]["tols"]
    ck.same(model + " events", [e[:2] for e in ea], [e[:2] for e in eb])
    out = ["`stridemap simulate models/%s.yaml --steps 1`, rtol = atol = %s and %s:" % (model, tl, tt), "",
           "| phase | event | time (s) |", "|---|---|---|"]
    for (ph, ev, t), (_, _, u) in zip(ea, eb):
        out.append("| %s | %s | %s |" % (ph, ev, ck.dec("%s %s %s" % (model, ph, ev), t, u, 6)))
    sa, sb = a["summary"], b["summary"]
    ca, cb = contact_stats(a, MODELS[model]["mass"]), contact_stats(b, MODELS[model]["mass"])
    ck.same(model + " samples", ca["samples"], cb["samples"])
    out += ["", "| over the step | value |", "|---|---|",
            "| energy lost at the impacts (J) | %s |" % ck.sig(model + " loss", sa["impact_energy_loss"],
                                                              sb["impact_energy_loss"], 5),
            "| momentum jump at the heel-strike (N s; the summary's heelstrike_impulse) | %s |" % ck.sig(model + " impulse", sa["heelstrike_impulse"],
                                                        sb["heelstrike_impulse"], 3),
            "| smallest normal force of a held contact, the step summary's min_normal_force (N) | %s |" % ck.sig(
                model + " min fn", sa["min_normal_force"], sb["min_normal_force"], 5),
            "| largest friction ratio \\|F_t\\|/F_n | %s |" % ck.sig(
                model + " friction", sa["max_friction_ratio"], sb["max_friction_ratio"], 3),
            "| sum of the normal forces, least and most (N; weight %.2f) | %s to %s |" % (
                ca["weight"], ck.sig(model + " sum min", ca["sum_fz_min"], cb["sum_fz_min"], 4),
                ck.sig(model + " sum max", ca["sum_fz_max"], cb["sum_fz_max"], 4)),
            "| samples with a held contact pulling the ground (F_z < 0) | %s of %s |" % (
                ck.same(model + " pulling", ca["pulling"], cb["pulling"]), cb["samples"])]
    return out, {"events": [ea, eb], "summary": [sa, sb], "contacts": [ca, cb]}


def pictures(model, csv_path):
    made = []
    for suffix, extra in (("step", []), ("forces", ["--forces"])):
        png = "%s/%s_%s.png" % (OUT, model, suffix)
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "plot_human.py"), model, csv_path, png] + extra,
                       check=True, stdout=sys.stderr)
        made.append(os.path.basename(png))
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/src/cli/stridemap")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    ck = stable_digits.Checker("humans")
    rec, sections = {}, {}
    with tempfile.TemporaryDirectory(prefix="humans-loose-") as loose:
        for model, spec in MODELS.items():
            loose_csv, tight_csv = "%s/%s.csv" % (loose, model), "%s/%s_step.csv" % (OUT, model)
            runs = [simulate(a.exe, model, spec["tols"][0], loose_csv),
                    simulate(a.exe, model, spec["tols"][1], tight_csv)]
            sections[model], rec[model] = section(model, ck, runs)
            rec[model]["pictures"] = pictures(model, tight_csv)
        rec["commands"] = [c.replace(loose, "LOOSE") for c in LOG]
    rec["unstable"] = ck.unstable
    with open(OUT + "/summary.json", "w") as f:
        json.dump(rec, f, indent=1)
    for name, lines in sections.items():
        print("### %s\n%s\n" % (name, "\n".join(lines)))
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
