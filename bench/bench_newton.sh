#!/usr/bin/env bash
# Strides per gait, Newton's own and all, with Broyden's updates (the
# default) and with full Newton (a difference Jacobian every iteration), for
# every model from its default guess and a period-2 gait; then strides per
# point of a continuation and of a compass sweep.  Stride counts are exact
# (not timings), so one run says it all.
#
#   bench/bench_newton.sh [N]     # N x N compass sweep (default 20; bench_sweep.sh's is 100)
#
# BIN (default build/src/cli/stridemap) chooses the program.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/src/cli/stridemap}
N=${1:-20}
export OPENBLAS_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fixed_counts() { # MODEL ARGS... -> "newton total" of one fixed --json
  "$BIN" fixed "$@" --json | /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["newton_stride_evaluations"] if d["status"] == "ok" else "-", d["stride_evaluations"] if d["status"] == "ok" else d["status"])'
}

printf '%-44s %18s %18s\n' "strides per gait (Newton's / all)" "full Newton" "Broyden (default)"
while read -r label args; do
  [ -z "$label" ] && continue
  read -r fn ft < <(fixed_counts $args --newton-update full)
  read -r bn bt < <(fixed_counts $args)
  printf '%-44s %8s / %-8s %8s / %-8s\n' "$label" "$fn" "$ft" "$bn" "$bt"
done <<'EOF'
simplest simplest
compass compass
rimless rimless
slip_E=840 slip --set E=840
compass.yaml models/compass.yaml
compass_round_spring.yaml models/compass_round_spring.yaml
kneed_hsu.yaml models/kneed_hsu.yaml
kneed_mcgeer.yaml models/kneed_mcgeer.yaml
kneed_mcgeer_locked.yaml models/kneed_mcgeer_locked.yaml
simplest_period_2_gamma=0.016 simplest --set gamma=0.016 --period 2
EOF

echo
echo "continuation: the README's cascade, simplest gamma 0.0001 .. 0.0195, --switch to period 16"
for u in full broyden; do
  "$BIN" continue simplest --param gamma --from 0.0001 --to 0.0195 --guess 0.045,-0.047,0,0 --switch \
    --max-period 16 --newton-update "$u" --out "$tmp/branch-$u.csv" 2>/dev/null
  /usr/bin/python3 - "$tmp/branch-$u.json" "$u" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
pts = sum(b["points"] for b in d["branches"])
strides = sum(b["stride_evaluations"] for b in d["branches"])
pds = " ".join("%.12f" % s["value"] for b in d["branches"] for s in b["special"] if s["type"] == "PD")
print("  %-8s %4d points, %6d strides (%.1f per point); PD at %s" % (sys.argv[2], pts, strides, strides / pts, pds))
EOF
done

echo
echo "sweep: compass --set m=1 --set a=1 --grid b=0.1:2:$N --grid mh=0.1:10:$N --jobs 1"
for u in full broyden; do
  start=$(date +%s.%N)
  "$BIN" sweep compass --set m=1 --set a=1 --grid "b=0.1:2:$N" --grid "mh=0.1:10:$N" --jobs 1 \
    --newton-update "$u" --out "$tmp/sweep-$u" -q 2>/dev/null || true
  end=$(date +%s.%N)
  /usr/bin/python3 - "$tmp/sweep-$u/sweep.csv" "$u" "$(echo "$end - $start" | bc)" <<'EOF'
import collections, csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
strides = sum(int(r["stride_evals"]) for r in rows)
out = collections.Counter(r["outcome"] for r in rows)
print("  %-8s %6d points, %.2f strides per point, %.1f s wall; %s" % (sys.argv[2], len(rows), strides / len(rows),
      float(sys.argv[3]), ", ".join("%s %d" % kv for kv in sorted(out.items()))))
EOF
done
/usr/bin/python3 - "$tmp/sweep-full/sweep.csv" "$tmp/sweep-broyden/sweep.csv" <<'EOF'
import csv, sys
a, b = ({r["index"]: r for r in csv.DictReader(open(p))} for p in sys.argv[1:3])
xs = [k for k in next(iter(a.values())) if k.startswith("x_")]
same = sum(a[i]["outcome"] == b[i]["outcome"] for i in a)
dx = max((abs(float(a[i][k]) - float(b[i][k])) for i in a if a[i]["converged"] == "1" == b[i]["converged"] for k in xs),
         default=0.0)
print("  the same outcome at %d of %d points; converged gaits within %.2g of each other" % (same, len(a), dx))
EOF
