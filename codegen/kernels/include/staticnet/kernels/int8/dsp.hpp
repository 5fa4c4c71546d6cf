#pragma once
// The four Cortex-M DSP instructions the paired int8 kernels (paired.hpp) are written in, each
// on a 32-bit word holding two 16-bit halves (lo = bits 0-15, hi = bits 16-31):
//
//   extend_pairs_add(a, w)  SXTAB16: (a.lo + w.byte0, a.hi + w.byte2), bytes sign-extended
//   extend_odd_bytes_add(a, w)  SXTAB16 with ROR #8: (a.lo + w.byte1, a.hi + w.byte3)
//   multiply_add_pairs(a, b, c)  SMLAD: c + a.lo·b.lo + a.hi·b.hi, signed, wrapping in int32
//   join_low(a, b)          PKHBT a, b, LSL #16: (a.lo, b.lo)
//   join_high(a, b)         PKHTB b, a, ASR #16: (a.hi, b.hi)
//
// Where the compiler targets a core that has them (__ARM_FEATURE_DSP and __ARM_FEATURE_SIMD32:
// Cortex-M4, M7, M33 with the DSP extension) they are those instructions, through the ACLE
// intrinsics and the two patterns GCC and Clang turn into PKHBT and PKHTB. Elsewhere the same
// arithmetic is written out, so that the host's tests run the paired kernels' every loop and
// remainder against the portable ones (tests/int8/test_paired_kernels.cpp); on the Cortex-M7 the
// firmware tests compare the instructions themselves with them
// (tests/int8/cortex_m/paired_main.cpp).
//
// Freestanding, C++17: no library beyond the compiler's own headers.
#include <cstdint>

// (SXTAB16, SMLAD and PKH are the SIMD32 part of the DSP extension: an ARMv5TE core has the DSP
// feature without it.)
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__ARM_FEATURE_SIMD32) && \
    __ARM_FEATURE_SIMD32
#include <arm_acle.h>
#define STATICNET_INT8_HAS_DSP 1
#else
#define STATICNET_INT8_HAS_DSP 0
#endif

namespace staticnet::kernels::int8::dsp {

using Pair = std::uint32_t;  // two int16 halves

// Four int8 values from any address, as one word (byte k of memory is byte k of the word: the
// Cortex-M is little-endian, and so is every host the tests run on). A Cortex-M4 or M7 loads an
// unaligned word in one instruction, which the compiler makes of this copy.
inline std::uint32_t load_four(const std::int8_t* at) {
  std::uint32_t word;
  __builtin_memcpy(&word, at, sizeof word);
  return word;
}

// The pair (lo, hi), each of which fits in 16 bits.
inline Pair make_pair(std::int32_t lo, std::int32_t hi) {
  return (static_cast<std::uint32_t>(lo) & 0xffffu) | static_cast<std::uint32_t>(hi) << 16;
}

// Both halves of a pair set to v (which fits in 16 bits).
inline Pair splat(std::int32_t v) {
  return make_pair(v, v);
}

#if STATICNET_INT8_HAS_DSP

inline Pair extend_pairs_add(Pair a, std::uint32_t w) {
  return __sxtab16(a, w);
}
// extend_pairs_add(a, w >> 8): the instruction's own rotation, which GCC 12 leaves a shift.
inline Pair extend_odd_bytes_add(Pair a, std::uint32_t w) {
  Pair r;
  asm("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(w));
  return r;
}
inline std::int32_t multiply_add_pairs(Pair a, Pair b, std::int32_t c) {
  return __smlad(a, b, c);
}

#else

inline std::int32_t low_half(Pair a) {
  return static_cast<std::int16_t>(a & 0xffffu);
}
inline std::int32_t high_half(Pair a) {
  return static_cast<std::int16_t>(a >> 16);
}
inline std::int32_t byte_of(std::uint32_t w, int k) {
  return static_cast<std::int8_t>((w >> (8 * k)) & 0xffu);
}

inline Pair extend_pairs_add(Pair a, std::uint32_t w) {
  return make_pair(low_half(a) + byte_of(w, 0), high_half(a) + byte_of(w, 2));
}
inline Pair extend_odd_bytes_add(Pair a, std::uint32_t w) {
  return extend_pairs_add(a, w >> 8);
}
inline std::int32_t multiply_add_pairs(Pair a, Pair b, std::int32_t c) {
  // In unsigned arithmetic, which wraps as the instruction's int32 sum does.
  const auto products = static_cast<std::uint32_t>(low_half(a) * low_half(b)) +
                        static_cast<std::uint32_t>(high_half(a) * high_half(b));
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(c) + products);
}

#endif

#if STATICNET_INT8_HAS_DSP
// (GCC 12 makes the written-out forms below a UXTH and an ORR, not a PKH.)
inline Pair join_low(Pair a, Pair b) {
  Pair joined;
  asm("pkhbt %0, %1, %2, lsl #16" : "=r"(joined) : "r"(a), "r"(b));
  return joined;
}
inline Pair join_high(Pair a, Pair b) {
  Pair joined;
  asm("pkhtb %0, %2, %1, asr #16" : "=r"(joined) : "r"(a), "r"(b));
  return joined;
}
#else
inline Pair join_low(Pair a, Pair b) {
  return (a & 0xffffu) | b << 16;
}
inline Pair join_high(Pair a, Pair b) {
  return (b & 0xffff0000u) | a >> 16;
}
#endif

// Four int8 values plus an offset (a pair of it) as two pairs: (v0, v2) and (v1, v3).
struct FourValues {
  Pair even, odd;
};
inline FourValues extend_four(std::uint32_t word, Pair offset) {
  return {extend_pairs_add(offset, word), extend_odd_bytes_add(offset, word)};
}

}  // namespace staticnet::kernels::int8::dsp
