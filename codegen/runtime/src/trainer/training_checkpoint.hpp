#pragma once
// Private to the trainer: a training checkpoint is the parameters under PyTorch's state-dict
// names, the optimizer's state as "optimizer.<optimizer>.<state>.<parameter>" (PyTorch's state
// names: momentum_buffer, exp_avg, exp_avg_sq), the optimizer's settings and the learning-rate
// schedule (training_settings.hpp), and where training stands, so that a resumed run continues
// bit for bit. Written atomically: a crash or a full disk leaves the previous file.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/trainer/backend.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"
#include "training_settings.hpp"

namespace staticnet::runtime {

// The epoch so far: the sums its line and metrics are made of. A checkpoint written inside an
// epoch keeps them, so that the resumed run reports the whole epoch, as an uninterrupted run
// would, to the bit.
struct EpochTotals {
  double loss_sum = 0;       // the per-sample losses, added batch by batch
  std::int64_t correct = 0;  // a classifier's correct predictions
  std::int64_t samples = 0;  // the samples the sums are over
};

// Where training stands: `step` optimizer steps done; the next batch is batch `batch` of epoch
// `epoch` (both 0-based) of the order drawn from `seed`. `so_far` is none where a checkpoint
// written inside an epoch predates the totals: the resumed epoch then reports its own batches.
struct TrainingPosition {
  std::int64_t step = 0;
  // Of those, the steps whose update loss scaling skipped (Mixed<f16>: an Inf or a NaN in the
  // gradients). The optimizer counts only the others, as PyTorch's does behind GradScaler.
  std::int64_t skipped = 0;
  std::int64_t epoch = 0;
  std::int64_t batch = 0;
  std::uint64_t seed = 0;
  std::optional<EpochTotals> so_far = EpochTotals{};
};

// The backend's state as a checkpoint keeps it, read once for both the check and the save: the
// parameters, each optimizer moment, the running statistics, and the loss scaler's state where
// there is one.
struct StateSnapshot {
  std::vector<float> parameters;
  std::vector<std::vector<float>> moments;
  std::vector<float> statistics;
  std::optional<kernels::LossScaleState> loss_scale;
};
StateSnapshot read_training_state(const ModelInfo& model, Backend& backend);

// The first NaN or infinity in the state, as "NaN at element 17 of 3.weight" under the name the
// checkpoint gives the tensor, or none.
std::optional<std::string> first_non_finite_state(const ModelInfo& model,
                                                  const StateSnapshot& state);

// The training data a run stands in: its files (absolute, links resolved, joined by " + ") and how
// many samples it holds.
// A checkpoint keeps both ("data", "data_samples"), because its position in the data order means
// nothing in another data set.
struct TrainingDataIdentity {
  std::string source;
  std::int64_t samples = 0;
};

// `backend` is the backend's arithmetic() ("CPU, 2 threads, OpenBLAS"), kept as "backend": what a
// run resumed bit for bit must compute on.
void save_training_checkpoint(const std::filesystem::path& file, const ModelInfo& model,
                              const StateSnapshot& state, const TrainingPosition& position,
                              const TrainingSettings& settings, const TrainingDataIdentity& data,
                              const std::string& backend);

struct ResumedTraining {
  TrainingPosition position;
  std::optional<TrainingSettings> settings;  // none in checkpoints written before they were kept
  std::optional<TrainingDataIdentity> data;  // likewise
  std::optional<std::string> backend;        // likewise
};

// Restores parameters and optimizer state into the backend and returns where training stands,
// and with which settings. Throws CheckpointMismatch (every tensor that is missing or has the
// wrong shape), FormatError, IoError.
ResumedTraining load_training_checkpoint(const std::filesystem::path& file, const ModelInfo& model,
                                         Backend& backend);

// A run resumed inside an epoch continues its data order, which means nothing in a data set of
// another size: throws TrainingSetupError, naming both data sets, if `now` holds another number of
// samples than `saved`, the data `checkpoint` was written on.
void require_same_size(const std::filesystem::path& checkpoint, const TrainingPosition& position,
                       const TrainingDataIdentity& saved, const TrainingDataIdentity& now);

}  // namespace staticnet::runtime
