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
// one byte. A dropped element is +0.0f whatever its input (a NaN or infinity included).
#include <cstdint>

#include "staticnet/kernels/host_device.hpp"
#include "staticnet/kernels/low_precision.hpp"

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

// The key of a slice of the layer's output that starts at element `first`: a micro-batch's, under
// gradient accumulation (sn::Accumulate). The slice's element e then hashes as the whole batch's
// element first + e (key + (first + e)·φ), so the micro-batches draw the whole batch's masks.
STATICNET_HD std::uint64_t dropout_slice_key(std::uint64_t key, index_t first) {
  return key + static_cast<std::uint64_t>(first) * 0x9E3779B97F4A7C15ull;
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

// All ones when element `element` is kept, zero when it is dropped. Computed with arithmetic, not
// a comparison: the bits are random, so a branch on them mispredicts often, and compilers turn a
// comparison (even one only used to build a mask) back into that branch. (h >> 40) and the
// threshold are below 2^24, so their difference is negative exactly when the element is dropped.
STATICNET_HD std::uint32_t dropout_keep_mask(std::uint64_t key, index_t element,
                                             std::uint32_t threshold) {
  const std::uint64_t h =
      splitmix64(key + static_cast<std::uint64_t>(element) * 0x9E3779B97F4A7C15ull);
  const std::int64_t margin = static_cast<std::int64_t>(h >> 40) - std::int64_t{threshold};
  return ~static_cast<std::uint32_t>(margin >> 63);
}

// The mask of bit k of a mask byte, in the form select_bits() takes.
STATICNET_HD std::uint32_t bit_mask(MaskByte byte, index_t k) {
  return 0u - ((static_cast<std::uint32_t>(byte) >> k) & 1u);
}

// Forward for mask byte b: y = keep ? x·scale : 0 over its 8 elements, and the byte's bits
// (element 8b + k is bit k). mask may be null (no backward: nothing saved). x and y may alias.
// x and y float, BF16 or F16.
template <class D, class X, class Y>
STATICNET_HD void dropout_forward(index_t b, std::uint64_t key, const X* x, Y* y, MaskByte* mask) {
  std::uint32_t bits = 0;
  const index_t end = 8 * b + 8 < D::count ? 8 * b + 8 : D::count;
  for (index_t e = 8 * b; e < end; ++e) {
    const std::uint32_t keep = dropout_keep_mask(key, e, D::threshold);
    store(y, e, select_bits(keep, load(x, e) * D::scale, 0.0f));
    bits |= (keep & 1u) << (e - 8 * b);
  }
  if (mask != nullptr)
    mask[b] = static_cast<MaskByte>(bits);
}

// Backward, element i (a CUDA thread's work): dx = keep ? dy·scale : 0. dy and dx may alias;
// Accumulate adds to dx.
template <class D, bool Accumulate, class DY, class DX>
STATICNET_HD void dropout_backward(index_t i, const MaskByte* mask, const DY* dy, DX* dx) {
  write<Accumulate>(dx, i, select_bits(bit_mask(mask[i / 8], i % 8), load(dy, i) * D::scale, 0.0f));
}

// Backward for the 8 elements of mask byte b, what both backends run (no division per element,
// and the loop over the byte's bits vectorises). The same arithmetic as the element-wise version.
template <class D, bool Accumulate, class DY, class DX>
STATICNET_HD void dropout_backward_byte(index_t b, const MaskByte* mask, const DY* dy, DX* dx) {
  const MaskByte byte = mask[b];
  const index_t end = 8 * b + 8 < D::count ? 8 * b + 8 : D::count;
  for (index_t e = 8 * b; e < end; ++e)
    write<Accumulate>(dx, e, select_bits(bit_mask(byte, e - 8 * b), load(dy, e) * D::scale, 0.0f));
}

}  // namespace staticnet::kernels
