#include "array_dataset.hpp"

#include <stdexcept>

#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {

void check_sample_index(std::int64_t index, std::int64_t size) {
  if (index < 0 || index >= size) {
    throw std::out_of_range("sample index " + std::to_string(index) + " outside [0, " +
                            std::to_string(size) + ")");
  }
}

void check_span_size(std::size_t got, std::int64_t want, const char* what) {
  if (static_cast<std::int64_t>(got) != want) {
    throw std::invalid_argument(std::string(what) + " span has " + std::to_string(got) +
                                " elements, the data set needs " + std::to_string(want));
  }
}

ArrayDataset::ArrayDataset(std::string format, StoredArray inputs,
                           std::optional<StoredArray> labels, const DatasetOptions& options)
    : format_(std::move(format)),
      inputs_(std::move(inputs)),
      labels_(std::move(labels)),
      allow_non_finite_(options.allow_non_finite) {
  size_ = inputs_.shape.at(0);
  if (size_ <= 0) {
    throw FormatError(Location{inputs_.source.name(), inputs_.count_offset, {}, {}},
                      "at least 1 sample", "0");
  }
  if (labels_ && labels_->shape.at(0) != size_) {
    throw FormatError(
        Location{labels_->source.name(), labels_->count_offset, {}, {}},
        std::to_string(size_) + " labels (one per sample in " + inputs_.source.name() + ")",
        std::to_string(labels_->shape[0]));
  }

  std::vector<std::int64_t> stored_sample(inputs_.shape.begin() + 1, inputs_.shape.end());
  if (stored_sample.empty())
    stored_sample = {1};  // an (N,) input array: one scalar per sample
  sample_shape_ =
      resolve_sample_shape(stored_sample, options.expect_sample_shape, false,
                           Location{inputs_.source.name(), inputs_.data_offset, {}, {}});
  sample_elements_ = static_cast<std::uint64_t>(shape_elements(stored_sample));
  sample_bytes_ = sample_elements_ * element_size(inputs_.type);
  input_base_ = inputs_.source.bytes().data() + inputs_.data_offset;
  if (!labels_) {
    label_kind_ = LabelKind::none;
    return;
  }
  const StoredArray& labels_array = *labels_;
  label_base_ = labels_array.source.bytes().data() + labels_array.data_offset;

  const bool integer_labels = !is_floating(labels_array.type);
  if (integer_labels && labels_array.shape.size() == 1) {
    label_kind_ = LabelKind::class_index;
    LabelRangeCheck range(options.num_classes, Location{labels_array.source.name(), {}, {}, {}});
    const auto width = element_size(labels_array.type);
    for (std::int64_t i = 0; i < size_; ++i) {
      const auto offset = static_cast<std::uint64_t>(i) * width;
      range.check(load_integer(labels_array.type, labels_array.order, label_base_ + offset), i,
                  Location{labels_array.source.name(), labels_array.data_offset + offset, {}, {}});
    }
    num_classes_ = range.num_classes();
  } else if (integer_labels) {
    throw FormatError(Location{labels_array.source.name(), labels_array.count_offset, {}, {}},
                      "labels of shape (N,) holding class indices, or float regression targets",
                      "an integer array of shape " + shape_to_string(labels_array.shape) +
                          " (for one-hot labels, store class indices instead)");
  } else {
    label_kind_ = LabelKind::regression;
    target_shape_.assign(labels_array.shape.begin() + 1, labels_array.shape.end());
    if (target_shape_.empty())
      target_shape_ = {1};
    target_elements_ = static_cast<std::uint64_t>(shape_elements(target_shape_));
    target_bytes_ = target_elements_ * element_size(labels_array.type);
  }
}

std::string ArrayDataset::source() const {
  return labels_ ? inputs_.source.name() + ", " + labels_->source.name() : inputs_.source.name();
}

void ArrayDataset::read_sample(std::int64_t index, std::span<float> features) const {
  check_sample_index(index, size_);
  check_span_size(features.size(), static_cast<std::int64_t>(sample_elements_), "features");
  decode_to_f32(inputs_.type, inputs_.order,
                input_base_ + static_cast<std::uint64_t>(index) * sample_bytes_, features);
}

std::int32_t ArrayDataset::label(std::int64_t index) const {
  if (label_kind_ != LabelKind::class_index) {
    throw std::logic_error(source() + ": label() called on a data set without class labels");
  }
  check_sample_index(index, size_);
  const auto offset = static_cast<std::uint64_t>(index) * element_size(labels_->type);
  // Range-checked at open, so the narrowing cannot lose anything.
  return static_cast<std::int32_t>(
      load_integer(labels_->type, labels_->order, label_base_ + offset));
}

void ArrayDataset::read_target(std::int64_t index, std::span<float> target) const {
  if (label_kind_ != LabelKind::regression) {
    throw std::logic_error(source() + ": read_target() called on a data set without targets");
  }
  check_sample_index(index, size_);
  check_span_size(target.size(), static_cast<std::int64_t>(target_elements_), "target");
  decode_to_f32(labels_->type, labels_->order,
                label_base_ + static_cast<std::uint64_t>(index) * target_bytes_, target);
}

void ArrayDataset::validate_all() const {
  if (allow_non_finite_)
    return;
  const auto scan = [this](const StoredArray& array, const std::byte* base,
                           std::uint64_t per_sample) {
    if (!is_floating(array.type) || per_sample == 0)
      return;
    const auto total = static_cast<std::uint64_t>(size_) * per_sample;
    if (auto bad = find_non_finite(array.type, array.order, base, total)) {
      float value = 0;
      const auto width = element_size(array.type);
      decode_to_f32(array.type, array.order, base + *bad * width, std::span<float>(&value, 1));
      throw_non_finite(Location{array.source.name(), array.data_offset + *bad * width, {}, {}},
                       static_cast<std::int64_t>(*bad / per_sample),
                       static_cast<std::int64_t>(*bad % per_sample), value);
    }
  };
  scan(inputs_, input_base_, sample_elements_);
  if (label_kind_ == LabelKind::regression)
    scan(*labels_, label_base_, target_elements_);
}

}  // namespace staticnet::runtime
