#!/usr/bin/python3
"""Parallel efficiency of a sweep from its own rows, free of machine noise.

    bench/sweep_schedule.py DIR/sweep.csv [WORKERS ...]     (default: 1 2 4 8 16 32 64)

Replays the sweep's schedule with the measured cost of every point (the
wall_s column): W workers take whole grid lines in order as they become
free; the first point of line l (its spine point) can only be solved once
the spine point of line l-1 is known, and the worker of line l solves it.
Prints, per W, the makespan, the speed-up over one worker and the
efficiency (work / (W x makespan)).  What it leaves out: time spent outside
points (start-up, writing rows, about 0.1 ms per row) and contention between
workers for memory bandwidth, both small next to a point's milliseconds.
"""
import csv
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    workers = [int(w) for w in sys.argv[2:]] or [1, 2, 4, 8, 16, 32, 64]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cols = list(rows[0].keys())
    axes = cols[1:cols.index("outcome")]
    n0 = len({r[axes[0]] for r in rows})
    lines = len(rows) // n0
    cost = [0.0] * lines
    spine = [0.0] * lines
    for r in rows:
        i = int(r["index"])
        w = float(r["wall_s"])
        cost[i // n0] += w
        if i % n0 == 0:
            spine[i // n0] = w
    work = sum(cost)
    print(f"{path}: {len(rows)} points, {lines} lines of {n0}, {work:.1f} s of work "
          f"({1000 * work / len(rows):.2f} ms per point; the longest line {max(cost):.2f} s)")
    for W in workers:
        free = [0.0] * W
        ready = 0.0  # the spine point of the previous line is known
        for l in range(lines):
            k = min(range(W), key=lambda j: free[j])
            start = max(free[k], ready)
            ready = start + spine[l]
            free[k] = start + cost[l]
        span = max(free)
        print(f"  {W:3d} workers: {span:8.2f} s   speed-up {work / span:6.2f}   efficiency {100 * work / (W * span):5.1f} %")


if __name__ == "__main__":
    main()
