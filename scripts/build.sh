#!/usr/bin/env bash
# Configures (once) and builds stridemap in DIR (default: build), passing any
# further arguments to 'meson setup'.
#
# SUNDIALS: the optimised build of scripts/build-sundials.sh (made once,
# kept in ~/.cache/stridemap), else the system libsundials-dev with one line
# on stderr saying why.  STRIDEMAP_SUNDIALS=system asks for the system
# library, STRIDEMAP_SUNDIALS=optimised insists on the optimised one (CI);
# a -Dsundials_dir=... argument is used as given.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true

want=()
if ! printf '%s\n' "$@" | grep -q '^-Dsundials_dir='; then
  if [ "${STRIDEMAP_SUNDIALS:-}" = system ]; then
    want=(-Dsundials_dir=)
  else
    why=$(mktemp)
    if prefix=$(scripts/build-sundials.sh 2>"$why"); then
      want=("-Dsundials_dir=$prefix")
      [ -s "$why" ] && echo "build: built the optimised SUNDIALS once, into $prefix" >&2
    elif [ "${STRIDEMAP_SUNDIALS:-}" = optimised ]; then
      echo "build: STRIDEMAP_SUNDIALS=optimised, but $(tail -n 1 "$why" | sed 's/^build-sundials: //')" >&2
      rm -f "$why"
      exit 1
    else
      echo "build: using the system libsundials-dev, built without optimisation (strides about 3x slower): $(tail -n 1 "$why" | sed 's/^build-sundials: //')" >&2
      want=(-Dsundials_dir=)
    fi
    rm -f "$why"
  fi
fi

if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$@" "${want[@]}" >/dev/null
elif [ ${#want[@]} -gt 0 ]; then
  # A build directory configured before keeps its options; follow SUNDIALS.
  have=$(meson introspect --buildoptions "$dir" | python3 -c \
    'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "sundials_dir"))')
  if [ "-Dsundials_dir=$have" != "${want[0]}" ]; then
    meson configure "$dir" "${want[@]}" >/dev/null
  fi
fi
# stridemap.pc relative to its own place (a default since the library was
# installable): a directory configured before follows.
if [ "$(meson introspect --buildoptions "$dir" | python3 -c \
    'import json, sys; print(next((o["value"] for o in json.load(sys.stdin) if o["name"] == "pkgconfig.relocatable"), True))')" = False ]; then
  meson configure "$dir" -Dpkgconfig.relocatable=true >/dev/null
fi
ninja -C "$dir" >/dev/null
