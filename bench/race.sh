#!/usr/bin/env bash
# The race, in one run on one machine (issue 12): per walker, microseconds
# per stride, strides and milliseconds per gait (with its eigenvalues), and
# the gait's error against a tight reference; the simplest walker against
# the plain GSL program (bench/gsl_baseline.c) at matched accuracy; with
# --sweep, the 100 x 100 compass sweep of bench_sweep.sh --big, now and
# with a "before" program.  bench/README.md says what each column means.
#
#   bench/race.sh [--quick] [--sweep] [FLAGS ...]
#
# Each FLAGS argument (or each ';'-separated item of $RACE_VARIANTS) is one
# more variant: options added to every 'fixed' and 'orbit' run, e.g.
#   bench/race.sh "--jacobian exact" "--method erk8"
#   RACE_VARIANTS="--jacobian exact;--method erk8" bench/race.sh
# A variant the program rejects (exit 64) is skipped with a line saying so.
#
# It drives the program, not the library, so that a variant is whatever the
# command line offers and nothing here needs to learn it.  Times are whole
# processes (bench/proc_time, pairs interleaved) with the start-up taken out:
# a gait is 'fixed' minus 'params' on the same model (which loads it and
# exits), a stride is the difference of two 'orbit' runs from the gait that
# walk STRIDES strides apart.  They are CPU time (user + system, the median
# of RUNS): on a shared machine a process's wall time is much of it waiting
# for a core; at load 4-8 on 2 cores the best of 21 wall times moved up to
# 2.4-fold between runs, CPU times up to 30 % (most rows under 10 %).
#
# BIN (build/src/cli/stridemap), PROC_TIME (build/bench/proc_time), GSL
# (build/bench/gsl_baseline), BEFORE (the program to sweep against; none:
# that row is left out), RUNS (21, --quick 7), STRIDES (200, --quick 50).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/src/cli/stridemap}
PROC_TIME=${PROC_TIME:-build/bench/proc_time}
GSL=${GSL:-build/bench/gsl_baseline}
BEFORE=${BEFORE:-}
RUNS=${RUNS:-21}
STRIDES=${STRIDES:-200}
PY=/usr/bin/python3
export OPENBLAS_NUM_THREADS=1

sweep=0
variants=("")
[ -n "${RACE_VARIANTS:-}" ] && IFS=';' read -r -a more <<<"$RACE_VARIANTS" && variants+=("${more[@]}")
for a in "$@"; do
  case $a in
    --quick) RUNS=7 STRIDES=50 ;;
    --sweep) sweep=1 ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) variants+=("$a") ;;
  esac
done
for p in "$BIN" "$PROC_TIME"; do
  [ -x "$p" ] || { echo "race: $p is not there (ninja -C build)" >&2; exit 66; }
