#include "staticnet/cpu/gemm.hpp"

#include <cblas.h>

#include "small_gemm.hpp"

namespace staticnet::cpu {

void gemm(Transpose transpose_a, Transpose transpose_b, std::int64_t m, std::int64_t n,
          std::int64_t k, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
          float beta, float* c, std::int64_t ldc) noexcept {
  if (m <= 0 || n <= 0)
    return;
  const bool ta = transpose_a == Transpose::yes, tb = transpose_b == Transpose::yes;
  if (detail::openblas_would_allocate(ta, tb, m, n, k)) {
    // OpenBLAS takes the columns up to the last multiple of 16, we take the strip after them.
    const std::int64_t bulk = n / 16 * 16;
    detail::small_gemm(ta, tb, m, n - bulk, k, a, lda, b + bulk, ldb, beta, c + bulk, ldc);
    n = bulk;
    if (n == 0)
      return;
  }
  cblas_sgemm(CblasRowMajor, transpose_a == Transpose::yes ? CblasTrans : CblasNoTrans,
              transpose_b == Transpose::yes ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

void limit_blas_to_one_thread() noexcept {
  openblas_set_num_threads(1);
}

}  // namespace staticnet::cpu
