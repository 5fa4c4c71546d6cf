#pragma once
// The per-sample path: read a sample of the data set, augment and normalise it in one pass, and
// write it with its label or target into its row of a batch. Runs on producer threads; holds no
// mutable state, so any number of threads may fill disjoint rows at once.
#include <cstdint>
#include <span>

#include "staticnet/runtime/batches/augment.hpp"
#include "staticnet/runtime/batches/batch_layout.hpp"
#include "staticnet/runtime/batches/loader_config.hpp"
#include "staticnet/runtime/batches/normalize.hpp"
#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

// Where one batch goes: inputs [batch, sample...], and labels [batch] or targets [batch, target...]
// (whichever the label kind uses; the other is null).
struct BatchBuffers {
  float* inputs = nullptr;
  std::int32_t* labels = nullptr;
  float* targets = nullptr;
};

class BatchFiller {
 public:
  // Validates the data set against the configuration (check_dataset_matches) and the
  // augmentation against the sample shape; throws LoaderConfigError.
  BatchFiller(const Dataset& dataset, const LoaderConfig& config);

  const BatchLayout& layout() const { return layout_; }
  // floor(size / batch) with LastBatch::drop, ceil(size / batch) with LastBatch::wrap.
  std::uint64_t batches_per_epoch() const { return batches_per_epoch_; }
  // Floats of per-thread scratch fill_rows needs (a raw sample when augmenting, else 0).
  std::size_t scratch_floats() const { return scratch_floats_; }

  // Fills rows [first, last) of batch `batch` of `epoch`. `order` is the epoch's permutation of
  // the data set, or empty for the natural order. Throws what the data set throws, and
  // FormatError for a class label outside [0, num_classes).
  void fill_rows(std::span<const std::int64_t> order, std::uint64_t seed, std::uint64_t epoch,
                 std::uint64_t batch, std::int64_t first, std::int64_t last, BatchBuffers out,
                 std::span<float> scratch) const;

 private:
  void check_label(std::int32_t label, std::int64_t index) const;

  const Dataset& dataset_;
  BatchLayout layout_;
  ChannelAffine affine_;
  Augmentation augmentation_;
  ImageShape image_{0, 0, 0};
  std::int64_t size_ = 0;
  std::int64_t num_classes_ = 0;
  std::uint64_t batches_per_epoch_ = 0;
  std::size_t scratch_floats_ = 0;
};

}  // namespace staticnet::runtime
