#!/usr/bin/env bash
# Basin speed (stridemap basin): strides per second per core on the simplest
# walker and McGeer's kneed walker (one thread, no cell mapping: every
# stride walked), what cell mapping saves, and with --big a 500 x 500 basin
# of the simplest walker on 2 threads with its replayed schedule projected to
# 64 cores (bench/sweep_schedule.py); with --disturb instead, the
# disturbance search as a sweep (stridemap sweep --disturb: results'
# compass_b study on 40 designs) on 1 and 2 threads, points per second.
#
#   bench/bench_basin.sh [--big | --disturb]
#
# BIN (default build/src/cli/stridemap) chooses the program.  Best of REPEAT
# (default 3) runs each; CPU is user + system time.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/src/cli/stridemap}
REPEAT=${REPEAT:-3}
export OPENBLAS_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%R %U %S'

# best_of CMD...: "WALL CPU" of the fastest of REPEAT runs; leaves the last run in $tmp/out.
best_of() {
  local best="" line
  for ((r = 0; r < REPEAT; r++)); do
    rm -rf "$tmp/out"
    { time "$@" --out "$tmp/out" -q >/dev/null 2>&1; } 2>"$tmp/time"
    line=$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$tmp/time")
    best=$(awk -v a="$best" -v l="$line" 'BEGIN { split(l, x, " "); split(a, y, " ");
      print (a == "" || x[1] < y[1]) ? l : a }')
  done
  echo "$best"
}

# Strides integrated: a fall's or a failure's last stride was integrated too.
strides() {
  awk -F, 'NR > 1 { n += $6 + ($4 == "fell" || $4 == "failed") } END { print n }' "$tmp/out/basin.csv"
}

# rate LABEL "WALL CPU": strides per CPU second (the process's start-up and the gait included).
rate() {
  local s
  s=$(strides)
  awk -v l="$1" -v t="$2" -v s="$s" -v c="$(($(wc -l <"$tmp/out/basin.csv") - 1))" 'BEGIN { split(t, x, " ");
    printf "%-34s %6d cells %8d strides  %7.2f s wall %7.2f s CPU  %8.0f strides/s per core  %6.3f ms per cell\n",
      l, c, s, x[1], x[2], s / x[2], 1000 * x[2] / c }'
}

if [ "${1:-}" = "--disturb" ]; then
  echo "stridemap sweep --disturb, best of $REPEAT, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  STUDY=(compass --grid b=0.3:0.6:40 --disturb step_down --from -0.05 --to 0.05 --max-strides 100)
  for j in 1 2; do
    t=$(best_of "$BIN" sweep "${STUDY[@]}" --jobs "$j")
    awk -v j="$j" -v t="$t" -v n="$(($(wc -l <"$tmp/out/sweep.csv") - 1))" -v s="$(awk -F, 'NR > 1 { s += $14 + $22 } END { print s }' "$tmp/out/sweep.csv")" \
      'BEGIN { split(t, x, " "); printf "compass b = 0.3..0.6, %d points, %d search strides, %d thread%s: %6.2f s wall %6.2f s CPU  %5.2f points/s wall  %5.2f points per CPU s\n",
        n, s, j, (j > 1 ? "s" : " "), x[1], x[2], n / x[1], n / x[2] }'
  done
  exit 0
fi

echo "stridemap basin, best of $REPEAT, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
SIMPLEST=(simplest --set gamma=0.009 --plane theta=0.1603:0.2403:41,theta_dot=-0.2398:-0.1598:41)
t=$(best_of "$BIN" basin "${SIMPLEST[@]}" --no-cell-map --jobs 1)
rate "simplest, 41 x 41 about the gait" "$t"
ts=$t
t=$(best_of "$BIN" basin "${SIMPLEST[@]}" --jobs 1)
awk -v a="$ts" -v b="$t" 'BEGIN { split(a, x, " "); split(b, y, " ");
  printf "  with cell mapping: %.2f s CPU, %.2f of the CPU without\n", y[2], y[2] / x[2] }'
echo "  cells mapped: $(awk -F, 'NR > 1 && $7 >= 0' "$tmp/out/basin.csv" | wc -l)"
KNEED=(kneed_mcgeer --plane thigh_a=0.1719:0.2119:9,thigh_a_dot=-1.1255:-1.0855:9 --max-strides 40)
t=$(best_of "$BIN" basin "${KNEED[@]}" --no-cell-map --jobs 1)
rate "kneed_mcgeer, 9 x 9 about the gait" "$t"

if [ "${1:-}" = "--big" ]; then
  REPEAT=1
  BIG=(simplest --set gamma=0.009 --plane theta=0:0.4:500,theta_dot=-0.6:0:500)
  t=$(best_of "$BIN" basin "${BIG[@]}" --no-cell-map --jobs 2)
  rate "simplest, 500 x 500, 2 threads, no mapping" "$t"
  /usr/bin/python3 bench/sweep_schedule.py "$tmp/out/basin.csv" 1 2 16 32 64 128
fi
