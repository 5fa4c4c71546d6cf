#pragma once
// Private to staticnet::cpu: a plain matrix product for the one case OpenBLAS cannot take.
//
// OpenBLAS (0.3.21 in Debian 12, unchanged through 0.3.28 and its development head) runs
// products of at most 10^6 multiply-adds through "small-matrix" kernels on AVX-512 machines.
// One of them, the column-major NN kernel (our row-major NN), mallocs a scratch buffer on every
// call whose row count leaves a remainder of 1 to 8 modulo 16 and whose depth is at least 32
// (kernel/x86_64/sgemm_small_kernel_nn_skylakex.c). A training step must not allocate, so for
// such calls gemm() gives OpenBLAS the columns up to the last multiple of 16 and computes the
// remaining narrow strip here. tests/codegen/step_allocations.cpp counts every allocation of a
// step, so a library that behaves otherwise is caught.
#include <cstdint>

namespace staticnet::cpu::detail {

// OpenBLAS's bound for its small-matrix path (sgemm_small_kernel_permit_skylakex.c).
inline constexpr double openblas_small_limit = 100.0 * 100.0 * 100.0;

// Whether OpenBLAS would allocate for this row-major product (see above).
constexpr bool openblas_would_allocate(bool transpose_a, bool transpose_b, std::int64_t m,
                                       std::int64_t n, std::int64_t k) {
  const double mnk = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const std::int64_t remainder = n % 16;  // our n is its column-major row count
  return !transpose_a && !transpose_b && mnk <= openblas_small_limit && remainder >= 1 &&
         remainder <= 8 && k >= 32;
}

// C (m × n, row-major, ldc) = op(A) · op(B) + beta · C.
void small_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
                const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                float* c, std::int64_t ldc) noexcept;

}  // namespace staticnet::cpu::detail
