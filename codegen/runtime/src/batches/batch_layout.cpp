#include "staticnet/runtime/batches/batch_layout.hpp"

namespace staticnet::runtime {
namespace {

std::int64_t checked_product(const std::vector<std::int64_t>& shape, const char* what) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d <= 0) {
      throw LoaderConfigError(std::string("planned ") + what + " " + shape_to_string(shape) +
                              " has a dimension that is not positive");
    }
    n *= d;
  }
  return n;
}

const char* kind_name(LabelKind k) {
  switch (k) {
    case LabelKind::class_index:
      return "class_index labels";
    case LabelKind::regression:
      return "regression targets";
    case LabelKind::none:
      return "no labels";
  }
  return "?";
}

std::string describe(const Dataset& d) {
  return d.format_name() + " data set '" + d.source() + "'";
}

}  // namespace

BatchLayout BatchLayout::from(const LoaderConfig& config) {
  if (config.batch_size <= 0) {
    throw LoaderConfigError("batch size must be positive, found " +
                            std::to_string(config.batch_size));
  }
  BatchLayout layout;
  layout.batch_size = config.batch_size;
  layout.label_kind = config.label_kind;
  layout.sample_elements = checked_product(config.sample_shape, "sample shape");
  layout.target_elements = config.label_kind == LabelKind::regression
                               ? checked_product(config.target_shape, "target shape")
                               : 0;
  return layout;
}

void check_dataset_matches(const Dataset& dataset, const LoaderConfig& config) {
  if (dataset.sample_shape() != config.sample_shape) {
    throw LoaderConfigError(
        describe(dataset) + " has sample shape " + shape_to_string(dataset.sample_shape()) +
        " but the trainer was planned for sample shape " + shape_to_string(config.sample_shape));
  }
  if (dataset.label_kind() != config.label_kind) {
    // The array's element type decides which a file holds: the usual slip is the other type.
    std::string hint;
    if (config.label_kind == LabelKind::class_index &&
        dataset.label_kind() == LabelKind::regression)
      hint =
          " (class labels are integers, one per sample: save them as an integer array, e.g. "
          "numpy's labels.astype(np.int64))";
    else if (config.label_kind == LabelKind::regression &&
             dataset.label_kind() == LabelKind::class_index)
      hint =
          " (regression targets are floats: save them as a float array, e.g. numpy's "
          "targets.astype(np.float32))";
    throw LoaderConfigError(describe(dataset) + " has " + kind_name(dataset.label_kind()) +
                            " but the trainer was planned for " + kind_name(config.label_kind) +
                            hint);
  }
  if (config.label_kind == LabelKind::regression && dataset.target_shape() != config.target_shape) {
    throw LoaderConfigError(
        describe(dataset) + " has target shape " + shape_to_string(dataset.target_shape()) +
        " but the trainer was planned for target shape " + shape_to_string(config.target_shape));
  }
  if (dataset.size() <= 0)
    throw LoaderConfigError(describe(dataset) + " has no samples");
}

}  // namespace staticnet::runtime
