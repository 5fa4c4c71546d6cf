#pragma once
// The arithmetic both backends run. Every function marked STATICNET_HD is written once and
//   * on the CPU, called by a loop over an index range (staticnet/cpu/launch.hpp);
//   * on the GPU, called by one CUDA thread per index (the CUDA backend's kernels).
// So the CPU tests (finite differences, PyTorch fixtures) check the arithmetic the GPU runs, and a
// CPU-against-GPU comparison checks only launch and indexing.
//
// (STATICNET_HOST_DEVICE alone marks constexpr members, such as the geometry's, for both sides.)
//
// Rules for such a function: pure arithmetic over an index and raw pointers; sizes are template
// arguments (literals at every call the generator emits); no allocation, no exceptions, and only
// the math functions below, which exist on both sides. Decisions that depend on the data (a
// ReLU's sign, a window's maximum) are selects between values already loaded, never a load in
// one arm of a condition: a compiler may not speculate that load, so it keeps a branch, which
// real data mispredicts half the time and which stops the loop from vectorising.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define STATICNET_HOST_DEVICE __host__ __device__
#define STATICNET_HD __host__ __device__ __forceinline__
#else
#define STATICNET_HOST_DEVICE
#define STATICNET_HD inline
#endif

namespace staticnet::kernels {

using index_t = std::int64_t;

// The extent of an array whose size is an index_t known at compile time. An array bound is a
// size_t, and a signed one is a sign conversion (-Wsign-conversion) in the user's build, where
// the generated kernels compile with the user's warnings.
template <index_t N>
inline constexpr std::size_t extent = static_cast<std::size_t>(N);

// A condition that is a coin toss on real data (which element of a window is the largest):
// tells the compiler to select rather than branch, since a mispredicted branch per element costs
// more than the arithmetic around it.
STATICNET_HD bool unpredictable(bool condition) {
#if defined(__CUDA_ARCH__)
  return condition;
#else
  return __builtin_expect_with_probability(condition, true, 0.5);
#endif
}

namespace detail {
// The bits of a float as an int and back (memcpy compiles to a register move on both sides).
STATICNET_HD std::int32_t bits_of(float x) {
  std::int32_t i;
  std::memcpy(&i, &x, sizeof i);
  return i;
}
STATICNET_HD float float_of(std::int32_t i) {
  float x;
  std::memcpy(&x, &i, sizeof x);
  return x;
}
}  // namespace detail

// a where mask is all ones, b where it is zero, as bit operations: a select that compilers keep
// branch-free and vectorise, where `c ? a : b` on a condition that is a coin toss may become a
// mispredicted branch (clang does that even to a mask built from a comparison).
STATICNET_HD float select_bits(std::uint32_t mask, float a, float b) {
  const auto bits = [](float v) { return static_cast<std::uint32_t>(detail::bits_of(v)); };
  return detail::float_of(static_cast<std::int32_t>((bits(a) & mask) | (bits(b) & ~mask)));
}

// e^x, branch-free, so that a loop of them vectorises on the CPU and a warp runs them without
// divergence on the GPU; the same operations in the same order on both, so both give the same
// bits except where a compiler fuses a multiply and an add into one FMA (nvcc does by default, GCC
// for aarch64 or x86-64-v3): a last-place difference, within the tests' tolerances. Cody-Waite
// range reduction (x = n·ln 2 + r, |r| ≤ ln 2 / 2) and Cephes' degree-6 polynomial for e^r: within
// 1 ulp of the exact value over the whole range (tests/codegen/test_kernels.cpp measures it).
// Inputs beyond ±87.3 saturate to e^±87.3 (no overflow to infinity, no denormals), which the
// softmax (x ≤ 0 after subtracting the maximum), the sigmoid and tanh tolerate.
// n is rounded by adding 1.5·2^23, which leaves it as an integer in the low mantissa bits, and
// 2^n is built from those bits with unsigned arithmetic: no float-to-int conversion, which would
// be undefined for NaN. A NaN flows through every operation, so NaN in gives NaN out (it is how a
// diverging loss is noticed).
STATICNET_HD float exp_f(float x) {
  x = x > 87.3f ? 87.3f : (x < -87.3f ? -87.3f : x);  // NaN compares false: it passes
  constexpr float shifter = 12582912.0f;              // 1.5 · 2^23
  const float shifted = x * 1.44269504088896341f + shifter;
  const float n = shifted - shifter;
  float r = x - n * 0.693359375f;  // ln 2 split in two: the first part is exact in float
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * (r * r) + r + 1.0f;
  const std::uint32_t n_bits = static_cast<std::uint32_t>(detail::bits_of(shifted)) -
                               static_cast<std::uint32_t>(detail::bits_of(shifter));
  const float two_n = detail::float_of(static_cast<std::int32_t>((n_bits + 127u) << 23));
  return e_r * two_n;
}

// tanh, branch-free: an odd polynomial near zero (where 1 − 2/(e^2|x| + 1) would cancel), that
// formula elsewhere, Cephes' split at |x| = 0.625. Within 1.3 ulp.
STATICNET_HD float tanh_f(float x) {
  const float a = x < 0.0f ? -x : x;
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float near_zero = p * z * x + x;
  const float far = 1.0f - 2.0f / (exp_f(2.0f * a) + 1.0f);
  return a < 0.625f ? near_zero : (x < 0.0f ? -far : far);
}

STATICNET_HD float log_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::logf(x);
#else
  return std::log(x);
#endif
}
STATICNET_HD float sqrt_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::sqrtf(x);
#else
  return std::sqrt(x);
#endif
}

}  // namespace staticnet::kernels
