#pragma once
// The sizes a kernel works on, as literal structs: the generator writes one per layer, every field
// a number, and passes it as a template argument, so each kernel instance is compiled for exactly
// those sizes (constant trip counts, divisions by constants).
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

// A 2-D convolution over (batch, in_channels, in_height, in_width) with zero padding: pad_h rows
// above and pad_w columns left; the padding after is whatever out_height and out_width imply (so
// TensorFlow's 'same', which may pad one more after than before, needs no field of its own).
// With groups > 1 each group of out_channels / groups outputs reads in_channels / groups inputs
// (a depthwise convolution: groups = in_channels = out_channels).
struct Conv2dGeometry {
  index_t batch = 0, in_channels = 0, in_height = 0, in_width = 0;
  index_t out_channels = 0, out_height = 0, out_width = 0;
  index_t kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  index_t groups = 1;

  // The im2col matrix of one sample: one row per (input channel, kernel row, kernel column), one
  // column per output position.
  STATICNET_HOST_DEVICE constexpr index_t rows() const { return in_channels * kernel_h * kernel_w; }
  STATICNET_HOST_DEVICE constexpr index_t positions() const { return out_height * out_width; }
  STATICNET_HOST_DEVICE constexpr index_t input_plane() const { return in_height * in_width; }
  STATICNET_HOST_DEVICE constexpr index_t input_sample() const {
    return in_channels * input_plane();
  }
  STATICNET_HOST_DEVICE constexpr index_t output_sample() const {
    return out_channels * positions();
  }
  STATICNET_HOST_DEVICE constexpr index_t group_inputs() const { return in_channels / groups; }
  STATICNET_HOST_DEVICE constexpr index_t group_outputs() const { return out_channels / groups; }
  STATICNET_HOST_DEVICE constexpr index_t output_elements() const {
    return batch * output_sample();
  }
  STATICNET_HOST_DEVICE constexpr index_t input_elements() const { return batch * input_sample(); }
  STATICNET_HOST_DEVICE constexpr index_t weight_elements() const {
    return out_channels * group_inputs() * kernel_h * kernel_w;
  }
};

// The first and one-past-last output index o whose input index o·stride − pad + k lies in
// [0, extent): the outputs a tap (kernel row or column k) reaches without padding. The end may lie
// before the first where the tap reaches none.
STATICNET_HOST_DEVICE constexpr index_t first_in_bounds(index_t k, index_t stride, index_t pad) {
  const index_t lowest = pad - k;  // o·stride ≥ pad − k
  return lowest <= 0 ? 0 : (lowest + stride - 1) / stride;
}
STATICNET_HOST_DEVICE constexpr index_t end_in_bounds(index_t k, index_t stride, index_t pad,
                                                      index_t extent, index_t outputs) {
  const index_t limit = extent + pad - k;  // o·stride < extent + pad − k
  const index_t end = limit <= 0 ? 0 : (limit + stride - 1) / stride;
  return end < outputs ? end : outputs;
}

// Stride 1 with as many output columns as input columns ('same' padding, or none with a kernel one
// column wide): input element p + shift(tap) meets output p, shift = (kh − PH)·W + (kw − PW), the
// same shift for the whole plane. The CPU's im2col and its direct grouped convolutions then work
// a tap at a time over the whole plane.
STATICNET_HOST_DEVICE constexpr bool shifts_by_tap(const Conv2dGeometry& g) {
  return g.stride_h == 1 && g.stride_w == 1 && g.out_width == g.in_width;
}

// A 2-D pooling window over (batch, channels, in_height, in_width), padded by pad_h rows above
// and pad_w columns left; the padding after is whatever out_height and out_width imply
// (TensorFlow's 'same' may pad one more after than before). An average pool divides by the whole
// window, padding counted as zeros (PyTorch's count_include_pad, the default), or, with
// count_include_pad false (TensorFlow's 'same'), by the input elements the window covers.
struct Pool2dGeometry {
  index_t batch = 0, channels = 0, in_height = 0, in_width = 0, out_height = 0, out_width = 0;
  index_t kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  bool count_include_pad = true;

  STATICNET_HOST_DEVICE constexpr index_t planes() const { return batch * channels; }
  STATICNET_HOST_DEVICE constexpr index_t input_plane() const { return in_height * in_width; }
  STATICNET_HOST_DEVICE constexpr index_t output_plane() const { return out_height * out_width; }
  STATICNET_HOST_DEVICE constexpr index_t window() const { return kernel_h * kernel_w; }
  // What an average pool divides output (oh, ow) by.
  STATICNET_HOST_DEVICE constexpr index_t divisor(index_t oh, index_t ow) const {
    if (count_include_pad)
      return window();
    return covered(oh * stride_h - pad_h, kernel_h, in_height) *
           covered(ow * stride_w - pad_w, kernel_w, in_width);
  }
  // Of the `kernel` positions from `first`, how many lie in [0, extent).
  STATICNET_HOST_DEVICE static constexpr index_t covered(index_t first, index_t kernel,
                                                         index_t extent) {
    const index_t begin = first < 0 ? 0 : first;
    const index_t end = first + kernel < extent ? first + kernel : extent;
    return end - begin;
  }
  // The windows partition the input exactly: no padding, no overlap, no row or column left out.
  // Only then can a pool be fused into the pass that writes its input (each input element is
  // visited once).
  STATICNET_HOST_DEVICE constexpr bool tiles() const {
    return stride_h == kernel_h && stride_w == kernel_w && pad_h == 0 && pad_w == 0 &&
           in_height == out_height * kernel_h && in_width == out_width * kernel_w;
  }
};

}  // namespace staticnet::kernels
