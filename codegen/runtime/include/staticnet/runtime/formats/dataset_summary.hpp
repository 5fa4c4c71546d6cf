#pragma once
// What `staticnet data check` prints about a data set: its format, shape, size, element type and
// labels (range and per-class counts, to show class balance). Computing it reads every label.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

struct DatasetSummary {
  std::string format;
  std::string source;
  std::int64_t count = 0;
  std::vector<std::int64_t> sample_shape;
  ElementType element_type = ElementType::f32;
  LabelKind label_kind = LabelKind::class_index;
  std::int64_t num_classes = 0;            // 0 for regression
  std::vector<std::int64_t> target_shape;  // regression only
  std::optional<std::int32_t> min_label;   // classification only
  std::optional<std::int32_t> max_label;
  std::vector<std::int64_t> class_counts;  // num_classes entries, classification only
};

DatasetSummary summarize(const Dataset& dataset);

// Up to this many classes, to_string lists each one's count, empty ones included (CIFAR-100's
// fine labels fit); with more, only the classes that occur.
inline constexpr std::size_t summary_lists_every_class_up_to = 100;

// Several lines of human-readable text, e.g.
//   format: idx
//   samples: 60000 of shape (28, 28), u8
//   labels: 10 classes, 0..9
//   class counts: 0: 5923, 1: 6742, ...
std::string to_string(const DatasetSummary& summary);

}  // namespace staticnet::runtime
