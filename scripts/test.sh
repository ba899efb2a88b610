#!/usr/bin/env bash
# Installs what is missing, builds and runs every test.  With --sanitize the
# tests run in build-asan under AddressSanitizer and UBSan instead, against
# the system libsundials-dev (the plain run uses the optimised SUNDIALS that
# scripts/build.sh builds), so CI covers both.
# Ends with one line: "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

dir=build
extra=()
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  # Without MPI: OpenMPI's own allocations would read as leaks, and so the
  # refusal of a build without MPI to run under mpirun is tested here.
  extra=(-Db_sanitize=address,undefined -Db_lundef=false -Dbench=false -Dbuildtype=debugoptimized -Dmpi=disabled)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  export STRIDEMAP_SUNDIALS=system
fi
scripts/build.sh "$dir" "${extra[@]}" || { echo "tests: 0 passed, 1 failed"; exit 1; }

export OPENBLAS_NUM_THREADS=1
meson test -C "$dir" --print-errorlogs --num-processes 2
rc=$?

# CMocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)" per program.
log="$dir/meson-logs/testlog.txt"
passed=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | awk '{s += $NF} END {print s + 0}')
failed=$(grep -oE '^\[  FAILED  \] [0-9]+ test' "$log" | awk '{s += $(NF-1)} END {print s + 0}')
# A program that crashed before its summary still counts as a failure.
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "tests: $passed passed, $failed failed"
exit $rc
