#pragma once
// The int8 convolution and Linear layer in the Cortex-M DSP instructions (dsp.hpp), which
// multiply and add two int16 pairs in one instruction: the same sums as the portable kernels
// (portable.hpp), added in another order, which int32 addition does not see, so the same bytes.
// As CMSIS-NN keeps one path per kernel for cores with the DSP extension beside the portable one;
// unlike CMSIS-NN's, these need no scratch (no im2col into int16), so the plan's arena is all the
// memory they use.
//
// A convolution's tensors are NCHW, so two input channels' values at one pixel are a plane
// apart. The paired convolution takes two input channels at a time, four output columns at a
// time: one word of each channel's row gives four pixels, extended to int16 with the zero point
// subtracted (SXTAB16), joined into one pair per pixel (PKHBT, PKHTB), and each pair is multiplied
// with the two channels' weights of that tap (SMLAD): 8 multiply-adds in 14 instructions and the
// weights' two loads. At stride 2 the four columns are bytes 0 and 2 of two words, with two more
// loads and no rotation. It runs where the words the four columns' taps read lie inside the input
// row, at stride 1 or 2, and the group has two or more input channels; the columns at the padded
// edges, a last odd channel, larger strides and depthwise convolutions (one input channel a
// group) take the portable sum. A 1x1 convolution at stride 1 without padding reads each plane
// as one row, so its columns are the plane's pixels.
//
// The Linear layer takes four inputs at a time against two rows of weights: 8 multiply-adds in
// 3 loads, 6 extensions and 4 SMLADs.
#include <cstdint>

#include "staticnet/kernels/int8/dsp.hpp"
#include "staticnet/kernels/int8/portable.hpp"

