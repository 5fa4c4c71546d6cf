#!/usr/bin/env bash
# Installs what is missing, builds and runs every test: g++ and clang++ in plain Release (clang++
# with short fuzz runs), and clang++ under AddressSanitizer + UndefinedBehaviorSanitizer. The
# install tests (a full Release build and install of the package, then outside projects) run in
# the g++ preset only: they test the package, not the compiler, and take minutes each.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=${STATICNET_JOBS:-$(nproc)}
presets=${STATICNET_PRESETS:-gcc clang asan}
./scripts/python-env.sh >/dev/null
for preset in $presets; do
  echo "=== staticnet tests: preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
