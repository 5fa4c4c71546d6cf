#!/usr/bin/env bash
# The instructions one inference executes on a Cortex-M7, paired kernels (the DSP instructions,
# codegen/kernels/include/staticnet/kernels/int8/paired.hpp) beside the portable ones
# (-DSTATICNET_INT8_PORTABLE), for the seven int8 models the firmware tests run. Each firmware is
# the test's own (tests/int8/cortex_m/firmware_main.cpp), built once each way; QEMU runs it with
# -icount shift=0 and it counts the instructions of invoke() alone (instruction_count.hpp). Each
# run's output must still match TensorFlow Lite's, byte for byte.
#
# Instructions, not cycles: QEMU does not model the Cortex-M7's pipeline, its dual issue or its
# memory's wait states. A board's cycle counter would give those.
#
#   bench/mcu/instructions.sh [BUILD_DIR]     (default build/gcc, after its tests/int8 targets built)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build/gcc}" && pwd)
int8=$build/tests/int8
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count() {  # count MODEL FIXTURE [FLAGS]: the instructions, or the run's output on a failure
  local output
  output=$(FIRMWARE_FLAGS="-DSTATICNET_FIRMWARE_COUNT_INSTRUCTIONS ${3:-}" \
           QEMU_FLAGS="-icount shift=0" \
           "$root/tests/int8/cortex_m/run_on_qemu.sh" "$int8/int8_firmware_source" "int8_$1" \
           "$root/tests/reference/$2.json" "$int8/int8_$1" "$root/codegen/kernels/include" \
           "$work/$1${3:+-portable}") || { echo "$output" >&2; exit 1; }
  sed -n 's/^instructions: //p' <<<"$output"
}

commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

echo "| model | paired | portable | portable / paired |"
echo "|---|---:|---:|---:|"
for entry in "digits int8_models/digits_cnn_s0" "residual int8_models/residual_s0" \
             "ds_block int8_models/ds_block_s0" "resnet8 int8_mlperf/resnet8" \
             "ds_cnn int8_mlperf/ds_cnn" "mobilenet_v1 int8_mlperf/mobilenet_v1" \
             "fc_autoencoder int8_mlperf/fc_autoencoder"; do
  read -r model fixture <<<"$entry"
  paired=$(count "$model" "$fixture")
  portable=$(count "$model" "$fixture" -DSTATICNET_INT8_PORTABLE)
  printf "| %s | %s | %s | %s |\n" "$model" "$(commas "$paired")" "$(commas "$portable")" \
    "$(awk -v a="$portable" -v b="$paired" 'BEGIN { printf "%.2f", a / b }')"
done
