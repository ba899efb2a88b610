# Sourced by the plot-script tests: Debian's /usr/bin/python3 as $py (exit
# 77, skipped, without it or its matplotlib), a temporary $dir removed on
# exit, and failed=0.  Set plot_tmp (a mktemp template's prefix) first.
py=/usr/bin/python3
if [ ! -x "$py" ]; then
    echo "skipped: no $py (Debian: apt-get install python3 python3-matplotlib)"
    exit 77
fi
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
    echo "skipped: $py has no matplotlib (Debian: apt-get install python3-matplotlib)"
    exit 77
fi
dir=$(mktemp -d "/tmp/${plot_tmp}_XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
failed=0
