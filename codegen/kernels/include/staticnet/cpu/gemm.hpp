#pragma once
// Matrix products on the CPU. Large ones go to OpenBLAS (Debian's libopenblas-dev), which picks
// AVX2/AVX-512 or NEON kernels at run time; small ones (up to a million multiply-adds, most of a
// per-sample convolution) run in our own kernel (src/small_gemm.cpp), because OpenBLAS's
// small-matrix path allocates on every call and a training step must allocate nothing. Every
// call is single-threaded (ThreadPool sets that); the launchers split products by output rows or
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
