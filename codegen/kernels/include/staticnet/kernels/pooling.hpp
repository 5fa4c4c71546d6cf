#pragma once
// Max and average pooling, forward and backward, alone or fused with the Linear/Conv2d bias and
// activation before them.
//
// Semantics are PyTorch's (floor mode): a max-pool pads with −∞ (a padded position never wins),
// takes the first maximum in row-major window order, and propagates NaN; an average pool counts
// padding as zeros and always divides by kernel_h · kernel_w (count_include_pad=True).
//
// A max-pool saves, per output, the position of its maximum within the window (kh · KW + kw), in
// the smallest unsigned type that holds the window (WindowIndex: 1, 2 or 4 bytes); backward routes
// dy back through it. Backward is written as a gather over the input ("which windows hold me?"),
// so each dx element is written once, in a fixed order: no zeroing, no atomics, and the same sums
// on every thread count.
//
// Indexing: (plane, position), plane = n · C + c, position within the plane's output (forward)
// or input (standalone backward).
#include <cstdint>

#include "staticnet/kernels/activations.hpp"
#include "staticnet/kernels/geometry.hpp"
#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

namespace detail {
// The output rows (or columns) whose windows contain input row i: [begin, end).
struct Span {
  index_t begin, end;
};
STATICNET_HD Span windows_holding(index_t i, index_t kernel, index_t stride, index_t pad,
                                  index_t outputs) {
  const index_t lowest = i + pad - kernel + 1;  // the first window start that still reaches i
  const index_t begin = lowest <= 0 ? 0 : (lowest + stride - 1) / stride;
  const index_t last = (i + pad) / stride;
  return {begin, last + 1 < outputs ? last + 1 : outputs};
}
// The fused bodies' window: the conv-output index of its top-left element, and the pooled
// output's index, for pooled row oh and column ow of `plane` (windows tile, so stride = kernel).
template <Pool2dGeometry G>
struct TiledWindow {
  index_t first, output;
  STATICNET_HD TiledWindow(index_t plane, index_t oh, index_t ow)
      : first(plane * G.input_plane() + oh * G.kernel_h * G.in_width + ow * G.kernel_w),
        output(plane * G.output_plane() + oh * G.out_width + ow) {}
  STATICNET_HD index_t at(index_t kh, index_t kw) const { return first + kh * G.in_width + kw; }
};
}  // namespace detail

// ---- standalone pools ---------------------------------------------------------------------

template <Pool2dGeometry G, class WindowIndex>
STATICNET_HD void max_pool_forward(index_t plane, index_t position, const float* x, float* y,
                                   WindowIndex* window) {
  const index_t oh = position / G.out_width, ow = position % G.out_width;
  const float* in = x + plane * G.input_plane();
  float best = 0.0f;
  index_t best_at = -1;
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    const index_t ih = oh * G.stride_h - G.pad_h + kh;
    if (ih < 0 || ih >= G.in_height)
      continue;
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t iw = ow * G.stride_w - G.pad_w + kw;
      if (iw < 0 || iw >= G.in_width)
        continue;
      const float v = in[ih * G.in_width + iw];
      if (best_at < 0 || v > best || v != v) {  // as PyTorch: a NaN (v != v) always wins
        best = v;
        best_at = kh * G.kernel_w + kw;
      }
    }
  }
  const index_t o = plane * G.output_plane() + position;
  y[o] = best;
  if (window != nullptr)  // null when no backward reads it
    window[o] = static_cast<WindowIndex>(best_at);
}

template <Pool2dGeometry G, class WindowIndex>
STATICNET_HD void max_pool_backward(index_t plane, index_t position, const float* dy,
                                    const WindowIndex* window, float* dx) {
  const index_t ih = position / G.in_width, iw = position % G.in_width;
  const auto rows = detail::windows_holding(ih, G.kernel_h, G.stride_h, G.pad_h, G.out_height);
  const auto cols = detail::windows_holding(iw, G.kernel_w, G.stride_w, G.pad_w, G.out_width);
  const index_t base = plane * G.output_plane();
  float sum = 0.0f;
  for (index_t oh = rows.begin; oh < rows.end; ++oh) {
    for (index_t ow = cols.begin; ow < cols.end; ++ow) {
      const index_t at =
          (ih - (oh * G.stride_h - G.pad_h)) * G.kernel_w + (iw - (ow * G.stride_w - G.pad_w));
      const index_t o = base + oh * G.out_width + ow;
      if (static_cast<index_t>(window[o]) == at)
        sum += dy[o];
    }
  }
  dx[plane * G.input_plane() + position] = sum;
}

