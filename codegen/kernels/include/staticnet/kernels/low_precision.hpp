#pragma once
// bf16 and f16 values as a GPU stores them (the bits of CUDA's __nv_bfloat16 and __half), made
// from a float by rounding to nearest with ties to even, the IEEE default that CUDA's
// __float2bfloat16 and __float2half and PyTorch's .to(torch.bfloat16 / torch.float16) use, and
// turned back into a float exactly. Written once for both backends (STATICNET_HD), so that mixed
// precision on the CPU stores the GPU's bits and its numerics are tested on every machine.
//
// Integer arithmetic only: no floating-point operation whose result a compiler's flags (flushing
// subnormals to zero, fast math) could change.
//
// Beyond the format's range a value rounds to infinity as IEEE says (f16: |x| ≥ 65520, halfway
// between its largest finite value 65504 and 2^16; bf16: |x| ≥ 2^128 · (1 − 2^-9)); below its
// normal range it becomes one of the format's subnormals (bf16 has f32's exponent range, so f32's
// own subnormals round to bf16's). A NaN stays a NaN, quiet, with its sign; its payload is not
// kept (PyTorch and CUDA do not agree on one either).
#include <cstdint>
#include <type_traits>

#include "staticnet/kernels/host_device.hpp"

namespace staticnet::kernels {

// The 16 bits of a bf16 or f16 value.
using LowBits = std::uint16_t;

// x rounded to bf16: the upper half of its f32 bits, rounded to nearest even on the lower half.
STATICNET_HD LowBits bf16_bits(float x) {
  const auto u = static_cast<std::uint32_t>(detail::bits_of(x));
  if ((u & 0x7fff'ffffu) > 0x7f80'0000u)  // NaN: keep the sign, set the quiet bit
    return static_cast<LowBits>((u >> 16) | 0x0040u);
  // Adding 0x7fff, plus 1 where the kept half is odd, carries into it exactly when the dropped
  // half is above one half, or is one half and the kept half is odd. A carry out of the mantissa
  // raises the exponent, and past the largest finite value gives infinity's bits.
  return static_cast<LowBits>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

STATICNET_HD float bf16_value(LowBits b) {
  return detail::float_of(static_cast<std::int32_t>(std::uint32_t{b} << 16));
}

// x rounded to f16 (1 sign, 5 exponent bits biased by 15, 10 mantissa bits).
STATICNET_HD LowBits f16_bits(float x) {
  const auto u = static_cast<std::uint32_t>(detail::bits_of(x));
  const auto sign = static_cast<std::uint32_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fff'ffffu;  // |x|'s bits
  if (a > 0x7f80'0000u)                      // NaN
    return static_cast<LowBits>(sign | 0x7e00u);
  if (a >= 0x477f'f000u)  // |x| ≥ 65520 (or infinite): rounds to infinity
    return static_cast<LowBits>(sign | 0x7c00u);
  if (a >= 0x3880'0000u) {  // |x| ≥ 2^-14: a normal f16
    // Rebias the exponent (127 → 15: subtract 112 << 23), then round away the low 13 bits to
    // nearest even; a carry out of the mantissa raises the exponent, as it should.
    const std::uint32_t r = a - 0x3800'0000u;
    return static_cast<LowBits>(sign | ((r + 0x0fffu + ((r >> 13) & 1u)) >> 13));
  }
  if (a <= 0x3300'0000u)  // |x| ≤ 2^-25, half the smallest subnormal: a tie goes to even, 0
    return static_cast<LowBits>(sign);
  // A subnormal f16: |x| in units of 2^-24, rounded to nearest even. |x| = m · 2^(e − 150) with
  // m its 24-bit significand and e its biased exponent (102 to 112 here), so the units are
  // m >> (126 − e). A result of 0x400 is the smallest normal, correctly encoded.
  const std::uint32_t m = (a & 0x007f'ffffu) | 0x0080'0000u;
  const std::uint32_t shift = 126u - (a >> 23);
  const std::uint32_t units = m >> shift;
  const std::uint32_t rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  const std::uint32_t up = rest > half || (rest == half && (units & 1u)) ? 1u : 0u;
  return static_cast<LowBits>(sign | (units + up));
}

STATICNET_HD float f16_value(LowBits h) {
  const std::uint32_t sign = (std::uint32_t{h} & 0x8000u) << 16;
  const std::uint32_t exponent = (std::uint32_t{h} >> 10) & 0x1fu;
  const std::uint32_t mantissa = std::uint32_t{h} & 0x03ffu;
  std::uint32_t bits;
  if (exponent == 0x1fu) {  // infinity or NaN
    bits = sign | 0x7f80'0000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal: rebias 15 → 127
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // ±0
    bits = sign;
  } else {  // subnormal, mantissa · 2^-24: normalise it into an f32 (always normal there)
    std::uint32_t m = mantissa, e = 113u;  // 2^-14 = 2^(113 − 127), the exponent of 1.0 · 2^-14
    while ((m & 0x0400u) == 0) {
      m <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((m & 0x03ffu) << 13);
  }
  return detail::float_of(static_cast<std::int32_t>(bits));
}

// The two formats as element types, so that a body templated on what it loads and stores picks
// the conversion by type (a bare 16-bit integer could be either). Each is its 16 bits, the
// layout of CUDA's __nv_bfloat16 and __half, which the libraries read.
struct BF16 {
  LowBits bits;
};
struct F16 {
  LowBits bits;
};
static_assert(sizeof(BF16) == 2 && sizeof(F16) == 2);

// An element as the float the arithmetic runs in, and a float stored as element type T (float,
// BF16 or F16): the loads and stores of a body that keeps its tensors in any of them.
STATICNET_HD float to_float(float x) {
  return x;
}
STATICNET_HD float to_float(BF16 x) {
  return bf16_value(x.bits);
}
STATICNET_HD float to_float(F16 x) {
  return f16_value(x.bits);
}
template <class T>
STATICNET_HD T from_float(float x) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, BF16> || std::is_same_v<T, F16>,
                "staticnet: an element is stored as float, BF16 or F16");
  if constexpr (std::is_same_v<T, BF16>)
    return BF16{bf16_bits(x)};
  else if constexpr (std::is_same_v<T, F16>)
    return F16{f16_bits(x)};
  else
    return x;
}

// x rounded to T and back: the value a T holds for it (x itself for float).
template <class T>
STATICNET_HD float round_to(float x) {
  return to_float(from_float<T>(x));
}

// Element i of a tensor of any element type as the float the arithmetic runs in, and a float
// stored into one, rounded to its type: the loads and stores of a body templated on its tensors'
// element types. Every body computes in float between them, as PyTorch computes a bf16 or f16
// elementwise operation in float and rounds the result once. For a float tensor they are the
// plain load and store.
template <class T>
STATICNET_HD float load(const T* p, index_t i) {
  return to_float(p[i]);
}
template <class T>
STATICNET_HD void store(T* p, index_t i, float v) {
  p[i] = from_float<T>(v);
}
// Element i of a product's operand as the product reads it: rounded to the working type, as
// autocast casts a float tensor (the model's input, or an f32 activation) before a bf16 or f16
// product. A no-op for an operand already in that type, and for float products.
template <class Working, class T>
STATICNET_HD float operand(const T* p, index_t i) {
  return round_to<Working>(load(p, i));
}

// p[i] = v, or with Accumulate p[i] + v (a second reader's part of a gradient). A part is a
// tensor of T's type in PyTorch before it is added, so it is rounded to T first, and the sum of
// the two in float rounded again, as PyTorch adds two bf16 gradients.
template <bool Accumulate, class T>
STATICNET_HD void write(T* p, index_t i, float v) {
  if constexpr (Accumulate)
    p[i] = from_float<T>(to_float(p[i]) + round_to<T>(v));
  else
    p[i] = from_float<T>(v);
}

}  // namespace staticnet::kernels
