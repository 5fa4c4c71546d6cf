# Shell functions that build a Cortex-M7 firmware and run it on QEMU's mps2-an500, sourced by
# run_on_qemu.sh and run_kernels_on_qemu.sh. FIRMWARE_FLAGS adds compiler flags, QEMU_FLAGS
# adds QEMU's (bench/mcu/instructions.sh passes -icount shift=0 there).

firmware_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Exit 77 (CTest: skipped) where the Arm toolchain or QEMU is missing (scripts/install-deps.sh
# installs both).
require_firmware_tools() {
  local program
  for program in arm-none-eabi-g++ arm-none-eabi-size qemu-system-arm; do
    if ! command -v "$program" >/dev/null; then
      echo "skipped: $program is not installed (scripts/install-deps.sh installs it)"
      exit 77
    fi
  done
}

# build_firmware ELF [FLAG | SOURCE]...: startup.cpp and the sources, linked for the board, then
# the ELF's text, data and bss (arm-none-eabi-size). A Cortex-M7 without an FPU in use: the
# inference is integers only. No exceptions, no RTTI, no thread-safe statics, no C or C++ library
# (startup.cpp has the two functions a compiler may call).
build_firmware() {
  local elf=$1
  shift
  # shellcheck disable=SC2086  # FIRMWARE_FLAGS is a list of flags
  arm-none-eabi-g++ -mcpu=cortex-m7 -mthumb -mfloat-abi=soft -std=c++17 -O2 -ffreestanding \
    -fno-exceptions -fno-rtti -fno-threadsafe-statics -Wall -Wextra -Werror ${FIRMWARE_FLAGS:-} \
    "$firmware_dir/startup.cpp" "$@" \
    -nostdlib -nostartfiles -T "$firmware_dir/link.ld" -lgcc -o "$elf"
  arm-none-eabi-size "$elf"
}

# run_firmware ELF: runs it; its semihosting output (on QEMU's standard error, with \r\n line
# ends) goes to standard output. Fails with the firmware's failure.
run_firmware() {
  local output status
  # shellcheck disable=SC2086  # QEMU_FLAGS is a list of flags
  output=$(timeout 60 qemu-system-arm -M mps2-an500 -nographic -semihosting ${QEMU_FLAGS:-} \
             -kernel "$1" 2>&1 </dev/null | tr -d '\r') || {
    status=$?
    echo "$output"
    echo "the firmware failed (exit $status)"
    return 1
  }
  echo "$output"
}
