// The paired int8 kernels on a Cortex-M7, in its DSP instructions, against the portable kernels
// on the same core: the cases the host's test_paired_kernels.cpp runs with the instructions
// written out (paired_cases.hpp). Prints how many agreed; exit status 0 only when all did.
#include "paired_cases.hpp"
#include "text.hpp"

static_assert(STATICNET_INT8_HAS_DSP, "built for a core with the DSP instructions");

extern "C" void semihosting_print(const char* text);

namespace {

paired_cases::Buffers buffers;

// "name: N of M agree\n"
void report(const char* name, int agreed, int cases) {
  char line[64];
  char* at = firmware_text::append(line, name);
  at = firmware_text::append(at, ":");
  at = firmware_text::append_number(at, agreed);
  at = firmware_text::append(at, " of");
  at = firmware_text::append_number(at, cases);
  at = firmware_text::append(at, " agree\n");
  *at = '\0';
  semihosting_print(line);
}

}  // namespace

extern "C" int main() {
  paired_cases::Random random;
  constexpr int conv_cases = 3000, linear_cases = 1000;
  paired_cases::Paths paths;
  int convolutions = 0, linears = 0;
  for (int i = 0; i < conv_cases; ++i)
    convolutions += paired_cases::conv_case(random, buffers, paths) ? 1 : 0;
  for (int i = 0; i < linear_cases; ++i)
    linears += paired_cases::fully_connected_case(random, buffers) ? 1 : 0;
  report("convolutions", convolutions, conv_cases);
  report("linear layers", linears, linear_cases);
  return convolutions == conv_cases && linears == linear_cases ? 0 : 1;
}
