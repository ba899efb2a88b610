#!/usr/bin/env bash
# Installs stridemap into PREFIX (default ~/.local): installs what is
# missing (scripts/setup.sh), builds in build-install/ and runs meson
# install.  PREFIX gets bin/stridemap, lib/<arch>/libstridemap.{so,a} and
# pkgconfig/stridemap.pc, include/stridemap/, share/stridemap/models/ and
# share/man/man1/stridemap.1.
#
# The library and program keep an rpath to the optimised SUNDIALS that
# scripts/build.sh makes in ~/.cache/stridemap (or $STRIDEMAP_CACHE_DIR):
# install as the user who runs stridemap, or give a cache directory every
# user can read, or STRIDEMAP_SUNDIALS=system for Debian's libsundials-dev
# (strides about 3x slower).
set -euo pipefail
prefix=$(realpath -m "${1:-$HOME/.local}")
cd "$(dirname "$0")/.."
scripts/setup.sh
dir=build-install
scripts/build.sh "$dir" --prefix="$prefix" -Dtests=false -Dbench=false
# A build directory made before for another prefix follows this one.
if [ "$(meson introspect --buildoptions "$dir" | python3 -c \
    'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')" != "$prefix" ]; then
  meson configure "$dir" --prefix="$prefix" >/dev/null
  ninja -C "$dir" >/dev/null
fi
meson install -C "$dir" --quiet
echo "install: stridemap $(meson introspect --projectinfo "$dir" | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])') in $prefix"
