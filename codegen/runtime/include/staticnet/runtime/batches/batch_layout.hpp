#pragma once
// The sizes of one batch as the plan laid it out: inputs f32 [batch, sample_shape...], labels
// int32 [batch] (class_index), targets f32 [batch, target_shape...] (regression) or neither
// (none), and the checks
// that a data set or a caller's buffer matches them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/runtime/batches/loader_config.hpp"
#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/validation.hpp"  // shape_to_string

namespace staticnet::runtime {

struct BatchLayout {
  std::int64_t batch_size = 0;
  std::int64_t sample_elements = 0;  // product(sample_shape)
  std::int64_t target_elements = 0;  // product(target_shape), regression only
  LabelKind label_kind = LabelKind::class_index;

  // Validates the configuration's own shapes; throws LoaderConfigError.
  static BatchLayout from(const LoaderConfig& config);

  std::size_t input_floats() const {
    return static_cast<std::size_t>(batch_size * sample_elements);
  }
  std::size_t label_count() const {
    return label_kind == LabelKind::class_index ? static_cast<std::size_t>(batch_size) : 0;
  }
  std::size_t target_floats() const {
    return label_kind == LabelKind::regression
               ? static_cast<std::size_t>(batch_size * target_elements)
               : 0;
  }
  // Bytes of one host batch slot: inputs plus labels or targets.
  std::size_t slot_bytes() const {
    return input_floats() * sizeof(float) + label_count() * sizeof(std::int32_t) +
           target_floats() * sizeof(float);
  }
};

// Throws LoaderConfigError naming both shapes when the data set is not what the trainer was
// planned for (sample shape, label kind, target shape), or is empty.
void check_dataset_matches(const Dataset& dataset, const LoaderConfig& config);

}  // namespace staticnet::runtime
