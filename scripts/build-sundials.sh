#!/usr/bin/env bash
# Optional: builds Debian's own SUNDIALS source package (the version that
# libsundials-dev ships) with optimisation, into PREFIX (default
# .deps/sundials), for 'meson setup -Dsundials_dir=PREFIX'.
#
# Why: Debian 12's libsundials-dev 6.4.1 is compiled without -O (its rules
# pass CMAKE_C_FLAGS=-fcommon and no build type), and on a 4-state walker
# nearly all of a stride's time is spent inside CVODE.  The -O2 build makes a
# stride about 3x faster; see bench/README.md.
#
# It reads the machine's own apt sources (turning 'deb' into 'deb-src' in a
# private copy) and never changes the system's apt configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-.deps/sundials}")
if [ -f "$prefix/lib/libsundials_cvode.so" ]; then exit 0; fi

for tool in cmake make dpkg-source; do
  command -v "$tool" >/dev/null || { echo "build-sundials: needs $tool (apt-get install cmake make dpkg-dev)" >&2; exit 1; }
done
version=$(dpkg-query -W -f='${source:Version}' libsundials-dev 2>/dev/null) ||
  { echo "build-sundials: install libsundials-dev first (scripts/setup.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
: > "$work/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" > "$work/$(basename "$f")"
done
if [ -f /etc/apt/sources.list ]; then
  sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list > "$work/sources.list"
fi
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root")
echo "build-sundials: fetching the source of sundials $version" >&2
apt-get "${apt_opts[@]}" update -qq >/dev/null
(cd "$work" && apt-get "${apt_opts[@]}" source -qq "sundials=$version" >/dev/null 2>&1)
src=$(find "$work" -maxdepth 1 -type d -name 'sundials-*' | head -n 1)
[ -n "$src" ] || { echo "build-sundials: could not fetch the source package" >&2; exit 1; }

echo "build-sundials: building CVODE and ARKODE with -O2 into $prefix" >&2
log="$work/build.log"
trap 'rc=$?; [ $rc -ne 0 ] && [ -f "$log" ] && tail -n 30 "$log" >&2; rm -rf "$work"' EXIT
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_STATIC_LIBS=OFF -DBUILD_SHARED_LIBS=ON \
  -DBUILD_CVODE=ON -DBUILD_ARKODE=ON -DBUILD_CVODES=OFF -DBUILD_IDA=OFF -DBUILD_IDAS=OFF \
  -DBUILD_KINSOL=OFF -DBUILD_FORTRAN_MODULE_INTERFACE=OFF -DEXAMPLES_ENABLE_C=OFF \
  -DEXAMPLES_INSTALL=OFF >"$log" 2>&1
cmake --build "$work/build" -j "$(nproc)" >>"$log" 2>&1
cmake --install "$work/build" >>"$log" 2>&1
echo "build-sundials: done; configure with: meson setup build -Dsundials_dir=$prefix" >&2
