#pragma once
// Checks every data-set format shares. When each runs:
//   at open (cheap: headers, sizes, labels):
//     - magic, version, header syntax, element type, dimension counts, size arithmetic
//       (overflow-checked), file length exactly as the header implies (truncation, trailing bytes);
//     - expect_sample_shape against the stored sample shape;
//     - every class label against num_classes (given) or >= 0 (inferred as max label + 1);
//       labels are one small value per sample, and an out-of-range label would otherwise index
//       past a one-hot buffer in the trainer;
//     - CSV only: everything, including non-finite values, since CSV is parsed whole at open.
//   in Dataset::validate_all() (reads every byte of the samples):
//     - NaN or Inf in float inputs and regression targets, unless allow_non_finite.
#include <cstdint>
#include <optional>
#include <vector>

namespace staticnet::runtime {

struct DatasetOptions {
  // The shape the model's input expects for one sample. The stored shape must equal it, or
  // differ only by size-1 dimensions ({28, 28} serves {1, 28, 28}), or the expected shape is
  // flat ({784}); a CSV row is flat, so any shape with the same element count serves it.
  // When set, sample_shape() reports this shape.
  std::optional<std::vector<std::int64_t>> expect_sample_shape;
  // Given: labels outside [0, num_classes) are errors. Absent: inferred as max label + 1.
  std::optional<std::int64_t> num_classes;
  // NaN and Inf in float data are errors unless this is set.
  bool allow_non_finite = false;
};

}  // namespace staticnet::runtime
