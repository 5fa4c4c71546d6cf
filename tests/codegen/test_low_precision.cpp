// The bf16 and f16 conversions of staticnet/kernels/low_precision.hpp, against a reference that
// rounds by arithmetic instead of by bits (scale to the format's quantum, std::nearbyint in the
// default round-to-nearest-even mode, scale back, in double), over a million f32 bit patterns
// spread across every exponent, every tie between two neighbours of each format and the edges of
// their ranges; and every one of the 65,536 values of each format back and forth. (PyTorch's
// autocast fixtures, which mixed-precision training will bring, check the same conversions
// through the steps they store.)
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <doctest/doctest.h>

#include "staticnet/kernels/low_precision.hpp"

namespace k = staticnet::kernels;

namespace {

// A binary format with `mantissa` stored bits, smallest normal exponent `min_exponent` and
// largest finite value `max_finite`: x rounded to it, to nearest with ties to even, in double.
struct Format {
  int mantissa, min_exponent;
  double max_finite;

  double round(double x) const {
    if (x == 0 || std::isinf(x))
      return x;
    const double a = std::fabs(x);
    // The quantum at a's binade (the subnormals' below the normal range).
    const int e = std::max(std::ilogb(a), min_exponent);
    const double quantum = std::ldexp(1.0, e - mantissa);
    double r = std::nearbyint(a / quantum) * quantum;  // a / quantum is exact: a power of two
    if (r > max_finite)  // rounded beyond the largest finite value, with the exponent unbounded
      r = std::numeric_limits<double>::infinity();
    return std::copysign(r, x);
  }
};

constexpr Format bf16{7, -126, 0x1.fep127};
constexpr Format f16{10, -14, 65504.0};

// The f32 bit patterns to convert: a stride through all of them, every exponent's extremes, and
// for each format every tie between two neighbours near its range's edges, with the values just
// beside each tie.
std::vector<std::uint32_t> inputs() {
  std::vector<std::uint32_t> bits;
  for (std::uint64_t u = 0; u <= 0xffff'ffffu; u += 4093)  // a prime stride: every low-bit pattern
    bits.push_back(static_cast<std::uint32_t>(u));
  for (std::uint32_t e = 0; e < 256; ++e)
    for (std::uint32_t m : {0u, 1u, 0x7f'ffffu, 0x40'0000u, 0x1000u, 0x0fffu, 0x8000u, 0x7fffu})
      for (std::uint32_t sign : {0u, 0x8000'0000u})
        bits.push_back(sign | (e << 23) | m);
  // Ties and their neighbours: a value with the format's last kept bit either way and exactly
  // one half below it, for the exponents near each format's edges.
  for (std::uint32_t e = 95; e < 256; ++e)
    for (std::uint32_t kept : {0u, 1u, 2u, 3u, 0x3feu, 0x3ffu, 0x7eu, 0x7fu})
      for (int dropped : {13, 16})  // f16 drops 13 bits of a normal, bf16 16
        for (std::int64_t d : {-1, 0, 1}) {
          const auto half = std::int64_t{1} << (dropped - 1);
          const std::int64_t m = (std::int64_t{kept} << dropped) + half + d;
          if (m >= 0 && m < (std::int64_t{1} << 23))
            bits.push_back((e << 23) | static_cast<std::uint32_t>(m));
        }
  // f16's subnormal ties, n + 1/2 units of 2^-24 (exact in f32), and the floats either side.
  for (int n = 0; n < 1024; ++n) {
    const auto tie = static_cast<float>((n + 0.5) * 0x1p-24);
    for (float x : {std::nextafter(tie, 0.0f), tie, std::nextafter(tie, 1.0f)})
      bits.push_back(std::bit_cast<std::uint32_t>(x));
  }
  for (float x :
       {65504.0f, 65519.99f, 65520.0f, 65536.0f, 0x1.fep127f, 0x1.fefffep127f, 0x1.ffp127f,
        std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()})
    for (float s : {1.0f, -1.0f})
      bits.push_back(std::bit_cast<std::uint32_t>(s * x));
  return bits;
}

// Where `expected` is a NaN, that `actual` is one too; else that both have the same bits (the
// sign of a zero included).
void check_same(float actual, double expected, std::uint32_t input) {
  CAPTURE(input);
  CAPTURE(actual);
  CAPTURE(expected);
  if (std::isnan(expected)) {
    CHECK(std::isnan(actual));
    return;
  }
  CHECK(std::bit_cast<std::uint32_t>(actual) ==
        std::bit_cast<std::uint32_t>(static_cast<float>(expected)));
}

}  // namespace

TEST_CASE("low precision: f32 to bf16 and f16 rounds to nearest even, as arithmetic does") {
  REQUIRE(std::fegetround() == FE_TONEAREST);
  const std::vector<std::uint32_t> all = inputs();
  REQUIRE(all.size() > 1'000'000);
  std::int64_t bf16_wrong = 0, f16_wrong = 0;
  for (std::uint32_t u : all) {
    const float x = std::bit_cast<float>(u);
    const float b = k::bf16_value(k::bf16_bits(x));
    const float h = k::f16_value(k::f16_bits(x));
    const double rb = std::isnan(x) ? x : bf16.round(x);
    const double rh = std::isnan(x) ? x : f16.round(x);
    // Counted first, so that a wrong conversion reports how many, then the first few in full.
    const auto differs = [](float actual, double expected) {
      return std::isnan(expected) ? !std::isnan(actual)
                                  : std::bit_cast<std::uint32_t>(actual) !=
                                        std::bit_cast<std::uint32_t>(static_cast<float>(expected));
    };
    if (differs(b, rb) && ++bf16_wrong <= 3)
      check_same(b, rb, u);
    if (differs(h, rh) && ++f16_wrong <= 3)
      check_same(h, rh, u);
  }
  CHECK(bf16_wrong == 0);
  CHECK(f16_wrong == 0);
}

TEST_CASE("low precision: the formats' edges, by hand") {
  // f16: 65504 is the largest finite value; 65520 is halfway to 2^16 and rounds to infinity (even);
  // 2^-24 the smallest subnormal, and 2^-25 halfway to zero, rounds to zero (even).
  CHECK(k::f16_bits(65504.0f) == 0x7bff);
  CHECK(k::f16_bits(65519.0f) == 0x7bff);
  CHECK(k::f16_bits(65520.0f) == 0x7c00);
  CHECK(k::f16_bits(-65520.0f) == 0xfc00);
  CHECK(k::f16_bits(0x1p-24f) == 0x0001);
  CHECK(k::f16_bits(0x1p-25f) == 0x0000);
  CHECK(k::f16_bits(0x1.000002p-25f) == 0x0001);
  CHECK(k::f16_bits(-0.0f) == 0x8000);
  CHECK(k::f16_bits(1.0f) == 0x3c00);
  CHECK(k::f16_bits(0x1p-14f) == 0x0400);         // the smallest normal
  CHECK(k::f16_bits(1.0f + 0x1p-11f) == 0x3c00);  // a tie, to the even 1.0
  CHECK(k::f16_bits(1.0f + 0x3p-11f) == 0x3c02);  // a tie, to the even 1 + 2^-9
  // bf16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7, to the even 1.0; 3.0f exactly representable.
  CHECK(k::bf16_bits(1.0f) == 0x3f80);
  CHECK(k::bf16_bits(1.0f + 0x1p-8f) == 0x3f80);
  CHECK(k::bf16_bits(1.0f + 0x3p-8f) == 0x3f82);
  CHECK(k::bf16_bits(3.0f) == 0x4040);
  CHECK(k::bf16_bits(std::numeric_limits<float>::max()) == 0x7f80);  // rounds to infinity
  CHECK(k::bf16_bits(0x1.fep127f) == 0x7f7f);                        // bf16's largest finite
  CHECK((k::bf16_bits(std::numeric_limits<float>::quiet_NaN()) & 0x7fc0) == 0x7fc0);
  CHECK((k::f16_bits(-std::numeric_limits<float>::quiet_NaN()) & 0xfe00) == 0xfe00);
  // A signalling NaN stays a NaN: the rounding must not carry its payload into infinity.
  CHECK(std::isnan(k::bf16_value(k::bf16_bits(std::bit_cast<float>(0x7f80'0001u)))));
  CHECK(std::isnan(k::f16_value(k::f16_bits(std::bit_cast<float>(0x7f80'0001u)))));
}

TEST_CASE("low precision: every bf16 and f16 value converts to f32 and back unchanged") {
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<k::LowBits>(b);
    const float from_bf16 = k::bf16_value(bits), from_f16 = k::f16_value(bits);
    CAPTURE(b);
    if (std::isnan(from_bf16))
      CHECK((b & 0x7fffu) > 0x7f80u);
    else
      CHECK(k::bf16_bits(from_bf16) == bits);
    if (std::isnan(from_f16)) {
      CHECK((b & 0x7fffu) > 0x7c00u);
    } else {
      CHECK(k::f16_bits(from_f16) == bits);
      // The value itself, by its definition: (-1)^s · 2^(e−15) · (1 + m/1024), or m · 2^-24.
      const int e = static_cast<int>((b >> 10) & 0x1fu), m = static_cast<int>(b & 0x3ffu);
      const double magnitude = e == 0x1f ? std::numeric_limits<double>::infinity()
                               : e == 0  ? std::ldexp(m, -24)
                                         : std::ldexp(1.0 + m / 1024.0, e - 15);
      CHECK(static_cast<double>(from_f16) == ((b & 0x8000u) ? -magnitude : magnitude));
    }
  }
}

TEST_CASE("low precision: the element types store and load through the same conversions") {
  for (float x : {1.0f + 0x1p-8f, -3.14159f, 65520.0f, 0x1p-25f, 1e-30f, 0.0f}) {
    CAPTURE(x);
    CHECK(k::from_float<k::BF16>(x).bits == k::bf16_bits(x));
    CHECK(k::from_float<k::F16>(x).bits == k::f16_bits(x));
    CHECK(std::bit_cast<std::uint32_t>(k::to_float(k::from_float<k::BF16>(x))) ==
          std::bit_cast<std::uint32_t>(k::bf16_value(k::bf16_bits(x))));
    CHECK(std::bit_cast<std::uint32_t>(k::to_float(k::from_float<k::F16>(x))) ==
          std::bit_cast<std::uint32_t>(k::f16_value(k::f16_bits(x))));
    CHECK(k::to_float(k::from_float<float>(x)) == x);
  }
  // Values a user sees: 1 + 2^-8 is stored as 1 in bf16 (a tie, to even), π as 3.140625.
  CHECK(k::to_float(k::from_float<k::BF16>(1.0f + 0x1p-8f)) == 1.0f);
  CHECK(k::to_float(k::from_float<k::BF16>(3.14159265f)) == 3.140625f);
  CHECK(k::to_float(k::from_float<k::F16>(3.14159265f)) == 3.140625f);
}
