#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace staticnet::runtime {
namespace {

struct DtypeEntry {
  Dtype dtype;
  std::string_view name;
  std::size_t size;
};

constexpr std::array<DtypeEntry, 10> dtype_table{{
    {Dtype::f64, "F64", 8},
    {Dtype::f32, "F32", 4},
    {Dtype::f16, "F16", 2},
    {Dtype::bf16, "BF16", 2},
    {Dtype::i64, "I64", 8},
    {Dtype::i32, "I32", 4},
    {Dtype::i16, "I16", 2},
    {Dtype::i8, "I8", 1},
    {Dtype::u8, "U8", 1},
    {Dtype::boolean, "BOOL", 1},
}};

constexpr std::array<Dtype, dtype_table.size()> all_dtypes = [] {
  std::array<Dtype, dtype_table.size()> dtypes{};
  for (std::size_t i = 0; i < dtype_table.size(); ++i)
    dtypes[i] = dtype_table[i].dtype;
  return dtypes;
}();

const DtypeEntry& entry(Dtype dtype) noexcept {
  for (const auto& e : dtype_table) {
    if (e.dtype == dtype)
      return e;
  }
  return dtype_table[0];  // unreachable for valid enumerators
}

template <typename Word>
Word little_endian(const std::byte* bytes) noexcept {
  Word word = 0;
  for (std::size_t i = 0; i < sizeof(Word); ++i)
    word |= static_cast<Word>(std::to_integer<unsigned>(bytes[i])) << (8 * i);
  return word;
}

// IEEE 754 binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
float half_to_float(std::uint16_t half) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  const std::uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa × 2^-24, exact in a float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f)  // infinity or NaN (the payload kept)
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

}  // namespace

bool is_floating(Dtype dtype) noexcept {
  return dtype == Dtype::f64 || dtype == Dtype::f32 || dtype == Dtype::f16 || dtype == Dtype::bf16;
}

std::optional<float> float_element(Dtype dtype, const std::byte* bytes) noexcept {
  switch (dtype) {
    case Dtype::f64: {
      const double value = std::bit_cast<double>(little_endian<std::uint64_t>(bytes));
      // From halfway between the largest float and 2^128 on, rounding to nearest gives an
      // infinity: a finite number no float holds. Below, the largest float, as PyTorch's .float().
      if (std::isfinite(value) && std::fabs(value) >= 0x1.ffffffp127)
        return std::nullopt;
      return static_cast<float>(value);
    }
    case Dtype::f16:
      return half_to_float(little_endian<std::uint16_t>(bytes));
    case Dtype::bf16:  // the upper half of a float's bits
      return std::bit_cast<float>(static_cast<std::uint32_t>(little_endian<std::uint16_t>(bytes))
                                  << 16);
    case Dtype::f32:
      return std::bit_cast<float>(little_endian<std::uint32_t>(bytes));
    default:  // no floating type: nothing to read as one
      return std::nullopt;
  }
}

std::span<const Dtype> supported_dtypes() noexcept {
  return all_dtypes;
}

std::string_view dtype_name(Dtype dtype) noexcept {
  return entry(dtype).name;
}

std::size_t dtype_size(Dtype dtype) noexcept {
  return entry(dtype).size;
}

std::optional<Dtype> dtype_from_name(std::string_view name) noexcept {
  for (const auto& e : dtype_table) {
    if (e.name == name)
      return e.dtype;
  }
  return std::nullopt;
}

}  // namespace staticnet::runtime
