#include "staticnet/runtime/tools/data_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

// How often the scan reports progress (in samples); the callee rate-limits further.
constexpr std::int64_t progress_stride = 64;

std::string percent(std::int64_t part, std::int64_t whole) {
  char buffer[32];
  const double share =
      whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  std::snprintf(buffer, sizeof buffer, "%.1f%%", share);
  return buffer;
}

}  // namespace

DataCheckResult check_dataset(const Dataset& dataset, bool allow_non_finite,
                              const ScanProgress& progress) {
  DataCheckResult result;
  const std::int64_t count = dataset.size();
  const std::int64_t elements = dataset.sample_elements();
  const bool floating = is_floating(dataset.element_type());
  std::vector<float> sample(static_cast<std::size_t>(elements));
  std::vector<float> target(static_cast<std::size_t>(
      dataset.label_kind() == LabelKind::regression ? shape_elements(dataset.target_shape()) : 0));

  std::int64_t first_bad_sample = -1;
  std::int64_t first_bad_element = 0;
  float first_bad_value = 0.0f;
  auto count_non_finite = [&](std::span<const float> values, std::int64_t index,
                              std::int64_t element_base) {
    for (std::size_t j = 0; j < values.size(); ++j) {
      if (std::isfinite(values[j]))
        continue;
      if (result.non_finite++ == 0) {
        first_bad_sample = index;
        first_bad_element = element_base + static_cast<std::int64_t>(j);
        first_bad_value = values[j];
      }
    }
  };

  for (std::int64_t i = 0; i < count; ++i) {
    dataset.read_sample(i, sample);
    if (floating)
      count_non_finite(sample, i, 0);
    if (!target.empty()) {
      dataset.read_target(i, target);
      count_non_finite(target, i, elements);
    }
    if (progress && (i + 1) % progress_stride == 0)
      progress(static_cast<std::uint64_t>(i + 1));
    // Stop at the first problem when it is an error: the parser's own scan names its offset.
    if (result.non_finite > 0 && !allow_non_finite)
      break;
  }
  if (result.non_finite > 0 && !allow_non_finite) {
    dataset.validate_all();  // throws the parser's FormatError with the byte offset
    // A data set whose own scan does not check (CSV checks at open, a foreign Dataset): report
    // what we found ourselves.
    throw_non_finite(Location{dataset.source(), {}, {}, {}}, first_bad_sample, first_bad_element,
                     first_bad_value);
  }
  if (progress)
    progress(static_cast<std::uint64_t>(count));
  result.values_scanned =
      static_cast<std::uint64_t>(count) *
      static_cast<std::uint64_t>(elements + static_cast<std::int64_t>(target.size()));
  result.summary = summarize(dataset);
  return result;
}

DataCheckResult check_dataset(const std::vector<std::string>& paths, const OpenOptions& options,
                              const ScanProgress& progress) {
  const auto dataset = open_dataset(paths, options);
  return check_dataset(*dataset, options.common.allow_non_finite, progress);
}

std::string format_data_check(const DataCheckResult& result, std::size_t max_class_lines) {
  const DatasetSummary& s = result.summary;
  std::string text = "format: " + s.format + "\n";
  text += "source: " + s.source + "\n";
  text += "samples: " + std::to_string(s.count) + " of shape " + shape_to_string(s.sample_shape) +
          ", " + element_type_name(s.element_type) + "\n";
  if (s.label_kind == LabelKind::regression) {
    text += "targets: regression, shape " + shape_to_string(s.target_shape) + "\n";
  } else if (s.label_kind == LabelKind::none) {
    text += "labels: none (inputs only: for inference, not training)\n";
  } else {
    text += "labels: " + std::to_string(s.num_classes) + " classes";
    if (s.min_label)
      text += ", range " + std::to_string(*s.min_label) + ".." + std::to_string(*s.max_label);
    text += "\nclass balance (count, share):\n";
    const std::size_t shown = std::min(s.class_counts.size(), max_class_lines);
    for (std::size_t k = 0; k < shown; ++k) {
      text += "  " + std::to_string(k) + ": " + std::to_string(s.class_counts[k]) + "  " +
              percent(s.class_counts[k], s.count) + "\n";
    }
    if (shown < s.class_counts.size()) {
      text += "  ... " + std::to_string(s.class_counts.size() - shown) + " more classes\n";
    }
    if (!s.class_counts.empty()) {
      const auto [smallest, largest] =
          std::minmax_element(s.class_counts.begin(), s.class_counts.end());
      text += "smallest class: " + std::to_string(smallest - s.class_counts.begin()) + " (" +
              std::to_string(*smallest) +
              "), largest: " + std::to_string(largest - s.class_counts.begin()) + " (" +
              std::to_string(*largest) + ")\n";
    }
  }
  text += "scan: " + std::to_string(result.values_scanned) + " values, ";
  text += result.non_finite == 0 ? std::string("no NaN or Inf")
                                 : std::to_string(result.non_finite) + " NaN or Inf (allowed)";
  return text + "\n";
}

}  // namespace staticnet::runtime
