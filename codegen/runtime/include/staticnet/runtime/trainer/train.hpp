#pragma once
// The training loop every generated trainer runs: read a data set in the plan's batch, train for
// some epochs on a Backend, evaluate, report, save and resume.
//
//  * Data: any format open_dataset reads, or "synthetic:N" (a learnable data set of N samples in
//    the model's input shape, generated, so a demo needs no download). Sample shapes are checked
//    against the model's input and class labels against its output before the first step.
//  * Each epoch is floor(size / batch) batches in a shuffled order that depends only on (seed,
//    epoch); the samples left over land in other batches in other epochs.
//  * Evaluation covers every sample of the eval set: the last, partial batch is completed with
//    samples from its start, which are computed and not counted.
//  * A non-finite loss stops training at once with the step's number; nothing is saved after it,
//    so the last checkpoint is the last good state.
//  * Checkpoints (--save) are written atomically after every epoch and when training is
//    interrupted (SIGINT/SIGTERM, after the running step); --resume continues from one bit for
//    bit (same thread count), in mid-epoch if that is where it was written, with the optimizer's
//    settings and learning-rate schedule the checkpoint keeps unless the options replace them.
//  * The learning rate may change from epoch to epoch (lr_schedule.hpp).
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "staticnet/kernels/optimizers.hpp"
#include "staticnet/runtime/batches/augment.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"
#include "staticnet/runtime/trainer/backend.hpp"
#include "staticnet/runtime/trainer/lr_schedule.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

enum class ProgressMode { automatic, bar, lines, none };

// The optimizer's settings as the user chose them (the trainers' --lr, --momentum,
// --weight-decay, --beta1, --beta2, --eps and --lr-schedule). Those left empty are PyTorch's
// defaults (default_optimizer_settings, a constant rate), or on --resume the checkpoint's, so a
// resumed run goes on as it was started, as PyTorch's optimizer and scheduler state_dicts do.
struct OptimizerChoices {
  std::optional<double> learning_rate, momentum, weight_decay, beta1, beta2, epsilon;
  std::optional<LrSchedule> lr_schedule;
};

struct TrainOptions {
  std::vector<std::string> data;  // data file(s), or {"synthetic:N"}
  std::vector<std::string> eval;  // empty: no evaluation
  DatasetFormat format = DatasetFormat::automatic;
  std::string label_column;  // CSV: the label's column, a 0-based index or a header name (last)
  char csv_delimiter = ',';
  CsvHeader csv_header = CsvHeader::detect;  // CSV: whether the first line names the columns
  Cifar100Labels cifar100_labels = Cifar100Labels::fine;  // CIFAR-100: 100 fine or 20 coarse
  std::int64_t epochs = 1;
  std::optional<std::int64_t> max_steps;  // stop (and save) after this many steps in total
  OptimizerChoices optimizer;             // empty: the checkpoint's, or PyTorch's defaults
  std::uint64_t seed = 0;                 // initial weights and the data order
  bool no_shuffle = false;     // every epoch in the data's own order (the checkpoint's, on resume)
  int workers = 1;             // data loader threads
  std::optional<float> scale;  // input scale; default 1/255 for u8 data, else 1
  std::vector<float> mean, stddev;  // per channel (or one for all), after scaling
  Augmentation augmentation;
  std::filesystem::path init;    // parameters to start from (any safetensors with our names)
  std::filesystem::path resume;  // a checkpoint to continue
  std::filesystem::path save;    // where checkpoints go
  // --save and --metrics may replace files there (else only the --resume checkpoint, and a
  // resumed run appends to its metrics)
  bool overwrite = false;
  std::filesystem::path metrics;  // JSON Lines, one object per epoch
  ProgressMode progress = ProgressMode::automatic;
  // The process's anonymous resident bytes before the backend set up (trainer_main measures
  // them): the run then reports how its host memory grew against the plan's.
  std::optional<std::int64_t> resident_before_setup;
};

// PyTorch's defaults where it has them: lr 0.01 for SGD and SGDMomentum (PyTorch requires one),
// 0.001 for Adam and AdamW; momentum 0.9; betas (0.9, 0.999); eps 1e-8; weight decay 0, and 0.01
// for AdamW.
kernels::OptimizerSettings default_optimizer_settings(kernels::Optimizer optimizer);

// The loss became NaN or infinite.
class NumericalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad options or data that do not fit the model (the message names both sides).
class TrainingSetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EpochMetrics {
  std::int64_t epoch = 0;  // 1-based
  std::int64_t step = 0;   // optimizer steps so far
  double learning_rate = 0;
  double train_loss = 0, train_accuracy = 0;
  std::int64_t train_samples = 0;  // the samples of the epoch the two are over
  std::optional<double> eval_loss, eval_accuracy;
  double samples_per_second = 0;
  // Under loss scaling (Mixed<f16>): the scale at the epoch's end, and the steps of the epoch
  // (this run's part of it, on resume) whose update was skipped for an Inf or a NaN.
  std::optional<double> loss_scale;
  std::int64_t skipped_steps = 0;
};

struct TrainResult {
  std::vector<EpochMetrics> epochs;  // the epochs this run finished
  std::int64_t steps = 0;            // optimizer steps in total (including resumed ones)
  bool interrupted = false;          // stopped by a signal; a checkpoint was saved if --save
  int signal = 0;                    // which: SIGINT or SIGTERM (the program exits 128 + it)
};

// Runs the loop. `out` gets the report (start-up, epochs), `progress` the progress display.
// Throws TrainingSetupError, NumericalError, and the runtime's FormatError, IoError,
// CheckpointMismatch and LoaderConfigError.
TrainResult train(const ModelInfo& model, Backend& backend, const TrainOptions& options,
                  std::ostream& out, std::ostream& progress);

}  // namespace staticnet::runtime
