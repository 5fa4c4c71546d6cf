#include "staticnet/cpu/gemm.hpp"

#include <cblas.h>

#include "small_gemm.hpp"

namespace staticnet::cpu {

void gemm(Transpose transpose_a, Transpose transpose_b, std::int64_t m, std::int64_t n,
          std::int64_t k, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
          float beta, float* c, std::int64_t ldc) noexcept {
  if (m <= 0 || n <= 0)
    return;
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <=
      detail::small_gemm_limit) {
    detail::small_gemm(transpose_a == Transpose::yes, transpose_b == Transpose::yes, m, n, k, a,
                       lda, b, ldb, beta, c, ldc);
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
