#!/usr/bin/env bash
# The main job: install what is missing, build the samples and the generated CPU trainer of seed
# 001's SimpleCNN, print each sample's shapes and footprint, then train SimpleCNN on a generated
# (synthetic) data set so that loss falls and accuracy rises with no download.
# Arguments are passed to the printer (sample names; none means all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# A build directory of its own, so that the test presets' caches are never changed by this job.
cmake -S . -B build/run -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTATICNET_BUILD_TESTS=OFF >/dev/null
cmake --build build/run --target staticnet_samples simple_cnn_trainer_cpu
./build/run/samples/staticnet_samples "$@"
echo
echo "== SimpleCNN trained by its generated CPU trainer (samples/simple_cnn.hpp), on synthetic data"
./build/run/samples/simple_cnn_trainer_cpu --data synthetic:4096 --eval synthetic:1024 --epochs 5
