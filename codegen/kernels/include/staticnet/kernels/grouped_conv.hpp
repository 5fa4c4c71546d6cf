#pragma once
// Grouped convolutions computed directly, one output (or input, or weight) element per call:
// DepthwiseConv2d (groups = channels, one input channel per output) and Conv2d<Groups<G>>.
//
// Why not im2col + GEMM as for ordinary convolutions: a depthwise output sums only KH·KW
// products, so the column matrix (KH·KW times the input) would cost more memory traffic than
// the arithmetic it feeds, and per-group GEMMs of one row are no GEMMs at all. A direct loop
// reads each input element KH·KW times from cache and needs no workspace.
//
// Weights are PyTorch's layout (Co, Ci/groups, KH, KW). Padding is geometry.hpp's: pad_h/pad_w
// before, and the rest implied by the output size, so TensorFlow's uneven 'same' padding works.
// Every element is written by one call in a fixed order: the same bits on every thread count.
//   forward   y[n][co][oh][ow] = b[co] + Σ_{ci, kh, kw} x[n][g·Cig + ci][oh·SH − PH + kh][...]·w
//   dx        a gather: the outputs whose windows read x[n][c][ih][iw], times their weight
//   dW        Σ over samples and output positions, per weight element (in double across samples)
#include "staticnet/kernels/geometry.hpp"
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

// Output element i of (N, Co, Ho, Wo).
template <Conv2dGeometry G, bool HasBias>
STATICNET_HD void grouped_conv_forward(index_t i, const float* x, const float* w, const float* b,
                                       float* y) {
  const index_t ow = i % G.out_width, oh = (i / G.out_width) % G.out_height;
  const index_t co = (i / G.positions()) % G.out_channels, n = i / G.output_sample();
  const index_t first_input = co / G.group_outputs() * G.group_inputs();
  float sum = 0.0f;
  for (index_t ci = 0; ci < G.group_inputs(); ++ci) {
    const float* plane = x + n * G.input_sample() + (first_input + ci) * G.input_plane();
    const float* kernel = w + (co * G.group_inputs() + ci) * G.kernel_h * G.kernel_w;
    for (index_t kh = 0; kh < G.kernel_h; ++kh) {
      const index_t ih = oh * G.stride_h - G.pad_h + kh;
      if (ih < 0 || ih >= G.in_height)
        continue;
      for (index_t kw = 0; kw < G.kernel_w; ++kw) {
        const index_t iw = ow * G.stride_w - G.pad_w + kw;
        if (iw >= 0 && iw < G.in_width)
          sum += plane[ih * G.in_width + iw] * kernel[kh * G.kernel_w + kw];
      }
    }
  }
  if constexpr (HasBias)
    sum += b[co];
  y[i] = sum;
}

// Input element j of (N, Ci, Hi, Wi): dx = Σ over the outputs that read it of dy · w.
// Accumulate adds to dx (another reader of x wrote its part already).
template <Conv2dGeometry G, bool Accumulate>
STATICNET_HD void grouped_conv_backward_input(index_t j, const float* dy, const float* w,
                                              float* dx) {
  const index_t iw = j % G.in_width, ih = (j / G.in_width) % G.in_height;
  const index_t c = (j / G.input_plane()) % G.in_channels, n = j / G.input_sample();
  const index_t group = c / G.group_inputs(), ci = c % G.group_inputs();
  float sum = 0.0f;
  for (index_t co = group * G.group_outputs(); co < (group + 1) * G.group_outputs(); ++co) {
    const float* plane = dy + n * G.output_sample() + co * G.positions();
    const float* kernel = w + (co * G.group_inputs() + ci) * G.kernel_h * G.kernel_w;
    for (index_t kh = 0; kh < G.kernel_h; ++kh) {
      const index_t rh = ih + G.pad_h - kh;  // = oh · SH for the output row that reads ih at kh
      if (rh < 0 || rh % G.stride_h != 0 || rh / G.stride_h >= G.out_height)
        continue;
      for (index_t kw = 0; kw < G.kernel_w; ++kw) {
        const index_t rw = iw + G.pad_w - kw;
        if (rw >= 0 && rw % G.stride_w == 0 && rw / G.stride_w < G.out_width)
          sum +=
              plane[rh / G.stride_h * G.out_width + rw / G.stride_w] * kernel[kh * G.kernel_w + kw];
      }
    }
  }
  if constexpr (Accumulate)
    dx[j] += sum;
  else
    dx[j] = sum;
}

// Weight element e of (Co, Ci/groups, KH, KW): dW[e] += Σ_n Σ_(oh, ow) dy · x.
template <Conv2dGeometry G>
STATICNET_HD void grouped_conv_backward_weight(index_t e, const float* x, const float* dy,
                                               float* dw) {
  const index_t kw = e % G.kernel_w, kh = (e / G.kernel_w) % G.kernel_h;
  const index_t ci = (e / (G.kernel_h * G.kernel_w)) % G.group_inputs();
  const index_t co = e / (G.group_inputs() * G.kernel_h * G.kernel_w);
  const index_t c = co / G.group_outputs() * G.group_inputs() + ci;
  double sum = 0.0;
  for (index_t n = 0; n < G.batch; ++n) {
    const float* in = x + n * G.input_sample() + c * G.input_plane();
    const float* grad = dy + n * G.output_sample() + co * G.positions();
    float partial = 0.0f;  // one sample in single precision, as a GEMM would
    for (index_t oh = 0; oh < G.out_height; ++oh) {
      const index_t ih = oh * G.stride_h - G.pad_h + kh;
      if (ih < 0 || ih >= G.in_height)
        continue;
      for (index_t ow = 0; ow < G.out_width; ++ow) {
        const index_t iw = ow * G.stride_w - G.pad_w + kw;
        if (iw >= 0 && iw < G.in_width)
          partial += grad[oh * G.out_width + ow] * in[ih * G.in_width + iw];
      }
    }
    sum += partial;
  }
  dw[e] += static_cast<float>(sum);
}

}  // namespace staticnet::kernels
