#pragma once
// The fixtures' batch, from the integer formulas of tests/reference/make_fixtures.py's batch():
// exact integer arithmetic, one correctly rounded division in double, one rounding to float, so
// numpy and C++ produce the same bits.
#include <cstdint>
#include <span>

namespace fixture_batch {

// `offset` shifts the element index (make_mlperf_fixtures.py picks one per model).
inline void inputs(std::span<float> x, std::uint64_t offset = 0) {
  for (std::uint64_t i = 0; i < x.size(); ++i) {
    const auto v = static_cast<double>(((i + offset) * 2654435761ULL) % 2001ULL);
    x[i] = static_cast<float>((v - 1000.0) / 1000.0);
  }
}

inline void labels(std::span<std::int32_t> y, std::int64_t classes) {
  for (std::uint64_t n = 0; n < y.size(); ++n)
    y[n] = static_cast<std::int32_t>((n * 7 + 3) % static_cast<std::uint64_t>(classes));
}

inline void targets(std::span<float> t) {
  for (std::uint64_t i = 0; i < t.size(); ++i) {
    const auto v = static_cast<double>((i * 40503ULL) % 1001ULL);
    t[i] = static_cast<float>((v - 500.0) / 250.0);
  }
}

}  // namespace fixture_batch
