#!/usr/bin/env bash
# Sweep speed: points per second with 1 and 2 threads, with 1, 2 and 4 MPI
# ranks (when an MPI build exists), parallel efficiency, and the time of a
# 100 x 100 compass-gait sweep with its projection to 64 cores
# (bench/sweep_schedule.py).
#
#   bench/bench_sweep.sh [--big]      # --big adds the 100 x 100 sweep (minutes)
#
# BIN (default build/src/cli/stridemap) and MPIBIN (default
# build-mpi/src/cli/stridemap, from 'meson setup build-mpi -Dmpi=enabled')
# choose the programs.  Best of REPEAT (default 3) runs each.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/src/cli/stridemap}
MPIBIN=${MPIBIN:-build-mpi/src/cli/stridemap}
REPEAT=${REPEAT:-3}
export OPENBLAS_NUM_THREADS=1
# The compass gait over mass and length ratio at 3 degrees: 10 x 40 points in
# 40 lines (whole lines are the unit of work; with fewer, longer lines the
# last ones leave workers idle).
GRID=(compass --set m=1 --set a=1 --grid b=0.1:2:10 --grid mh=0.1:10:40)
POINTS=400
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
TIMEFORMAT='%R %U %S'
# best_of CMD...: "WALL CPU" (seconds) of the fastest of REPEAT fresh runs;
# CPU is user + system time of the process and its children.
best_of() {
  local best="" line
  for ((r = 0; r < REPEAT; r++)); do
    rm -rf "$tmp/out"
    { time "$@" --out "$tmp/out" -q 2>/dev/null; } 2>"$tmp/time"
    line=$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$tmp/time")
    best=$(awk -v a="$best" -v l="$line" 'BEGIN { split(l, x, " "); split(a, y, " ");
      print (a == "" || x[1] < y[1]) ? l : a }')
  done
  echo "$best"
}

# report LABEL WORKERS "WALL CPU" "WALL1 CPU1": speed-up and efficiency against
# one worker, by wall time and (contention aside) by CPU time spent.
report() {
  awk -v l="$1" -v w="$2" -v m="$3" -v r="$4" -v n="$POINTS" 'BEGIN {
    split(m, x, " "); split(r, y, " ")
    printf "%-16s %6.2f s  %6.1f points/s  speed-up %.2f  efficiency %3.0f%%   cpu %6.2f s (x%.2f of 1 worker)\n",
      l, x[1], n / x[1], y[1] / x[1], 100 * y[1] / x[1] / w, x[2], x[2] / y[2] }'
}

echo "sweep of $POINTS compass points (${GRID[*]}), best of $REPEAT, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
t1=$(best_of "$BIN" sweep "${GRID[@]}" --jobs 1)
report "1 thread" 1 "$t1" "$t1"
t2=$(best_of "$BIN" sweep "${GRID[@]}" --jobs 2)
report "2 threads" 2 "$t2" "$t1"

if [ -x "$MPIBIN" ] && command -v mpirun >/dev/null; then
  for np in 1 2 4; do
    tm=$(best_of mpirun --oversubscribe --allow-run-as-root -np "$np" "$MPIBIN" sweep "${GRID[@]}" --jobs 1)
    w=$(( np < $(nproc) ? np : $(nproc) ))
    report "$np MPI rank(s)" "$w" "$tm" "$t1"
  done
else
  echo "(no MPI build at $MPIBIN: meson setup build-mpi -Dmpi=enabled -Dbench=false && ninja -C build-mpi)"
fi

if [ "${1:-}" = "--big" ]; then
  rm -rf "$tmp/big"
  t0=$(now)
  "$BIN" sweep compass --set m=1 --set a=1 --grid b=0.1:2:100 --grid mh=0.1:10:100 --jobs "$(nproc)" \
    --out "$tmp/big" -q
  tb=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  awk -v tb="$tb" -v w="$(nproc)" 'BEGIN { printf "100 x 100 compass sweep: %.1f s on %d threads\n", tb, w }'
  # The 64-core figure replays this sweep's schedule with its own per-point costs.
  /usr/bin/python3 bench/sweep_schedule.py "$tmp/big/sweep.csv" 1 2 16 64
fi
