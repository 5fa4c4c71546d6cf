// The fixed-point primitives on values worked out by hand from their definitions (fixed_point.hpp,
// quantize.hpp), including the edges where TensorFlow Lite's rounding rules decide: ties, negative
// numbers, the one saturating product, and factors that round up to the next power of two.
#include <doctest/doctest.h>

#include <cstdint>

#include "staticnet/kernels/int8/quantize.hpp"

namespace q8 = staticnet::kernels::int8;

TEST_CASE("int8: the doubling high multiply rounds to nearest, ties upwards") {
  // 2·a·b / 2^32 = a·b / 2^31, plus 1/2 (2^30 / 2^31) for a positive product, or (1 − 2^30) / 2^31
  // for a negative one, then truncated toward zero: 1.5 → 2, but −1.5 + (1 − 2^30)/2^31 is just
  // above −2, which truncates to −1. Ties go up, not away from zero.
  CHECK(q8::saturating_rounding_doubling_high_mul(1 << 30, 3) == 2);
  CHECK(q8::saturating_rounding_doubling_high_mul(1 << 30, -3) == -1);
  // 2.5 → 3, −2.5 → −2; 2^29 · 5 / 2^31 = 1.25 → 1, −1.25 → −1.
  CHECK(q8::saturating_rounding_doubling_high_mul(1 << 30, 5) == 3);
  CHECK(q8::saturating_rounding_doubling_high_mul(1 << 30, -5) == -2);
  CHECK(q8::saturating_rounding_doubling_high_mul(-(1 << 29), 5) == -1);
  CHECK(q8::saturating_rounding_doubling_high_mul(1 << 29, 5) == 1);
  // (−2^31)·(−2^31)·2 overflows: the one case that saturates.
  CHECK(q8::saturating_rounding_doubling_high_mul(INT32_MIN, INT32_MIN) == INT32_MAX);
}

TEST_CASE("int8: division by a power of two rounds to nearest, ties away from zero") {
  CHECK(q8::rounding_divide_by_pot(5, 1) == 3);    // 2.5 → 3
  CHECK(q8::rounding_divide_by_pot(-5, 1) == -3);  // −2.5 → −3
  CHECK(q8::rounding_divide_by_pot(7, 2) == 2);    // 1.75 → 2
  CHECK(q8::rounding_divide_by_pot(-6, 2) == -2);  // −1.5 → −2
  CHECK(q8::rounding_divide_by_pot(-5, 2) == -1);  // −1.25 → −1
  CHECK(q8::rounding_divide_by_pot(9, 0) == 9);
}

TEST_CASE("int8: a factor becomes a 31-bit mantissa and a shift") {
  // 0.5 = 0.5 · 2^0: mantissa 2^30, shift 0. 0.75 = 0.75 · 2^0: 0.75 · 2^31 = 1,610,612,736.
  CHECK(q8::quantize_multiplier(0.5).multiplier == 1 << 30);
  CHECK(q8::quantize_multiplier(0.5).shift == 0);
  CHECK(q8::quantize_multiplier(0.75).multiplier == 1'610'612'736);
  CHECK(q8::quantize_multiplier(3.0).shift == 2);  // 0.75 · 2^2
  // 1 − 2^−40 has the mantissa 1 − 2^−40, which rounds to 2^31: it becomes 2^30 and shift 1.
  const q8::QuantizedMultiplier almost_one = q8::quantize_multiplier(1.0 - 0x1p-40);
  CHECK(almost_one.multiplier == 1 << 30);
  CHECK(almost_one.shift == 1);
  // Below 2^−32 the shift would pass −31: flushed to zero.
  CHECK(q8::quantize_multiplier(0x1p-33).multiplier == 0);
  CHECK(q8::quantize_multiplier(0x1p-33).shift == 0);
  CHECK(q8::quantize_multiplier(0.0).multiplier == 0);
}

TEST_CASE("int8: applying a factor rounds twice, as TensorFlow Lite does") {
  // 0.75 applied to 10: 10 · 0.75 = 7.5. With shift 0 there is no division, and the doubling
  // high multiply rounds 7.5 to 8 and −7.5 to −7 (ties upwards, above).
  const q8::QuantizedMultiplier m = q8::quantize_multiplier(0.75);
  CHECK(q8::multiply_by_quantized_multiplier(10, m.multiplier, m.shift) == 8);
  CHECK(q8::multiply_by_quantized_multiplier(-10, m.multiplier, m.shift) == -7);
  // 3 = 0.75 · 2^2: 10 · 4 = 40 first, then · 0.75 = 30.
  const q8::QuantizedMultiplier three = q8::quantize_multiplier(3.0);
  CHECK(q8::multiply_by_quantized_multiplier(10, three.multiplier, three.shift) == 30);
  // 0.1875 = 0.75 · 2^−2: 10 · 0.75 = 7.5 → 8 by the high multiply, then 8 / 4 = 2 (one
  // rounding of 1.875 gives 2 as well).
  const q8::QuantizedMultiplier small = q8::quantize_multiplier(0.1875);
  CHECK(small.shift == -2);
  CHECK(q8::multiply_by_quantized_multiplier(10, small.multiplier, small.shift) == 2);
  // 14 · 0.1875 = 2.625: 14 · 0.75 = 10.5 → 11, then 11 / 4 = 2.75 → 3 (one rounding: 3 too);
  // 2 · 0.1875 = 0.375: 1.5 → 2, then 2 / 4 = 0.5 → 1, where one rounding gives 0. Double
  // rounding is TensorFlow Lite's default build, and its reference outputs follow it.
  CHECK(q8::multiply_by_quantized_multiplier(14, small.multiplier, small.shift) == 3);
  CHECK(q8::multiply_by_quantized_multiplier(2, small.multiplier, small.shift) == 1);
}

TEST_CASE("int8: a fused activation's clamp on the output's grid") {
  // scale 0.05, zero point −10: 0 → −10; 6 / 0.05 = 120 → 110.
  const q8::ActivationRange relu6 = q8::activation_range(q8::FusedActivation::relu6, 0.05f, -10);
  CHECK(relu6.lowest == -10);
  CHECK(relu6.highest == 110);
  // A zero point below −128 cannot happen in int8, but the grid's 0 can lie at −128 exactly.
  const q8::ActivationRange relu = q8::activation_range(q8::FusedActivation::relu, 0.1f, -128);
  CHECK(relu.lowest == -128);
  CHECK(relu.highest == 127);
}
