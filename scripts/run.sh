#!/usr/bin/env bash
# The main job: install what is missing, build the samples, print each one's shapes and footprint.
# Arguments are passed to the printer (sample names; none means all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# A build directory of its own, so that the test presets' caches are never changed by this job.
cmake -S . -B build/run -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTATICNET_BUILD_TESTS=OFF \
  -DSTATICNET_BUILD_RUNTIME=OFF >/dev/null
cmake --build build/run --target staticnet_samples
./build/run/samples/staticnet_samples "$@"
