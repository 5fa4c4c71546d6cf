#pragma once
// A strong type for byte counts, so that a count of elements is never mistaken for a count of
// bytes, and budgets read as units: `plan.footprint.total() <= sn::MiB(64)`.
#include <compare>
#include <cstdint>

namespace staticnet {

struct Bytes {
  std::int64_t count = 0;  // public: Bytes is a structural type, usable as a template argument

  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t n) : count(n) {}

  friend constexpr auto operator<=>(Bytes, Bytes) = default;
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{a.count + b.count}; }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes{a.count - b.count}; }
  friend constexpr Bytes operator*(Bytes a, std::int64_t k) { return Bytes{a.count * k}; }
  friend constexpr Bytes operator*(std::int64_t k, Bytes a) { return Bytes{a.count * k}; }
  constexpr Bytes& operator+=(Bytes b) {
    count += b.count;
    return *this;
  }
};

constexpr Bytes KiB(std::int64_t n) {
  return Bytes{n * 1024};
}
constexpr Bytes MiB(std::int64_t n) {
  return Bytes{n * 1024 * 1024};
}
constexpr Bytes GiB(std::int64_t n) {
  return Bytes{n * 1024 * 1024 * 1024};
}

// Every buffer in the arena starts on this boundary (what cudaMalloc guarantees, and enough for
// any vectorised load or cuBLASLt/cuDNN pointer requirement).
inline constexpr std::int64_t arena_alignment = 256;

constexpr std::int64_t align_up(std::int64_t n, std::int64_t a = arena_alignment) {
  return (n + a - 1) / a * a;
}

}  // namespace staticnet
