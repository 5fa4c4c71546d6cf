#pragma once
// The sizes an int8 kernel works on, and the quantization of what it writes. One sample, NCHW,
// as the plan lays tensors out (TensorFlow Lite's NHWC gives the same integers: every sum is
// exact in int32, so its order does not matter).
//
// 32-bit fields, not the float kernels' 64-bit index_t: a Cortex-M multiplies 32-bit integers in
// one cycle and 64-bit ones in several. The generator writes each shape as a constant, every
// field a number.
#include <cstdint>

namespace staticnet::kernels::int8 {

// A convolution with zero padding (pad_top rows above, pad_left columns left; the padding after is
// whatever the output size implies, as TensorFlow's 'same' pads one more after than before).
// With groups > 1 each group of out_channels / groups outputs reads in_channels / groups inputs
// (depthwise: groups = in_channels = out_channels).
struct ConvShape {
  int in_channels = 0, in_height = 0, in_width = 0;
  int out_channels = 0, out_height = 0, out_width = 0;
  int kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
  int groups = 1;
};

// A pooling window over channels planes, padded as a ConvShape is.
struct PoolShape {
  int channels = 0, in_height = 0, in_width = 0, out_height = 0, out_width = 0;
  int kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
};

// A tensor's quantization: real value = scale · (int8 value − zero_point).
struct TensorQuantization {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
};

// What a convolution or a Linear needs beside its channel numbers: its input's zero point, its
// output's, and the clamp of its fused activation (TensorFlow Lite's activation range).
struct ProductQuantization {
  std::int32_t input_zero_point = 0;
  std::int32_t output_zero_point = 0;
  std::int32_t lowest = -128, highest = 127;
};

// What a convolution or a Linear does with each int32 sum: add the output channel's bias,
// multiply by its multiplier and shift (fixed_point.hpp), add the output's zero point, and clamp
// to [lowest, highest] (the fused activation: a ReLU clamps at the zero point, a ReLU6 at 6 too).
// bias, multiplier and shift are the layer's three runs of channel numbers in flash.
struct ChannelRequantization {
  const std::int32_t* bias = nullptr;
  const std::int32_t* multiplier = nullptr;
  const std::int32_t* shift = nullptr;
  std::int32_t output_zero_point = 0;
  std::int32_t lowest = -128, highest = 127;
};

}  // namespace staticnet::kernels::int8
