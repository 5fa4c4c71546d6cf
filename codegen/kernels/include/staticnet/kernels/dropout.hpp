#pragma once
// Dropout in training: each element kept with probability 1 − P/Q and scaled by Q/(Q − P)
// (inverted dropout, as PyTorch), or zeroed. The mask is one bit per element, the fewest bytes
// that keep it (the plan's dropout_mask buffer).
//
// The random bits are a counter-based hash, not a generator with state: element e of layer L in
// step t with seed s keeps its value when
//   splitmix64(key(s, t, L) + e · 0x9E3779B97F4A7C15) >> 40  >=  ⌊P · 2^24 / Q⌋
// key(s, t, L) = splitmix64(splitmix64(s ^ L·0xD1B54A32D192ED03) + t). So a mask depends on
// nothing but (seed, step, layer, element): the same on every thread count and on both backends,
// and a run resumed from a checkpoint at step t draws exactly the masks it would have drawn.
// (tests/reference/make_fixtures.py implements the same hash in NumPy for the PyTorch fixtures.)
//
// Forward works on whole mask bytes: call b covers elements [8b, 8b + 8), so no two calls write
// one byte.
#include <cstdint>

#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

// Mask bytes, as an enum for the reason pooling.hpp gives for window indices.
enum class MaskByte : std::uint8_t {};

STATICNET_HD std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The per-(seed, step, layer) key the element hashes start from.
STATICNET_HD std::uint64_t dropout_key(std::uint64_t seed, std::int64_t step, std::int64_t layer) {
  return splitmix64(splitmix64(seed ^ (static_cast<std::uint64_t>(layer) * 0xD1B54A32D192ED03ull)) +
                    static_cast<std::uint64_t>(step));
}

// Drops with probability P/Q, over Count elements.
template <std::int64_t P, std::int64_t Q, index_t Count>
struct DropoutGeometry {
  static constexpr std::uint32_t threshold = static_cast<std::uint32_t>((P << 24) / Q);
  static constexpr float scale =
      static_cast<float>(static_cast<double>(Q) / static_cast<double>(Q - P));
  static constexpr index_t count = Count;
  static constexpr index_t mask_bytes = (Count + 7) / 8;
};

STATICNET_HD bool dropout_keeps(std::uint64_t key, index_t element, std::uint32_t threshold) {
  const std::uint64_t h =
      splitmix64(key + static_cast<std::uint64_t>(element) * 0x9E3779B97F4A7C15ull);
  return static_cast<std::uint32_t>(h >> 40) >= threshold;
}

// Forward for mask byte b: y = keep ? x·scale : 0 over its 8 elements, and the byte's bits
// (element 8b + k is bit k). mask may be null (no backward: nothing saved). x and y may alias.
template <class D>
STATICNET_HD void dropout_forward(index_t b, std::uint64_t key, const float* x, float* y,
                                  MaskByte* mask) {
  unsigned bits = 0;
  const index_t end = 8 * b + 8 < D::count ? 8 * b + 8 : D::count;
  for (index_t e = 8 * b; e < end; ++e) {
    const bool keep = dropout_keeps(key, e, D::threshold);
    y[e] = keep ? x[e] * D::scale : 0.0f;
    bits |= static_cast<unsigned>(keep) << (e - 8 * b);
  }
  if (mask != nullptr)
    mask[b] = static_cast<MaskByte>(bits);
}

// Backward, element i: dx = keep ? dy·scale : 0. dy and dx may alias; Accumulate adds to dx.
template <class D, bool Accumulate>
STATICNET_HD void dropout_backward(index_t i, const MaskByte* mask, const float* dy, float* dx) {
  const bool keep = (static_cast<unsigned>(mask[i / 8]) >> (i % 8)) & 1u;
  const float v = keep ? dy[i] * D::scale : 0.0f;
  if constexpr (Accumulate)
    dx[i] += v;
  else
    dx[i] = v;
}

}  // namespace staticnet::kernels
