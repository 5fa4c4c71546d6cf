#include "staticnet/runtime/validation.hpp"

#include <algorithm>

#include "staticnet/runtime/finite_values.hpp"

namespace staticnet::runtime {
namespace {

std::vector<std::int64_t> without_unit_dims(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> kept;
  std::copy_if(shape.begin(), shape.end(), std::back_inserter(kept),
               [](std::int64_t d) { return d != 1; });
  return kept;
}

}  // namespace

std::string shape_to_string(std::span<const std::int64_t> shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

void check_data_extent(const std::string& file, std::uint64_t file_size, std::uint64_t data_offset,
                       std::uint64_t data_bytes) {
  const std::uint64_t available = file_size - data_offset;
  if (available < data_bytes) {
    throw FormatError(Location{file, file_size, {}, {}},
                      std::to_string(data_bytes) + " bytes of data after the " +
                          std::to_string(data_offset) + "-byte header",
                      "end of file after " + std::to_string(available) + " (truncated file)");
  }
  if (available > data_bytes) {
    throw FormatError(Location{file, data_offset + data_bytes, {}, {}}, "end of file",
                      std::to_string(available - data_bytes) + " more bytes (trailing garbage)");
  }
}

std::int64_t shape_elements(std::span<const std::int64_t> shape) noexcept {
  std::int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

std::vector<std::int64_t> resolve_sample_shape(
    const std::vector<std::int64_t>& stored,
    const std::optional<std::vector<std::int64_t>>& expected, bool flat_source,
    const Location& where) {
  if (!expected)
    return stored;
  const auto& want = *expected;
  bool valid = !want.empty();
  std::int64_t want_elements = 1;
  for (auto d : want) {
    // Bound each dimension so the product cannot overflow before we compare it.
    if (d <= 0 || d > INT32_MAX || want_elements > INT64_MAX / d) {
      valid = false;
      break;
    }
    want_elements *= d;
  }
  if (!valid) {
    throw FormatError(where, "a valid expect_sample_shape (positive dimensions)",
                      shape_to_string(want));
  }
  const std::int64_t stored_elements = shape_elements(stored);
  const bool same_count = want_elements == stored_elements;
  const bool compatible =
      want == stored || (same_count && (flat_source || want.size() == 1 ||
                                        without_unit_dims(want) == without_unit_dims(stored)));
  if (!compatible) {
    throw FormatError(where, "sample shape " + shape_to_string(want),
                      "sample shape " + shape_to_string(stored));
  }
  return want;
}

LabelRangeCheck::LabelRangeCheck(std::optional<std::int64_t> num_classes, const Location& file)
    : given_(num_classes) {
  if (given_ && (*given_ <= 0 || *given_ > max_num_classes)) {
    throw FormatError(Location{file.file, {}, {}, {}},
                      "num_classes in [1, " + std::to_string(max_num_classes) + "]",
                      std::to_string(*given_));
  }
}

void LabelRangeCheck::check(std::int64_t label, std::int64_t sample, Location where) {
  if (given_) {
    if (label < 0 || label >= *given_) {
      throw FormatError(std::move(where), "a class label in [0, " + std::to_string(*given_) + ")",
                        "label " + std::to_string(label) + " for sample " + std::to_string(sample));
    }
  } else if (label < 0 || label >= max_num_classes) {
    throw FormatError(std::move(where),
                      "a non-negative class label below " + std::to_string(max_num_classes),
                      "label " + std::to_string(label) + " for sample " + std::to_string(sample));
  }
  max_seen_ = std::max(max_seen_, label);
}

std::int64_t LabelRangeCheck::num_classes() const noexcept {
  return given_ ? *given_ : max_seen_ + 1;
}

void throw_non_finite(const Location& where, std::int64_t sample, std::int64_t element,
                      float value) {
  throw FormatError(where, "a finite value",
                    non_finite_name(value) + " in sample " + std::to_string(sample) + ", element " +
                        std::to_string(element));
}

}  // namespace staticnet::runtime
