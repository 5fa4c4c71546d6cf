// cpu::widening_gemm: a product of bf16 or f16 matrices in float, block by block. Checked against
// the product in double of the same (exactly widened) values, for shapes that cross every block
// boundary and every transposition; each block is finished once, and its float sums are within
// float rounding of the double ones.
#include <cmath>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

#include "staticnet/cpu/widening_gemm.hpp"

namespace c = staticnet::cpu;
namespace k = staticnet::kernels;

namespace {

template <class T>
std::vector<T> matrix(std::int64_t elements, float phase) {
  std::vector<T> m;
  for (std::int64_t i = 0; i < elements; ++i)
    m.push_back(k::from_float<T>(std::sin(0.37f * static_cast<float>(i) + phase)));
  return m;
}

template <class TA, class TB, class RoundTo = float>
void check_product(std::int64_t m, std::int64_t n, std::int64_t depth, c::Transpose ta,
                   c::Transpose tb) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(depth);
  CAPTURE(static_cast<bool>(ta));
  CAPTURE(static_cast<bool>(tb));
  const std::vector<TA> a = matrix<TA>(m * depth, 0.1f);
  const std::vector<TB> b = matrix<TB>(depth * n, 0.7f);
  const std::int64_t lda = ta == c::Transpose::no ? depth : m;
  const std::int64_t ldb = tb == c::Transpose::no ? n : depth;
  std::vector<float> product(static_cast<std::size_t>(m * n), NAN);
  std::vector<int> visits(static_cast<std::size_t>(m * n), 0);
  c::widening_gemm<RoundTo>(ta, tb, m, n, depth, a.data(), lda, b.data(), ldb,
                            [&](std::int64_t row, std::int64_t rows, std::int64_t column,
                                std::int64_t columns, const float* block, std::int64_t ld) {
                              for (std::int64_t r = 0; r < rows; ++r)
                                for (std::int64_t col = 0; col < columns; ++col) {
                                  const auto at =
                                      static_cast<std::size_t>((row + r) * n + column + col);
                                  product[at] = block[r * ld + col];
                                  ++visits[at];
                                }
                            });
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (std::int64_t p = 0; p < depth; ++p) {
        // Each operand as the product takes it: widened, and rounded to RoundTo (bf16: 8 bits).
        const double x = k::round_to<RoundTo>(
            k::to_float(ta == c::Transpose::no ? a[static_cast<std::size_t>(i * lda + p)]
                                               : a[static_cast<std::size_t>(p * lda + i)]));
        const double y = k::round_to<RoundTo>(
            k::to_float(tb == c::Transpose::no ? b[static_cast<std::size_t>(p * ldb + j)]
                                               : b[static_cast<std::size_t>(j * ldb + p)]));
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      const auto at = static_cast<std::size_t>(i * n + j);
      REQUIRE(visits[at] == 1);
      // Float sums of depth terms: within depth ulps of their magnitude (a loose bound; a wrong
      // term or a missed block is off by a whole term, ~1e-2 here).
      CHECK(std::fabs(product[at] - sum) <=
            1.2e-7 * static_cast<double>(depth) * magnitude + 1e-30);
    }
}

}  // namespace

TEST_CASE("widening gemm: bf16 × bf16 across block boundaries and transpositions") {
  for (c::Transpose ta : {c::Transpose::no, c::Transpose::yes})
    for (c::Transpose tb : {c::Transpose::no, c::Transpose::yes}) {
      check_product<k::BF16, k::BF16>(70, 300, 260, ta, tb);  // 3 × 3 × 3 blocks, ragged
      check_product<k::BF16, k::BF16>(1, 1, 1, ta, tb);
    }
}

TEST_CASE("widening gemm: mixed operand types (f16, float) and an empty sum") {
  check_product<k::F16, float>(33, 129, 129, c::Transpose::no, c::Transpose::yes);
  check_product<float, k::BF16>(5, 7, 0, c::Transpose::no, c::Transpose::no);  // all zeros
}

// Float operands rounded to bf16 as they are widened (the model's f32 input under autocast): the
// product is that of the rounded values, which differs from the float one by far more than the
// tolerance (the sine values keep 24 bits, bf16 8).
TEST_CASE("widening gemm: float operands rounded to the working type") {
  check_product<float, k::BF16, k::BF16>(40, 130, 200, c::Transpose::no, c::Transpose::yes);
  const float a[2] = {1.0f + std::ldexp(1.0f, -10), 3.0f};
  const k::BF16 b[2] = {k::from_float<k::BF16>(1.0f), k::from_float<k::BF16>(1.0f)};
  float product = 0;
  c::widening_gemm<k::BF16>(c::Transpose::no, c::Transpose::no, 1, 1, 2, a, 2, b, 1,
                            [&](std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                const float* block, std::int64_t) { product = block[0]; });
  CHECK(product == 4.0f);  // 1 + 2^-10 is 1 in bf16
}