namespace staticnet::kernels::int8 {

namespace paired_detail {

// The four int32 sums of output columns ox..ox+3 of row oy, all of whose taps lie inside the
// input's rows, at a horizontal stride of 1 or 2.
struct FourSums {
  std::int32_t v[4] = {0, 0, 0, 0};
};
template <int Stride>
inline FourSums four_columns(const ConvShape& s, const std::int8_t* input,
                             std::int32_t input_zero_point, const std::int8_t* filter,
                             int first_input, int oy, int ox) {
  const int group_inputs = s.in_channels / s.groups;
  const int in_plane = s.in_height * s.in_width;
  const int taps = s.kernel_h * s.kernel_w;
  const int y0 = oy * s.stride_h - s.pad_top;
  const int x0 = ox * Stride - s.pad_left;
  const dsp::Pair offset = dsp::splat(-input_zero_point);
  std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int ic = 0;
  for (; ic + 1 < group_inputs; ic += 2) {
    // Channel b's values are a plane after channel a's, its weights a filter plane after.
    const std::int8_t* plane_a = input + (first_input + ic) * in_plane;
    const std::int8_t* taps_a = filter + ic * taps;
    for (int ky = 0; ky < s.kernel_h; ++ky) {
      const int y = y0 + ky;
      if (y < 0 || y >= s.in_height)
        continue;
      const std::int8_t* at = plane_a + y * s.in_width + x0;
      const std::int8_t* weight = taps_a + ky * s.kernel_w;
      for (const std::int8_t* end = weight + s.kernel_w; weight != end; ++weight, ++at) {
        const dsp::Pair weights = dsp::make_pair(weight[0], weight[taps]);
        if constexpr (Stride == 1) {
          // (a0, a2), (a1, a3) and (b0, b2), (b1, b3): channel a's and b's four columns.
          const dsp::FourValues a = dsp::extend_four(dsp::load_four(at), offset);
          const dsp::FourValues b = dsp::extend_four(dsp::load_four(at + in_plane), offset);
          s0 = dsp::multiply_add_pairs(dsp::join_low(a.even, b.even), weights, s0);
          s1 = dsp::multiply_add_pairs(dsp::join_low(a.odd, b.odd), weights, s1);
          s2 = dsp::multiply_add_pairs(dsp::join_high(a.even, b.even), weights, s2);
          s3 = dsp::multiply_add_pairs(dsp::join_high(a.odd, b.odd), weights, s3);
        } else {
          // Columns are two bytes apart: bytes 0 and 2 of two words, (a0, a1) and (a2, a3).
          const dsp::Pair a01 = dsp::extend_pairs_add(offset, dsp::load_four(at));
          const dsp::Pair a23 = dsp::extend_pairs_add(offset, dsp::load_four(at + 4));
          const dsp::Pair b01 = dsp::extend_pairs_add(offset, dsp::load_four(at + in_plane));
          const dsp::Pair b23 = dsp::extend_pairs_add(offset, dsp::load_four(at + in_plane + 4));
          s0 = dsp::multiply_add_pairs(dsp::join_low(a01, b01), weights, s0);
          s1 = dsp::multiply_add_pairs(dsp::join_high(a01, b01), weights, s1);
          s2 = dsp::multiply_add_pairs(dsp::join_low(a23, b23), weights, s2);
          s3 = dsp::multiply_add_pairs(dsp::join_high(a23, b23), weights, s3);
        }
      }
    }
  }
  if (ic < group_inputs) {  // an odd channel count's last channel
    const std::int8_t* plane = input + (first_input + ic) * in_plane;
    const std::int8_t* channel_taps = filter + ic * taps;
    for (int ky = 0; ky < s.kernel_h; ++ky) {
      const int y = y0 + ky;
      if (y < 0 || y >= s.in_height)
        continue;
      const std::int8_t* row = plane + y * s.in_width + x0;
      for (int kx = 0; kx < s.kernel_w; ++kx) {
        const std::int32_t w = channel_taps[ky * s.kernel_w + kx];
        s0 += (row[kx] - input_zero_point) * w;
        s1 += (row[kx + Stride] - input_zero_point) * w;
        s2 += (row[kx + 2 * Stride] - input_zero_point) * w;
        s3 += (row[kx + 3 * Stride] - input_zero_point) * w;
      }
    }
  }
  return FourSums{{s0, s1, s2, s3}};
}

// A 1x1 convolution at stride 1 without padding (its output as large as its input), as one whose
// planes are single rows.
inline ConvShape with_planes_as_rows(const ConvShape& s) {
  if (s.kernel_h != 1 || s.kernel_w != 1 || s.stride_h != 1 || s.stride_w != 1 || s.pad_top != 0 ||
      s.pad_left != 0 || s.out_height != s.in_height || s.out_width != s.in_width)
    return s;
  ConvShape rows = s;
  rows.in_width = rows.out_width = s.in_height * s.in_width;
  rows.in_height = rows.out_height = 1;
  return rows;
}

}  // namespace paired_detail

// One sample, as conv2d_portable.
inline void conv2d_paired(const ConvShape& shape, const std::int8_t* input,
                          std::int32_t input_zero_point, const std::int8_t* weights,
                          const ChannelRequantization& q, std::int8_t* output) {
  const ConvShape s = paired_detail::with_planes_as_rows(shape);
  const int group_inputs = s.in_channels / s.groups;
  if (s.stride_w > 2 || group_inputs < 2) {
    conv2d_portable(s, input, input_zero_point, weights, q, output);
    return;
  }
  const int group_outputs = s.out_channels / s.groups;
  // Four columns from ox run paired when every byte their taps' words read lies inside the input
  // row: from the row's first to its last (at stride 2 the second word's last byte is read too).
  const int reach = s.stride_w == 1 ? 3 : 7;
  auto inside = [&](int ox) {
    const int x0 = ox * s.stride_w - s.pad_left;
    return ox + 3 < s.out_width && x0 >= 0 && x0 + s.kernel_w - 1 + reach < s.in_width;
  };
  for (int oc = 0; oc < s.out_channels; ++oc) {
    const int first_input = oc / group_outputs * group_inputs;
    const std::int8_t* filter = weights + oc * group_inputs * s.kernel_h * s.kernel_w;
    for (int oy = 0; oy < s.out_height; ++oy) {
      std::int8_t* row = output + (oc * s.out_height + oy) * s.out_width;
      for (int ox = 0; ox < s.out_width;) {
        if (!inside(ox)) {
          row[ox] =
              requantize(conv_taps(s, input, input_zero_point, filter, first_input, oy, ox), oc, q);
          ++ox;
          continue;
        }
        const paired_detail::FourSums sums =
            s.stride_w == 1 ? paired_detail::four_columns<1>(s, input, input_zero_point, filter,
                                                             first_input, oy, ox)
                            : paired_detail::four_columns<2>(s, input, input_zero_point, filter,
                                                             first_input, oy, ox);
        for (int j = 0; j < 4; ++j)
          row[ox + j] = requantize(sums.v[j], oc, q);
        ox += 4;
      }
    }
  }
}

// One sample, as fully_connected_portable.
inline void fully_connected_paired(int in_features, int out_features, const std::int8_t* input,
                                   std::int32_t input_zero_point, const std::int8_t* weights,
                                   const ChannelRequantization& q, std::int8_t* output) {
  const dsp::Pair offset = dsp::splat(-input_zero_point);
  const dsp::Pair none = 0;
  int o = 0;
  for (; o + 1 < out_features; o += 2) {
    const std::int8_t* row_a = weights + o * in_features;
    const std::int8_t* row_b = row_a + in_features;
    std::int32_t sum_a = 0, sum_b = 0;
    int i = 0;
    for (; i + 3 < in_features; i += 4) {
      const dsp::FourValues x = dsp::extend_four(dsp::load_four(input + i), offset);
      const dsp::FourValues a = dsp::extend_four(dsp::load_four(row_a + i), none);
      const dsp::FourValues b = dsp::extend_four(dsp::load_four(row_b + i), none);
      sum_a = dsp::multiply_add_pairs(x.even, a.even, sum_a);
      sum_a = dsp::multiply_add_pairs(x.odd, a.odd, sum_a);
      sum_b = dsp::multiply_add_pairs(x.even, b.even, sum_b);
      sum_b = dsp::multiply_add_pairs(x.odd, b.odd, sum_b);
    }
    for (; i < in_features; ++i) {
      const std::int32_t x = input[i] - input_zero_point;
      sum_a += x * row_a[i];
      sum_b += x * row_b[i];
    }
    output[o] = requantize(sum_a, o, q);
    output[o + 1] = requantize(sum_b, o + 1, q);
  }
  if (o < out_features)  // an odd count's last row
    fully_connected_portable(in_features, 1, input, input_zero_point, weights + o * in_features,
                             ChannelRequantization{q.bias + o, q.multiplier + o, q.shift + o,
                                                   q.output_zero_point, q.lowest, q.highest},
                             output + o);
}

}  // namespace staticnet::kernels::int8
