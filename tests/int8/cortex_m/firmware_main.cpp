// A Cortex-M program that runs one generated int8 model on one input and reports the output over
// semihosting: "output: b0 b1 ...", then "match" or "MISMATCH" against TensorFlow Lite's output,
// and exit status 0 only on a match. Compiled with
//   -DSTATICNET_FIRMWARE_MODEL=<the model's API namespace, NAME::mcu>
//   -DSTATICNET_FIRMWARE_DATA="<data.cpp>"
// where the data file (written by int8_firmware_source) includes the model's NAME_mcu.hpp and
// defines firmware::model, firmware::input and firmware::expected. With
//   -DSTATICNET_FIRMWARE_COUNT_INSTRUCTIONS
// it also prints "instructions: N", what invoke() executed, when QEMU runs it with -icount
// shift=0 (instruction_count.hpp; bench/mcu/instructions.sh).
#include <cstddef>
#include <cstdint>

#include STATICNET_FIRMWARE_DATA
#include "text.hpp"

#ifdef STATICNET_FIRMWARE_COUNT_INSTRUCTIONS
#include "instruction_count.hpp"
#endif

extern "C" void semihosting_print(const char* text);

namespace {

namespace g = STATICNET_FIRMWARE_MODEL;
using firmware_text::append_number;

// The arena: exactly the plan's SRAM bytes, in .bss.
alignas(g::arena_alignment) std::uint8_t arena[g::arena_bytes];

}  // namespace

extern "C" int main() {
  static_assert(sizeof firmware::input == g::input_elements, "the input's size");
  static_assert(sizeof firmware::expected == g::output_elements, "the output's size");
  std::int8_t* in = g::input(arena);
  for (std::size_t i = 0; i < g::input_elements; ++i)
    in[i] = firmware::input[i];
#ifdef STATICNET_FIRMWARE_COUNT_INSTRUCTIONS
  instruction_count::start();
  const std::uint64_t calibration = instruction_count::calibration_ticks();
  const std::uint64_t before = instruction_count::ticks();
  g::invoke(firmware::model, arena);
  const std::uint64_t elapsed = instruction_count::ticks() - before;
  static char count[48] = "instructions:";
  char* end = append_number(
      count + 13, static_cast<long long>(instruction_count::instructions(elapsed, calibration)));
  end[0] = '\n';
  end[1] = '\0';
  semihosting_print(count);
#else
  g::invoke(firmware::model, arena);
#endif
  const std::int8_t* out = g::output(arena);
  static char line[16 + 5 * g::output_elements];
  char* at = firmware_text::append(line, "output:");
  bool match = true;
  for (std::size_t i = 0; i < g::output_elements; ++i) {
    at = append_number(at, out[i]);
    match = match && out[i] == firmware::expected[i];
  }
  *at++ = '\n';
  *at = '\0';
  semihosting_print(line);
  semihosting_print(match ? "match\n" : "MISMATCH\n");
  return match ? 0 : 1;
}
