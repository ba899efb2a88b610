#!/usr/bin/env bash
# Builds Debian's own SUNDIALS source package (the version that
# libsundials-dev ships) with optimisation, once, and prints its install
# prefix on stdout for 'meson setup -Dsundials_dir=PREFIX'.  scripts/build.sh
# calls it for every build; on failure the last line on stderr says why, and
# build.sh falls back to the system library.
#
#   scripts/build-sundials.sh [PREFIX]
#
# Why: Debian 12's libsundials-dev 6.4.1 is compiled without -O (its rules
# pass CMAKE_C_FLAGS=-fcommon and no build type), and on a 4-state walker
# nearly all of a stride's time is spent inside CVODE.  The -O2 build makes a
# stride about 3x faster; see bench/README.md.
#
# Where: by default $XDG_CACHE_HOME/stridemap (~/.cache/stridemap), outside
# the source tree, in a directory named by the source version and a hash of
# everything that shapes the build (this recipe's flags, the compiler), so a
# build for other flags or another version is never reused, and clones,
# worktrees and CI runs on one machine share one build.  Outside the tree
# because meson refuses include directories given as absolute paths into
# the source tree, and a cache survives 'git clean'.  STRIDEMAP_CACHE_DIR
# overrides the cache directory.
#
# It reads the machine's own apt sources (turning 'deb' into 'deb-src' in a
# private copy) and never changes the system's apt configuration.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "build-sundials: $*" >&2; exit 1; }

for tool in cmake make dpkg-source apt-get; do
  command -v "$tool" >/dev/null || fail "needs $tool (apt-get install cmake make dpkg-dev)"
done
version=$(dpkg-query -W -f='${source:Version}' libsundials-dev 2>/dev/null) ||
  fail "libsundials-dev is not installed (scripts/setup.sh installs it)"

# Everything that shapes the installed libraries; its hash names the prefix.
cmake_args=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" -DCMAKE_INSTALL_LIBDIR=lib
  -DCMAKE_SKIP_INSTALL_RPATH=ON -DBUILD_STATIC_LIBS=OFF -DBUILD_SHARED_LIBS=ON
  -DBUILD_CVODE=ON -DBUILD_ARKODE=ON -DBUILD_CVODES=ON -DBUILD_IDA=OFF -DBUILD_IDAS=OFF
  -DBUILD_KINSOL=OFF -DBUILD_FORTRAN_MODULE_INTERFACE=OFF -DEXAMPLES_ENABLE_C=OFF -DEXAMPLES_INSTALL=OFF)
compiler=$(cc -dumpmachine 2>/dev/null)-$(cc -dumpfullversion 2>/dev/null)
key=$(printf '%s\n' "$version" "$compiler" "${cmake_args[@]}" | sha256sum | cut -c1-12)
if [ $# -ge 1 ]; then
  prefix=$(realpath -m "$1")
else
  cache=${STRIDEMAP_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/stridemap}
  prefix=$(realpath -m "$cache/sundials-$version-O2-$key")
fi
stamp="$prefix/stridemap-sundials.txt"
if [ -f "$stamp" ]; then echo "$prefix"; exit 0; fi
[ -e "$prefix" ] && fail "$prefix exists but is not a build of this script: remove it or name another prefix"

# Two builds at once (two clones, or build and build-asan) wait for one.
mkdir -p "$(dirname "$prefix")" || fail "cannot create $(dirname "$prefix")"
exec 9>"$prefix.lock" || fail "cannot write $prefix.lock"
flock 9
if [ -f "$stamp" ]; then echo "$prefix"; exit 0; fi

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
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root"
          -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o Acquire::https::Timeout=30)
echo "build-sundials: fetching the source of sundials $version (once)" >&2
apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || fail "apt-get update of the deb-src lists failed (no network?)"
(cd "$work" && apt-get "${apt_opts[@]}" source -qq "sundials=$version" >/dev/null 2>&1) ||
  fail "apt-get source sundials=$version failed (no deb-src entry for it, or no network)"
src=$(find "$work" -maxdepth 1 -type d -name 'sundials-*' | head -n 1)
[ -n "$src" ] || fail "apt-get source sundials=$version unpacked nothing"

echo "build-sundials: building CVODE, CVODES and ARKODE with -O2 into $prefix (about 20 s, once)" >&2
log="$work/build.log"
tmp_prefix="$prefix.tmp.$$"
trap 'rc=$?; [ $rc -ne 0 ] && [ -f "$log" ] && tail -n 30 "$log" >&2; rm -rf "$work" "$tmp_prefix"' EXIT
{
  cmake -S "$src" -B "$work/build" "-DCMAKE_INSTALL_PREFIX=$prefix" "${cmake_args[@]}" &&
    cmake --build "$work/build" -j "$(nproc)" &&
    cmake --install "$work/build" --prefix "$tmp_prefix"
} >"$log" 2>&1 || fail "the SUNDIALS build failed (scripts/build-sundials.sh shows its log)"
printf 'source\tsundials %s (Debian source package)\ncompiler\t%s\nkey\t%s\ncmake\t%s\n' \
  "$version" "$compiler" "$key" "${cmake_args[*]}" > "$tmp_prefix/stridemap-sundials.txt"
# The prefix appears whole or not at all: a stopped build leaves no half.
mv -T "$tmp_prefix" "$prefix"
echo "$prefix"
