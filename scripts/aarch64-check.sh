#!/usr/bin/env bash
# Cross-builds staticnet for 64-bit ARM Linux (a Jetson's CPU, a Raspberry Pi 4/5, Graviton) on
# an x86-64 Debian 12 machine and runs its test suite under qemu-user: what a user who builds a
# trainer for a Jetson from a workstation gets, checked without the board.
#
#   scripts/aarch64-check.sh [BUILD_DIR]     (default build/aarch64; about 15 minutes on 2 cores)
#
# Installs what it needs (the cross compiler, qemu-user and its binfmt registration, the arm64
# OpenBLAS and fmt), builds a Release tree with warnings as errors through
# cmake/toolchains/aarch64-linux-gnu.cmake, and runs ctest except the `gpu` tests (no CUDA in
# this build) and the `install` tests (they do not pass the toolchain file on to the projects
# they build; instead the script builds the trainer project of those tests itself, at the end).
# CMake runs the tests' own programs through the toolchain's emulator; the binfmt registration
# runs those that the test drivers start themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath -m "${1:-build/aarch64}")

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
scripts/install-deps.sh g++-aarch64-linux-gnu qemu-user qemu-user-binfmt libopenblas-dev:arm64 \
  libfmt-dev:arm64
# Without systemd running (a container), the package's registration did not happen.
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
  if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
    "${sudo_cmd[@]}" mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  fi
  "${sudo_cmd[@]}" /lib/systemd/systemd-binfmt /usr/lib/binfmt.d/qemu-aarch64.conf
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DSTATICNET_WARNINGS_AS_ERRORS=ON -DSTATICNET_CUDA=OFF
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -LE "gpu|install" -j "$(nproc)" --output-on-failure

# The install tests' user project, cross-built against the installed aarch64 package: its
# ANALYZE step runs the installed `staticnet` and its probe under qemu; then the trainer trains.
cmake --install "$build" --prefix "$build/installed" >/dev/null
cmake -S tests/install/trainer_consumer -B "$build/consumer" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$build/installed"
cmake --build "$build/consumer"
"$build/consumer/iris_trainer_cpu" --data synthetic:600 --epochs 3 --progress none
echo "staticnet: the aarch64 build, its tests and an installed-package project all passed"
