// staticnet/kernels/low_precision.hpp on the GPU: the same bits as on the CPU, and the same as
// CUDA's own conversions (cuda_bf16.h's and cuda_fp16.h's round-to-nearest-even ones, which the
// libraries' bf16 and f16 paths use), over 16 million f32 bit patterns and every value of each
// format. A NaN need only stay a NaN: CUDA's NaN bits are not PyTorch's either.
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

#include <staticnet/kernels/low_precision.hpp>
#include "low_precision_launch.hpp"

namespace k = staticnet::kernels;

namespace {

bool is_nan_bf16(std::uint16_t b) {
  return (b & 0x7fffu) > 0x7f80u;
}
bool is_nan_f16(std::uint16_t h) {
  return (h & 0x7fffu) > 0x7c00u;
}

// The number of i where a[i] != b[i], counting two NaNs as equal.
template <class IsNan>
std::int64_t mismatches(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                        IsNan is_nan) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    n += a[i] != b[i] && !(is_nan(a[i]) && is_nan(b[i]));
  return n;
}

}  // namespace

TEST_CASE("low precision on the GPU: rounding gives the CPU's bits and CUDA's") {
  std::vector<float> x;
  for (std::uint64_t u = 0; u <= 0xffff'ffffu; u += 257)  // 16.7 million patterns
    x.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(u)));
  for (std::uint32_t e = 0; e < 256; ++e)  // every exponent's ties and their neighbours
    for (std::uint32_t m :
         {0x1000u, 0x0fffu, 0x1001u, 0x3000u, 0x8000u, 0x7fffu, 0x8001u, 0x18000u})
      x.push_back(std::bit_cast<float>((e << 23) | m));
  const low_precision_test::Rounded r = low_precision_test::round_on_device(x);
  std::vector<std::uint16_t> cpu_bf16(x.size()), cpu_f16(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    cpu_bf16[i] = k::bf16_bits(x[i]);
    cpu_f16[i] = k::f16_bits(x[i]);
  }
  CHECK(mismatches(r.bf16, cpu_bf16, is_nan_bf16) == 0);
  CHECK(mismatches(r.f16, cpu_f16, is_nan_f16) == 0);
  CHECK(mismatches(r.bf16, r.cuda_bf16, is_nan_bf16) == 0);
  CHECK(mismatches(r.f16, r.cuda_f16, is_nan_f16) == 0);
}

TEST_CASE("low precision on the GPU: every bf16 and f16 value widens as on the CPU and in CUDA") {
  const low_precision_test::Widened w = low_precision_test::widen_on_device();
  std::int64_t differ = 0;
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float cpu_bf16 = k::bf16_value(bits), cpu_f16 = k::f16_value(bits);
    for (auto [mine, other] : {std::pair{w.bf16[b], cpu_bf16}, std::pair{w.bf16[b], w.cuda_bf16[b]},
                               std::pair{w.f16[b], cpu_f16}, std::pair{w.f16[b], w.cuda_f16[b]}})
      differ += std::bit_cast<std::uint32_t>(mine) != std::bit_cast<std::uint32_t>(other) &&
                !(std::isnan(mine) && std::isnan(other));
  }
  CHECK(differ == 0);
}
