#!/usr/bin/env bash
# Instructions per stride of a body walker file (bench/README.md, "Fifth
# round (issue 11)"): callgrind's totals of `bench_body --profile FILE N` at
# N = 30 and N = 10, (30 − 10) / 20, so that start-up, the gait's Newton and
# the guess cancel.  Also bench_body's steps, RHS and root evaluations per
# stride.  Speed is measured here, never asserted in a test.
#
#   bench/per_stride.sh BENCH_BODY FILE [TOL]     TOL: rtol = atol (default
#                                                 1e-10, the linkage's);
#                                                 "-" for none (a bench_body
#                                                 without --tol)
#
# Run it from the top of the tree that BENCH_BODY was built from.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BENCH_BODY FILE [TOL]" >&2; exit 64; }
bin=$1 file=$2 tol=${3:-1e-10}
command -v valgrind >/dev/null || { echo "per_stride: valgrind is not installed (apt-get install valgrind)" >&2; exit 69; }
args=()
[ "$tol" = - ] || args=(--tol "$tol")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total() {
  OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg.$1" \
    "$bin" "${args[@]}" --profile "$file" "$1" >/dev/null 2>&1
  sed -n 's/^summary: //p' "$out/cg.$1"
}
a=$(total 10) b=$(total 30)
per=$(( (b - a) / 20 ))
counts=$(OPENBLAS_NUM_THREADS=1 "$bin" "${args[@]}" --profile "$file" 20 | sed -n 's/.*; per stride //p')
printf '%s: %d instructions per stride (%.3f M); %s\n' "$file" "$per" "$(echo "$per / 1000000" | bc -l)" "$counts"
