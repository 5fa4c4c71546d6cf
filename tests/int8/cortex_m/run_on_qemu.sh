#!/usr/bin/env bash
# Builds one generated int8 model for a Cortex-M7 and runs it on QEMU's mps2-an500, on a fixture's
# input; passes when its output is TensorFlow Lite's, byte for byte. Prints the firmware's text,
# data and bss (arm-none-eabi-size). Exit 77 (CTest: skipped) where the Arm toolchain or QEMU is
# missing.
#
#   run_on_qemu.sh SOURCE_TOOL MODEL FIXTURE.json GENERATED_DIR KERNELS_INCLUDE WORK_DIR
# MODEL is the generated model's name (MODEL_mcu.cpp, its API in namespace MODEL::mcu). SOURCE_TOOL
# writes the firmware's data source from the fixture; "none" takes FIXTURE as that source itself
# (firmware_main.cpp says what it defines). FIRMWARE_FLAGS and QEMU_FLAGS add flags (firmware.sh).
set -euo pipefail
[[ $# -eq 6 ]] || { echo "usage: $0 SOURCE_TOOL MODEL FIXTURE GENERATED_DIR KERNELS_INCLUDE WORK_DIR" >&2; exit 2; }
tool=$1 model=$2 fixture=$3 generated=$4 kernels=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=firmware.sh
source "$here/firmware.sh"
require_firmware_tools

mkdir -p "$work"
name=$(basename "$fixture" .json)
elf="$work/$name.elf"
if [[ $tool == none ]]; then
  data=$fixture
else
  data="$work/$name.cpp"
  "$tool" "$model" "$fixture" "$data"
fi

build_firmware "$elf" -DSTATICNET_FIRMWARE_MODEL="$model::mcu" \
  -DSTATICNET_FIRMWARE_DATA="\"$data\"" -I"$generated" -I"$kernels" \
  "$here/firmware_main.cpp" "$generated/${model}_mcu.cpp"
output=$(run_firmware "$elf") || { echo "$output"; exit 1; }
echo "$output"
grep -qx "match" <<<"$output"
