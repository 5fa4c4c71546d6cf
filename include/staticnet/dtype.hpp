#pragma once
// Element types. Values of an enum rather than tag types so that they can be template arguments
// (`sn::Input<sn::f32, 3, 32, 32>`) and plain data in the plan at the same time.
#include <cstdint>

namespace staticnet {

// Appended to, never reordered: checkpoints and NAME_model.h name the values.
enum class DType : std::uint8_t { f32, f16, bf16, i8, i32, u8, u16, u32 };
// The dtypes, counted up to the last one (tests/core check that every named dtype is counted).
inline constexpr int dtype_count = static_cast<int>(DType::u32) + 1;

inline constexpr DType f32 = DType::f32;
inline constexpr DType f16 = DType::f16;
inline constexpr DType bf16 = DType::bf16;
inline constexpr DType i8 = DType::i8;
inline constexpr DType i32 = DType::i32;  // class labels
inline constexpr DType u8 = DType::u8;    // bytes: a max-pool's window index, a packed bit mask
inline constexpr DType u16 = DType::u16;
inline constexpr DType u32 = DType::u32;

constexpr std::int64_t size_of(DType t) {
  switch (t) {
    case DType::f32:
    case DType::i32:
    case DType::u32:
      return 4;
    case DType::f16:
    case DType::bf16:
    case DType::u16:
      return 2;
    case DType::i8:
    case DType::u8:
      return 1;
  }
  return 0;
}

// The bytes of `elements` values of type t: the one place the planner turns a tensor's element
// count into bytes, so that a tensor's dtype alone decides its size.
constexpr std::int64_t bytes_of(DType t, std::int64_t elements) {
  return elements * size_of(t);
}

constexpr const char* name_of(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::i8:
      return "i8";
    case DType::i32:
      return "i32";
    case DType::u8:
      return "u8";
    case DType::u16:
      return "u16";
    case DType::u32:
      return "u32";
  }
  return "?";
}

}  // namespace staticnet
