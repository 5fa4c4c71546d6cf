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
//
// Two shapes of each: one element per call (a CUDA thread's work), and one plane per call (the
// CPU's: the taps in the outer loops and a contiguous row innermost, so rows vectorise and no
// index is divided per element; at stride 1 the whole plane is one run per tap, see
// shifts_by_tap()). Both add every element's terms in the same order, so they
// give the same bits; the plane-wise dx under Accumulate adds term by term into dx instead of
// adding one sum, which rounds differently.
//
// Element types: x, y, dy and dx float, BF16 or F16, the weights and bias W (float, or under mixed
// precision the working copy's type, which is then the products' type), dW and db float. Under
// mixed precision each operand is read as the product reads it (rounded to W, as autocast casts
// the model's f32 input), every sum runs in float, and each output is rounded once where it is
// stored, as a library's bf16 convolution does; the plane-wise bodies then sum a plane in float
// on the stack before storing it. A weight's gradient is rounded to W before it is added to the
// float master's (autocast's gradient is the working copy's). For float tensors every conversion
// is the identity and the bodies are the float ones.
#include <type_traits>

#include "staticnet/kernels/geometry.hpp"
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::kernels {

// Output element i of (N, Co, Ho, Wo).
// B: a pointer to the bias (W's type), or std::nullptr_t without one.
template <Conv2dGeometry G, bool HasBias, class X, class W, class B, class Y>
STATICNET_HD void grouped_conv_forward(index_t i, const X* x, const W* w, B b, Y* y) {
  const index_t ow = i % G.out_width, oh = (i / G.out_width) % G.out_height;
  const index_t co = (i / G.positions()) % G.out_channels, n = i / G.output_sample();
  const index_t first_input = co / G.group_outputs() * G.group_inputs();
  float sum = 0.0f;
  for (index_t ci = 0; ci < G.group_inputs(); ++ci) {
    const X* plane = x + n * G.input_sample() + (first_input + ci) * G.input_plane();
    const W* kernel = w + (co * G.group_inputs() + ci) * G.kernel_h * G.kernel_w;
    for (index_t kh = 0; kh < G.kernel_h; ++kh) {
      const index_t ih = oh * G.stride_h - G.pad_h + kh;
      if (ih < 0 || ih >= G.in_height)
        continue;
      for (index_t kw = 0; kw < G.kernel_w; ++kw) {
        const index_t iw = ow * G.stride_w - G.pad_w + kw;
        if (iw >= 0 && iw < G.in_width)
          sum += operand<W>(plane, ih * G.in_width + iw) * load(kernel, kh * G.kernel_w + kw);
      }
    }
  }
  if constexpr (HasBias)
    sum += load(b, co);
  store(y, i, sum);
}

// Input element j of (N, Ci, Hi, Wi): dx = Σ over the outputs that read it of dy · w.
// Accumulate adds to dx (another reader of x wrote its part already).
template <Conv2dGeometry G, bool Accumulate, class DY, class W, class DX>
STATICNET_HD void grouped_conv_backward_input(index_t j, const DY* dy, const W* w, DX* dx) {
  const index_t iw = j % G.in_width, ih = (j / G.in_width) % G.in_height;
  const index_t c = (j / G.input_plane()) % G.in_channels, n = j / G.input_sample();
  const index_t group = c / G.group_inputs(), ci = c % G.group_inputs();
  float sum = 0.0f;
  for (index_t co = group * G.group_outputs(); co < (group + 1) * G.group_outputs(); ++co) {
    const DY* plane = dy + n * G.output_sample() + co * G.positions();
    const W* kernel = w + (co * G.group_inputs() + ci) * G.kernel_h * G.kernel_w;
    for (index_t kh = 0; kh < G.kernel_h; ++kh) {
      const index_t rh = ih + G.pad_h - kh;  // = oh · SH for the output row that reads ih at kh
      if (rh < 0 || rh % G.stride_h != 0 || rh / G.stride_h >= G.out_height)
        continue;
      for (index_t kw = 0; kw < G.kernel_w; ++kw) {
        const index_t rw = iw + G.pad_w - kw;
        if (rw >= 0 && rw % G.stride_w == 0 && rw / G.stride_w < G.out_width)
          sum += operand<W>(plane, rh / G.stride_h * G.out_width + rw / G.stride_w) *
                 load(kernel, kh * G.kernel_w + kw);
      }
    }
  }
  // The product's result is in W's type (a bf16 convolution's dx), then stored into dx's.
  write<Accumulate>(dx, j, round_to<W>(sum));
}

// Weight element e of (Co, Ci/groups, KH, KW): dW[e] += Σ_n Σ_(oh, ow) dy · x, rounded to
// Working (the weights' working type; float without one) before it is added.
template <Conv2dGeometry G, class Working = float, class X, class DY>
STATICNET_HD void grouped_conv_backward_weight(index_t e, const X* x, const DY* dy, float* dw) {
  const index_t kw = e % G.kernel_w, kh = (e / G.kernel_w) % G.kernel_h;
  const index_t ci = (e / (G.kernel_h * G.kernel_w)) % G.group_inputs();
  const index_t co = e / (G.group_inputs() * G.kernel_h * G.kernel_w);
  const index_t c = co / G.group_outputs() * G.group_inputs() + ci;
  double sum = 0.0;
  for (index_t n = 0; n < G.batch; ++n) {
    const X* in = x + n * G.input_sample() + c * G.input_plane();
    const DY* grad = dy + n * G.output_sample() + co * G.positions();
    float partial = 0.0f;  // one sample in single precision, as a GEMM would
    for (index_t oh = 0; oh < G.out_height; ++oh) {
      const index_t ih = oh * G.stride_h - G.pad_h + kh;
      if (ih < 0 || ih >= G.in_height)
        continue;
      for (index_t ow = 0; ow < G.out_width; ++ow) {
        const index_t iw = ow * G.stride_w - G.pad_w + kw;
        if (iw >= 0 && iw < G.in_width)
          partial += operand<Working>(grad, oh * G.out_width + ow) *
                     operand<Working>(in, ih * G.in_width + iw);
      }
    }
    sum += static_cast<double>(partial);
  }
  dw[e] += round_to<Working>(static_cast<float>(sum));
}

// ---- one plane per call (the CPU's) ------------------------------------------------------------

// Walks one (input plane, output plane) pair tap by tap, (kh, kw) in order, and for each the
// output rows the tap reaches inside the input: body(tap, oh, in_row, ow_begin, ow_end), where
// input element in_row + ow·SW meets output (oh, ow) for ow in [ow_begin, ow_end). in_row is the
// index ow = 0 would read, negative where the padding is (never read there).
template <Conv2dGeometry G, class Body>
STATICNET_HD void for_each_tap_row(Body&& body) {
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    const index_t oh_end = end_in_bounds(kh, G.stride_h, G.pad_h, G.in_height, G.out_height);
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t ow_begin = first_in_bounds(kw, G.stride_w, G.pad_w);
      const index_t ow_end = end_in_bounds(kw, G.stride_w, G.pad_w, G.in_width, G.out_width);
      for (index_t oh = first_in_bounds(kh, G.stride_h, G.pad_h); oh < oh_end; ++oh)
        body(kh * G.kernel_w + kw, oh, (oh * G.stride_h - G.pad_h + kh) * G.in_width - G.pad_w + kw,
             ow_begin, ow_end);
    }
  }
}

