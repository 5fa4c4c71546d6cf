#pragma once
// Pools in int8, as TensorFlow Lite's reference kernels compute them. A max or average pool keeps
// its input's scale and zero point (the converter gives the output the input's), so it works on
// the raw int8 values; an average divides by the taps inside the input, not the padding, rounding
// half away from zero. A global average written as TensorFlow's MEAN has an output scale of its
// own and requantizes (reference_ops::QuantizedMeanOrSum).
#include <cstdint>

#include "staticnet/kernels/int8/fixed_point.hpp"
#include "staticnet/kernels/int8/shapes.hpp"

namespace staticnet::kernels::int8 {

enum class PoolKind : std::uint8_t { max, average };

// One sample, (channels, in_height, in_width) to (channels, out_height, out_width); the result
// clamped to [lowest, highest] (a fused activation; -128 and 127 where there is none).
template <PoolKind Kind>
inline void pool2d(const PoolShape& s, const std::int8_t* input, std::int8_t* output,
                   std::int32_t lowest = -128, std::int32_t highest = 127) {
  for (int c = 0; c < s.channels; ++c) {
    const std::int8_t* plane = input + c * s.in_height * s.in_width;
    for (int oy = 0; oy < s.out_height; ++oy) {
      for (int ox = 0; ox < s.out_width; ++ox) {
        const int y0 = oy * s.stride_h - s.pad_top, x0 = ox * s.stride_w - s.pad_left;
        const int y_begin = y0 < 0 ? 0 : y0, x_begin = x0 < 0 ? 0 : x0;
        const int y_end = y0 + s.kernel_h < s.in_height ? y0 + s.kernel_h : s.in_height;
        const int x_end = x0 + s.kernel_w < s.in_width ? x0 + s.kernel_w : s.in_width;
        std::int32_t result = 0;
        if constexpr (Kind == PoolKind::max) {
          result = -128;
          for (int y = y_begin; y < y_end; ++y)
            for (int x = x_begin; x < x_end; ++x)
              result = plane[y * s.in_width + x] > result ? plane[y * s.in_width + x] : result;
        } else {
          std::int32_t sum = 0;
          for (int y = y_begin; y < y_end; ++y)
            for (int x = x_begin; x < x_end; ++x)
              sum += plane[y * s.in_width + x];
          const std::int32_t taps = (y_end - y_begin) * (x_end - x_begin);
          result = sum > 0 ? (sum + taps / 2) / taps : (sum - taps / 2) / taps;
        }
        output[(c * s.out_height + oy) * s.out_width + ox] =
            static_cast<std::int8_t>(clamp(result, lowest, highest));
      }
    }
  }
}

// TensorFlow's MEAN over height and width: multiplier and shift carry input scale / output scale
// divided by the plane's size (quantize.hpp's mean_quantization computes them as TensorFlow
// Lite's kernel does).
struct MeanQuantization {
  std::int32_t input_zero_point = 0;
  std::int32_t multiplier = 0;
  int shift = 0;
  std::int32_t output_zero_point = 0;
};

// One sample, (channels, plane) to (channels).
inline void mean(int channels, int plane, const std::int8_t* input, const MeanQuantization& q,
                 std::int8_t* output) {
  for (int c = 0; c < channels; ++c) {
    std::int32_t sum = 0;
    for (int i = 0; i < plane; ++i)
      sum += input[c * plane + i];
    const std::int32_t centred = sum - q.input_zero_point * plane;
    output[c] = static_cast<std::int8_t>(clamp(
        multiply_by_quantized_multiplier(centred, q.multiplier, q.shift) + q.output_zero_point,
        -128, 127));
  }
}

}  // namespace staticnet::kernels::int8
