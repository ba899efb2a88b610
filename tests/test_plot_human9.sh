#!/bin/sh
# scripts/plot_human9.py: draws human9's step (step.png, forces.png) from
# the file's gait, by --exe and from the two files; its centre of pressure
# (forces, tau0 and the figure's sites) meets the library's ZMP (the
# accelerations alone) once the controller clock's weight, which only the
# ZMP counts, is made negligible; bad input is one line and a sysexits
# code.  Usage: test_plot_human9.sh SCRIPTS_DIR STRIDEMAP
# Exit 77 (skipped) without /usr/bin/python3 or its matplotlib.
scripts=$1
stridemap=$2
model=$(dirname "$scripts")/models/human9.yaml
plot_tmp=sm_plot9
. "$(dirname "$0")/plot_test_prelude.sh"
bad() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

# pictures PNG...: each file exists and starts as a PNG does
pictures() {
    for f in "$@"; do
        if [ ! -s "$f" ] || [ "$(head -c 4 "$f" | tail -c 3)" != PNG ]; then
            return 1
        fi
    done
}

mkdir "$dir/exe" "$dir/files"
if "$py" "$scripts/plot_human9.py" "$dir/exe" --exe "$stridemap" --model "$model" >"$dir/out" 2>"$dir/err" &&
    pictures "$dir/exe/step.png" "$dir/exe/forces.png"; then
    echo "ok: --exe draws step.png and forces.png: $(cat "$dir/out")"
else
    bad "--exe did not draw both pictures: $(cat "$dir/err")"
fi

# From the files, with the clock's mass 1e-6 kg: its weight moves the ZMP
# by about 1e-8 m, so the two points must agree to round-off.
if "$stridemap" simulate "$model" --steps 1 --set clock_mass=1e-6 --out "$dir/step.csv" 2>/dev/null &&
    "$stridemap" params "$model" --json >"$dir/params.json" &&
    "$py" "$scripts/plot_human9.py" "$dir/files" --csv "$dir/step.csv" --params "$dir/params.json" >"$dir/out" &&
    pictures "$dir/files/step.png" "$dir/files/forces.png"; then
    d=$(sed -n 's/^centre of pressure against the ZMP: largest difference \([^ ]*\) m over \([0-9]*\) samples$/\1 \2/p' "$dir/out")
    if [ -n "$d" ] && "$py" -c 'import sys; d, n = float(sys.argv[1]), int(sys.argv[2]); sys.exit(not (d < 1e-6 and n > 100))' $d; then
        echo "ok: centre of pressure against the ZMP: $d (difference in m, samples)"
    else
        bad "centre of pressure and ZMP disagree, or no report: $(cat "$dir/out")"
    fi
else
    bad "plot_human9 from simulate's CSV and params --json"
fi

# expect CODE ARGS...: exit CODE, one line on stderr, no traceback.
expect() {
    code=$1
    shift
    "$py" "$scripts/plot_human9.py" "$@" >/dev/null 2>"$dir/err"
    got=$?
    if [ "$got" -ne "$code" ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || grep -q Traceback "$dir/err"; then
        bad "plot_human9 $* -> exit $got (want $code): $(cat "$dir/err")"
    else
        echo "ok: plot_human9 $* -> $got: $(cat "$dir/err")"
    fi
}
: >"$dir/empty.csv"
printf 'a,b\n1,2\n' >"$dir/other.csv"
head -n 3 "$dir/step.csv" | awk -F, -v OFS=, 'NR == 3 { $6 = "x" } 1' >"$dir/nan.csv"
"$stridemap" simulate "$model" --steps 2 --out "$dir/two.csv" 2>/dev/null
printf 'not json' >"$dir/bad.json"
expect 64 "$dir/files"
expect 64 "$dir/files" --csv "$dir/step.csv"
expect 64 "$dir/files" --exe "$stridemap" --every 0
for f in empty other nan two; do
    expect 65 "$dir/files" --csv "$dir/$f.csv" --params "$dir/params.json"
done
expect 65 "$dir/files" --csv "$dir/step.csv" --params "$dir/bad.json"
expect 66 "$dir/files" --csv "$dir/missing.csv" --params "$dir/params.json"
expect 66 "$dir/files" --exe "$dir/no-such-stridemap"
expect 73 /nonexistent-dir --csv "$dir/step.csv" --params "$dir/params.json"

echo "plot_human9: $failed failed"
[ "$failed" -eq 0 ]
