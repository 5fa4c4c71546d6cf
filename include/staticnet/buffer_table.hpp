#pragma once
// The plan's buffer table, the one serialization of its buffers: the columns of a Buffer, named
// once here and in this order. NAME_model.h writes them as C++ constants
// (codegen/emit/src/model_header.cpp; the trainer's model description reads those), the
// analyzer's probe as JSON (analysis/probe.hpp), and the analyzer reads the JSON back by the same
// names (analyzer/src/plan_dump.cpp). A column added here reaches all of them.
//
// A buffer's region and the bytes it occupies are no columns: they follow from its role and its
// bytes (region_of, align_up), as the planner derives them.
#include <array>
#include <cstdint>

#include "staticnet/plan_types.hpp"

namespace staticnet {

// The columns' names, for a reader that asks for each by name.
namespace buffer_column {
inline constexpr const char* offset = "offset";          // bytes from the arena's start
inline constexpr const char* bytes = "bytes";            // its size: `elements` values of dtype
inline constexpr const char* first_step = "first_step";  // the first and last step of the
inline constexpr const char* last_step = "last_step";    // schedule that access it
inline constexpr const char* dtype = "dtype";            // of its values (a bit mask's: u8)
inline constexpr const char* elements = "elements";
inline constexpr const char* role = "role";    // what it holds (BufferRole)
inline constexpr const char* layer = "layer";  // the layer it belongs to, or -1
}  // namespace buffer_column

// visit(name, value) for each column of b, in the table's order. `value` is an std::int64_t, a
// DType or a BufferRole (name_of spells the last two).
template <class Visit>
constexpr void visit_buffer_columns(const Buffer& b, Visit&& visit) {
  visit(buffer_column::offset, b.offset);
  visit(buffer_column::bytes, b.size);
  visit(buffer_column::first_step, b.first_step);
  visit(buffer_column::last_step, b.last_step);
  visit(buffer_column::dtype, b.dtype);
  visit(buffer_column::elements, b.elements());
  visit(buffer_column::role, b.role);
  visit(buffer_column::layer, b.layer);
}

// The columns' names, in order.
inline constexpr auto buffer_columns = [] {
  std::array<const char*, 8> names{};
  std::size_t i = 0;
  visit_buffer_columns(Buffer{}, [&](const char* name, auto) { names[i++] = name; });
  return names;
}();

}  // namespace staticnet
