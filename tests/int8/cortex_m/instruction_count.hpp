#pragma once
// Counts the instructions a piece of firmware executes on QEMU run with -icount shift=0, where
// every instruction advances the virtual clock by one nanosecond: SysTick, on the core's clock,
// then ticks once every (10^9 / clock frequency) instructions. Rather than take QEMU's clock
// frequency on trust, start() measures it: a loop of a known number of instructions, timed the
// same way. On real hardware SysTick counts cycles, not instructions, and these numbers mean
// nothing; bench/mcu/instructions.sh is their one user.
#include <cstdint>

extern "C" volatile std::uint32_t systick_wraps;  // startup.cpp's SysTick handler counts them

namespace instruction_count {

struct SysTick {
  std::uint32_t control, reload, current;
};
inline volatile SysTick& systick() {
  return *reinterpret_cast<volatile SysTick*>(0xE000E010u);
}

// Ticks since start(), across SysTick's 24-bit wraps.
inline std::uint64_t ticks() {
  std::uint32_t wraps, current;
  do {  // a wrap between the two reads would pair an old count with a new value
    wraps = systick_wraps;
    current = systick().current;
  } while (wraps != systick_wraps);
  return (std::uint64_t{wraps} << 24) + (0xFFFFFFu - current);
}

inline void start() {
  systick().reload = 0xFFFFFFu;
  systick().current = 0;
  systick().control = 7;  // the core's clock, the wrap's interrupt, enabled
  // The write cleared the count to 0, and the first tick loads the reload value: until then
  // ticks() would read 2^24 - 1.
  while (systick().current == 0) {
  }
  systick_wraps = 0;
}

// The ticks of 2^22 iterations of a two-instruction loop: 2^23 instructions.
inline std::uint64_t calibration_ticks() {
  const std::uint64_t before = ticks();
  std::uint32_t n = 1u << 22;
  asm volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n));
  return ticks() - before;
}

// The instructions of `elapsed` ticks.
inline std::uint64_t instructions(std::uint64_t elapsed, std::uint64_t calibration) {
  return (elapsed * (std::uint64_t{1} << 23) + calibration / 2) / calibration;
}

}  // namespace instruction_count
