#!/usr/bin/env bash
# Regenerates the samples' emitted files kept in samples/generated/ (what
# tests/codegen/compare_generated.cmake compares with fresh output): run it after changing an
# emitter, read the diff, and commit it with the change.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/run -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTATICNET_BUILD_TESTS=OFF >/dev/null
for model in simple_cnn lenet5 resnet8 resnet8_serving ds_cnn; do
  cmake --build build/run --target "${model}_generated"
  mkdir -p "samples/generated/$model"
  rm -f "samples/generated/$model"/*
  cp "build/run/samples/$model"/* "samples/generated/$model/"
done
git status --short samples/generated
