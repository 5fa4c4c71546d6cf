#include "staticnet/runtime/formats/cifar.hpp"

#include <algorithm>
#include <stdexcept>

#include "array_dataset.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

struct CifarBatch {
  ByteSource source;
  std::int64_t first_sample = 0;  // global index of this file's first record
  std::int64_t count = 0;
};

class CifarDataset final : public Dataset {
 public:
  CifarDataset(std::vector<ByteSource> batches, CifarVariant variant, const DatasetOptions& options,
               Cifar100Labels labels)
      : variant_(variant) {
    const std::size_t label_bytes = variant == CifarVariant::cifar10 ? 1 : 2;
    record_bytes_ = label_bytes + cifar_pixel_bytes;
    label_byte_ = (variant == CifarVariant::cifar100 && labels == Cifar100Labels::fine) ? 1 : 0;
    num_classes_ = variant == CifarVariant::cifar10 ? 10
                   : labels == Cifar100Labels::fine ? 100
                                                    : 20;
    if (batches.empty())
      throw FormatError(Location{}, "at least one CIFAR batch file", "none");
    if (options.num_classes && *options.num_classes != num_classes_) {
      throw FormatError(
          Location{batches[0].name(), {}, {}, {}},
          variant == CifarVariant::cifar10
              ? "10 classes, as cifar10 has"
              : std::to_string(num_classes_) + " classes, as cifar100's " +
                    (label_byte_ == 1 ? "fine labels have (its coarse labels have 20)"
                                      : "coarse labels have (its fine labels have 100)"),
          std::to_string(*options.num_classes) +
              (variant == CifarVariant::cifar10 ? "" : " (--cifar100-labels chooses)"));
    }
    sample_shape_ = resolve_sample_shape({3, 32, 32}, options.expect_sample_shape, false,
                                         Location{batches[0].name(), {}, {}, {}});

    LabelRangeCheck range(num_classes_, Location{});
    for (auto& source : batches) {
      const auto size = source.size();
      if (size == 0 || size % record_bytes_ != 0) {
        const auto partial = size - size % record_bytes_;
        throw FormatError(
            Location{source.name(), partial, {}, {}},
            "whole " + std::to_string(record_bytes_) + "-byte " + format_name() + " records",
            size == 0 ? std::string("an empty file")
                      : "a partial record of " + std::to_string(size % record_bytes_) + " bytes");
      }
      CifarBatch batch{std::move(source), size_, 0};
      batch.count = static_cast<std::int64_t>(size / record_bytes_);
      const auto* bytes = batch.source.bytes().data();
      for (std::int64_t i = 0; i < batch.count; ++i) {
        const auto offset = static_cast<std::uint64_t>(i) * record_bytes_ + label_byte_;
        range.check(static_cast<std::uint8_t>(bytes[offset]), size_ + i,
                    Location{batch.source.name(), offset, {}, {}});
      }
      size_ += batch.count;
      batches_.push_back(std::move(batch));
    }
  }

  std::string format_name() const override {
    return variant_ == CifarVariant::cifar10 ? "cifar10" : "cifar100";
  }
  std::string source() const override {
    std::string names;
    for (const auto& batch : batches_)
      names += (names.empty() ? "" : ", ") + batch.source.name();
    return names;
  }
  std::int64_t size() const override { return size_; }
  const std::vector<std::int64_t>& sample_shape() const override { return sample_shape_; }
  ElementType element_type() const override { return ElementType::u8; }
  LabelKind label_kind() const override { return LabelKind::class_index; }
  std::int64_t num_classes() const override { return num_classes_; }
  const std::vector<std::int64_t>& target_shape() const override { return no_target_; }

  void read_sample(std::int64_t index, std::span<float> features) const override {
    check_span_size(features.size(), cifar_pixel_bytes, "features");
    const std::byte* record = locate(index);
    const std::size_t label_bytes = record_bytes_ - cifar_pixel_bytes;
    decode_elements<std::uint8_t, ByteOrder::little>(record + label_bytes, features.data(),
                                                     cifar_pixel_bytes);
  }
  std::int32_t label(std::int64_t index) const override {
    return static_cast<std::uint8_t>(locate(index)[label_byte_]);
  }
  void read_target(std::int64_t, std::span<float>) const override {
    throw std::logic_error(source() + ": read_target() called on a classification data set");
  }

 private:
  const std::byte* locate(std::int64_t index) const {
    check_sample_index(index, size_);
    // The batch whose first sample is the last one <= index; few files, so a binary search
    // over a handful of entries.
    auto it =
        std::upper_bound(batches_.begin(), batches_.end(), index,
                         [](std::int64_t i, const CifarBatch& b) { return i < b.first_sample; });
    const auto& batch = *std::prev(it);
    return batch.source.bytes().data() +
           static_cast<std::uint64_t>(index - batch.first_sample) * record_bytes_;
  }

  CifarVariant variant_;
  std::vector<CifarBatch> batches_;
  std::uint64_t record_bytes_ = 0;
  std::size_t label_byte_ = 0;
  std::int64_t num_classes_ = 0;
  std::int64_t size_ = 0;
  std::vector<std::int64_t> sample_shape_;
  std::vector<std::int64_t> no_target_;
};

}  // namespace

std::unique_ptr<Dataset> open_cifar(std::vector<ByteSource> batches, CifarVariant variant,
                                    const DatasetOptions& options, Cifar100Labels labels) {
  return std::make_unique<CifarDataset>(std::move(batches), variant, options, labels);
}

std::unique_ptr<Dataset> open_cifar(const std::vector<std::string>& batch_paths,
                                    CifarVariant variant, const DatasetOptions& options,
                                    Cifar100Labels labels) {
  std::vector<ByteSource> batches;
  for (const auto& path : batch_paths)
    batches.push_back(ByteSource::from_file(path));
  return open_cifar(std::move(batches), variant, options, labels);
}

}  // namespace staticnet::runtime