// At shifts_by_tap(G) (geometry.hpp), a tap's work is one run over the plane instead of a run of
// Wo per output row, so short rows (the DS-CNN's planes are 5 wide) vectorise. The run also
// covers, at the start and end of each row, outputs whose input lies in the padding: its reads
// land in the next or last row and are masked out (`inside`), so every output still adds exactly
// the terms, in the order, of the row-by-row loop: the same bits.

// inside[kw][p]: all ones where output p's input at kernel column kw is inside the row.
template <Conv2dGeometry G>
struct ColumnMasks {
  std::uint32_t inside[extent<G.kernel_w>][extent<G.positions()>] = {};
  constexpr ColumnMasks() {
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t begin = first_in_bounds(kw, 1, G.pad_w);
      const index_t end = end_in_bounds(kw, 1, G.pad_w, G.in_width, G.out_width);
      for (index_t p = 0; p < G.positions(); ++p)
        inside[kw][p] = p % G.out_width >= begin && p % G.out_width < end ? ~0u : 0u;
    }
  }
};
template <Conv2dGeometry G>
inline constexpr ColumnMasks<G> column_masks{};

// For shifts_by_tap(G): body(tap, inside, begin, end, shift) per tap (kh, kw) in order, where
// outputs [begin, end) run from the first to the last that the tap reaches inside the input and
// output p reads input p + shift where inside[p] is set. begin and end are inside, so p + shift
// never leaves the plane.
template <Conv2dGeometry G, class Body>
STATICNET_HD void for_each_tap_span(Body&& body) {
  for (index_t kh = 0; kh < G.kernel_h; ++kh) {
    const index_t oh_begin = first_in_bounds(kh, 1, G.pad_h);
    const index_t oh_end = end_in_bounds(kh, 1, G.pad_h, G.in_height, G.out_height);
    for (index_t kw = 0; kw < G.kernel_w; ++kw) {
      const index_t ow_begin = first_in_bounds(kw, 1, G.pad_w);
      const index_t ow_end = end_in_bounds(kw, 1, G.pad_w, G.in_width, G.out_width);
      if (oh_begin < oh_end && ow_begin < ow_end)
        body(kh * G.kernel_w + kw, column_masks<G>.inside[kw], oh_begin * G.out_width + ow_begin,
             (oh_end - 1) * G.out_width + ow_end, (kh - G.pad_h) * G.in_width + kw - G.pad_w);
    }
  }
}

