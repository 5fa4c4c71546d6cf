#pragma once
// Convolutions (grouped and depthwise too) and Linear layers in int8, as TensorFlow Lite's
// reference kernels compute them (reference_integer_ops' ConvPerChannel, DepthwiseConvPerChannel
// and FullyConnectedPerChannel), in portable C++: for each output element, the sum over its taps
// of (input - input zero point) · weight in int32, then the channel's requantization
// (shapes.hpp's ChannelRequantization). Taps outside the input are skipped, which is padding with
// the input's zero point. Weights are symmetric (zero point 0), one scale per output channel.
//
// Weights are laid out as PyTorch keeps them: (out, in / groups, kh, kw) and (out, in).
// products.hpp picks these or the paired kernels (paired.hpp), which give the same bytes.
#include <cstdint>

#include "staticnet/kernels/int8/fixed_point.hpp"
#include "staticnet/kernels/int8/shapes.hpp"

namespace staticnet::kernels::int8 {

inline std::int8_t requantize(std::int32_t sum, int channel, const ChannelRequantization& q) {
  const std::int32_t scaled = multiply_by_quantized_multiplier(
      sum + q.bias[channel], q.multiplier[channel], q.shift[channel]);
  return static_cast<std::int8_t>(clamp(scaled + q.output_zero_point, q.lowest, q.highest));
}

// The int32 sum of output element (oy, ox) of the output channel whose filter this is, which
// reads the group of input channels from first_input.
inline std::int32_t conv_taps(const ConvShape& s, const std::int8_t* input,
                              std::int32_t input_zero_point, const std::int8_t* filter,
                              int first_input, int oy, int ox) {
  const int group_inputs = s.in_channels / s.groups;
  const int in_plane = s.in_height * s.in_width;
  const int y0 = oy * s.stride_h - s.pad_top;
  const int x0 = ox * s.stride_w - s.pad_left;
  // The taps inside the input, [ky_begin, ky_end) × [kx_begin, kx_end): the rest are padding.
  const int ky_begin = y0 < 0 ? -y0 : 0;
  const int ky_end = s.in_height - y0 < s.kernel_h ? s.in_height - y0 : s.kernel_h;
  const int kx_begin = x0 < 0 ? -x0 : 0;
  const int kx_end = s.in_width - x0 < s.kernel_w ? s.in_width - x0 : s.kernel_w;
  std::int32_t sum = 0;
  for (int ic = 0; ic < group_inputs; ++ic) {
    const std::int8_t* plane = input + (first_input + ic) * in_plane;
    const std::int8_t* taps = filter + ic * s.kernel_h * s.kernel_w;
    for (int ky = ky_begin; ky < ky_end; ++ky) {
      const std::int8_t* row = plane + (y0 + ky) * s.in_width + x0;
      const std::int8_t* row_taps = taps + ky * s.kernel_w;
      for (int kx = kx_begin; kx < kx_end; ++kx)
        sum += (row[kx] - input_zero_point) * row_taps[kx];
    }
  }
  return sum;
}

// One sample: input (in_channels, in_height, in_width), output (out_channels, out_height,
// out_width).
inline void conv2d_portable(const ConvShape& s, const std::int8_t* input,
                            std::int32_t input_zero_point, const std::int8_t* weights,
                            const ChannelRequantization& q, std::int8_t* output) {
  const int group_inputs = s.in_channels / s.groups;
  const int group_outputs = s.out_channels / s.groups;
  for (int oc = 0; oc < s.out_channels; ++oc) {
    const int first_input = oc / group_outputs * group_inputs;
    const std::int8_t* filter = weights + oc * group_inputs * s.kernel_h * s.kernel_w;
    for (int oy = 0; oy < s.out_height; ++oy)
      for (int ox = 0; ox < s.out_width; ++ox)
        output[(oc * s.out_height + oy) * s.out_width + ox] =
            requantize(conv_taps(s, input, input_zero_point, filter, first_input, oy, ox), oc, q);
  }
}

// One sample: input (in_features), output (out_features).
inline void fully_connected_portable(int in_features, int out_features, const std::int8_t* input,
                                     std::int32_t input_zero_point, const std::int8_t* weights,
                                     const ChannelRequantization& q, std::int8_t* output) {
  for (int o = 0; o < out_features; ++o) {
    const std::int8_t* row = weights + o * in_features;
    std::int32_t sum = 0;
    for (int i = 0; i < in_features; ++i)
      sum += (input[i] - input_zero_point) * row[i];
    output[o] = requantize(sum, o, q);
  }
}

}  // namespace staticnet::kernels::int8
