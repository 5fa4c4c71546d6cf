#!/usr/bin/env bash
# The main job: install what is missing, build the samples, print each one's shapes and footprint.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset gcc -DSTATICNET_BUILD_TESTS=OFF >/dev/null
cmake --build --preset gcc --target staticnet_samples
./build/gcc/samples/staticnet_samples "$@"
