#!/usr/bin/env bash
# Regenerates everything in results/ and fails if any number differs between
# the two tolerances its script runs at (scripts/stable_digits.py).  Each
# script's tables go to results/tables/NAME.md (what results/README.md
# shows), its log to results/tables/NAME.log, and the time each part took to
# results/tables/timing.txt; then scripts/fill_results_readme.py puts the
# tables into results/README.md.  Usage, from anywhere, after building:
#     scripts/reproduce_all.sh [path/to/stridemap]
# Every part runs under nice; about 10 minutes on a 2-core machine (most of
# it the orbit diagrams of reproduce_route_to_chaos.py; the actuated walkers'
# part, reproduce_actuated.py, about 3 minutes of CPU; the 3-D biped's two,
# reproduce_biped12_3d.py and reproduce_biped12_3d_sampled.py, about 10 and
# 17 minutes of CPU more).
set -uo pipefail
exe=${1:-}
[ -n "$exe" ] && exe=$(realpath "$exe")
cd "$(dirname "$0")/.."
export STRIDEMAP=${exe:-build/src/cli/stridemap}
export OPENBLAS_NUM_THREADS=1
if [ ! -x "$STRIDEMAP" ]; then
  echo "reproduce_all.sh: no stridemap at $STRIDEMAP; build first (scripts/build.sh build)" >&2
  exit 66
fi
mkdir -p results/tables
export TABLES=results/tables  # reproduce_gaits.sh: the walkers' tables, one file each
: > results/tables/timing.txt
failed=()
part() {  # NAME COMMAND...
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name: $*" >&2
  if nice -n 10 "$@" > "results/tables/$name.md" 2> "results/tables/$name.log"; then
    echo "$name: ok, $((SECONDS - t0)) s" | tee -a results/tables/timing.txt >&2
  else
    echo "$name: FAILED (exit $?), $((SECONDS - t0)) s; see results/tables/$name.log" | tee -a results/tables/timing.txt >&2
    grep '^UNSTABLE' "results/tables/$name.log" >&2
    failed+=("$name")
  fi
}
part simplest /usr/bin/python3 scripts/reproduce_simplest.py
part gaits scripts/reproduce_gaits.sh
part sweeps /usr/bin/python3 scripts/reproduce_sweeps.py --exe "$STRIDEMAP"
part route_to_chaos /usr/bin/python3 scripts/reproduce_route_to_chaos.py --exe "$STRIDEMAP"
part human_inverse /usr/bin/python3 scripts/reproduce_human_inverse.py --exe "$STRIDEMAP"
part human9_inverse /usr/bin/python3 scripts/reproduce_human9_inverse.py --exe "$STRIDEMAP"
part basins /usr/bin/python3 scripts/reproduce_basins.py --exe "$STRIDEMAP"
part walkers3d /usr/bin/python3 scripts/reproduce_walkers3d.py --exe "$STRIDEMAP"
part disturb /usr/bin/python3 scripts/reproduce_disturb.py --exe "$STRIDEMAP"
part actuated /usr/bin/python3 scripts/reproduce_actuated.py --exe "$STRIDEMAP"
part humans /usr/bin/python3 scripts/reproduce_humans.py --exe "$STRIDEMAP"
part biped12_3d /usr/bin/python3 scripts/reproduce_biped12_3d.py --exe "$STRIDEMAP"
part biped12_3d_sampled /usr/bin/python3 scripts/reproduce_biped12_3d_sampled.py --exe "$STRIDEMAP"
part human9 /usr/bin/python3 scripts/reproduce_human9.py --exe "$STRIDEMAP"
echo "total: $SECONDS s" | tee -a results/tables/timing.txt >&2
/usr/bin/python3 scripts/fill_results_readme.py results/README.md
if [ ${#failed[@]} -gt 0 ]; then
  echo "reproduce_all.sh: unstable or failed: ${failed[*]}" >&2
  exit 1
fi
echo "reproduce_all.sh: every number agrees at both tolerances" >&2