done
BIN=$(realpath "$BIN")
[ -z "$BEFORE" ] || BEFORE=$(realpath "$BEFORE")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The walkers: name and the options that choose the gait raced (the simplest
# walker at Garcia's slope; the others at their defaults).
models=("simplest --set gamma=0.009" compass rimless slip models/compass.yaml kneed_hsu kneed_mcgeer)
REF=(--rtol 1e-13 --atol 1e-13 --tol 1e-13)

# json FILE EXPR: a value from a JSON file (d is the object).
json() { "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

# err FILE REF: max |x - x_ref| over the section's free coordinates.
err() {
  "$PY" - "$1" "$2" <<'EOF'
import json, sys
a, r = (json.load(open(f)) for f in sys.argv[1:3])
idx = [a["state_names"].index(n) for n in a["free_coordinates"]]
print("%.2g" % max(abs(a["fixed_point"][i] - r["fixed_point"][i]) for i in idx))
EOF
}

# pair A... --vs B...: "A B", the median CPU ms of RUNS interleaved pairs.
pair() {
  "$PROC_TIME" "$RUNS" "$@" | awk '/^A /{a=$11} /^B /{b=$11} END{print a, b}'
}

# fixed MODEL... FLAGS...: runs 'fixed --json' into $tmp/out.json; its exit code.
fixed() { "$BIN" fixed "$@" --json >"$tmp/out.json" 2>"$tmp/err"; }

echo "race: $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
"$BIN" --version | sed 's/^/race: /'
echo "race: CPU times, the median of $RUNS whole processes with the start-up taken out; a stride from $STRIDES strides"
echo

declare -A gait_ms
for v in "${variants[@]}"; do
  read -r -a vf <<<"$v"
  label=${v:-default}
  rc=0
  fixed simplest "${vf[@]}" || rc=$?
  if [ $rc = 64 ]; then
    echo "variant '$label': skipped, the program rejects it: $(head -n 1 "$tmp/err")"
    echo
    continue
  fi
  printf '%-22s %-18s %10s %8s %9s %9s %9s  %s\n' model variant "us/stride" strides "ms/gait" error residual status
  for m in "${models[@]}"; do
    read -r -a mf <<<"$m"
    "$BIN" fixed "${mf[@]}" "${REF[@]}" --json >"$tmp/ref-${mf[0]//\//_}.json" 2>/dev/null || true
    ref="$tmp/ref-${mf[0]//\//_}.json"
    if ! fixed "${mf[@]}" "${vf[@]}"; then
      printf '%-22s %-18s %s\n' "${mf[0]}" "$label" "no gait: $(head -n 1 "$tmp/err")"
      continue
    fi
    cp "$tmp/out.json" "$tmp/gait.json"
    strides=$(json "$tmp/gait.json" 'd["stride_evaluations"]')
    residual=$(json "$tmp/gait.json" '"%.2g" % d["residual"]')
    status=$(json "$tmp/gait.json" 'd["status"]')
    error=$(err "$tmp/gait.json" "$ref")
    read -r tf tp <<<"$(pair "$BIN" fixed "${mf[@]}" "${vf[@]}" --vs "$BIN" params "${mf[0]}")"
    ms=$(awk -v a="$tf" -v b="$tp" 'BEGIN { printf "%.3f", a - b }')
    gait_ms["$label|${mf[0]}"]=$ms
    # A stride: two walks from the gait, STRIDES strides apart.
    x0=$(json "$tmp/gait.json" '",".join(repr(x) for x in d["fixed_point"])')
    par=$(json "$tmp/gait.json" 'next("%s=%r:%r:1" % (k, v, v) for k, v in d["params"].items())')
    orbit=("$BIN" orbit "${mf[@]}" "${vf[@]}" --param "$par" --x0 "$x0" --record 1 --out /dev/null)
    if "${orbit[@]}" --transient 1 2>/dev/null; then
      read -r tl ts <<<"$(pair "${orbit[@]}" --transient $((STRIDES + 1)) --vs "${orbit[@]}" --transient 1)"
      us=$(awk -v a="$tl" -v b="$ts" -v n="$STRIDES" 'BEGIN { printf "%.1f", 1000 * (a - b) / n }')
    else
      us="-" # 'orbit' does not take this variant's options
    fi
    printf '%-22s %-18s %10s %8s %9s %9s %9s  %s\n' "${mf[0]}" "$label" "$us" "$strides" "$ms" "$error" "$residual" \
      "$status"
  done
  echo
done

# The simplest walker against the plain GSL program at matched accuracy:
# the loosest integration tolerance at which stridemap's gait is at least as
# close to the reference as the baseline's (Newton's tolerance stays 1e-10).
if [ -x "$GSL" ]; then
  "$GSL" --json >"$tmp/gsl.json"
  gerr=$(json "$tmp/gsl.json" 'd["fixed_point"]["error"]')
  gms=$(json "$tmp/gsl.json" 'd["ms_per_fixed_point_and_jacobian"]')
  echo "gsl_baseline (rkf45 1e-10, hybrids, 4-stride Jacobian and eigenvalues, in-process best of 20):" \
    "$gms ms, error $(printf '%.2g' "$gerr")"
  for v in "${variants[@]}"; do
    read -r -a vf <<<"$v"
    label=${v:-default}
    [ -z "${gait_ms["$label|simplest"]:-}" ] && continue
    match=""
    for t in 1e-10 1e-11 1e-12 1e-13; do
      fixed simplest --set gamma=0.009 --rtol "$t" --atol "$t" "${vf[@]}" || continue
      e=$(err "$tmp/out.json" "$tmp/ref-simplest.json")
      if awk -v e="$e" -v g="$gerr" 'BEGIN { exit !(e <= g) }'; then match=$t; break; fi
    done
    if [ -z "$match" ]; then
      echo "simplest, $label: no tolerance down to 1e-13 reaches the baseline's error"
      continue
    fi
    read -r tf tp <<<"$(pair "$BIN" fixed simplest --set gamma=0.009 --rtol "$match" --atol "$match" "${vf[@]}" \
      --vs "$BIN" params simplest)"
    awk -v l="$label" -v t="$match" -v e="$e" -v a="$tf" -v b="$tp" -v g="$gms" 'BEGIN {
      printf "simplest, %s at --rtol %s --atol %s (error %s): %.3f ms per gait, %.2f x gsl_baseline\n",
        l, t, t, e, a - b, (a - b) / g }'
  done
else
  echo "(no $GSL: it is built where libgsl-dev is installed)"
fi

# The 100 x 100 compass sweep of bench_sweep.sh --big, all cores: wall and
# CPU time (user + system, steadier on a shared machine), and with BEFORE
# the ratios and how far apart the two maps are.
if [ $sweep = 1 ]; then
  echo
  grid=(compass --set m=1 --set a=1 --grid b=0.1:2:100 --grid mh=0.1:10:100 --jobs "$(nproc)" -q)
  TIMEFORMAT='%R %U %S'
  n=0
  for b in "$BIN" ${BEFORE:+"$BEFORE"}; do
    n=$((n + 1))
    { time "$b" sweep "${grid[@]}" --out "$tmp/sweep$n" 2>/dev/null; } 2>"$tmp/time$n" || true
    read -r wall user sys <"$tmp/time$n"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
    echo "$wall $cpu" >"$tmp/t$n"
    rows=$(($(wc -l <"$tmp/sweep$n/sweep.csv") - 1))
    stable=$(grep -c ',stable,' "$tmp/sweep$n/sweep.csv" || true)
    awk -v b="$b" -v t="$wall" -v c="$cpu" -v r="$rows" -v s="$stable" -v w="$(nproc)" 'BEGIN {
      printf "100 x 100 compass sweep, %d threads: %.1f s, CPU %.1f s (%d rows, %d stable) %s\n", w, t, c, r, s, b }'
  done
  if [ $n = 2 ]; then
    read -r w1 c1 <"$tmp/t1"
    read -r w2 c2 <"$tmp/t2"
    awk -v a="$w1" -v b="$w2" -v c="$c1" -v d="$c2" 'BEGIN { printf "now / before: wall %.3f, CPU %.3f\n", a / b, c / d }'
    "$PY" - "$tmp/sweep1/sweep.csv" "$tmp/sweep2/sweep.csv" <<'EOF'
import csv, sys
a, b = ({r["index"]: r for r in csv.DictReader(open(f))} for f in sys.argv[1:3])
same = sum(i in b and a[i]["outcome"] == b[i]["outcome"] for i in a)
both = [i for i in a if i in b and a[i]["converged"] == "1" and b[i]["converged"] == "1"]
d = max((abs(float(a[i]["max_abs_eig"]) - float(b[i]["max_abs_eig"])) for i in both), default=float("nan"))
print("the two maps: the same outcome at %d of %d points; max |eigenvalue| apart by at most %.2g at the %d"
      " where both converged" % (same, len(a), d, len(both)))
EOF
  fi
fi
