#!/usr/bin/env bash
# Builds paired_main.cpp for a Cortex-M7 and runs it on QEMU's mps2-an500: the paired int8
# kernels in the DSP instructions against the portable ones. Exit 77 (CTest: skipped) where the
# Arm toolchain or QEMU is missing.
#
#   run_kernels_on_qemu.sh KERNELS_INCLUDE WORK_DIR
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 KERNELS_INCLUDE WORK_DIR" >&2; exit 2; }
kernels=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=firmware.sh
source "$here/firmware.sh"
require_firmware_tools

mkdir -p "$work"
build_firmware "$work/paired_kernels.elf" -I"$kernels" -I"$here/.." "$here/paired_main.cpp"
run_firmware "$work/paired_kernels.elf"
