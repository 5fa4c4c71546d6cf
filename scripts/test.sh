#!/usr/bin/env bash
# Installs what is missing, builds and runs every test in two presets: g++ in plain Release, as
# users build, with the CUDA code compiled; and clang++ under AddressSanitizer +
# UndefinedBehaviorSanitizer, with short fuzz runs. The install tests (a full Release build and
# install of the package, then outside projects) run in the g++ preset only: they test the
# package, not the compiler, and take minutes each.
#
# The `clang` preset (clang++ in plain Release) is left out: clang++'s warnings do not depend on
# the optimisation level, so the asan preset, which compiles the same sources with clang++ and
# -Werror, already checks them, and UBSan catches what -O3 would turn into a different result.
# Building everything a third time cost CI five minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=${STATICNET_JOBS:-$(nproc)}
presets=${STATICNET_PRESETS:-gcc asan}
./scripts/python-env.sh >/dev/null
for preset in $presets; do
  echo "=== staticnet tests: preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
