#!/usr/bin/env bash
# The main job: install what is missing, build, and find the simplest
# walker's gait at slope 0.009 with its stability.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
exec build/src/cli/stridemap fixed simplest --set gamma=0.009 "$@"
