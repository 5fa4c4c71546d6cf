#!/usr/bin/env bash
# Gathers what scripts/gpu-checks.sh runs into one folder (default build/gpu), for a GPU machine
# that has the NVIDIA libraries but not this project's build: the CUDA trainers of SimpleCNN and
# LeNet-5, the step benchmark, and the shared libraries they need that such a machine may lack.
#   scripts/gpu-bundle.sh [BUILD_DIR (default build/bench, configured with STATICNET_BUILD_BENCH=ON)]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
out=build/gpu
rm -rf "$out" && mkdir -p "$out/lib"
cp "$build"/samples/{simple_cnn,lenet5}_trainer_cuda "$build/bench/cuda_step/staticnet_bench_cuda_step" "$out/"
for lib in $(ldd "$out"/*_cuda "$out/staticnet_bench_cuda_step" | awk '/libfmt/ {print $3}' | sort -u); do
  cp -L "$lib" "$out/lib/"
done
ls -la "$out" "$out/lib"
