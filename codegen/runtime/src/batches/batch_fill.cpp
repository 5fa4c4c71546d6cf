#include "staticnet/runtime/batches/batch_fill.hpp"

#include <string>

#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {
namespace {

std::uint64_t count_batches(std::int64_t size, std::int64_t batch, LastBatch policy,
                            const Dataset& dataset) {
  const auto n = static_cast<std::uint64_t>(size);
  const auto b = static_cast<std::uint64_t>(batch);
  const std::uint64_t count = policy == LastBatch::drop ? n / b : (n + b - 1) / b;
  if (count == 0) {
    throw LoaderConfigError(dataset.format_name() + " data set '" + dataset.source() + "' has " +
                            std::to_string(size) + " samples, fewer than one batch of " +
                            std::to_string(batch) +
                            " (the last partial batch is dropped; use LastBatch::wrap)");
  }
  return count;
}

}  // namespace

BatchFiller::BatchFiller(const Dataset& dataset, const LoaderConfig& config)
    : dataset_(dataset),
      layout_(BatchLayout::from(config)),
      affine_(config.normalization, config.sample_shape),
      augmentation_(config.augmentation) {
  check_dataset_matches(dataset, config);
  size_ = dataset.size();
  num_classes_ = dataset.num_classes();
  batches_per_epoch_ = count_batches(size_, config.batch_size, config.last_batch, dataset);
  if (augmentation_.crop_padding < 0) {
    throw LoaderConfigError("crop padding must not be negative, found " +
                            std::to_string(augmentation_.crop_padding));
  }
  if (augmentation_.enabled()) {
    if (config.sample_shape.size() != 3) {
      throw LoaderConfigError(
          "crop and flip augmentation need (C, H, W) samples but the sample "
          "shape is " +
          shape_to_string(config.sample_shape));
    }
    image_ = {config.sample_shape[0], config.sample_shape[1], config.sample_shape[2]};
    scratch_floats_ = static_cast<std::size_t>(layout_.sample_elements);
  }
}

void BatchFiller::check_label(std::int32_t label, std::int64_t index) const {
  if (label >= 0 && label < num_classes_)
    return;
  throw FormatError(Location{dataset_.source(), std::nullopt, std::nullopt, std::nullopt},
                    "a class label in [0, " + std::to_string(num_classes_) + ")",
                    std::to_string(label) + " for sample " + std::to_string(index));
}

void BatchFiller::fill_rows(std::span<const std::int64_t> order, std::uint64_t seed,
                            std::uint64_t epoch, std::uint64_t batch, std::int64_t first,
                            std::int64_t last, BatchBuffers out, std::span<float> scratch) const {
  const std::int64_t sample = layout_.sample_elements;
  const std::int64_t target = layout_.target_elements;
  const auto batch_start = static_cast<std::int64_t>(batch) * layout_.batch_size;
  const bool augment = augmentation_.enabled();

  for (std::int64_t row = first; row < last; ++row) {
    // Only the wrapped last batch reaches past the end of the epoch's order.
    std::int64_t position = batch_start + row;
    if (position >= size_)
      position %= size_;
    const std::int64_t index = order.empty() ? position : order[static_cast<std::size_t>(position)];

    std::span<float> features(out.inputs + row * sample, static_cast<std::size_t>(sample));
    if (augment) {
      dataset_.read_sample(index, scratch.first(static_cast<std::size_t>(sample)));
      const AugmentChoice choice = draw_augmentation(augmentation_, seed, epoch, index);
      augment_and_normalize(scratch.data(), features.data(), image_, augmentation_.crop_padding,
                            choice, affine_);
    } else {
      // Straight into the slot, then normalised while the sample is still in cache.
      dataset_.read_sample(index, features);
      affine_.apply(features);
    }

    if (layout_.label_kind == LabelKind::class_index) {
      const std::int32_t label = dataset_.label(index);
      check_label(label, index);
      out.labels[row] = label;
    } else if (layout_.label_kind == LabelKind::regression) {
      dataset_.read_target(
          index, std::span<float>(out.targets + row * target, static_cast<std::size_t>(target)));
    }
  }
}

}  // namespace staticnet::runtime