template <Pool2dGeometry G>
STATICNET_HD void avg_pool_forward(index_t plane, index_t position, const float* x, float* y) {
  const index_t oh = position / G.out_width, ow = position % G.out_width;
  const float* in = x + plane * G.input_plane();
  float sum = 0.0f;
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    const index_t ih = oh * G.stride_h - G.pad_h + kh;
    if (ih < 0 || ih >= G.in_height)
      continue;
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t iw = ow * G.stride_w - G.pad_w + kw;
      if (iw >= 0 && iw < G.in_width)
        sum += in[ih * G.in_width + iw];
    }
  }
  y[plane * G.output_plane() + position] = sum / static_cast<float>(G.window());
}

template <Pool2dGeometry G>
STATICNET_HD void avg_pool_backward(index_t plane, index_t position, const float* dy, float* dx) {
  const index_t ih = position / G.in_width, iw = position % G.in_width;
  const auto rows = detail::windows_holding(ih, G.kernel_h, G.stride_h, G.pad_h, G.out_height);
  const auto cols = detail::windows_holding(iw, G.kernel_w, G.stride_w, G.pad_w, G.out_width);
  const index_t base = plane * G.output_plane();
  float sum = 0.0f;
  for (index_t oh = rows.begin; oh < rows.end; ++oh)
    for (index_t ow = cols.begin; ow < cols.end; ++ow)
      sum += dy[base + oh * G.out_width + ow] / static_cast<float>(G.window());
  dx[plane * G.input_plane() + position] = sum;
}

// ---- fused: bias + activation + pool, over a pool whose windows tile its input ------------
// One pass over the conv output z: each window's elements get the bias and the activation
// (written to y, which the activation saves for backward), and the window's max or mean is the
// pool's output. Valid only when G.tiles() (checked at compile time). Indexed by (plane, pooled
// row, pooled column): a CPU loop along a row vectorises, a GPU block takes a row.

template <class Act, Pool2dGeometry G, bool HasBias, class WindowIndex>
STATICNET_HD void bias_activation_max_pool_forward(index_t plane, index_t oh, index_t ow,
                                                   const float* z, const float* bias, float* y,
                                                   float* pooled, WindowIndex* window) {
  static_assert(G.tiles(), "fused pooling needs windows that tile the input");
  const detail::TiledWindow<G> w(plane, oh, ow);
  float b = 0.0f;
  if constexpr (HasBias)
    b = bias[plane % G.channels];
  float best = 0.0f;
  index_t best_at = -1;
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      const float v = Act::forward(HasBias ? z[i] + b : z[i]);
      y[i] = v;
      if (best_at < 0 || v > best || v != v) {
        best = v;
        best_at = kh * G.kernel_w + kw;
      }
    }
  }
  pooled[w.output] = best;
  window[w.output] = static_cast<WindowIndex>(best_at);
}

template <class Act, Pool2dGeometry G, bool HasBias>
STATICNET_HD void bias_activation_avg_pool_forward(index_t plane, index_t oh, index_t ow,
                                                   const float* z, const float* bias, float* y,
                                                   float* pooled) {
  static_assert(G.tiles(), "fused pooling needs windows that tile the input");
  const detail::TiledWindow<G> w(plane, oh, ow);
  float b = 0.0f;
  if constexpr (HasBias)
    b = bias[plane % G.channels];
  float sum = 0.0f;
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      const float v = Act::forward(HasBias ? z[i] + b : z[i]);
      y[i] = v;
      sum += v;
    }
  }
  pooled[w.output] = sum / static_cast<float>(G.window());
}

// Backward of the fused group: dz over each window = the pool's routing of d(pooled) times the
// activation's derivative at y. Writes every element of dz once (the windows tile it).
template <class Act, Pool2dGeometry G, class WindowIndex>
STATICNET_HD void max_pool_activation_backward(index_t plane, index_t oh, index_t ow,
                                               const float* dpooled, const WindowIndex* window,
                                               const float* y, float* dz) {
  const detail::TiledWindow<G> w(plane, oh, ow);
  const index_t winner = static_cast<index_t>(window[w.output]);
  const float dy = dpooled[w.output];
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      dz[i] = kh * G.kernel_w + kw == winner ? Act::backward(saved_output<Act>(y, i), dy) : 0.0f;
    }
  }
}

template <class Act, Pool2dGeometry G>
STATICNET_HD void avg_pool_activation_backward(index_t plane, index_t oh, index_t ow,
                                               const float* dpooled, const float* y, float* dz) {
  const detail::TiledWindow<G> w(plane, oh, ow);
  const float dy = dpooled[w.output] / static_cast<float>(G.window());
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      dz[i] = Act::backward(saved_output<Act>(y, i), dy);
    }
  }
}

}  // namespace staticnet::kernels
