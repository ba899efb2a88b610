#!/usr/bin/env bash
# Finds each built-in walker's default gait at two tolerances and prints the
# tables of results/README.md (scripts/reproduce_walkers.py: exits 1 if a
# number differs between them), then walks three steps from the tighter
# run's gait and draws them (results/gaits/MODEL.png, with the CSV, the
# gait's JSON and the per-step measures).
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${STRIDEMAP:-build/src/cli/stridemap}
out=results/gaits
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
status=0
/usr/bin/python3 scripts/reproduce_walkers.py --exe "$exe" ${TABLES:+--tables "$TABLES"} || status=$?
# The tighter tolerance of reproduce_walkers.py, for the walk that is drawn.
tol=(--rtol 1e-13 --atol 1e-13)
for model in simplest compass rimless slip; do
  x0=$(/usr/bin/python3 -c "import json; print(','.join(repr(v) for v in json.load(open('$out/$model.json'))['fixed_point']))")
  "$exe" simulate "$model" --x0 "$x0" --steps 3 "${tol[@]}" --out "$out/$model.csv" 2> "$out/$model.steps.txt"
  /usr/bin/python3 scripts/plot_gait.py "$model" "$out/$model.csv" "$out/$model.png"
  echo "$model: $out/$model.png" >&2
done
exit "$status"
