#pragma once
// Random convolutions and Linear layers run by the paired int8 kernels (paired.hpp) and by the
// portable ones (portable.hpp), which must write the same bytes. The host's tests run them with
// the DSP instructions written out (test_paired_kernels.cpp); the Cortex-M7 firmware runs them
// with the instructions themselves (cortex_m/paired_main.cpp). Freestanding C++17, no library:
// the firmware has none.
//
// The shapes reach every path of the paired convolution: columns at the padded edges and in the
// inside, rows too narrow for four columns, strides 1 and 2, an odd last channel, 1x1
// convolutions read as rows, groups, and what it leaves to the portable kernel (depthwise). The
// requantization's shift is drawn so that most outputs fall inside the int8 range rather than at
// its clamp, where two different sums would give the same byte. Each input ends where its array,
// the last of Buffers, ends: a read past it leaves a heap allocation of Buffers, which the
// sanitizers' build of the host test reports (a wrong byte read there would often go unseen in
// the outputs: the kernels load whole words and drop the lanes they do not use).
#include <cstdint>

#include "staticnet/kernels/int8/products.hpp"

namespace paired_cases {

namespace q8 = staticnet::kernels::int8;

struct Random {
  std::uint32_t state = 0x2545F491u;
  std::uint32_t next() {  // xorshift32
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  int in(int lo, int hi) {  // in [lo, hi]
    return lo + static_cast<int>(next() % static_cast<std::uint32_t>(hi - lo + 1));
  }
};

inline constexpr int max_channels = 9, max_side = 13, max_kernel = 5, max_features = 70;
inline constexpr int max_input = max_channels * max_side * max_side;
// Padding adds up to 2 (kernel - 1) to a side, which the kernel takes back but for 1 less.
inline constexpr int max_output = max_channels * (max_side + max_kernel) * (max_side + max_kernel);
inline constexpr int max_weights = max_channels * max_channels * max_kernel * max_kernel;

struct Buffers {
  std::int8_t weights[max_weights];
  std::int32_t bias[max_channels], multiplier[max_channels], shift[max_channels];
  std::int8_t portable[max_output], paired[max_output];
  std::int8_t input[max_input];  // last: see above

  // Where an input of `count` values starts, so that it ends with the array.
  std::int8_t* input_of(int count) { return input + (max_input - count); }
};

// How many of the cases took each path of the paired convolution: the host test requires every
// one taken.
struct Paths {
  int stride_1 = 0, stride_2 = 0, odd_channel = 0, planes_as_rows = 0, portable = 0;
};

inline void fill(Random& r, std::int8_t* values, int count, int lo, int hi) {
  for (int i = 0; i < count; ++i)
    values[i] = static_cast<std::int8_t>(r.in(lo, hi));
}

// Channel numbers for `channels` outputs, and the output's zero point and clamp.
inline q8::ChannelRequantization requantization(Random& r, Buffers& b, int channels) {
  for (int c = 0; c < channels; ++c) {
    b.bias[c] = r.in(-3000, 3000);
    b.multiplier[c] = static_cast<std::int32_t>((1u << 30) + (r.next() >> 2));
    b.shift[c] = r.in(-13, -8);
  }
  const int zero_point = r.in(-128, 127);
  const bool relu = r.in(0, 1) == 1;
  return {b.bias, b.multiplier, b.shift, zero_point, relu ? zero_point : -128, 127};
}

inline bool same(const std::int8_t* a, const std::int8_t* b, int count) {
  for (int i = 0; i < count; ++i)
    if (a[i] != b[i])
      return false;
  return true;
}

// One random convolution; true when both kernels write the same bytes.
inline bool conv_case(Random& r, Buffers& b, Paths& paths) {
  q8::ConvShape s;
  const bool depthwise = r.in(0, 7) == 0;
  s.in_channels = r.in(1, max_channels);
  s.groups = depthwise ? s.in_channels : (s.in_channels % 3 == 0 && r.in(0, 3) == 0 ? 3 : 1);
  s.out_channels = depthwise ? s.in_channels : s.groups * r.in(1, max_channels / s.groups);
  s.kernel_h = r.in(1, max_kernel);
  s.kernel_w = r.in(0, 2) == 0 ? 1 : r.in(1, max_kernel);
  s.in_height = r.in(s.kernel_h, max_side);
  s.in_width = r.in(s.kernel_w, max_side);
  s.stride_h = r.in(0, 3) == 0 ? 2 : 1;
  s.stride_w = r.in(0, 3) == 0 ? 2 : 1;
  s.pad_top = r.in(0, 2) == 0 ? 0 : r.in(0, s.kernel_h - 1);
  s.pad_left = r.in(0, 2) == 0 ? 0 : r.in(0, s.kernel_w - 1);
  // Padding after as much as before, or one more ('same' at an even kernel), within the kernel.
  const int pad_bottom = s.pad_top + (s.pad_top < s.kernel_h - 1 ? r.in(0, 1) : 0);
  const int pad_right = s.pad_left + (s.pad_left < s.kernel_w - 1 ? r.in(0, 1) : 0);
  s.out_height = (s.in_height + s.pad_top + pad_bottom - s.kernel_h) / s.stride_h + 1;
  s.out_width = (s.in_width + s.pad_left + pad_right - s.kernel_w) / s.stride_w + 1;
  const int group_inputs = s.in_channels / s.groups;
  const int input = s.in_channels * s.in_height * s.in_width;
  const int output = s.out_channels * s.out_height * s.out_width;
  std::int8_t* in = b.input_of(input);
  fill(r, in, input, -128, 127);
  fill(r, b.weights, s.out_channels * group_inputs * s.kernel_h * s.kernel_w, -127, 127);
  const std::int32_t zero_point = r.in(-128, 127);
  const q8::ChannelRequantization q = requantization(r, b, s.out_channels);
  q8::conv2d_portable(s, in, zero_point, b.weights, q, b.portable);
  q8::conv2d_paired(s, in, zero_point, b.weights, q, b.paired);
  // The path this shape takes (paired.hpp): four columns inside a row at least once, or none.
  const bool rows = s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                    s.pad_top == 0 && s.pad_left == 0 && s.out_height == s.in_height &&
                    s.out_width == s.in_width;
  const int reach = s.stride_w == 1 ? 3 : 7;
  const bool paired =
      group_inputs >= 2 && s.stride_w <= 2 &&
      (rows ? s.in_height * s.in_width >= 4 : s.out_width >= 4 && s.kernel_w + reach <= s.in_width);
  if (!paired)
    ++paths.portable;
  else if (rows)
    ++paths.planes_as_rows;
  else
    ++(s.stride_w == 1 ? paths.stride_1 : paths.stride_2);
  if (paired && group_inputs % 2 == 1)
    ++paths.odd_channel;
  return same(b.portable, b.paired, output);
}

// One random Linear layer; true when both kernels write the same bytes.
inline bool fully_connected_case(Random& r, Buffers& b) {
  const int in = r.in(1, max_features), out = r.in(1, max_channels);
  std::int8_t* input = b.input_of(in);
  fill(r, input, in, -128, 127);
  fill(r, b.weights, in * out, -127, 127);
  const std::int32_t zero_point = r.in(-128, 127);
  const q8::ChannelRequantization q = requantization(r, b, out);
  q8::fully_connected_portable(in, out, input, zero_point, b.weights, q, b.portable);
  q8::fully_connected_paired(in, out, input, zero_point, b.weights, q, b.paired);
  return same(b.portable, b.paired, out);
}

}  // namespace paired_cases
