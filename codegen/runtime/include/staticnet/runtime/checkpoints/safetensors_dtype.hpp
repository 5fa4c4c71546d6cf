#pragma once
// The element types staticnet reads and writes in safetensors files. The names are the ones the
// format uses in its JSON header ("F32", "BF16", ...); the sizes are bytes per element.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace staticnet::runtime {

enum class Dtype { f64, f32, f16, bf16, i64, i32, i16, i8, u8, boolean };

// Every supported dtype, in the order error messages list them.
std::span<const Dtype> supported_dtypes() noexcept;

// "F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL".
std::string_view dtype_name(Dtype dtype) noexcept;

// The dtype a header name stands for; nullopt for names staticnet does not support (including
// dtypes the format defines but staticnet rejects, such as "U16" or "F8_E4M3").
std::optional<Dtype> dtype_from_name(std::string_view name) noexcept;

std::size_t dtype_size(Dtype dtype) noexcept;

// Whether elements of `dtype` are floating-point numbers: F64, F32, F16, BF16.
bool is_floating(Dtype dtype) noexcept;

// The element at `bytes` (little-endian, of a floating dtype) as a float: F16 and BF16 exactly,
// F64 rounded to the nearest float; none for a finite F64 that rounds beyond the largest float
// (|x| ≥ 2^128 − 2^103), and for a dtype that is not floating.
std::optional<float> float_element(Dtype dtype, const std::byte* bytes) noexcept;

}  // namespace staticnet::runtime
