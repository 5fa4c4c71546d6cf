#pragma once
// The checks shared by every parser, each throwing FormatError with the location it is given.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {

// "(3, 32, 32)"
std::string shape_to_string(std::span<const std::int64_t> shape);

// A binary file whose header ends at `data_offset` must hold exactly `data_bytes` more bytes:
// throws FormatError naming a truncated file or trailing garbage otherwise.
void check_data_extent(const std::string& file, std::uint64_t file_size, std::uint64_t data_offset,
                       std::uint64_t data_bytes);

// Product of a shape (already known not to overflow).
std::int64_t shape_elements(std::span<const std::int64_t> shape) noexcept;

// The shape sample_shape() reports: `stored` when nothing is expected, else `expected` when
// compatible (see DatasetOptions::expect_sample_shape); `flat_source` allows any reshape with the
// same element count. Throws FormatError at `where` otherwise.
std::vector<std::int64_t> resolve_sample_shape(
    const std::vector<std::int64_t>& stored,
    const std::optional<std::vector<std::int64_t>>& expected, bool flat_source,
    const Location& where);

// Tracks labels while a parser walks them: rejects negatives and, when num_classes is given,
// values >= num_classes; otherwise infers num_classes as max + 1.
class LabelRangeCheck {
 public:
  explicit LabelRangeCheck(std::optional<std::int64_t> num_classes, const Location& file);
  // `where` gives the label's byte offset or line/column; the file name comes from the ctor.
  void check(std::int64_t label, std::int64_t sample, Location where);
  std::int64_t num_classes() const noexcept;

 private:
  std::optional<std::int64_t> given_;
  std::int64_t max_seen_ = -1;
};

// FormatError for a non-finite value in `sample` (element `element` within it).
[[noreturn]] void throw_non_finite(const Location& where, std::int64_t sample, std::int64_t element,
                                   float value);

// The largest class count we accept: 2^24. Far above any classifier a plan fits on a device
// (ImageNet-21k has about 21,800 classes; 2^24 logits are 64 MiB per sample), and it bounds
// what a summary's per-class counters take (128 MiB). A larger label is almost always an ID or
// a regression target read as a class; the fuzzer found that 2^31 - 2 made summarize() ask for
// 16 GiB when the cap was INT32_MAX.
inline constexpr std::int64_t max_num_classes = std::int64_t{1} << 24;

}  // namespace staticnet::runtime
