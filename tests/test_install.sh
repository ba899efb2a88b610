#!/usr/bin/env bash
# `meson install` as a user meets it: the tree installed into a temporary
# staging directory (DESTDIR), then examples/fixed_simplest.c compiled with
# nothing but `pkg-config --cflags --libs stridemap` (PKG_CONFIG_PATH at the
# installed .pc), against the shared and then the static library, its fixed
# point and multipliers held to the installed program's; only sm_ names
# exported; headers, man page and model files in place, and the model files
# found by name from another directory by the program and the library.
#
# usage: test_install.sh BUILD_DIR SOURCE_DIR CC [CFLAGS...]
# Exit 77 (skipped) without pkg-config, nm, readelf or python3, or where
# the build directory's stridemap.pc is not relocatable.
set -euo pipefail
build=$1 src=$2 cc=$3
shift 3
extra_cflags=("$@")
for tool in pkg-config nm readelf python3; do
  command -v "$tool" >/dev/null || { echo "skip: no $tool"; exit 77; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

DESTDIR="$tmp/stage" meson install -C "$build" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(find "$tmp/stage" -name stridemap.pc)
[ -n "$pc" ] || { echo "FAIL: no stridemap.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
# A staged tree's .pc file gives the staged paths only when relocatable
# (meson.build's default; scripts/build.sh sets it in a build directory
# configured before it was).
if ! grep -q '^prefix=${pcfiledir}' "$pc"; then
  echo "skip: $build has pkgconfig.relocatable=false (meson configure $build -Dpkgconfig.relocatable=true)"
  exit 77
fi
pkgconfig=(pkg-config)
libdir=$("${pkgconfig[@]}" --variable=libdir stridemap)
prefix=$(dirname "$(dirname "$(find "$tmp/stage" -path '*/bin/stridemap')")")
program="$prefix/bin/stridemap"

# What is installed.
[ -x "$program" ] && pass "program" || fail "no $program"
for f in "$libdir"/libstridemap.a "$libdir"/libstridemap.so; do
  [ -e "$f" ] && pass "$(basename "$f")" || fail "no $f"
done
for h in "$src"/include/stridemap/*.h version.h; do
  [ -f "$prefix/include/stridemap/$(basename "$h")" ] || fail "header $(basename "$h") not installed"
done
grep -q '^#define STRIDEMAP_VERSION_MAJOR [0-9]' "$prefix/include/stridemap/version.h" &&
  pass "version.h" || fail "version.h has no STRIDEMAP_VERSION_MAJOR"
man="$prefix/share/man/man1/stridemap.1"
if [ -f "$man" ]; then
  for cmd in fixed simulate sweep continue orbit search; do
    grep -q "^\.SH.*${cmd^^}\|^\.SS.*$cmd" "$man" || fail "man page has no section for $cmd"
  done
  pass "man page"
else
  fail "no $man"
fi
for y in "$src"/models/*.yaml; do
  [ -f "$prefix/share/stridemap/models/$(basename "$y")" ] || fail "model file $(basename "$y") not installed"
done

# Only the public API is exported: every defined dynamic symbol is sm_*.
so=$(readlink -f "$libdir/libstridemap.so")
others=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^sm_' || true)
[ -z "$others" ] && pass "only sm_ symbols exported" ||
  fail "libstridemap.so exports non-sm_ symbols: $(echo $others | head -c 400)"
exported=$(nm -D --defined-only "$so")
grep -q ' T sm_version$' <<<"$exported" && grep -q ' T sm_fixed_point$' <<<"$exported" &&
  pass "sm_version, sm_fixed_point exported" || fail "sm_version or sm_fixed_point not exported"
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
major=$(sed -n 's/^#define STRIDEMAP_VERSION_MAJOR //p' "$prefix/include/stridemap/version.h")
minor=$(sed -n 's/^#define STRIDEMAP_VERSION_MINOR //p' "$prefix/include/stridemap/version.h")
want=$([ "$major" = 0 ] && echo "libstridemap.so.0.$minor" || echo "libstridemap.so.$major")
[ "$soname" = "$want" ] && pass "soname $soname" || fail "soname '$soname', expected $want"

# The installed program runs with the SUNDIALS the build's program runs with
# (meson install drops build rpaths; the optimised build must not silently
# become Debian's).
want=$("$build/src/cli/stridemap" --version | sed -n 2p)
got=$("$program" --version | sed -n 2p)
[ "$got" = "$want" ] && pass "installed program's SUNDIALS" || fail "installed program: '$got', build: '$want'"

# The CLI's gait, at full precision.
(cd "$tmp" && "$program" fixed simplest --set gamma=0.009 --json >cli.json) || fail "stridemap fixed"

compare() { # compare NAME OUTPUT_FILE: the example's numbers against cli.json
  python3 - "$tmp/cli.json" "$2" "$1" <<'PY'
import json, sys
cli = json.load(open(sys.argv[1]))
want = cli["fixed_point"] + [v for pair in cli["eigenvalues"] for v in pair]
got = []
for line in open(sys.argv[2]):
    words = line.split()
    if words and words[0] in cli["state_names"]: got.append(float(words[1]))
    if words and words[0] == "eigenvalue": got += [float(words[1]), float(words[2])]
bad = [(g, w) for g, w in zip(got, want) if abs(g - w) > 1e-12 * max(1.0, abs(w))]
if len(got) != len(want) or bad:
    print(f"FAIL: {sys.argv[3]}: {got} against the CLI's {want}")
    sys.exit(1)
print(f"ok: {sys.argv[3]}: fixed point and multipliers equal the CLI's to 1e-12")
PY
}

cd "$tmp"
# Shared: a prefix outside the loader's path needs its libdir as rpath.
if "$cc" -std=c17 -Wall -Wextra -Werror -pedantic "${extra_cflags[@]}" "$src/examples/fixed_simplest.c" \
     $("${pkgconfig[@]}" --cflags --libs stridemap) -Wl,-rpath,"$libdir" -o fixed_shared 2>cc.log; then
  grep -q "NEEDED.*\[$soname\]" <<<"$(readelf -d fixed_shared)" || fail "shared example does not need $soname"
  ./fixed_shared >shared.out && compare "shared library" shared.out || { cat shared.out; fail "shared example"; }
else
  cat cc.log; fail "compiling the example against the shared library"
fi

# Static: the same tree without the shared library, so -lstridemap is the archive.
cp -a "$tmp/stage" "$tmp/static"
rm -f "$tmp/static${libdir#"$tmp/stage"}"/libstridemap.so*
static_pc=$(find "$tmp/static" -name stridemap.pc)
if "$cc" -std=c17 "${extra_cflags[@]}" "$src/examples/fixed_simplest.c" \
     $(PKG_CONFIG_PATH=$(dirname "$static_pc") "${pkgconfig[@]}" --static --cflags --libs stridemap) -o fixed_static 2>cc.log; then
  ! grep -q 'NEEDED.*libstridemap' <<<"$(readelf -d fixed_static)" || fail "static example needs libstridemap.so"
  ./fixed_static >static.out && compare "static library" static.out || { cat static.out; fail "static example"; }
else
  cat cc.log; fail "compiling the example against the static library"
fi

# Model files by name from another directory, through the program and
# through the shared library: the staged tree finds its own share/.
mkdir elsewhere && cd elsewhere
unset STRIDEMAP_MODEL_PATH
"$program" params kneed_hsu >/dev/null 2>err.log && pass "program opens kneed_hsu by name" ||
  { cat err.log; fail "program cannot open kneed_hsu by name from $PWD"; }
cat >open.c <<'C'
#include <stdio.h>
#include <stridemap/stridemap.h>
int main(void)
{
    const sm_model *m;
    char why[1024];
    if (sm_registry_open("kneed_hsu", &m, why, sizeof why) != SM_OK) { puts(why); return 1; }
    sm_registry_close(m);
    return 0;
}
C
"$cc" -std=c17 "${extra_cflags[@]}" open.c $("${pkgconfig[@]}" --cflags --libs stridemap) -Wl,-rpath,"$libdir" -o open &&
  ./open && pass "library opens kneed_hsu by name" || fail "library cannot open kneed_hsu by name from $PWD"

echo "install: $failures failed"
[ "$failures" -eq 0 ]