namespace detail {
// The sums of output plane (n, co), plane = n·Co + co, into out (float, a plane long).
template <Conv2dGeometry G, class X, class W>
STATICNET_HD void convolve_plane(index_t plane, const X* x, const W* w, float* out) {
  const index_t co = plane % G.out_channels, n = plane / G.out_channels;
  const index_t first_input = co / G.group_outputs() * G.group_inputs();
  for (index_t p = 0; p < G.positions(); ++p)
    out[p] = 0.0f;
  for (index_t ci = 0; ci < G.group_inputs(); ++ci) {
    const X* in = x + n * G.input_sample() + (first_input + ci) * G.input_plane();
    const W* kernel = w + (co * G.group_inputs() + ci) * G.kernel_h * G.kernel_w;
    if constexpr (shifts_by_tap(G)) {
      for_each_tap_span<G>(
          [&](index_t tap, const std::uint32_t* inside, index_t begin, index_t end, index_t shift) {
            const float k = load(kernel, tap);
            for (index_t p = begin; p < end; ++p)
              out[p] = select_bits(inside[p], out[p] + operand<W>(in, p + shift) * k, out[p]);
          });
    } else {
      for_each_tap_row<G>(
          [&](index_t tap, index_t oh, index_t in_row, index_t ow_begin, index_t ow_end) {
            const float k = load(kernel, tap);
            float* out_row = out + oh * G.out_width;
            for (index_t ow = ow_begin; ow < ow_end; ++ow)
              out_row[ow] += operand<W>(in, in_row + ow * G.stride_w) * k;
          });
    }
  }
}
}  // namespace detail

// Output plane (n, co) of (N, Co, Ho, Wo), plane = n·Co + co. A float y holds its sums as they
// run; any other sums a plane on the stack and stores it once.
template <Conv2dGeometry G, bool HasBias, class X, class W, class B, class Y>
STATICNET_HD void grouped_conv_forward_plane(index_t plane, const X* x, const W* w, B b, Y* y) {
  const index_t co = plane % G.out_channels;
  if constexpr (std::is_same_v<Y, float>) {
    float* out = y + plane * G.positions();
    detail::convolve_plane<G>(plane, x, w, out);
    if constexpr (HasBias)
      for (index_t p = 0; p < G.positions(); ++p)
        out[p] += load(b, co);
  } else {
    float out[extent<G.positions()>];
    detail::convolve_plane<G>(plane, x, w, out);
    if constexpr (HasBias)
      for (index_t p = 0; p < G.positions(); ++p)
        out[p] += load(b, co);
    for (index_t p = 0; p < G.positions(); ++p)
      store(y, plane * G.positions() + p, out[p]);
  }
}

