#pragma once
// Small helpers the core tests share.
#include <cstdint>

namespace staticnet::testing {

// n rounded up to a multiple of 256. Written out here rather than taken from sn::align_up, so the
// tests do not grade the planner with the planner's own helper.
constexpr std::int64_t round256(std::int64_t n) {
  return (n + 255) / 256 * 256;
}

// Deterministic randomness for the property tests (splitmix64).
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::int64_t in(std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool percent(int p) { return in(0, 99) < p; }
};

}  // namespace staticnet::testing
