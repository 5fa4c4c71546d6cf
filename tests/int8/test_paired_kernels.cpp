// The paired int8 kernels (paired.hpp), with the Cortex-M DSP instructions written out as dsp.hpp
// does off the Cortex-M, against the portable ones: the same bytes on random shapes
// (paired_cases.hpp). The instructions' arithmetic is checked by hand first, since the firmware's
// run of the same cases (cortex_m/paired_main.cpp) is what compares it with the silicon's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "paired_cases.hpp"
#include "staticnet/kernels/int8/dsp.hpp"

namespace dsp = staticnet::kernels::int8::dsp;

TEST_CASE("int8: the DSP instructions' arithmetic, written out") {
  REQUIRE_FALSE(STATICNET_INT8_HAS_DSP);  // this host runs the written-out forms
  // SXTAB16: bytes 0 and 2 of the word (0x01 = 1, 0xFF = -1), sign-extended, added to the halves
  // (-5, 7); with ROR #8 bytes 1 and 3 (0x7F = 127, 0x80 = -128).
  const std::uint32_t word = 0x80FF7F01u;
  CHECK(dsp::extend_pairs_add(dsp::make_pair(-5, 7), word) == dsp::make_pair(-4, 6));
  CHECK(dsp::extend_odd_bytes_add(dsp::make_pair(-5, 7), word) == dsp::make_pair(122, -121));
  // SMLAD: 10 + (-3)(1000) + (200)(-2) = -3390; and a sum past INT32_MAX wraps as the
  // instruction's does: 2^31 - 1 + 2 · (-32768)(-32768) = 2^31 - 1 + 2^31 = -1 (mod 2^32).
  CHECK(dsp::multiply_add_pairs(dsp::make_pair(-3, 200), dsp::make_pair(1000, -2), 10) == -3390);
  CHECK(dsp::multiply_add_pairs(dsp::make_pair(-32768, -32768), dsp::make_pair(-32768, -32768),
                                INT32_MAX) == -1);
  // PKHBT and PKHTB: the low halves of (1, 2) and (3, 4) are (1, 3), the high ones (2, 4).
  CHECK(dsp::join_low(dsp::make_pair(1, 2), dsp::make_pair(3, 4)) == dsp::make_pair(1, 3));
  CHECK(dsp::join_high(dsp::make_pair(1, 2), dsp::make_pair(3, 4)) == dsp::make_pair(2, 4));
  // Four values less a zero point of 3: (1 - 3, -1 - 3) from bytes 0 and 2, (127 - 3, -128 - 3)
  // from bytes 1 and 3.
  const dsp::FourValues v = dsp::extend_four(word, dsp::splat(-3));
  CHECK(v.even == dsp::make_pair(-2, -4));
  CHECK(v.odd == dsp::make_pair(124, -131));
}

TEST_CASE("int8: the paired convolutions and Linear layers write the portable kernels' bytes") {
  auto buffers = std::make_unique<paired_cases::Buffers>();
  paired_cases::Random random;
  paired_cases::Paths paths;
  int convolutions = 0, linears = 0;
  for (int i = 0; i < 3000; ++i)
    convolutions += paired_cases::conv_case(random, *buffers, paths) ? 1 : 0;
  for (int i = 0; i < 1000; ++i)
    linears += paired_cases::fully_connected_case(random, *buffers) ? 1 : 0;
  CHECK(convolutions == 3000);
  CHECK(linears == 1000);
  // Every path of the paired convolution was taken, by dozens of cases at least.
  CAPTURE(paths.stride_1);
  CAPTURE(paths.stride_2);
  CAPTURE(paths.odd_channel);
  CAPTURE(paths.planes_as_rows);
  CAPTURE(paths.portable);
  CHECK(std::min({paths.stride_1, paths.stride_2, paths.odd_channel, paths.planes_as_rows,
                  paths.portable}) >= 30);
}
