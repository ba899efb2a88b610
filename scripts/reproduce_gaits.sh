#!/usr/bin/env bash
# Finds each built-in walker's default gait, walks three steps from it and
# draws them (results/gaits/MODEL.png, with the CSV and the gait's JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
exe=build/src/cli/stridemap
out=results/gaits
mkdir -p "$out"
for model in simplest compass rimless slip; do
  "$exe" fixed "$model" --json > "$out/$model.json"
  x0=$(/usr/bin/python3 -c "import json; print(','.join(repr(v) for v in json.load(open('$out/$model.json'))['fixed_point']))")
  "$exe" simulate "$model" --x0 "$x0" --steps 3 --out "$out/$model.csv" 2> "$out/$model.steps.txt"
  /usr/bin/python3 scripts/plot_gait.py "$model" "$out/$model.csv" "$out/$model.png"
  echo "$model: $out/$model.png"
done
