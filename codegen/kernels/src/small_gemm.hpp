#pragma once
// Private to staticnet::cpu: matrix products small enough (at most small_gemm_limit
// multiply-adds) that packing and blocking for cache do not pay. OpenBLAS has such a path too, but
// on AVX-512 machines it allocates a scratch buffer with malloc on every call whose shape leaves
// a remainder, and a training step must not allocate. So these run here instead, with operands
// packed into stack buffers, compiled for AVX-512, AVX2+FMA and a baseline, picked at load time.
#include <cstdint>

namespace staticnet::cpu::detail {

// OpenBLAS 0.3's small-matrix bound (its sgemm_small_kernel_permit): above it, its blocked path
// runs, which takes its buffers from a pool made once.
inline constexpr double small_gemm_limit = 100.0 * 100.0 * 100.0;

// C (m × n, row-major, ldc) = op(A) · op(B) + beta · C.
void small_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n,
                std::int64_t k, const float* a, std::int64_t lda, const float* b,
                std::int64_t ldb, float beta, float* c, std::int64_t ldc) noexcept;

}  // namespace staticnet::cpu::detail
