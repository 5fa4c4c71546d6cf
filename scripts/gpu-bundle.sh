#!/usr/bin/env bash
# Gathers what scripts/gpu-checks.sh runs into one folder (default build/gpu), for a GPU machine
# that has the NVIDIA libraries but not this project's build: the CUDA trainers of SimpleCNN and
# LeNet-5 (and SimpleCNN's with Prefetch), the digits trainer and its two inference programs, the gpu-labelled test program, the
# benchmarks, and the shared libraries they need that such a machine may lack.
#   scripts/gpu-bundle.sh [BUILD_DIR [TEST_BUILD_DIR]]
# BUILD_DIR (default build/bench) is configured with -DSTATICNET_BUILD_BENCH=ON; TEST_BUILD_DIR
# (default build/gcc, the gcc preset) holds the test program.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
tests=${2:-build/gcc}
out=build/gpu
rm -rf "$out" && mkdir -p "$out/lib"
cp "$build"/samples/{simple_cnn,lenet5}_trainer_cuda "$build"/bench/cuda_step/staticnet_bench_{cuda_step,conv_engines} \
  "$build"/bench/cuda_step/simple_cnn_prefetch_trainer_cuda \
  "$build"/samples/{digits_cnn_trainer_cpu,digits_infer_cpu,digits_infer_cuda} \
  "$tests/tests/codegen/cuda/staticnet_cuda_tests" "$out/"
for lib in $(ldd $(find "$out" -maxdepth 1 -type f) | awk '/libfmt/ {print $3}' | sort -u); do
  cp -L "$lib" "$out/lib/"
done
ls -la "$out" "$out/lib"
