#pragma once
// What a BatchLoader is planned for, and where it stands. The shapes here are the ones the memory
// plan was computed for; the loader refuses a data set or a caller buffer that does not match.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "staticnet/runtime/batches/augment.hpp"
#include "staticnet/runtime/batches/normalize.hpp"
#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

// A configuration, data set or buffer that does not fit the plan. The message names both the
// planned and the actual shape or size.
class LoaderConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// What happens to the samples left over when the data set size is not a multiple of the batch.
enum class LastBatch {
  // Leave them out of this epoch (shuffling puts them in other batches in other epochs). The
  // default, because the plan's batch size is fixed: an epoch is floor(size / batch) batches.
  drop,
  // Complete the last batch from the start of the same epoch's order (positions taken modulo the
  // data set size), so every sample is seen every epoch: ceil(size / batch) batches. Epochs stay
  // independent of one another, which keeps resumption simple.
  wrap,
};

struct LoaderConfig {
  std::int64_t batch_size = 0;
  std::vector<std::int64_t> sample_shape;  // planned input shape of one sample, e.g. {3, 32, 32}
  LabelKind label_kind = LabelKind::class_index;
  std::vector<std::int64_t> target_shape;  // planned target shape (regression only)

  bool shuffle = true;
  std::uint64_t seed = 0;
  LastBatch last_batch = LastBatch::drop;
  Normalization normalization;
  Augmentation augmentation;

  int workers = 1;  // producer threads, >= 1
  int slots = 2;    // host batch buffers in the ring, >= 1 (2 = double buffering)
};

// The loader's position: the next batch it will hand out is batch `batch` (0-based, within the
// epoch) of epoch `epoch` under `seed`. Everything a batch contains is a function of this triple
// and the configuration, so saving it in a checkpoint makes a resumed run bit-identical.
struct LoaderState {
  std::uint64_t seed = 0;
  std::uint64_t epoch = 0;
  std::uint64_t batch = 0;
  friend bool operator==(const LoaderState&, const LoaderState&) = default;
};

}  // namespace staticnet::runtime
