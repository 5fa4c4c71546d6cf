#!/usr/bin/env bash
# Builds one generated int8 model for a Cortex-M7 and runs it on QEMU's mps2-an500, on a fixture's
# input; passes when its output is TensorFlow Lite's, byte for byte. Prints the firmware's text,
# data and bss (arm-none-eabi-size). Exit 77 (CTest: skipped) where the Arm toolchain or QEMU is
# missing (scripts/install-deps.sh installs both).
#
#   run_on_qemu.sh SOURCE_TOOL MODEL FIXTURE.json GENERATED_DIR KERNELS_INCLUDE WORK_DIR
# MODEL is the generated model's name (MODEL_mcu.cpp, its API in namespace MODEL::mcu). SOURCE_TOOL
# writes the firmware's data source from the fixture; "none" takes FIXTURE as that source itself
# (firmware_main.cpp says what it defines).
set -euo pipefail
[[ $# -eq 6 ]] || { echo "usage: $0 SOURCE_TOOL MODEL FIXTURE GENERATED_DIR KERNELS_INCLUDE WORK_DIR" >&2; exit 2; }
tool=$1 model=$2 fixture=$3 generated=$4 kernels=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
for program in arm-none-eabi-g++ arm-none-eabi-size qemu-system-arm; do
  if ! command -v "$program" >/dev/null; then
    echo "skipped: $program is not installed (scripts/install-deps.sh installs it)"
    exit 77
  fi
done

mkdir -p "$work"
name=$(basename "$fixture" .json)
elf="$work/$name.elf"
if [[ $tool == none ]]; then
  data=$fixture
else
  data="$work/$name.cpp"
  "$tool" "$model" "$fixture" "$data"
fi

# A Cortex-M7 without an FPU in use: the inference is integers only. No exceptions, no RTTI, no
# thread-safe statics, no C or C++ library (startup.cpp has the two functions a compiler may call).
arm-none-eabi-g++ -mcpu=cortex-m7 -mthumb -mfloat-abi=soft -std=c++17 -O2 -ffreestanding \
  -fno-exceptions -fno-rtti -fno-threadsafe-statics -Wall -Wextra -Werror \
  -DSTATICNET_FIRMWARE_MODEL="$model::mcu" -DSTATICNET_FIRMWARE_DATA="\"$data\"" \
  -I"$generated" -I"$kernels" \
  "$here/startup.cpp" "$here/firmware_main.cpp" "$generated/${model}_mcu.cpp" \
  -nostdlib -nostartfiles -T "$here/link.ld" -lgcc -o "$elf"
arm-none-eabi-size "$elf"

# The program's semihosting output arrives on QEMU's standard error, with \r\n line ends.
output=$(timeout 60 qemu-system-arm -M mps2-an500 -nographic -semihosting -kernel "$elf" \
           2>&1 </dev/null | tr -d '\r') || {
  status=$?
  echo "$output"
  echo "the firmware failed (exit $status)"
  exit 1
}
echo "$output"
grep -qx "match" <<<"$output"
