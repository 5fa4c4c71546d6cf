#pragma once
// Decoding stored elements (any supported type, either byte order, any alignment) into f32.
// This is the inner loop of every read_sample: the type switch happens once per call, never per
// element, and the loops are plain enough for the compiler to vectorise.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>

#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

enum class ByteOrder { little, big };

constexpr std::size_t element_size(ElementType type) noexcept {
  switch (type) {
    case ElementType::u8:
    case ElementType::i8:
      return 1;
    case ElementType::i16:
    case ElementType::f16:
      return 2;
    case ElementType::i32:
    case ElementType::f32:
      return 4;
    case ElementType::i64:
    case ElementType::f64:
      return 8;
  }
  return 1;
}

constexpr const char* element_type_name(ElementType type) noexcept {
  switch (type) {
    case ElementType::u8:
      return "u8";
    case ElementType::i8:
      return "i8";
    case ElementType::i16:
      return "i16";
    case ElementType::i32:
      return "i32";
    case ElementType::i64:
      return "i64";
    case ElementType::f16:
      return "f16";
    case ElementType::f32:
      return "f32";
    case ElementType::f64:
      return "f64";
  }
  return "?";
}

constexpr bool is_floating(ElementType type) noexcept {
  return type == ElementType::f16 || type == ElementType::f32 || type == ElementType::f64;
}

// IEEE 754 binary16 (1 sign bit, 5 exponent bits of bias 15, 10 mantissa bits) as a float, which
// holds every such value exactly: NumPy's float16, safetensors' F16.
inline float half_to_float(std::uint16_t half) noexcept {
  const std::uint32_t sign = (half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  const std::uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa × 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f)  // infinity or NaN (the payload kept)
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

namespace detail {

template <class T>
using SameSizeUnsigned = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t,
                       std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

template <class U>
constexpr U byteswap(U value) noexcept {
  if constexpr (sizeof(U) == 1) {
    return value;
  } else if constexpr (sizeof(U) == 2) {
    return __builtin_bswap16(value);
  } else if constexpr (sizeof(U) == 4) {
    return __builtin_bswap32(value);
  } else {
    return __builtin_bswap64(value);
  }
}

constexpr bool host_is_little = std::endian::native == std::endian::little;

}  // namespace detail

// One element of type T at `source` (no alignment needed) stored in `order`.
template <class T, ByteOrder order>
inline T load_element(const std::byte* source) noexcept {
  using Bits = detail::SameSizeUnsigned<T>;
  Bits bits;
  std::memcpy(&bits, source, sizeof bits);
  if constexpr ((order == ByteOrder::little) != detail::host_is_little) {
    bits = detail::byteswap(bits);
  }
  return std::bit_cast<T>(bits);
}

// A double outside f32's range converts to +-inf explicitly: the language leaves that
// conversion undefined, IEEE does not.
inline float narrow_to_f32(double value) noexcept {
  constexpr double largest = static_cast<double>(std::numeric_limits<float>::max());
  if (value > largest)
    return std::numeric_limits<float>::infinity();
  if (value < -largest)
    return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);
}

template <class T, ByteOrder order>
inline void decode_elements(const std::byte* source, float* out, std::size_t count) noexcept {
  if constexpr (std::is_same_v<T, float> &&
                (order == ByteOrder::little) == detail::host_is_little) {
    std::memcpy(out, source, count * sizeof(float));
  } else if constexpr (std::is_same_v<T, double>) {
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = narrow_to_f32(load_element<T, order>(source + i * sizeof(T)));
    }
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = static_cast<float>(load_element<T, order>(source + i * sizeof(T)));
    }
  }
}

template <ByteOrder order>
inline void decode_to_f32(ElementType type, const std::byte* source,
                          std::span<float> out) noexcept {
  const std::size_t n = out.size();
  switch (type) {
    case ElementType::u8:
      return decode_elements<std::uint8_t, order>(source, out.data(), n);
    case ElementType::i8:
      return decode_elements<std::int8_t, order>(source, out.data(), n);
    case ElementType::i16:
      return decode_elements<std::int16_t, order>(source, out.data(), n);
    case ElementType::i32:
      return decode_elements<std::int32_t, order>(source, out.data(), n);
    case ElementType::i64:
      return decode_elements<std::int64_t, order>(source, out.data(), n);
    case ElementType::f16:
      for (std::size_t i = 0; i < n; ++i)
        out[i] = half_to_float(load_element<std::uint16_t, order>(source + 2 * i));
      return;
    case ElementType::f32:
      return decode_elements<float, order>(source, out.data(), n);
    case ElementType::f64:
      return decode_elements<double, order>(source, out.data(), n);
  }
}

// Decodes out.size() elements starting at `source` into `out`.
inline void decode_to_f32(ElementType type, ByteOrder order, const std::byte* source,
                          std::span<float> out) noexcept {
  if (order == ByteOrder::little) {
    decode_to_f32<ByteOrder::little>(type, source, out);
  } else {
    decode_to_f32<ByteOrder::big>(type, source, out);
  }
}

// One integer element widened to i64 (labels); float types are not labels.
inline std::int64_t load_integer(ElementType type, ByteOrder order,
                                 const std::byte* source) noexcept {
  const bool little = order == ByteOrder::little;
  switch (type) {
    case ElementType::u8:
      return load_element<std::uint8_t, ByteOrder::little>(source);
    case ElementType::i8:
      return load_element<std::int8_t, ByteOrder::little>(source);
    case ElementType::i16:
      return little ? load_element<std::int16_t, ByteOrder::little>(source)
                    : load_element<std::int16_t, ByteOrder::big>(source);
    case ElementType::i32:
      return little ? load_element<std::int32_t, ByteOrder::little>(source)
                    : load_element<std::int32_t, ByteOrder::big>(source);
    case ElementType::i64:
      return little ? load_element<std::int64_t, ByteOrder::little>(source)
                    : load_element<std::int64_t, ByteOrder::big>(source);
    case ElementType::f16:
    case ElementType::f32:
    case ElementType::f64:
      break;
  }
  return 0;
}

// Index of the first element that is not finite once converted to f32 (so a finite f64 beyond
// f32's range counts: the trainer would see an infinity), or nullopt. Integer types never are.
inline std::optional<std::uint64_t> find_non_finite(ElementType type, ByteOrder order,
                                                    const std::byte* source, std::uint64_t count) {
  if (!is_floating(type))
    return std::nullopt;
  constexpr std::uint64_t chunk = 4096;
  float buffer[chunk];
  for (std::uint64_t start = 0; start < count; start += chunk) {
    const auto n = static_cast<std::size_t>(count - start < chunk ? count - start : chunk);
    decode_to_f32(type, order, source + start * element_size(type), std::span<float>(buffer, n));
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(buffer[i]))
        return start + i;
    }
  }
  return std::nullopt;
}

}  // namespace staticnet::runtime
