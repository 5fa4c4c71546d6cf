#include "staticnet/runtime/formats/dataset_summary.hpp"

#include <algorithm>

#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {

DatasetSummary summarize(const Dataset& dataset) {
  DatasetSummary summary;
  summary.format = dataset.format_name();
  summary.source = dataset.source();
  summary.count = dataset.size();
  summary.sample_shape = dataset.sample_shape();
  summary.element_type = dataset.element_type();
  summary.label_kind = dataset.label_kind();
  summary.num_classes = dataset.num_classes();
  summary.target_shape = dataset.target_shape();
  if (summary.label_kind != LabelKind::class_index)
    return summary;

  summary.class_counts.assign(
      static_cast<std::size_t>(std::max<std::int64_t>(0, summary.num_classes)), 0);
  for (std::int64_t i = 0; i < summary.count; ++i) {
    const auto label = dataset.label(i);
    summary.min_label = std::min(summary.min_label.value_or(label), label);
    summary.max_label = std::max(summary.max_label.value_or(label), label);
    // Parsers guarantee labels in [0, num_classes); guard anyway so a foreign Dataset cannot
    // make this write out of bounds.
    if (label >= 0 && static_cast<std::size_t>(label) < summary.class_counts.size()) {
      ++summary.class_counts[static_cast<std::size_t>(label)];
    }
  }
  return summary;
}

std::string to_string(const DatasetSummary& summary) {
  std::string text = "format: " + summary.format + "\n";
  text += "source: " + summary.source + "\n";
  text += "samples: " + std::to_string(summary.count) + " of shape " +
          shape_to_string(summary.sample_shape) + ", " + element_type_name(summary.element_type) +
          "\n";
  if (summary.label_kind == LabelKind::regression) {
    text += "targets: regression, shape " + shape_to_string(summary.target_shape) + "\n";
    return text;
  }
  if (summary.label_kind == LabelKind::none)
    return text + "labels: none (inputs only)\n";
  text += "labels: " + std::to_string(summary.num_classes) + " classes";
  if (summary.min_label) {
    text += ", " + std::to_string(*summary.min_label) + ".." + std::to_string(*summary.max_label);
  }
  // Every class while they are few; past that only the classes that occur, since labels can
  // name up to 2^24 classes and one entry per empty class would make a line of megabytes.
  const std::vector<std::int64_t>& counts = summary.class_counts;
  const bool every_class = counts.size() <= summary_lists_every_class_up_to;
  if (every_class) {
    text += "\nclass counts:";
  } else {
    const auto occurring =
        std::count_if(counts.begin(), counts.end(), [](auto n) { return n > 0; });
    text += "\nclass counts (the " + std::to_string(occurring) + " classes that occur; " +
            std::to_string(static_cast<std::int64_t>(counts.size()) - occurring) +
            " have no sample):";
  }
  const char* separator = " ";
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (every_class || counts[k] > 0) {
      text += separator + std::to_string(k) + ": " + std::to_string(counts[k]);
      separator = ", ";
    }
  }
  return text + "\n";
}

}  // namespace staticnet::runtime
