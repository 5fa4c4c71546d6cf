#pragma once
// The host's half of TensorFlow Lite's int8 scheme: turning real scales into the integers the
// int8 kernels take (fixed_point.hpp), as TensorFlow Lite computes them when it prepares a model
// (quantization_util.cc, kernel_util.cc, add.cc, reduce.cc, activations.cc). The quantizer runs
// these once and writes the results as constants; a microcontroller never calls them.
//
// Scales are float32 in a TensorFlow Lite model, and where TensorFlow Lite computes in double
// (a convolution's effective scale) or in float (an activation's range) matters for the last bit:
// each function says which.
#include <cmath>
#include <cstdint>

#include "staticnet/kernels/int8/elementwise.hpp"
#include "staticnet/kernels/int8/pooling.hpp"

namespace staticnet::kernels::int8 {

struct QuantizedMultiplier {
  std::int32_t multiplier = 0;  // in [2^30, 2^31), or 0
  int shift = 0;                // the factor is multiplier / 2^31 · 2^shift
};

// QuantizeMultiplier: the mantissa rounded to 31 bits (half away from zero); a factor below
// about 2^-31 becomes 0.
inline QuantizedMultiplier quantize_multiplier(double factor) {
  if (factor == 0.0)
    return {};
  int shift = 0;
  const double mantissa = std::frexp(factor, &shift);
  auto fixed = static_cast<std::int64_t>(std::round(mantissa * static_cast<double>(1LL << 31)));
  if (fixed == (1LL << 31)) {  // the mantissa rounded up to 1
    fixed /= 2;
    ++shift;
  }
  if (shift < -31)
    return {};
  return {static_cast<std::int32_t>(fixed), shift};
}

// A convolution's or Linear's output channel: input scale · the channel's weight scale / output
// scale, in double from the float32 scales.
inline QuantizedMultiplier channel_multiplier(float input_scale, float weight_scale,
                                              float output_scale) {
  return quantize_multiplier(static_cast<double>(input_scale) * static_cast<double>(weight_scale) /
                             static_cast<double>(output_scale));
}

// A real value on the output's int8 grid, as CalculateActivationRangeQuantized's Quantize: the
// division in float32, rounded half away from zero.
inline std::int32_t quantize_value(float value, float scale, std::int32_t zero_point) {
  return zero_point + static_cast<std::int32_t>(std::round(value / scale));
}

enum class FusedActivation : std::uint8_t { none, relu, relu6 };

struct ActivationRange {
  std::int32_t lowest = -128, highest = 127;
};
inline ActivationRange activation_range(FusedActivation a, float scale, std::int32_t zero_point) {
  ActivationRange r;
  if (a == FusedActivation::none)
    return r;
  const std::int32_t zero = quantize_value(0.0f, scale, zero_point);
  r.lowest = zero > -128 ? zero : -128;
  if (a == FusedActivation::relu6) {
    const std::int32_t six = quantize_value(6.0f, scale, zero_point);
    r.highest = six < 127 ? six : 127;
  }
  return r;
}

// ADD (add.cc's Prepare): both inputs to twice the larger input scale, in double.
inline AddQuantization add_quantization(float input1_scale, std::int32_t input1_zero_point,
                                        float input2_scale, std::int32_t input2_zero_point,
                                        float output_scale, std::int32_t output_zero_point,
                                        FusedActivation activation) {
  AddQuantization q;
  const double twice_max =
      2 * static_cast<double>(input1_scale > input2_scale ? input1_scale : input2_scale);
  const QuantizedMultiplier m1 = quantize_multiplier(static_cast<double>(input1_scale) / twice_max);
  const QuantizedMultiplier m2 = quantize_multiplier(static_cast<double>(input2_scale) / twice_max);
  const QuantizedMultiplier out = quantize_multiplier(
      twice_max / (static_cast<double>(1 << q.left_shift) * static_cast<double>(output_scale)));
  q.input1_zero_point = input1_zero_point;
  q.input2_zero_point = input2_zero_point;
  q.input1_multiplier = m1.multiplier;
  q.input1_shift = m1.shift;
  q.input2_multiplier = m2.multiplier;
  q.input2_shift = m2.shift;
  q.output_multiplier = out.multiplier;
  q.output_shift = out.shift;
  q.output_zero_point = output_zero_point;
  const ActivationRange r = activation_range(activation, output_scale, output_zero_point);
  q.lowest = r.lowest;
  q.highest = r.highest;
  return q;
}

// A standalone ReLU or ReLU6 (ReluPrepare): input scale / output scale divided in float32.
inline Requantization activation_requantization(float input_scale, std::int32_t input_zero_point,
                                                float output_scale, std::int32_t output_zero_point,
                                                FusedActivation activation) {
  const QuantizedMultiplier m =
      quantize_multiplier(static_cast<double>(input_scale / output_scale));
  const ActivationRange r = activation_range(activation, output_scale, output_zero_point);
  return {input_zero_point, m.multiplier, m.shift, output_zero_point, r.lowest, r.highest};
}

// MEAN over a plane of `plane` elements (reduce.cc): input scale / output scale in double, then
// the division by the plane folded into the multiplier, keeping as many bits as fit.
inline MeanQuantization mean_quantization(float input_scale, std::int32_t input_zero_point,
                                          float output_scale, std::int32_t output_zero_point,
                                          int plane) {
  QuantizedMultiplier m =
      quantize_multiplier(static_cast<double>(input_scale) / static_cast<double>(output_scale));
  int bits = 0;  // floor(log2(plane))
  while ((std::int64_t{1} << (bits + 1)) <= plane)
    ++bits;
  bits = bits < 32 ? bits : 32;
  bits = bits < 31 + m.shift ? bits : 31 + m.shift;
  m.multiplier =
      static_cast<std::int32_t>((static_cast<std::int64_t>(m.multiplier) << bits) / plane);
  m.shift -= bits;
  return {input_zero_point, m.multiplier, m.shift, output_zero_point};
}

}  // namespace staticnet::kernels::int8
