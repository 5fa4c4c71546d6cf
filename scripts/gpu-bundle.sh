#!/usr/bin/env bash
# Builds and gathers what scripts/gpu-checks.sh runs into one folder, build/gpu, for a GPU machine
# that has the NVIDIA libraries but not this project's build: the CUDA trainers of SimpleCNN and
# LeNet-5 (and SimpleCNN's with Prefetch), both trainers of the four MLPerf Tiny models, the
# digits trainer and its two inference programs, the gpu-labelled test program, the benchmarks,
# and the shared libraries they need that such a machine may lack (OpenBLAS).
#   scripts/gpu-bundle.sh [BUILD_DIR]
# BUILD_DIR (default build/gcc, the gcc preset's) must be configured with the CUDA backend and
# -DSTATICNET_BUILD_BENCH=ON:  cmake --preset gcc -DSTATICNET_BUILD_BENCH=ON
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gcc}
if ! grep -q '^STATICNET_BUILD_BENCH:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "gpu-bundle: $build is not configured with -DSTATICNET_BUILD_BENCH=ON" >&2
  echo "  run: cmake --preset gcc -DSTATICNET_BUILD_BENCH=ON" >&2
  exit 2
fi
mlperf_trainers=()
for model in resnet8 ds_cnn mobilenet_v1 fc_autoencoder; do
  mlperf_trainers+=("${model}_trainer_cpu" "${model}_trainer_cuda")
done
cmake --build "$build" --target simple_cnn_trainer_cuda lenet5_trainer_cuda \
  simple_cnn_prefetch_trainer_cuda "${mlperf_trainers[@]}" digits_cnn_trainer_cpu \
  digits_infer_cpu digits_infer_cuda staticnet_cuda_tests staticnet_bench_cuda_step \
  staticnet_bench_conv_engines staticnet_bench_direct_conv
out=build/gpu
rm -rf "$out" && mkdir -p "$out/lib"
cp "$build"/samples/{simple_cnn,lenet5}_trainer_cuda "$build"/samples/{resnet8,ds_cnn,mobilenet_v1,fc_autoencoder}_trainer_{cpu,cuda} \
  "$build"/samples/{digits_cnn_trainer_cpu,digits_infer_cpu,digits_infer_cuda} \
  "$build"/bench/cuda_step/{simple_cnn_prefetch_trainer_cuda,staticnet_bench_cuda_step} \
  "$build"/bench/cuda_step/staticnet_bench_{conv_engines,direct_conv} \
  "$build/tests/codegen/cuda/staticnet_cuda_tests" "$out/"
# The CPU trainers' OpenBLAS (Debian's, with its Fortran runtime): the GPU machine's image has
# PyTorch and NVIDIA's libraries from pip, not Debian's packages.
for lib in $(ldd $(find "$out" -maxdepth 1 -type f) |
  awk '/libopenblas|libgfortran|libquadmath/ {print $3}' | sort -u); do
  cp -L "$lib" "$out/lib/"
done
ls -la "$out" "$out/lib"
# The device tool carries at most 64 MiB with the working tree; the programs are about 55 MiB,
# compressed about 5 MiB. Carry build/gpu.tar.xz and unpack it there first:
#   tar xJf build/gpu.tar.xz -C build && timeout 570 scripts/gpu-checks.sh build/gpu OUT_DIR PART...
tar cJf build/gpu.tar.xz -C build gpu
ls -la build/gpu.tar.xz
