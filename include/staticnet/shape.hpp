#pragma once
// Shapes are small values: a rank and up to four extents, outermost first. A training shape is
// (batch, features) or (batch, channels, height, width).
#include <concepts>
#include <cstdint>

namespace staticnet {

inline constexpr int max_rank = 4;

struct Shape {
  int rank = 0;
  std::int64_t dims[max_rank]{};  // unused trailing extents stay 0, so == can compare all

  constexpr Shape() = default;
  template <std::integral... D>
  requires(sizeof...(D) <= max_rank) constexpr Shape(D... d)
      : rank(sizeof...(D)), dims{static_cast<std::int64_t>(d)...} {}

  constexpr std::int64_t operator[](int i) const { return dims[i]; }
  constexpr std::int64_t elements() const {
    std::int64_t n = 1;
    for (int i = 0; i < rank; ++i)
      n *= dims[i];
    return n;
  }
  // The shape without its leading (batch) extent.
  constexpr Shape sample() const {
    Shape s;
    s.rank = rank - 1;
    for (int i = 1; i < rank; ++i)
      s.dims[i - 1] = dims[i];
    return s;
  }
  // The shape with a leading batch extent.
  constexpr Shape batched(std::int64_t batch) const {
    Shape s;
    s.rank = rank + 1;
    s.dims[0] = batch;
    for (int i = 0; i < rank; ++i)
      s.dims[i + 1] = dims[i];
    return s;
  }

  friend constexpr bool operator==(const Shape&, const Shape&) = default;
};

}  // namespace staticnet
