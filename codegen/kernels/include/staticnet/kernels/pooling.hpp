#pragma once
// Max and average pooling, forward and backward, alone or fused with the Linear/Conv2d bias and
// activation before them.
//
// Semantics are PyTorch's (floor mode): a max-pool pads with −∞ (a padded position never wins),
// takes the first maximum in row-major window order, and propagates NaN; an average pool counts
// padding as zeros and divides by kernel_h · kernel_w (count_include_pad=True), or, where the
// geometry says so (TensorFlow's 'same'), by the input elements its window covers.
//
// The standalone backward passes write dx, or add to it (Accumulate) where another reader of the
// pool's input wrote its part of the gradient first.
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
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// A max-pool's window indices, 1, 2 or 4 bytes each (window_index_dtype in the core). Enums
// rather than std::uint8_t and friends: a store through an unsigned char may alias any object,
// so every window index written would make the compiler reload the pointers around it, and the
// loop would not vectorise; an enum aliases only itself.
enum class WindowIndex8 : std::uint8_t {};
enum class WindowIndex16 : std::uint16_t {};
enum class WindowIndex32 : std::uint32_t {};

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
// Their tensors are float, BF16 or F16 (low_precision.hpp); a window index is its own type.

template <Pool2dGeometry G, class WindowIndex, class X, class Y>
STATICNET_HD void max_pool_forward(index_t plane, index_t position, const X* x, Y* y,
                                   WindowIndex* window) {
  const index_t oh = position / G.out_width, ow = position % G.out_width;
  const X* in = x + plane * G.input_plane();
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
      const float v = load(in, ih * G.in_width + iw);
      if (best_at < 0 || v > best || v != v) {  // as PyTorch: a NaN (v != v) always wins
        best = v;
        best_at = kh * G.kernel_w + kw;
      }
    }
  }
  const index_t o = plane * G.output_plane() + position;
  store(y, o, best);
  if (window != nullptr)  // null when no backward reads it
    window[o] = static_cast<WindowIndex>(best_at);
}

template <Pool2dGeometry G, class WindowIndex, bool Accumulate = false, class DY, class DX>
STATICNET_HD void max_pool_backward(index_t plane, index_t position, const DY* dy,
                                    const WindowIndex* window, DX* dx) {
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
      const float d = load(dy, o);  // unconditionally: a select vectorises, a branch does not
      sum += static_cast<index_t>(window[o]) == at ? d : 0.0f;
    }
  }
  write<Accumulate>(dx, plane * G.input_plane() + position, sum);
}

template <Pool2dGeometry G, class X, class Y>
STATICNET_HD void avg_pool_forward(index_t plane, index_t position, const X* x, Y* y) {
  const index_t oh = position / G.out_width, ow = position % G.out_width;
  const X* in = x + plane * G.input_plane();
  float sum = 0.0f;
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    const index_t ih = oh * G.stride_h - G.pad_h + kh;
    if (ih < 0 || ih >= G.in_height)
      continue;
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t iw = ow * G.stride_w - G.pad_w + kw;
      if (iw >= 0 && iw < G.in_width)
        sum += load(in, ih * G.in_width + iw);
    }
  }
  store(y, plane * G.output_plane() + position, sum / static_cast<float>(G.divisor(oh, ow)));
}

template <Pool2dGeometry G, bool Accumulate = false, class DY, class DX>
STATICNET_HD void avg_pool_backward(index_t plane, index_t position, const DY* dy, DX* dx) {
  const index_t ih = position / G.in_width, iw = position % G.in_width;
  const auto rows = detail::windows_holding(ih, G.kernel_h, G.stride_h, G.pad_h, G.out_height);
  const auto cols = detail::windows_holding(iw, G.kernel_w, G.stride_w, G.pad_w, G.out_width);
  const index_t base = plane * G.output_plane();
  float sum = 0.0f;
  for (index_t oh = rows.begin; oh < rows.end; ++oh)
    for (index_t ow = cols.begin; ow < cols.end; ++ow)
      sum += load(dy, base + oh * G.out_width + ow) / static_cast<float>(G.divisor(oh, ow));
  write<Accumulate>(dx, plane * G.input_plane() + position, sum);
}

// ---- pools whose windows tile their input, and their fusion with bias + activation --------
// When the windows tile the input (stride = kernel, no padding, nothing left over; G.tiles(),
// checked at compile time) each input element belongs to exactly one window, so a pool can be
// finished in the pass that produces its input. The pieces:
//   max_pool_tiled_forward / avg_pool_tiled_forward   reduce one window of y, already activated
//   bias_activation_max_pool_forward / ..._avg_...    y = act(z + b) over one window, then the
//                                                     reduction: the fused body a GPU thread runs
// The CPU runs the same pieces in two sweeps over the rows it has just computed, while they are
// in cache: bias + activation along contiguous rows (bias_activation_forward, which vectorises),
// then the reduction; a scalar loop over 2x2 windows would branch on every element's sign.
// Indexed by (plane, pooled row, pooled column).

