#pragma once
// Matrix products on the CPU, through OpenBLAS (Debian's libopenblas-dev): it picks AVX2/AVX-512
// or NEON kernels at run time, which a portable build of our own loops could not. The one shape of
// call for which it would allocate gets its last few columns computed by us instead
// (src/small_gemm.hpp says which and why): a training step allocates nothing. Every call is
// single-threaded (ThreadPool sets that); the launchers split products by output rows or
// columns, so no thread needs scratch of its own and the arena stays the plan.
//
// Matrices are row-major. C (m × n, leading dimension ldc) = op(A) · op(B) + beta · C, where
// op(A) is m × k and op(B) is k × n.
#include <cstdint>

namespace staticnet::cpu {

enum class Transpose : bool { no = false, yes = true };

void gemm(Transpose transpose_a, Transpose transpose_b, std::int64_t m, std::int64_t n,
          std::int64_t k, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
          float beta, float* c, std::int64_t ldc) noexcept;

// Makes every BLAS call run on the calling thread only.
void limit_blas_to_one_thread() noexcept;

}  // namespace staticnet::cpu