namespace detail {
// Adds the taps' dy · w of input plane (n, c), plane = n·Ci + c, into in (float, a plane long).
template <Conv2dGeometry G, class DY, class W>
STATICNET_HD void scatter_plane(index_t plane, const DY* dy, const W* w, float* in) {
  const index_t c = plane % G.in_channels, n = plane / G.in_channels;
  const index_t group = c / G.group_inputs(), ci = c % G.group_inputs();
  for (index_t co = group * G.group_outputs(); co < (group + 1) * G.group_outputs(); ++co) {
    const DY* grad = dy + n * G.output_sample() + co * G.positions();
    const W* kernel = w + (co * G.group_inputs() + ci) * G.kernel_h * G.kernel_w;
    if constexpr (shifts_by_tap(G)) {
      for_each_tap_span<G>(
          [&](index_t tap, const std::uint32_t* inside, index_t begin, index_t end, index_t shift) {
            const float k = load(kernel, tap);
            for (index_t p = begin; p < end; ++p) {
              float& target = in[p + shift];
              target = select_bits(inside[p], target + operand<W>(grad, p) * k, target);
            }
          });
    } else {
      for_each_tap_row<G>(
          [&](index_t tap, index_t oh, index_t in_row, index_t ow_begin, index_t ow_end) {
            const float k = load(kernel, tap);
            const DY* grad_row = grad + oh * G.out_width;
            for (index_t ow = ow_begin; ow < ow_end; ++ow)
              in[in_row + ow * G.stride_w] += operand<W>(grad_row, ow) * k;
          });
    }
  }
}
}  // namespace detail

// Input plane (n, c) of (N, Ci, Hi, Wi): each output's dy · w scattered to the inputs its window
// read, taps in the order the gather above adds them: into dx itself under float tensors, or
// summed in a float plane on the stack and written once otherwise.
template <Conv2dGeometry G, bool Accumulate, class DY, class W, class DX>
STATICNET_HD void grouped_conv_backward_input_plane(index_t plane, const DY* dy, const W* w,
                                                    DX* dx) {
  if constexpr (std::is_same_v<DX, float> && std::is_same_v<W, float>) {
    float* in = dx + plane * G.input_plane();
    if constexpr (!Accumulate)
      for (index_t p = 0; p < G.input_plane(); ++p)
        in[p] = 0.0f;
    detail::scatter_plane<G>(plane, dy, w, in);
  } else {
    float in[extent<G.input_plane()>] = {};
    detail::scatter_plane<G>(plane, dy, w, in);
    for (index_t p = 0; p < G.input_plane(); ++p)
      write<Accumulate>(dx, plane * G.input_plane() + p, round_to<W>(in[p]));
  }
}

// Samples per pass of grouped_conv_backward_filter on the CPU. Each sample's sums are chains of
// their own, so that many run side by side, one per lane of a vector, each adding its terms in the
// order one sample alone would.
inline constexpr index_t filter_lanes = 8;

// The input rows a band of `rows` output rows reads at most.
template <Conv2dGeometry G>
constexpr index_t filter_band_input_rows(index_t rows) {
  const index_t read = (rows - 1) * G.stride_h + G.kernel_h;
  return read < G.in_height ? read : G.in_height;
}

// grouped_conv_backward_filter copies its filter_lanes samples' planes into lane-interleaved
// tiles on the stack, a band of output rows and the input rows they read at a time: the most
// output rows whose tiles fit 32 KiB (all 25 of the DS-CNN's 25x5 planes, in 8 KiB; 9 of
// MobileNet's 48x48), or 0 where not even one row fits (a sample at a time, no copies).
template <Conv2dGeometry G>
constexpr index_t filter_tile_rows() {
  for (index_t rows = G.out_height; rows >= 1; --rows) {
    const index_t floats =
        (filter_band_input_rows<G>(rows) * G.in_width + rows * G.out_width) * filter_lanes;
    if (floats * index_t{sizeof(float)} <= 32 * 1024)
      return rows;
  }
  return 0;
}

