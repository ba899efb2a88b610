#!/bin/sh
# scripts/design_human9.py --write reproduces models/human9.yaml's designed
# numbers bit for bit: every line but the guess (which --guess-from fills
# with the gait 'fixed' finds from the written start).  The file once held
# numbers that --write no longer made (the double-support feedforward's
# fifth digit): the reference went to 'stridemap inverse' rounded to 12
# decimals, so a 1-ulp change of the geometry moved them.
# Usage: test_design_human9.sh SOURCE_DIR STRIDEMAP
# Exit 77 (skipped) without /usr/bin/python3 or its numpy.
src=$1
# absolute: the script runs from the top of the tree
stridemap=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
py=/usr/bin/python3
if [ ! -x "$py" ] || ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "skipped: no $py with numpy (Debian: apt-get install python3 python3-numpy)"
    exit 77
fi
dir=$(mktemp -d /tmp/sm_design9_XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$src/models/human9.yaml" "$dir/human9.yaml"
# the script reads models/human_hu9.yaml from the top of the tree
if ! (cd "$src" && "$py" scripts/design_human9.py --exe "$stridemap" --write "$dir/human9.yaml") >"$dir/out" 2>&1; then
    echo "FAIL: design_human9.py --write: $(tail -n 3 "$dir/out")"
    exit 1
fi
but_guess() {
    awk '/^guess:/ { skip = 1; next } skip && /^  / { next } { skip = 0; print }' "$1"
}
but_guess "$src/models/human9.yaml" >"$dir/want"
but_guess "$dir/human9.yaml" >"$dir/got"
if ! cmp -s "$dir/want" "$dir/got"; then
    echo "FAIL: --write does not reproduce models/human9.yaml (its guess aside):"
    diff "$dir/want" "$dir/got" | head -n 20
    exit 1
fi
if [ "$(wc -l <"$dir/want")" -lt 100 ]; then
    echo "FAIL: only $(wc -l <"$dir/want") lines compared"
    exit 1
fi
echo "ok: --write reproduces models/human9.yaml's $(wc -l <"$dir/want") lines outside its guess"
