#pragma once
// Elementwise int8 layers whose output has a scale of its own: the sum that closes a residual
// block (TensorFlow Lite's ADD) and an activation that is no convolution's (RELU, RELU6 after an
// ADD), each requantizing as TensorFlow Lite's reference kernels do.
#include <cstdint>

#include "staticnet/kernels/int8/fixed_point.hpp"

namespace staticnet::kernels::int8 {

// ADD: both inputs are brought to a common scale, twice the larger input scale, with 20 bits of
// headroom (left_shift), summed, and requantized to the output (add.cc's Prepare and
// reference_integer_ops' AddFunc). The multipliers are below one.
struct AddQuantization {
  std::int32_t input1_zero_point = 0, input2_zero_point = 0;
  std::int32_t input1_multiplier = 0, input2_multiplier = 0, output_multiplier = 0;
  int input1_shift = 0, input2_shift = 0, output_shift = 0;
  std::int32_t output_zero_point = 0;
  std::int32_t lowest = -128, highest = 127;  // a fused ReLU clamps at the zero point
  int left_shift = 20;
};

inline void add(int elements, const std::int8_t* a, const std::int8_t* b, const AddQuantization& q,
                std::int8_t* output) {
  for (int i = 0; i < elements; ++i) {
    const std::int32_t x = (a[i] - q.input1_zero_point) * (std::int32_t{1} << q.left_shift);
    const std::int32_t y = (b[i] - q.input2_zero_point) * (std::int32_t{1} << q.left_shift);
    const std::int32_t sum =
        multiply_by_quantized_multiplier_below_one(x, q.input1_multiplier, q.input1_shift) +
        multiply_by_quantized_multiplier_below_one(y, q.input2_multiplier, q.input2_shift);
    const std::int32_t out =
        multiply_by_quantized_multiplier_below_one(sum, q.output_multiplier, q.output_shift) +
        q.output_zero_point;
    output[i] = static_cast<std::int8_t>(clamp(out, q.lowest, q.highest));
  }
}

// A ReLU or ReLU6 on its own (activations.cc's QuantizedReluX): the input requantized to the
// output's scale, then clamped (at the output's zero point, and for ReLU6 at 6 too).
struct Requantization {
  std::int32_t input_zero_point = 0;
  std::int32_t multiplier = 0;
  int shift = 0;
  std::int32_t output_zero_point = 0;
  std::int32_t lowest = -128, highest = 127;
};

inline void requantize(int elements, const std::int8_t* input, const Requantization& q,
                       std::int8_t* output) {
  for (int i = 0; i < elements; ++i) {
    const std::int32_t out =
        multiply_by_quantized_multiplier(input[i] - q.input_zero_point, q.multiplier, q.shift) +
        q.output_zero_point;
    output[i] = static_cast<std::int8_t>(clamp(out, q.lowest, q.highest));
  }
}

}  // namespace staticnet::kernels::int8