template <Pool2dGeometry G, class WindowIndex, class Y, class P>
STATICNET_HD void max_pool_tiled_forward(index_t plane, index_t oh, index_t ow, const Y* y,
                                         P* pooled, WindowIndex* window) {
  static_assert(G.tiles(), "a tiled pool needs windows that tile the input");
  const detail::TiledWindow<G> w(plane, oh, ow);
  float best = load(y, w.first);
  index_t best_at = 0;
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const float v = load(y, w.at(kh, kw));
      // The larger, or a NaN (as PyTorch); the first of equals. A coin toss on real data.
      const bool take = unpredictable((v > best) | (v != v));
      best = take ? v : best;
      best_at = take ? kh * G.kernel_w + kw : best_at;
    }
  }
  store(pooled, w.output, best);
  if (window != nullptr)  // null when no backward reads it (inference)
    window[w.output] = static_cast<WindowIndex>(best_at);
}

template <Pool2dGeometry G, class Y, class P>
STATICNET_HD void avg_pool_tiled_forward(index_t plane, index_t oh, index_t ow, const Y* y,
                                         P* pooled) {
  static_assert(G.tiles(), "a tiled pool needs windows that tile the input");
  const detail::TiledWindow<G> w(plane, oh, ow);
  float sum = 0.0f;
  for (index_t kh = 0; kh < G.kernel_h; ++kh)
    for (index_t kw = 0; kw < G.kernel_w; ++kw)
      sum += load(y, w.at(kh, kw));
  store(pooled, w.output, sum / static_cast<float>(G.window()));
}

// y = act(z + b) over the window's elements (z and y may be the same buffer).
template <class Act, Pool2dGeometry G, bool HasBias>
STATICNET_HD void bias_activation_window(const detail::TiledWindow<G>& w, index_t plane,
                                         const float* z, const float* bias, float* y) {
  float b = 0.0f;
  if constexpr (HasBias)
    b = bias[plane % G.channels];
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      y[i] = Act::forward(HasBias ? z[i] + b : z[i]);
    }
  }
}

template <class Act, Pool2dGeometry G, bool HasBias, class WindowIndex>
STATICNET_HD void bias_activation_max_pool_forward(index_t plane, index_t oh, index_t ow,
                                                   const float* z, const float* bias, float* y,
                                                   float* pooled, WindowIndex* window) {
  bias_activation_window<Act, G, HasBias>(detail::TiledWindow<G>(plane, oh, ow), plane, z, bias, y);
  max_pool_tiled_forward<G, WindowIndex>(plane, oh, ow, y, pooled, window);
}

template <class Act, Pool2dGeometry G, bool HasBias>
STATICNET_HD void bias_activation_avg_pool_forward(index_t plane, index_t oh, index_t ow,
                                                   const float* z, const float* bias, float* y,
                                                   float* pooled) {
  bias_activation_window<Act, G, HasBias>(detail::TiledWindow<G>(plane, oh, ow), plane, z, bias, y);
  avg_pool_tiled_forward<G>(plane, oh, ow, y, pooled);
}

// Backward of the fused group: dz over each window = the pool's routing of d(pooled) times the
// activation's derivative at y. Writes every element of dz once (the windows tile it). dpooled, y
// and dz float, BF16 or F16 (y a pointer, or std::nullptr_t where Act's backward does not read
// it); the pool's gradient is rounded to dz's type before the derivative multiplies it, where
// PyTorch stores it between the two layers.
template <class Act, Pool2dGeometry G, class WindowIndex, class DP, class Y, class DZ>
STATICNET_HD void max_pool_activation_backward(index_t plane, index_t oh, index_t ow,
                                               const DP* dpooled, const WindowIndex* window, Y y,
                                               DZ* dz) {
  const detail::TiledWindow<G> w(plane, oh, ow);
  const index_t winner = static_cast<index_t>(window[w.output]);
  const float dy = round_to<DZ>(load(dpooled, w.output));
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      // The gradient goes to the window's maximum only; the derivative of a 0 is 0 for every
      // activation, so selecting dy (not the result) keeps this a select, not a branch.
      const float routed = kh * G.kernel_w + kw == winner ? dy : 0.0f;
      store(dz, i, Act::backward(saved_output<Act>(y, i), routed));
    }
  }
}

template <class Act, Pool2dGeometry G, class DP, class Y, class DZ>
STATICNET_HD void avg_pool_activation_backward(index_t plane, index_t oh, index_t ow,
                                               const DP* dpooled, Y y, DZ* dz) {
  const detail::TiledWindow<G> w(plane, oh, ow);
  const float dy = round_to<DZ>(load(dpooled, w.output) / static_cast<float>(G.window()));
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t i = w.at(kh, kw);
      store(dz, i, Act::backward(saved_output<Act>(y, i), dy));
    }
  }
}

}  // namespace staticnet::kernels
