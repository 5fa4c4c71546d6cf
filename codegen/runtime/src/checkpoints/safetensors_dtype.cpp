#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"

#include <array>

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
