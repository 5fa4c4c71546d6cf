// The least a Cortex-M program needs to run on QEMU's mps2-an500 and report back: a vector
// table, a reset handler that zeroes .bss and calls main, and ARM semihosting (bkpt 0xAB) to
// print and to exit with a status. With -nostdlib nothing else is linked, so a firmware that
// needed anything of the C library beyond memcpy and memset (defined here, as the compiler may
// call them for copies of structs) would fail to link, naming it.
#include <cstddef>
#include <cstdint>

extern "C" {
extern std::uint32_t __bss_start, __bss_end, __stack_top;
int main();

namespace {
// SYS_WRITE0 prints a NUL-terminated string; SYS_EXIT ends the program: reason
// ADP_Stopped_ApplicationExit is exit status 0, any other reason 1.
int semihost(int operation, const void* argument) {
  register int r0 asm("r0") = operation;
  register const void* r1 asm("r1") = argument;
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}
}  // namespace

void semihosting_print(const char* text) {
  semihost(0x04, text);
}

[[noreturn]] void semihosting_exit(bool success) {
  const std::uintptr_t reason = success ? 0x20026 : 0x20023;
  semihost(0x18, reinterpret_cast<const void*>(reason));
  for (;;) {
  }
}

[[noreturn]] void reset_handler() {
  for (std::uint32_t* p = &__bss_start; p < &__bss_end; ++p)
    *p = 0;
  semihosting_exit(main() == 0);
}

[[noreturn]] void fault_handler() {
  semihosting_print("fault\n");
  semihosting_exit(false);
}

void* memcpy(void* to, const void* from, std::size_t n) {
  auto* d = static_cast<unsigned char*>(to);
  const auto* s = static_cast<const unsigned char*>(from);
  while (n--)
    *d++ = *s++;
  return to;
}

void* memset(void* to, int value, std::size_t n) {
  auto* d = static_cast<unsigned char*>(to);
  while (n--)
    *d++ = static_cast<unsigned char>(value);
  return to;
}

// SysTick's wraps, for instruction_count.hpp: each is 2^24 ticks of the core's clock.
volatile std::uint32_t systick_wraps = 0;
void systick_handler() {
  systick_wraps = systick_wraps + 1;
}

// Initial stack pointer, reset, NMI, hard fault, memory management, bus and usage faults, four
// reserved, SVCall, debug monitor, one reserved, PendSV, SysTick.
__attribute__((section(".vectors"), used))
const void* const vector_table[] = {&__stack_top,
                                    reinterpret_cast<const void*>(&reset_handler),
                                    reinterpret_cast<const void*>(&fault_handler),
                                    reinterpret_cast<const void*>(&fault_handler),
                                    reinterpret_cast<const void*>(&fault_handler),
                                    reinterpret_cast<const void*>(&fault_handler),
                                    reinterpret_cast<const void*>(&fault_handler),
                                    nullptr,
                                    nullptr,
                                    nullptr,
                                    nullptr,
                                    reinterpret_cast<const void*>(&fault_handler),
                                    reinterpret_cast<const void*>(&fault_handler),
                                    nullptr,
                                    reinterpret_cast<const void*>(&fault_handler),
                                    reinterpret_cast<const void*>(&systick_handler)};
}
