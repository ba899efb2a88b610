#!/usr/bin/env bash
# Configures (once) and builds stridemap in DIR (default: build), passing any
# further arguments to 'meson setup'.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
