#pragma once
// Private to the runtime: the Dataset over two dense arrays (inputs with shape (N, ...), labels
// with shape (N,) or targets (N, ...)) that IDX and .npy both reduce to once their headers parse.
// Without the second array the data set is unlabelled (inputs only, for inference).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/dataset_options.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"

namespace staticnet::runtime {

// One parsed array: its bytes, where its elements start and how they are stored.
struct StoredArray {
  ByteSource source;
  std::uint64_t data_offset = 0;
  ElementType type = ElementType::u8;
  ByteOrder order = ByteOrder::little;
  std::vector<std::int64_t> shape;  // shape[0] is the sample count; never empty
  std::uint64_t count_offset = 0;   // byte offset of shape[0] in the header, for messages
};

class ArrayDataset final : public Dataset {
 public:
  // Checks sample counts agree, the sample shape, and (class labels) every label's range.
  // Labels are class indices when `labels` is integer and 1-D, regression targets otherwise;
  // none when there is no labels array.
  ArrayDataset(std::string format, StoredArray inputs, std::optional<StoredArray> labels,
               const DatasetOptions& options);

  std::string format_name() const override { return format_; }
  std::string source() const override;
  std::int64_t size() const override { return size_; }
  const std::vector<std::int64_t>& sample_shape() const override { return sample_shape_; }
  ElementType element_type() const override { return inputs_.type; }
  LabelKind label_kind() const override { return label_kind_; }
  std::int64_t num_classes() const override { return num_classes_; }
  const std::vector<std::int64_t>& target_shape() const override { return target_shape_; }
  void read_sample(std::int64_t index, std::span<float> features) const override;
  std::int32_t label(std::int64_t index) const override;
  void read_target(std::int64_t index, std::span<float> target) const override;
  void validate_all() const override;

 private:
  void check_index(std::int64_t index) const;

  std::string format_;
  StoredArray inputs_;
  std::optional<StoredArray> labels_;
  std::int64_t size_ = 0;
  std::vector<std::int64_t> sample_shape_;
  std::vector<std::int64_t> target_shape_;
  std::uint64_t sample_elements_ = 0;  // product of the stored sample shape
  std::uint64_t sample_bytes_ = 0;
  std::uint64_t target_elements_ = 0;
  std::uint64_t target_bytes_ = 0;
  const std::byte* input_base_ = nullptr;
  const std::byte* label_base_ = nullptr;
  LabelKind label_kind_ = LabelKind::class_index;
  std::int64_t num_classes_ = 0;
  bool allow_non_finite_ = false;
};

// Throws std::out_of_range / std::invalid_argument for misuse of the Dataset interface (a bug in
// the caller, not in the file), shared by every Dataset in this library.
void check_sample_index(std::int64_t index, std::int64_t size);
void check_span_size(std::size_t got, std::int64_t want, const char* what);

}  // namespace staticnet::runtime