// The KH·KW weights of filter f = co·(Ci/groups) + ci at once, summed over the batch. Each tap
// adds its terms in the element-wise version's order: within a sample by output position, in
// single precision, then the samples in order, in double. Within that order, filter_lanes samples
// run at once, one per lane, and a kernel row's taps at a time, so that their sums stay in
// registers.
// Under mixed precision the operands are rounded to Working as the tiles are made, and the sums
// rounded to it before they are added to dW.
template <Conv2dGeometry G, class Working = float, class X, class DY>
STATICNET_HD void grouped_conv_backward_filter(index_t f, const X* x, const DY* dy, float* dw) {
  constexpr index_t taps = G.kernel_h * G.kernel_w;
  const index_t ci = f % G.group_inputs(), co = f / G.group_inputs();
  const index_t c = co / G.group_outputs() * G.group_inputs() + ci;
  double sum[extent<taps>] = {};
  constexpr index_t R = filter_tile_rows<G>();
  if constexpr (R > 0) {
    constexpr index_t L = filter_lanes, W = G.in_width, OW = G.out_width;
    for (index_t n0 = 0; n0 < G.batch; n0 += L) {
      const index_t lanes = G.batch - n0 < L ? G.batch - n0 : L;
      // One sample in single precision, as the element-wise version.
      float partial[extent<taps>][extent<L>] = {};
      for (index_t oh0 = 0; oh0 < G.out_height; oh0 += R) {
        const index_t oh1 = oh0 + R < G.out_height ? oh0 + R : G.out_height;
        // The input rows the band reads, cut to the plane: [ih0, ih1).
        const index_t first = oh0 * G.stride_h - G.pad_h, last = (oh1 - 1) * G.stride_h - G.pad_h;
        const index_t ih0 = first < 0 ? 0 : first;
        const index_t ih1 = last + G.kernel_h < G.in_height ? last + G.kernel_h : G.in_height;
        // Lane l holds sample n0 + l (idle lanes copy sample n0; their sums are dropped).
        float in[extent<filter_band_input_rows<G>(R) * W>][extent<L>];
        float grad[extent<R * OW>][extent<L>];
        for (index_t l = 0; l < L; ++l) {
          const index_t n = l < lanes ? n0 + l : n0;
          const X* x_plane = x + n * G.input_sample() + c * G.input_plane();
          const DY* dy_plane = dy + n * G.output_sample() + co * G.positions();
          for (index_t i = 0; i < (ih1 - ih0) * W; ++i)
            in[i][l] = operand<Working>(x_plane, ih0 * W + i);
          for (index_t p = 0; p < (oh1 - oh0) * OW; ++p)
            grad[p][l] = operand<Working>(dy_plane, oh0 * OW + p);
        }
        for (index_t kh = 0; kh < G.kernel_h; ++kh) {
          float row_sums[extent<G.kernel_w>][extent<L>];
          for (index_t kw = 0; kw < G.kernel_w; ++kw)
            for (index_t l = 0; l < L; ++l)
              row_sums[kw][l] = partial[kh * G.kernel_w + kw][l];
          for (index_t oh = oh0; oh < oh1; ++oh) {
            const index_t ih = oh * G.stride_h - G.pad_h + kh;
            if (ih < 0 || ih >= G.in_height)
              continue;
            for (index_t ow = 0; ow < OW; ++ow) {
              const float* g = grad[(oh - oh0) * OW + ow];
              for (index_t kw = 0; kw < G.kernel_w; ++kw) {
                const index_t iw = ow * G.stride_w - G.pad_w + kw;
                if (iw < 0 || iw >= W)
                  continue;
                const float* v = in[(ih - ih0) * W + iw];
                for (index_t l = 0; l < L; ++l)
                  row_sums[kw][l] += g[l] * v[l];
              }
            }
          }
          for (index_t kw = 0; kw < G.kernel_w; ++kw)
            for (index_t l = 0; l < L; ++l)
              partial[kh * G.kernel_w + kw][l] = row_sums[kw][l];
        }
      }
      for (index_t l = 0; l < lanes; ++l)
        for (index_t t = 0; t < taps; ++t)
          sum[t] += static_cast<double>(partial[t][l]);
    }
  } else {
    for (index_t n = 0; n < G.batch; ++n) {
      const X* in = x + n * G.input_sample() + c * G.input_plane();
      const DY* grad = dy + n * G.output_sample() + co * G.positions();
      // One sample in single precision, as the element-wise version.
      float partial[extent<taps>] = {};
      for (index_t oh = 0; oh < G.out_height; ++oh)
        for (index_t ow = 0; ow < G.out_width; ++ow)
          for (index_t kh = 0; kh < G.kernel_h; ++kh) {
            const index_t ih = oh * G.stride_h - G.pad_h + kh;
            if (ih < 0 || ih >= G.in_height)
              continue;
            for (index_t kw = 0; kw < G.kernel_w; ++kw) {
              const index_t iw = ow * G.stride_w - G.pad_w + kw;
              if (iw >= 0 && iw < G.in_width)
                partial[kh * G.kernel_w + kw] += operand<Working>(grad, oh * G.out_width + ow) *
                                                 operand<Working>(in, ih * G.in_width + iw);
            }
          }
      for (index_t t = 0; t < taps; ++t)
        sum[t] += partial[t];
    }
  }
  for (index_t t = 0; t < taps; ++t)
    dw[f * taps + t] += round_to<Working>(static_cast<float>(sum[t]));
}

}  // namespace staticnet::kernels
