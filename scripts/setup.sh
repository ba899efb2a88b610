#!/usr/bin/env bash
# Installs the Debian packages stridemap needs, if any are missing.
# Idempotent and silent when everything is already there.
set -euo pipefail

packages=(
  gcc meson ninja-build pkg-config
  libsundials-dev liblapacke-dev libopenblas-dev
  cmake make dpkg-dev        # scripts/build-sundials.sh: SUNDIALS from its source package, with -O2
  libcmocka-dev libjansson-dev
  libyaml-dev                # model files (models/*.yaml): libyaml gives every node its line:column
  libgsl-dev                 # bench/ baseline only
  libmujoco-dev              # tests/test_rigid_mujoco.c, an independent check of src/rigid/ (optional)
  python3-matplotlib         # plots in scripts/ (run with /usr/bin/python3)
  python3-scipy              # scripts/design_hzd.py (least squares for models/five_link.yaml)
  python3-yaml               # scripts/gen_biped12_3d_sampled.py reads models/biped12_3d.yaml
  python3-numpy python3-pytest python3-pandas  # the Python bindings (python/) and their tests (tests/python)
  libopenmpi-dev openmpi-bin # 'stridemap sweep' over MPI ranks (meson finds it: -Dmpi=auto)
  octave liboctave-dev       # matlab/: the MEX gateway, built and tested with mkoctfile --mex
  slurm-wlm slurm-wlm-basic-plugins munge libpmix2  # tests/test_slurm.sh: a private SLURM for scripts/slurm/
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
