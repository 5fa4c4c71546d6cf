#pragma once
// The fixed-point arithmetic of TensorFlow Lite's int8 scheme, as its reference kernels compute
// it, so that our int8 inference gives TensorFlow Lite's outputs bit for bit
// (tests/int8/test_int8_kernels.cpp checks it against TensorFlow Lite itself).
//
// A real factor M (an input scale times a weight scale over an output scale, say) is carried as
// an int32 `multiplier` in [2^30, 2^31) meaning multiplier / 2^31, and a power of two `shift`:
// M = multiplier / 2^31 · 2^shift (quantize.hpp makes the pair on the host). Applying it to an
// int32 rounds twice, as TensorFlow Lite does unless it is built with TFLITE_SINGLE_ROUNDING
// (it is not, in the releases we test against): once in the doubling high multiply, once in the
// division by a power of two.
//
// Freestanding: integers only, no library call, C++17. Microcontroller code includes this.
#include <cstdint>

namespace staticnet::kernels::int8 {

// gemmlowp's SaturatingRoundingDoublingHighMul: the high 32 bits of 2·a·b, rounded to nearest
// (ties away from zero), saturated in the one case that overflows (a = b = -2^31).
inline std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) {
  if (a == b && a == INT32_MIN)
    return INT32_MAX;
  const std::int64_t ab = static_cast<std::int64_t>(a) * b;
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
  // Division, not a shift: C++ division truncates toward zero, as gemmlowp's does.
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

// gemmlowp's RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero
// (exponent in [0, 31]).
inline std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// TensorFlow Lite's MultiplyByQuantizedMultiplier: x · multiplier / 2^31 · 2^shift.
inline std::int32_t multiply_by_quantized_multiplier(std::int32_t x, std::int32_t multiplier,
                                                     int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  return rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(x * (std::int32_t{1} << left_shift), multiplier),
      right_shift);
}

// MultiplyByQuantizedMultiplierSmallerThanOneExp: the same for a factor below 1 (shift <= 0),
// which residual additions use.
inline std::int32_t multiply_by_quantized_multiplier_below_one(std::int32_t x,
                                                               std::int32_t multiplier, int shift) {
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier), -shift);
}

inline std::int32_t clamp(std::int32_t v, std::int32_t lowest, std::int32_t highest) {
  return v < lowest ? lowest : v > highest ? highest : v;
}

}  // namespace staticnet::kernels::int8
