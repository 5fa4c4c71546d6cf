#pragma once
// Overflow-checked arithmetic for sizes read from untrusted files: a header that claims
// 2^40 x 2^40 elements must become a FormatError, never a wrapped-around small allocation.
#include <cstdint>
#include <optional>
#include <span>

namespace staticnet::runtime {

inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

// Product of dimensions, or nullopt when it does not fit in `limit` (defaults to what an
// std::int64_t element count can hold, so the result is safe to use as a Dataset size).
inline std::optional<std::uint64_t> checked_product(std::span<const std::uint64_t> dims,
                                                    std::uint64_t limit = INT64_MAX) {
  std::uint64_t product = 1;
  for (auto d : dims) {
    auto next = checked_mul(product, d);
    if (!next || *next > limit)
      return std::nullopt;
    product = *next;
  }
  return product;
}

}  // namespace staticnet::runtime
