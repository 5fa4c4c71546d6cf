#include "small_gemm.hpp"

#include <algorithm>

namespace staticnet::cpu::detail {
namespace {

// Depth of one packed panel: a tile's B panel (panel_depth × Cols floats) and A panel (Rows ×
// panel_depth) stay in L1 while the tile is computed.
constexpr int panel_depth = 256;

struct Product {
  bool transpose_a, transpose_b;
  std::int64_t m, n, k;
  const float* a;
  std::int64_t lda;
  const float* b;
  std::int64_t ldb;
  float beta;
  float* c;
  std::int64_t ldc;
};

// C = op(A)·op(B) + beta·C in tiles of Rows × Cols. An operand is read where it lies when its
// rows run along the tile (A not transposed, B not transposed and the tile whole); otherwise it is
// packed into a stack panel, zero-padded to the whole tile. Either way the inner loops have
// constant trip counts and the compiler keeps the tile's accumulators in vector registers. Loop
// order: a depth block, then a column block (its B panel packed at most once), then the row tiles.
template <int Rows, int Cols>
[[gnu::always_inline]] inline void multiply(const Product& q) {
  alignas(64) float a_panel[Rows * panel_depth];
  alignas(64) float b_panel[panel_depth * Cols];
  for (std::int64_t p0 = 0; p0 < q.k; p0 += panel_depth) {
    const int depth = static_cast<int>(std::min<std::int64_t>(panel_depth, q.k - p0));
    const bool first_block = p0 == 0;
    for (std::int64_t j0 = 0; j0 < q.n; j0 += Cols) {
      const int cols = static_cast<int>(std::min<std::int64_t>(Cols, q.n - j0));
      const float* b_tile = b_panel;
      std::int64_t b_stride = Cols;
      if (!q.transpose_b && cols == Cols) {
        b_tile = q.b + p0 * q.ldb + j0;
        b_stride = q.ldb;
      } else if (q.transpose_b) {
        for (int j = 0; j < Cols; ++j)
          for (int p = 0; p < depth; ++p)
            b_panel[p * Cols + j] = j < cols ? q.b[(j0 + j) * q.ldb + p0 + p] : 0.0f;
      } else {
        for (int p = 0; p < depth; ++p)
          for (int j = 0; j < Cols; ++j)
            b_panel[p * Cols + j] = j < cols ? q.b[(p0 + p) * q.ldb + j0 + j] : 0.0f;
      }
      for (std::int64_t i0 = 0; i0 < q.m; i0 += Rows) {
        const int rows = static_cast<int>(std::min<std::int64_t>(Rows, q.m - i0));
        const float* a_tile = a_panel;
        std::int64_t a_stride = panel_depth;
        if (!q.transpose_a && rows == Rows) {
          a_tile = q.a + i0 * q.lda + p0;
          a_stride = q.lda;
        } else if (q.transpose_a) {
          for (int p = 0; p < depth; ++p)
            for (int r = 0; r < Rows; ++r)
              a_panel[r * panel_depth + p] = r < rows ? q.a[(p0 + p) * q.lda + i0 + r] : 0.0f;
        } else {
          for (int r = 0; r < Rows; ++r)
            for (int p = 0; p < depth; ++p)
              a_panel[r * panel_depth + p] = r < rows ? q.a[(i0 + r) * q.lda + p0 + p] : 0.0f;
        }
        float acc[Rows][Cols] = {};
        for (int p = 0; p < depth; ++p) {
          const float* b_row = b_tile + p * b_stride;
          for (int r = 0; r < Rows; ++r) {
            const float av = a_tile[r * a_stride + p];
            for (int j = 0; j < Cols; ++j)
              acc[r][j] += av * b_row[j];
          }
        }
        for (int r = 0; r < rows; ++r) {
          float* out = q.c + (i0 + r) * q.ldc + j0;
          for (int j = 0; j < cols; ++j) {
            const float previous = first_block ? (q.beta == 0.0f ? 0.0f : q.beta * out[j]) : out[j];
            out[j] = previous + acc[r][j];
          }
        }
      }
    }
  }
}

// One instance per instruction set, each with the tile that fills its vector registers.
#if defined(__x86_64__)
[[gnu::target("avx512f")]] void multiply_avx512(const Product& q) {
  multiply<8, 32>(q);  // 16 of 32 zmm registers accumulate
}
[[gnu::target("avx,fma")]] void multiply_avx2(const Product& q) {
  multiply<4, 16>(q);  // 8 of 16 ymm registers accumulate
}
#endif
void multiply_baseline(const Product& q) {
  multiply<4, 8>(q);
}

using Multiply = void (*)(const Product&);

Multiply best_for_this_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return &multiply_avx512;
  if (__builtin_cpu_supports("avx") && __builtin_cpu_supports("fma"))
    return &multiply_avx2;
#endif
  return &multiply_baseline;
}

}  // namespace

void small_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
                const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                float* c, std::int64_t ldc) noexcept {
  static const Multiply multiply_here = best_for_this_cpu();
  multiply_here({transpose_a, transpose_b, m, n, k, a, lda, b, ldb, beta, c, ldc});
}

}  // namespace staticnet::cpu::detail
