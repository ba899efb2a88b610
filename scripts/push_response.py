#!/usr/bin/python3
"""The gait sensitivity norm against the strides themselves: a small push
on one stride from the gait, the walker left to come back, and each
stride's step time and step length less the gait's, per unit push.  The
H2 norm of that response, sqrt(sum_k |e_k|^2) / P, is the gait sensitivity
norm as P -> 0 (Hobbelen & Wisse 2007), which `stridemap fixed` computes
from the linearised map instead (include/stridemap/disturb.h).

Used by scripts/reproduce_disturb.py (results/disturb/push_response.*);
runs `stridemap fixed` and `stridemap simulate`:
    /usr/bin/python3 scripts/push_response.py MODEL PUSH STRIDES [solver options...]
prints a JSON object: the per-stride response and its norm.
"""
import json
import math
import os
import subprocess
import sys


def run(exe, args, want_out=True):
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("push_response.py: stridemap %s failed (%d): %s" % (" ".join(args), r.returncode,
                                                                            r.stderr.strip()))
    return r


def steps(stderr):
    """(period, step_length) of each 'step k:' line simulate writes to stderr."""
    out = []
    for line in stderr.splitlines():
        if not line.startswith("step "):
            continue
        w = line.split()
        out.append((float(w[w.index("period") + 1]), float(w[w.index("step_length") + 1])))
    return out


def last_post(csv_text, n_state):
    """The state after the last heel-strike: the stride's end on the section."""
    x = None
    for line in csv_text.splitlines():
        if line.startswith("post,"):
            x = line.split(",")[5:5 + n_state]
    return x


def response(exe, model, push_name, push, strides, tol):
    f = json.loads(run(exe, ["fixed", model, "--json"] + tol).stdout)
    x0 = ",".join(repr(v) for v in f["fixed_point"])
    n = len(f["fixed_point"])
    gsn = f["gait_sensitivity"]["disturbances"][push_name]["gsn"]
    walks = []
    for P in (push, -push):
        one = run(exe, ["simulate", model, "--x0", x0, "--steps", "1", "--dt", "1e9", "--set", "%s=%r" % (push_name, P)]
                  + tol)
        x1 = last_post(one.stdout, n)
        rest = run(exe, ["simulate", model, "--x0", ",".join(x1), "--steps", str(strides - 1), "--dt", "1e9"] + tol)
        walks.append(steps(one.stderr) + steps(rest.stderr))
    # central differences in P: the response's P^2 term cancels
    e = [((up[0] - dn[0]) / (2 * push), (up[1] - dn[1]) / (2 * push)) for up, dn in zip(*walks)]
    norm = math.sqrt(sum(a * a + b * b for a, b in e))
    return {"model": model, "disturbance": push_name, "push": push, "gsn": gsn, "direct": norm,
            "max_abs_eigenvalue": f["max_abs_eigenvalue"], "step_time": [a for a, _ in e],
            "step_length": [b for _, b in e]}


def plot(records, path):
    """|step time response| per unit push against the stride, one line per
    walker, on a log scale: the decay the multipliers set, whose H2 sum is
    the GSN."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plot_common import need_matplotlib
    need_matplotlib("push_response")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for r in records:
        k = range(len(r["step_time"]))
        label = "%s (P = %g N s, GSN %.4g)" % (r["label"], r["push"], r["gsn"])
        style = "--" if "yaml" in r["model"] and "compass" in r["model"] else "-"
        ax[0].semilogy(k, [abs(v) for v in r["step_time"]], style, marker=".", label=label)
        ax[1].semilogy(k, [abs(v) for v in r["step_length"]], style, marker=".", label=label)
    ax[0].set_title("|step time - gait's| per unit push (s / N s)")
    ax[1].set_title("|step length - gait's| per unit push (m / N s)")
    for a in ax:
        a.set_xlabel("stride after the push (0: the pushed one)")
        a.set_ylim(1e-9, 1)
        a.grid(True, which="major", alpha=0.3)
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    exe = "build/src/cli/stridemap"
    a = sys.argv[1:]
    if a and a[0] == "--exe":
        exe, a = a[1], a[2:]
    print(json.dumps(response(exe, a[0], "push", float(a[1]), int(a[2]), a[3:])))
