#!/bin/sh
# The MATLAB/Octave interface (matlab/): builds the MEX gateway with
# Octave's mkoctfile against this build's libstridemap.so and runs
# tests/octave/test_stridemap.m, which compares it with the program.
# Usage: test_octave.sh SOURCE_DIR BUILD_DIR STRIDEMAP
# Exit 77 (skipped) without octave and mkoctfile (Debian: octave liboctave-dev).
src=$1
build=$2
stridemap=$3
if ! command -v octave >/dev/null || ! command -v mkoctfile >/dev/null; then
    echo "skipped: no octave or mkoctfile (Debian: apt-get install octave liboctave-dev)"
    exit 77
fi
# A sanitized library needs its runtime loaded first into Octave, which
# was not built for it: the interface is tested by the plain build.
if ldd "$build/libstridemap.so" | grep -q 'libasan'; then
    echo "skipped: $build/libstridemap.so is built with AddressSanitizer; the plain build tests the interface"
    exit 77
fi
dir=$(mktemp -d /tmp/sm_octave_XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

# The README's build line for Octave, with this build's library.
if ! (cd "$dir" && CFLAGS="-std=c17 -O2 -fPIC -Wall -Wextra -Werror" mkoctfile --mex -I"$src/include" -I"$build/include" \
        -L"$build" -lstridemap -Wl,-rpath,"$build" -o stridemap_mex.mex "$src/matlab/stridemap_mex.c"); then
    echo "FAIL: mkoctfile --mex matlab/stridemap_mex.c"
    exit 1
fi

# What the program prints, for the interface to match.
run() {
    out=$1
    shift
    "$stridemap" "$@" >"$dir/$out" 2>"$dir/err" || [ "$?" -eq 1 ] || { echo "FAIL: stridemap $*"; cat "$dir/err"; exit 1; }
}
run simplest.json fixed simplest --set gamma=0.009 --json
run compass.json fixed compass --json
run compass_yaml.json fixed "$src/models/compass.yaml" --json
run simplest_fall.json fixed simplest --guess 1,0,2,0 --json
run simulate.csv simulate compass --steps 2 --dt 0.05
run continue.csv continue simplest --param gamma --from 0.005 --to 0.007 --max-points 8

SM_SOURCE_DIR=$src OPENBLAS_NUM_THREADS=1 octave --no-gui --no-window-system --norc --quiet \
    --eval "addpath('$dir', '$src/matlab', '$src/tests/octave'); test_stridemap('$dir')"
