#pragma once
// Convolutions (grouped and depthwise too) and Linear layers in int8, as TensorFlow Lite's
// reference kernels compute them (portable.hpp says how). On a core with the DSP extension
// (Cortex-M4, M7, M33: the compiler defines __ARM_FEATURE_DSP) the paired kernels run
// (paired.hpp), which give the same bytes in fewer instructions; elsewhere, or where the firmware
// defines STATICNET_INT8_PORTABLE, the portable ones.
#include <cstdint>

#include "staticnet/kernels/int8/paired.hpp"
#include "staticnet/kernels/int8/portable.hpp"

#if STATICNET_INT8_HAS_DSP && !defined(STATICNET_INT8_PORTABLE)
#define STATICNET_INT8_PAIRED 1
#else
#define STATICNET_INT8_PAIRED 0
#endif

namespace staticnet::kernels::int8 {

// One sample: input (in_channels, in_height, in_width), output (out_channels, out_height,
// out_width).
inline void conv2d(const ConvShape& s, const std::int8_t* input, std::int32_t input_zero_point,
                   const std::int8_t* weights, const ChannelRequantization& q,
                   std::int8_t* output) {
#if STATICNET_INT8_PAIRED
  conv2d_paired(s, input, input_zero_point, weights, q, output);
#else
  conv2d_portable(s, input, input_zero_point, weights, q, output);
#endif
}

// One sample: input (in_features), output (out_features).
inline void fully_connected(int in_features, int out_features, const std::int8_t* input,
                            std::int32_t input_zero_point, const std::int8_t* weights,
                            const ChannelRequantization& q, std::int8_t* output) {
#if STATICNET_INT8_PAIRED
  fully_connected_paired(in_features, out_features, input, input_zero_point, weights, q, output);
#else
  fully_connected_portable(in_features, out_features, input, input_zero_point, weights, q, output);
#endif
}

}  // namespace staticnet::kernels::int8
