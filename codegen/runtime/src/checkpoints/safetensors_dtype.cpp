#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "staticnet/runtime/formats/element_decode.hpp"  // half_to_float, load_element

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

}  // namespace

bool is_floating(Dtype dtype) noexcept {
  return dtype == Dtype::f64 || dtype == Dtype::f32 || dtype == Dtype::f16 || dtype == Dtype::bf16;
}

std::optional<float> float_element(Dtype dtype, const std::byte* bytes) noexcept {
  switch (dtype) {
    case Dtype::f64: {
      const double value = load_element<double, ByteOrder::little>(bytes);
      // From halfway between the largest float and 2^128 on, rounding to nearest gives an
      // infinity: a finite number no float holds. Below, the largest float, as PyTorch's .float().
      if (std::isfinite(value) && std::fabs(value) >= 0x1.ffffffp127)
        return std::nullopt;
      return static_cast<float>(value);
    }
    case Dtype::f16:
      return half_to_float(load_element<std::uint16_t, ByteOrder::little>(bytes));
    case Dtype::bf16:  // the upper half of a float's bits
      return std::bit_cast<float>(
          static_cast<std::uint32_t>(load_element<std::uint16_t, ByteOrder::little>(bytes)) << 16);
    case Dtype::f32:
      return load_element<float, ByteOrder::little>(bytes);
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
