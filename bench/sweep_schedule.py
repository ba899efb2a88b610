#!/usr/bin/python3
"""Parallel efficiency of a sweep from its own rows, free of machine noise.

    bench/sweep_schedule.py DIR/sweep.csv [--segment S] [WORKERS ...]   (default: 1 2 4 8 16 32 64)

Replays the sweep's schedule with the measured cost of every point (the
wall_s column): W workers take units of work (whole grid lines, or with
--segment S pieces of S points, as 'stridemap sweep --segment S' cuts them)
in order as they become free; the first point of a unit on line l can only
be solved once the first point of the same segment on line l-1 is known
(and, on line 0, the first point of the segment before), and the worker of
the unit solves it.
Prints, per W, the makespan, the speed-up over one worker and the
efficiency (work / (W x makespan)).  A basin's table ('stridemap basin',
told by its mapped_from column) has no seeds: its units wait for nothing.  What it leaves out: time spent outside
points (start-up, writing rows, about 0.1 ms per row) and contention between
workers for memory bandwidth, both small next to a point's milliseconds.
"""
import csv
import sys


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    path = args.pop(0)
    seg = 0
    if args and args[0] == "--segment":
        seg = int(args[1])
        args = args[2:]
    workers = [int(w) for w in args] or [1, 2, 4, 8, 16, 32, 64]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cols = list(rows[0].keys())
    axes = cols[1:cols.index("outcome")]
    n0 = len({r[axes[0]] for r in rows})
    lines = len(rows) // n0
    S = seg if 0 < seg < n0 else n0
    nseg = (n0 + S - 1) // S
    point = [0.0] * len(rows)
    for r in rows:
        point[int(r["index"])] = float(r["wall_s"])
    units = []  # (line, segment, cost, cost of its first point)
    for l in range(lines):
        for k in range(nseg):
            first = l * n0 + k * S
            end = min(first + S, (l + 1) * n0)
            units.append((l, k, sum(point[first:end]), point[first]))
    independent = "mapped_from" in cols
    work = sum(point)
    print(f"{path}: {len(rows)} points, {lines} lines of {n0}, {len(units)} units of {S}, {work:.1f} s of work "
          f"({1000 * work / len(rows):.2f} ms per point)")
    for W in workers:
        free = [0.0] * W
        ready = {}  # (segment, line) -> time its first point is known
        for l, k, cost, first in units:
            w = min(range(W), key=lambda j: free[j])
            dep = ready.get((k, l - 1), 0.0) if l > 0 else (ready.get((k - 1, 0), 0.0) if k > 0 else 0.0)
            if independent:
                dep = 0.0
            start = max(free[w], dep)
            ready[(k, l)] = start + first
            free[w] = start + cost
        span = max(free)
        print(f"  {W:3d} workers: {span:8.2f} s   speed-up {work / span:6.2f}   efficiency {100 * work / (W * span):5.1f} %")


if __name__ == "__main__":
    main()
