#pragma once
// A matrix product over bf16 or f16 operands on the CPU, in float: what a mixed-precision Linear
// or convolution computes (autocast's products: low-precision inputs, float accumulation, the
// result rounded once where it is stored).
//
// OpenBLAS multiplies float matrices only (Debian's build has no bf16 GEMM). So the operands are
// widened a block at a time into panels on the calling thread's stack (exactly: every bf16 and
// f16 value is a float), multiplied there by gemm(), and each finished block of the product, still
// in float, is handed to a callback that finishes and stores it: adds a bias, applies an
// activation and rounds once to the output's type, or rounds a weight gradient to the working
// type before adding it to the float master's. No operand is widened whole, so the arena needs no
// float copy of a layer's weights or activations: the plan's bytes stay the dtypes' bytes, and each
// thread's panels (96 KiB of stack) are its own.
//
// Matrices are row-major, as gemm.hpp's: C (m × n) = op(A) (m × k) · op(B) (k × n). The sums over
// k run block by block in a fixed order, so a product's bits depend on its shape only.
#include <cstdint>
#include <type_traits>

#include "staticnet/cpu/gemm.hpp"
#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

namespace staticnet::cpu {

// The blocks: rows of C, columns of C, and terms of the sum per gemm() call.
struct WideningBlocks {
  static constexpr std::int64_t rows = 32, columns = 128, depth = 128;
};

namespace detail {

// A value of T as the product reads it: a float rounded to RoundTo (the model's input), a BF16 or
// F16 as it is (it is in the product's type already, exactly).
template <class RoundTo, class T>
float widened(T value) {
  static_assert(
      std::is_same_v<T, float> || std::is_same_v<T, RoundTo> || std::is_same_v<RoundTo, float>,
      "staticnet: a widening product's operands are float or of its own type");
  if constexpr (std::is_same_v<T, float>)
    return kernels::round_to<RoundTo>(value);
  else
    return kernels::to_float(value);
}

// panel[r * cols + c] = op(M)[row + r][col + c] widened, for a row-major M with leading
// dimension ld. The loops run along M's rows either way, so the reads are contiguous.
template <class RoundTo, class T>
void widen_panel(const T* m, std::int64_t ld, Transpose transpose, std::int64_t row,
                 std::int64_t rows, std::int64_t col, std::int64_t cols, float* panel) {
  if (transpose == Transpose::no) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* in = m + (row + r) * ld + col;
      for (std::int64_t c = 0; c < cols; ++c)
        panel[r * cols + c] = widened<RoundTo>(in[c]);
    }
  } else {  // op(M)[i][p] = M[p][i]
    for (std::int64_t c = 0; c < cols; ++c) {
      const T* in = m + (col + c) * ld + row;
      for (std::int64_t r = 0; r < rows; ++r)
        panel[r * cols + c] = widened<RoundTo>(in[r]);
    }
  }
}

}  // namespace detail

// Calls finish(row, rows, column, columns, block, ld) once for each block of C, with
// block[r * ld + c] = C[row + r][column + c] in float, every term of its sum added. Each operand is
// float or of type RoundTo: a float value is rounded to RoundTo as it is widened (the model's
// float input, as autocast casts it before the product; a float that holds a RoundTo value
// already, as the convolutions' column matrix does, takes RoundTo = float and is read as it is).
template <class RoundTo, class TA, class TB, class Finish>
void widening_gemm(Transpose transpose_a, Transpose transpose_b, std::int64_t m, std::int64_t n,
                   std::int64_t k, const TA* a, std::int64_t lda, const TB* b, std::int64_t ldb,
                   Finish&& finish) {
  using B = WideningBlocks;
  float a_panel[B::rows * B::depth];
  float b_panel[B::depth * B::columns];
  float c_block[B::rows * B::columns];
  for (std::int64_t column = 0; column < n; column += B::columns) {
    const std::int64_t columns = n - column < B::columns ? n - column : B::columns;
    for (std::int64_t row = 0; row < m; row += B::rows) {
      const std::int64_t rows = m - row < B::rows ? m - row : B::rows;
      for (std::int64_t r = 0; r < rows * columns; ++r)
        c_block[r] = 0.0f;  // k = 0 leaves a block of zeros, as the product is
      for (std::int64_t term = 0; term < k; term += B::depth) {
        const std::int64_t terms = k - term < B::depth ? k - term : B::depth;
        detail::widen_panel<RoundTo>(a, lda, transpose_a, row, rows, term, terms, a_panel);
        detail::widen_panel<RoundTo>(b, ldb, transpose_b, term, terms, column, columns, b_panel);
        gemm(Transpose::no, Transpose::no, rows, columns, terms, a_panel, terms, b_panel, columns,
             1.0f, c_block, columns);
      }
      finish(row, rows, column, columns, static_cast<const float*>(c_block), columns);
    }
  }
}

}  // namespace staticnet::cpu
