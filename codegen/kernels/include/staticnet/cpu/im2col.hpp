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
//
// The column matrix is float. Under mixed precision x is bf16 or f16 (or the model's float
// input), and each value is stored as the product reads it, rounded to the working type
// (kernels::operand): exact in float. The gradient's way back (col2im_rounded) sums each input
// element's terms in float and rounds once into dx.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "staticnet/cpu/launch.hpp"
#include "staticnet/kernels/geometry.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::cpu {

namespace detail {
// out[i] = in[i] as a product of working type Working reads it, for i in [0, count).
template <class Working, class T>
void copy_operands(const T* in, float* out, index_t count) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<Working, float>) {
    std::memcpy(out, in, static_cast<std::size_t>(count) * sizeof(float));
  } else {
    for (index_t i = 0; i < count; ++i)
      out[i] = kernels::operand<Working>(in, i);
  }
}

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
template <kernels::Conv2dGeometry G, class Working, class T>
void im2col_shifted_row(const T* plane, float* out, index_t kh, index_t kw, Range columns) {
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
    copy_operands<Working>(plane + copy_begin + shift, out + copy_begin, copy_end - copy_begin);
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
// column matrix (row stride G.positions()) from that sample's input x (float, or under mixed
// precision BF16 or F16, each value rounded to the products' type Working).
template <kernels::Conv2dGeometry G, class Working = float, class T>
void im2col(const T* x, float* col, Range rows, Range columns) {
  constexpr index_t OW = G.out_width;
  if constexpr (kernels::shifts_by_tap(G)) {
    for (index_t r = rows.begin; r < rows.end; ++r) {
      const index_t kw = r % G.kernel_w, kh = (r / G.kernel_w) % G.kernel_h;
      const index_t ci = r / (G.kernel_w * G.kernel_h);
      detail::im2col_shifted_row<G, Working>(x + ci * G.input_plane(), col + r * G.positions(), kh,
                                             kw, columns);
    }
    return;
  }
  for (index_t r = rows.begin; r < rows.end; ++r) {
    const index_t kw = r % G.kernel_w, kh = (r / G.kernel_w) % G.kernel_h;
    const index_t ci = r / (G.kernel_w * G.kernel_h);
    const Range valid = detail::valid_columns<G>(kw);
    const T* plane = x + ci * G.input_plane();
    float* out = col + r * G.positions();
    for (index_t p = columns.begin; p < columns.end;) {
      const index_t oh = p / OW, ow_begin = p % OW;
      const index_t ow_end = std::min(OW, ow_begin + (columns.end - p));
      const index_t ih = oh * G.stride_h - G.pad_h + kh;
      float* row_out = out + oh * OW;
      if (ih < 0 || ih >= G.in_height) {
        std::fill(row_out + ow_begin, row_out + ow_end, 0.0f);
      } else {
        const T* row_in = plane + ih * G.in_width - G.pad_w + kw;
        const index_t lo = std::clamp(valid.begin, ow_begin, ow_end);
        const index_t hi = std::clamp(valid.end, lo, ow_end);
        std::fill(row_out + ow_begin, row_out + lo, 0.0f);
        if constexpr (G.stride_w == 1) {
          detail::copy_operands<Working>(row_in + lo, row_out + lo, hi - lo);
        } else {
          for (index_t ow = lo; ow < hi; ++ow)
            row_out[ow] = kernels::operand<Working>(row_in, ow * G.stride_w);
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

// col2im under mixed precision: the same sums, gathered, so that each element of dx is summed in
// float before it is rounded once (dx is BF16 or F16, or float where the convolution's input was;
// the product's result is of the working type first, as a library's bf16 convolution returns it).
// Each element adds its terms in col2im's order, taps (kh, kw) ascending. With Accumulate the
// result is added to what another reader of the input wrote (kernels::write).
template <kernels::Conv2dGeometry G, bool Accumulate, class Working, class DX>
void col2im_rounded(const float* col, DX* dx, Range channels) {
  for (index_t ci = channels.begin; ci < channels.end; ++ci) {
    for (index_t ih = 0; ih < G.in_height; ++ih) {
      for (index_t iw = 0; iw < G.in_width; ++iw) {
        float sum = 0.0f;
        for (index_t kh = 0; kh < G.kernel_h; ++kh) {
          const index_t rh = ih + G.pad_h - kh;  // = oh · SH for the output row that reads ih
          if (rh < 0 || rh % G.stride_h != 0 || rh / G.stride_h >= G.out_height)
            continue;
          for (index_t kw = 0; kw < G.kernel_w; ++kw) {
            const index_t rw = iw + G.pad_w - kw;
            if (rw >= 0 && rw % G.stride_w == 0 && rw / G.stride_w < G.out_width)
              sum += col[((ci * G.kernel_h + kh) * G.kernel_w + kw) * G.positions() +
                         rh / G.stride_h * G.out_width + rw / G.stride_w];
          }
        }
        kernels::write<Accumulate>(dx, (ci * G.in_height + ih) * G.in_width + iw,
                                   kernels::round_to<Working>(sum));
      }
    }
  }
}

}  // namespace staticnet::cpu
