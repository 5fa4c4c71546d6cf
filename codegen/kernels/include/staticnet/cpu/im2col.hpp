#pragma once
// im2col and col2im for one sample, the CPU's way of turning a convolution into a GEMM. Only the
// CPU backend lowers convolutions like this (the CUDA backend uses cuDNN), so these are CPU
// loops: at stride 1 with the output as wide as the input, one shifted copy of the plane per
// column-matrix row (kernels::shifts_by_tap); otherwise row by row, so that stride-1 rows
// become contiguous copies.
//
// The column matrix has geometry.rows() rows, one per (input channel ci, kernel row kh, kernel
// column kw), and geometry.positions() columns, one per output position (oh, ow):
//   col[(ci·KH + kh)·KW + kw][oh·OW + ow] = x[ci][oh·SH − PH + kh][ow·SW − PW + kw], 0 outside.
#include <algorithm>
#include <cstring>

#include "staticnet/cpu/launch.hpp"
#include "staticnet/kernels/geometry.hpp"

namespace staticnet::cpu {

namespace detail {
// The output columns ow whose input column ow·SW − PW + kw lies inside [0, W): [first, last),
// empty where the tap reaches none.
template <kernels::Conv2dGeometry G>
constexpr Range valid_columns(index_t kw) {
  return {kernels::first_in_bounds(kw, G.stride_w, G.pad_w),
          kernels::end_in_bounds(kw, G.stride_w, G.pad_w, G.in_width, G.out_width)};
}

// At kernels::shifts_by_tap(G) (ResNet-8's 3x3 'same' convolutions), a row of the column matrix
// is one copy of the plane, shifted, with the reads that fall outside the input zeroed: whole
// output rows above or below it, and in each remaining row the columns that wrapped into the row
// before or after.
template <kernels::Conv2dGeometry G>
void im2col_shifted_row(const float* plane, float* out, index_t kh, index_t kw, Range columns) {
  constexpr index_t W = G.in_width;
  const index_t shift = (kh - G.pad_h) * W + (kw - G.pad_w);
  // Output rows whose input row lies inside the plane, as positions, cut to `columns`.
  const index_t top = kernels::first_in_bounds(kh, 1, G.pad_h);
  const index_t bottom = kernels::end_in_bounds(kh, 1, G.pad_h, G.in_height, G.out_height);
  const index_t begin = std::clamp(top * W, columns.begin, columns.end);
  const index_t end = std::clamp(bottom * W, begin, columns.end);
  const Range valid = valid_columns<G>(kw);
  if (valid.empty()) {  // the tap reads left or right of every input row
    std::fill(out + columns.begin, out + columns.end, 0.0f);
    return;
  }
  // The copy, kept to reads inside the plane; the positions it leaves out at either end (the
  // plane's first or last columns, reading across its edge) are zeros, as are the rows above and
  // below it.
  const index_t copy_begin = std::clamp(-shift, begin, end);
  const index_t copy_end = std::clamp(G.input_plane() - shift, copy_begin, end);
  std::fill(out + columns.begin, out + copy_begin, 0.0f);
  if (copy_end > copy_begin)  // else plane + copy_begin + shift may point outside the plane
    std::memcpy(out + copy_begin, plane + copy_begin + shift,
                static_cast<std::size_t>(copy_end - copy_begin) * sizeof(float));
  std::fill(out + copy_end, out + columns.end, 0.0f);
  if (valid.begin == 0 && valid.end == W)
    return;
  // The columns that wrapped into the row before or after, in each output row of [begin, end).
  const auto zero = [&](index_t from, index_t to) {  // [from, to) cut to [begin, end)
    from = std::max(from, begin), to = std::min(to, end);
    if (from < to)
      std::fill(out + from, out + to, 0.0f);
  };
  for (index_t row_start = begin - begin % W; row_start < end; row_start += W) {
    zero(row_start, row_start + valid.begin);
    zero(row_start + valid.end, row_start + W);
  }
}
}  // namespace detail

// Writes rows [rows.begin, rows.end) and columns [columns.begin, columns.end) of one sample's
// column matrix (row stride G.positions()) from that sample's input x.
template <kernels::Conv2dGeometry G>
void im2col(const float* x, float* col, Range rows, Range columns) {
  constexpr index_t OW = G.out_width;
  if constexpr (kernels::shifts_by_tap(G)) {
    for (index_t r = rows.begin; r < rows.end; ++r) {
      const index_t kw = r % G.kernel_w, kh = (r / G.kernel_w) % G.kernel_h;
      const index_t ci = r / (G.kernel_w * G.kernel_h);
      detail::im2col_shifted_row<G>(x + ci * G.input_plane(), col + r * G.positions(), kh, kw,
                                    columns);
    }
    return;
  }
  for (index_t r = rows.begin; r < rows.end; ++r) {
    const index_t kw = r % G.kernel_w, kh = (r / G.kernel_w) % G.kernel_h;
    const index_t ci = r / (G.kernel_w * G.kernel_h);
    const Range valid = detail::valid_columns<G>(kw);
    const float* plane = x + ci * G.input_plane();
    float* out = col + r * G.positions();
    for (index_t p = columns.begin; p < columns.end;) {
      const index_t oh = p / OW, ow_begin = p % OW;
      const index_t ow_end = std::min(OW, ow_begin + (columns.end - p));
      const index_t ih = oh * G.stride_h - G.pad_h + kh;
      float* row_out = out + oh * OW;
      if (ih < 0 || ih >= G.in_height) {
        std::fill(row_out + ow_begin, row_out + ow_end, 0.0f);
      } else {
        const float* row_in = plane + ih * G.in_width - G.pad_w + kw;
        const index_t lo = std::clamp(valid.begin, ow_begin, ow_end);
        const index_t hi = std::clamp(valid.end, lo, ow_end);
        std::fill(row_out + ow_begin, row_out + lo, 0.0f);
        if constexpr (G.stride_w == 1) {
          std::memcpy(row_out + lo, row_in + lo, static_cast<std::size_t>(hi - lo) * sizeof(float));
        } else {
          for (index_t ow = lo; ow < hi; ++ow)
            row_out[ow] = row_in[ow * G.stride_w];
        }
        std::fill(row_out + hi, row_out + ow_end, 0.0f);
      }
      p += ow_end - ow_begin;
    }
  }
}

// dx[ci] = Σ over its column rows of the column matrix scattered back (the adjoint of im2col),
// for input channels [channels.begin, channels.end) of one sample. Overwrites those planes of dx,
// or with Accumulate adds to them (another reader of the input wrote its part already).
template <kernels::Conv2dGeometry G, bool Accumulate = false>
void col2im(const float* col, float* dx, Range channels) {
  constexpr index_t OW = G.out_width;
  if constexpr (!Accumulate)
    std::fill(dx + channels.begin * G.input_plane(), dx + channels.end * G.input_plane(), 0.0f);
  for (index_t ci = channels.begin; ci < channels.end; ++ci) {
    float* plane = dx + ci * G.input_plane();
    for (index_t kh = 0; kh < G.kernel_h; ++kh) {
      for (index_t kw = 0; kw < G.kernel_w; ++kw) {
        const Range valid = detail::valid_columns<G>(kw);
        const float* in = col + ((ci * G.kernel_h + kh) * G.kernel_w + kw) * G.positions();
        for (index_t oh = 0; oh < G.out_height; ++oh) {
          const index_t ih = oh * G.stride_h - G.pad_h + kh;
          if (ih < 0 || ih >= G.in_height)
            continue;
          float* row_out = plane + ih * G.in_width - G.pad_w + kw;
          const float* row_in = in + oh * OW;
          for (index_t ow = valid.begin; ow < valid.end; ++ow)
            row_out[ow * G.stride_w] += row_in[ow];
        }
      }
    }
  }
}

}  // namespace staticnet::cpu
