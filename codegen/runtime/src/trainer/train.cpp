#include "staticnet/runtime/trainer/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "staticnet/print.hpp"
#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/finite_values.hpp"
#include "staticnet/runtime/tools/progress.hpp"
#include "staticnet/runtime/trainer/initialize.hpp"
#include "staticnet/runtime/validation.hpp"
#include "training_checkpoint.hpp"
#include "training_data.hpp"
#include "training_settings.hpp"

namespace staticnet::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// ---- interruption: SIGINT and SIGTERM finish the running step, then save and stop ---------

std::atomic<int> stop_signal{0};
extern "C" void on_stop_signal(int signal) {
  stop_signal.store(signal);
}

class StopSignals {
 public:
  StopSignals() {
    stop_signal.store(0);
    previous_int_ = std::signal(SIGINT, on_stop_signal);
    previous_term_ = std::signal(SIGTERM, on_stop_signal);
  }
  ~StopSignals() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  bool raised() const { return stop_signal.load() != 0; }
  int which() const { return stop_signal.load(); }

 private:
  void (*previous_int_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
};

// ---- reporting ------------------------------------------------------------------------------

// "21,747,200 B (20.74 MiB)": the printer the core and the analyzer use.
std::string mib_text(std::int64_t n) {
  return to_string(Bytes{n});
}

// "synthetic(seed 0)", "train.npy, labels.npy (npy)"
std::string described(const Dataset& data) {
  const std::string source = data.source();
  if (source.rfind(data.format_name(), 0) == 0)
    return source;
  return source + " (" + data.format_name() + ")";
}

// "lr 0.001", "lr 0.001, x0.99 after every epoch"
std::string learning_rate_text(const TrainingSettings& settings) {
  std::string text = fmt::format("lr {}", settings.optimizer.learning_rate);
  if (!settings.lr_schedule.is_constant())
    text += ", " + settings.lr_schedule.description();
  return text;
}

void report_start(std::ostream& out, const ModelInfo& model, const Backend& backend,
                  const TrainOptions& options, const TrainingSettings& settings,
                  const Dataset& data, const Dataset* eval, std::uint64_t batches_per_epoch,
                  std::size_t loader_bytes, const std::string& weights,
                  const std::vector<std::string>& input_notes) {
  out << model.name << ": " << model.model_type << " trained as " << model.setup_type << "\n";
  out << fmt::format("  step     batch {}, {}, {} ({}), FP32; {}\n", model.batch,
                     model.classifies() ? "CrossEntropy" : "MSE", optimizer_name(model.optimizer),
                     learning_rate_text(settings), backend.description());
  std::string details = backend.details();
  for (std::size_t start = 0; start < details.size();) {
    const std::size_t end = std::min(details.find('\n', start), details.size());
    out << (start == 0 ? "  kernels  " : "           ") << details.substr(start, end - start)
        << "\n";
    start = end + 1;
  }
  const std::int64_t left_out =
      data.size() - static_cast<std::int64_t>(batches_per_epoch) * model.batch;
  out << fmt::format("  data     {}, {} samples of {}; {} batch{} per epoch{}", described(data),
                     data.size(), shape_to_string(data.sample_shape()), batches_per_epoch,
                     batches_per_epoch == 1 ? "" : "es",
                     settings.shuffle ? "" : ", in the data's own order");
  if (left_out > 0)
    out << (settings.shuffle ? fmt::format(" ({} samples wait for later epochs)", left_out)
                             : fmt::format(" (the last {} samples are never used)", left_out));
  out << "\n";
  out << "  inputs   " << describe(settings.input, data.element_type()) << "\n";
  for (const std::string& note : input_notes)
    out << "           " << note << "\n";
  if (eval)
    out << fmt::format("  eval     {}, {} samples\n", described(*eval), eval->size());
  if (!weights.empty())
    out << "  weights  " << weights << "\n";
  const MemoryReport memory = backend.memory();
  out << "  memory   planned " << mib_text(memory.planned) << " = weights "
      << grouped(model.arena.weights)
      << (model.arena.non_trainable > 0
              ? " + running statistics " + grouped(model.arena.non_trainable)
              : std::string())
      << " + gradients " << grouped(model.arena.gradients)
      << "\n                   + optimizer state " << grouped(model.arena.optimizer_state)
      << " + inputs " << grouped(model.arena.inputs)
      << (model.arena.next_batch_at >= 0
              ? " (this batch and the next: Prefetch)\n                  "
              : "")
      << " + workspace " << grouped(model.arena.workspace) << " + activations "
      << grouped(model.arena.activations) << "\n";
  out << "           arena   " << mib_text(memory.arena) << ", " << memory.arena_where
      << (memory.arena == memory.planned ? ": the plan to the byte" : ": DIFFERS from the plan")
      << "\n";
  if (!memory.other.empty())
    out << "           also    " << memory.other << "\n";
  out << "           loader  " << mib_text(static_cast<std::int64_t>(loader_bytes))
      << " of host batch slots (" << options.workers
      << (options.workers == 1 ? " worker" : " workers") << ")\n";
  out << std::flush;
}

// The training data's files as a checkpoint keeps them: absolute, links resolved, so that the
// same files given another way are recognised ("synthetic:N" as given).
std::string data_identity(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& file : files) {
    if (!text.empty())
      text += " + ";
    std::error_code error;
    const std::filesystem::path path = std::filesystem::weakly_canonical(file, error);
    text += parse_synthetic(file) || error ? file : path.string();
  }
  return text;
}

// A run's first save would replace the file --save names: another run's checkpoint, or a file
// named there by mistake. Only the checkpoint the run resumes is replaced without --overwrite.
void require_new_save_target(const TrainOptions& options) {
  std::error_code error;
  if (options.overwrite || !std::filesystem::exists(options.save, error))
    return;
  if (!options.resume.empty() && std::filesystem::equivalent(options.save, options.resume, error))
    return;
  std::optional<SafetensorsReader> file;
  try {
    file = SafetensorsReader::open(options.save);  // an IoError (unreadable) goes on up
  } catch (const FormatError&) {
    // Not safetensors (data, notes): no checkpoint.
  }
  const bool staticnet_keys = file && std::ranges::any_of(file->metadata(), [](const auto& entry) {
                                return entry.first.starts_with(checkpoint_metadata_prefix);
                              });
  if (!staticnet_keys)  // a weights file at most: nothing to resume
    throw UsageError(fmt::format(
        "--save {} exists and is no training checkpoint, and this run would replace it: "
        "--overwrite replaces it, or --save can name another file",
        options.save.string()));
  std::optional<TrainingState> checkpoint;
  try {
    checkpoint = decode_training_state(file->metadata(), options.save.string());
  } catch (const FormatError& e) {
    throw UsageError(fmt::format(
        "--save {} holds a checkpoint this trainer cannot read ({}), and this run would replace "
        "it: --overwrite replaces it, or --save can name another file",
        options.save.string(), e.what()));
  }
  throw UsageError(fmt::format(
      "--save {} holds a checkpoint at step {} ({} epoch{} done), and this run would replace it: "
      "--resume {} continues that run, --overwrite replaces it, or --save can name another file",
      options.save.string(), checkpoint->step, checkpoint->epoch, checkpoint->epoch == 1 ? "" : "s",
      options.save.string()));
}

// A new run writes its metrics file from its first epoch on: an earlier run's lines there would
// be lost (a resumed run appends to them).
void require_new_metrics_target(const TrainOptions& options) {
  std::error_code error;
  if (options.overwrite || !options.resume.empty() ||
      !std::filesystem::is_regular_file(options.metrics, error) ||
      std::filesystem::file_size(options.metrics, error) == 0)
    return;
  throw UsageError(fmt::format(
      "--metrics {} holds an earlier run's metrics, and this run would replace them: --resume "
      "appends to them, --overwrite replaces them, or --metrics can name another file",
      options.metrics.string()));
}

// Inside an epoch, a resumed run continues the interrupted one's data order, a permutation of its
// data set: in a data set of another size it would be another order, with epochs of another
// length. Between epochs nothing of the order is left to continue, and the run may go on with
// more data or less (report_resume says so); other files of the same size may be the same data
// moved (report_resume notes them).
void require_same_size(const std::filesystem::path& checkpoint, const TrainingPosition& position,
                       const TrainingDataIdentity& saved, const TrainingDataIdentity& now) {
  if (saved.samples != now.samples && position.batch > 0)
    throw TrainingSetupError(fmt::format(
        "{}: the run stopped inside epoch {}, training on {} samples ({}), but {} holds {}: "
        "--resume continues an epoch on its own data, in its own order. Resume from a checkpoint "
        "written at the end of an epoch to go on with other data, or start a new run from these "
        "weights with --init {}",
        checkpoint.string(), position.epoch + 1, saved.samples, saved.source, now.source,
        now.samples, checkpoint.string()));
}

// Where a resumed run stands, and with which settings: the checkpoint's, but for those the
// options replaced (`replaced`, one line each).
void report_resume(std::ostream& out, const std::filesystem::path& checkpoint,
                   const TrainingPosition& position, const std::optional<TrainingSettings>& saved,
                   const TrainingSettings& settings, const std::vector<std::string>& replaced,
                   const std::optional<TrainingDataIdentity>& saved_data,
                   const TrainingDataIdentity& data) {
  out << fmt::format("resumed from {} at step {} (epoch {}, batch {})\n", checkpoint.string(),
                     position.step, position.epoch + 1, position.batch);
  if (saved_data && saved_data->samples != data.samples)
    out << fmt::format(
        "  the run was training on {} samples ({}); from epoch {} on it trains on the {} of {}\n",
        saved_data->samples, saved_data->source, position.epoch + 1, data.samples, data.source);
  else if (saved_data && saved_data->source != data.source)
    out << fmt::format("  the run was training on {}; this one reads {}, of as many samples\n",
                       saved_data->source, data.source);
  if (!saved) {
    out << "  the checkpoint keeps no optimizer settings (an older staticnet wrote it, and its "
           "six-decimal learning_rate entry is not read): the options given and PyTorch's "
           "defaults apply\n";
    return;
  }
  for (const std::string& line : replaced)
    out << "  " << line << "\n";
  // Under a schedule --lr is the first epoch's rate: say what a replacement does to this one.
  if (replaced.empty() || (settings.lr_schedule.is_constant() && saved->lr_schedule.is_constant()))
    return;
  const double now = settings.lr_schedule.at(settings.optimizer.learning_rate, position.epoch);
  const double was = saved->lr_schedule.at(saved->optimizer.learning_rate, position.epoch);
  if (now == was)
    out << fmt::format("  this epoch's rate stays {:.6g}\n", now);
  else
    out << fmt::format("  this epoch's rate: {:.6g} (the checkpoint's settings give {:.6g})\n", now,
                       was);
}

// "loss 0.6931, accuracy 54.2%" (a regression's: the loss alone).
std::string loss_text(const ModelInfo& model, double loss, double accuracy) {
  std::string text = fmt::format("loss {:.4f}", loss);
  if (model.classifies())
    text += fmt::format(", accuracy {:.1f}%", 100.0 * accuracy);
  return text;
}

// "epoch 3/10: loss 0.1234, accuracy 97.5% | eval ...", with the epoch's learning rate first
// when it changes from epoch to epoch ("epoch 3/10: lr 0.00098, loss ..."). An epoch a stop cut
// short is "epoch 3/10 so far: ...", so that a log read for "epoch 3/10:" finds each epoch once,
// whole, in the run that finished it.
std::string epoch_line(const ModelInfo& model, const EpochMetrics& m, std::int64_t epochs,
                       bool scheduled, bool whole = true) {
  std::string line = fmt::format("epoch {}/{}{}: ", m.epoch, epochs, whole ? "" : " so far");
  if (scheduled)
    line += fmt::format("lr {:.6g}, ", m.learning_rate);
  line += loss_text(model, m.train_loss, m.train_accuracy);
  if (m.eval_loss)
    line += " | eval " + loss_text(model, *m.eval_loss, m.eval_accuracy.value_or(0));
  line += fmt::format(" | {:.0f} samples/s", m.samples_per_second);
  return line;
}

class MetricsFile {
 public:
  MetricsFile(const std::filesystem::path& path, bool append) : path_(path) {
    if (path.empty())
      return;
    errno = 0;
    file_.open(path, append ? std::ios::app : std::ios::trunc);
    if (!file_)  // the stream keeps no reason, but the open(2) under it left one in errno
      throw IoError(path.string() + ": cannot open for writing the metrics" +
                    (errno != 0 ? ": " + std::generic_category().message(errno) : std::string()));
  }
  void write(const ModelInfo& model, const EpochMetrics& m) {
    if (path_.empty())
      return;
    nlohmann::json line{{"epoch", m.epoch},
                        {"step", m.step},
                        {"learning_rate", m.learning_rate},
                        {"train_loss", m.train_loss},
                        {"train_samples", m.train_samples},
                        {"samples_per_second", m.samples_per_second}};
    if (model.classifies())
      line["train_accuracy"] = m.train_accuracy;
    if (m.eval_loss) {
      line["eval_loss"] = *m.eval_loss;
      if (model.classifies())
        line["eval_accuracy"] = *m.eval_accuracy;
    }
    file_ << line.dump() << '\n' << std::flush;
    if (!file_)
      throw IoError(path_.string() + ": writing the metrics failed (disk full?)");
  }

 private:
  std::filesystem::path path_;
  std::ofstream file_;
};

// ---- the loop's pieces ----------------------------------------------------------------------

LoaderConfig loader_config(const ModelInfo& model, const Dataset& data, const TrainOptions& options,
                           const TrainingSettings& settings, std::uint64_t seed) {
  LoaderConfig c;
  c.batch_size = model.batch;
  c.sample_shape = model.sample_shape;
  c.label_kind = model.classifies() ? LabelKind::class_index : LabelKind::regression;
  c.target_shape = model.target_shape;
  c.shuffle = settings.shuffle;
  c.seed = seed;
  c.normalization = normalization_for(settings.input, data.element_type());
  c.augmentation = options.augmentation;
  c.workers = options.workers;
  c.slots = 2;
  return c;
}

void next_batch(BatchLoader& loader, Backend& backend, const ModelInfo& model) {
  if (model.classifies())
    loader.next(backend.batch_inputs(), backend.batch_labels());
  else
    loader.next(backend.batch_inputs(), backend.batch_targets());
  backend.batch_ready();
}

// The weights can diverge behind finite losses: a ReLU passes a NaN on as 0, so a NaN weight
// before one need not reach the loss. Checked at the end of every epoch and before every save, so
// that no checkpoint holds one.
void require_finite_state(const ModelInfo& model, const StateSnapshot& state,
                          const TrainingPosition& position, const std::filesystem::path& save) {
  const std::optional<std::string> bad = first_non_finite_state(model, state);
  if (!bad)
    return;
  throw NumericalError(fmt::format(
      "after step {} the training state holds {}, although every loss was finite: the weights "
      "have diverged (a ReLU passes a NaN on as 0, so it need not reach the loss). Training "
      "stopped, nothing was saved after it{}. A lower --lr usually helps.",
      position.step, *bad, save.empty() ? "" : " (" + save.string() + " holds the last epoch)"));
}

// Sums of the per-sample losses and correct predictions of the first `rows` samples.
struct BatchTotals {
  double loss = 0;
  std::int64_t correct = 0;
  bool finite = true;
  std::int64_t first_bad = -1;
};
BatchTotals batch_totals(const ModelInfo& model, Backend& backend,
                         std::span<const std::int32_t> labels, std::int64_t rows) {
  BatchTotals t;
  const auto losses = backend.losses();
  for (std::int64_t i = 0; i < rows; ++i) {
    const float l = losses[static_cast<std::size_t>(i)];
    if (!std::isfinite(l) && t.finite) {
      t.finite = false;
      t.first_bad = i;
    }
    t.loss += l;
  }
  if (model.classifies()) {
    const auto predicted = backend.predictions();
    for (std::int64_t i = 0; i < rows; ++i)
      t.correct += predicted[static_cast<std::size_t>(i)] == labels[static_cast<std::size_t>(i)];
  }
  return t;
}

void add_batch(EpochTotals& totals, const BatchTotals& batch, std::int64_t samples) {
  totals.loss_sum += batch.loss;
  totals.correct += batch.correct;
  totals.samples += samples;
}

struct EvalResult {
  double loss = 0, accuracy = 0;
};

// Every sample of the eval set once: the last batch is completed from the start of the set
// (LastBatch::wrap) and only its first rows are counted.
EvalResult evaluate_all(const ModelInfo& model, Backend& backend, const Dataset& eval,
                        LoaderConfig config, std::int64_t epoch) {
  config.shuffle = false;
  config.last_batch = LastBatch::wrap;
  config.augmentation = {};
  BatchLoader loader(eval, config);
  const std::int64_t batches = static_cast<std::int64_t>(loader.batches_per_epoch());
  double loss = 0;
  std::int64_t correct = 0;
  std::vector<std::int32_t> labels;
  for (std::int64_t b = 0; b < batches; ++b) {
    next_batch(loader, backend, model);
    labels.assign(backend.batch_labels().begin(), backend.batch_labels().end());
    backend.evaluate();
    const std::int64_t rows = std::min(model.batch, eval.size() - b * model.batch);
    const BatchTotals t = batch_totals(model, backend, labels, rows);
    if (!t.finite)
      throw NumericalError(fmt::format(
          "the evaluation loss of sample {} of {} is {} after epoch {}: the weights have "
          "diverged",
          b * model.batch + t.first_bad, eval.source(),
          non_finite_name(backend.losses()[static_cast<std::size_t>(t.first_bad)]), epoch));
    loss += t.loss;
    correct += t.correct;
  }
  return {loss / static_cast<double>(eval.size()),
          static_cast<double>(correct) / static_cast<double>(eval.size())};
}

// The epoch so far, after the progress report, as the epoch's line will say it.
std::string running_note(const ModelInfo& model, const EpochTotals& totals) {
  if (totals.samples == 0)
    return {};
  const auto n = static_cast<double>(totals.samples);
  return loss_text(model, totals.loss_sum / n, static_cast<double>(totals.correct) / n);
}

bool show_bar(ProgressMode mode) {
  return mode == ProgressMode::bar ||
         (mode == ProgressMode::automatic && stream_is_terminal(stderr));
}

}  // namespace

kernels::OptimizerSettings default_optimizer_settings(kernels::Optimizer optimizer) {
  kernels::OptimizerSettings s;
  switch (optimizer) {
    case kernels::Optimizer::sgd:
    case kernels::Optimizer::sgd_momentum:
      s.learning_rate = 0.01;
      break;
    case kernels::Optimizer::adam:
      s.learning_rate = 0.001;
      break;
    case kernels::Optimizer::adamw:
      s.learning_rate = 0.001;
      s.weight_decay = 0.01;
      break;
  }
  return s;
}

TrainResult train(const ModelInfo& model, Backend& backend, const TrainOptions& options,
                  std::ostream& out, std::ostream& progress_out) {
  if (options.epochs < 1)
    throw TrainingSetupError("--epochs must be at least 1, got " + std::to_string(options.epochs));
  if (options.workers < 1)
    throw TrainingSetupError("--workers must be at least 1, got " +
                             std::to_string(options.workers));

  // A --save that cannot be written, or should not be, and a --metrics file that holds another
  // run's lines, are found now: not after the first epoch, nor after a scan of the data.
  if (!options.save.empty()) {
    check_writable_target(options.save);
    require_new_save_target(options);
  }
  if (!options.metrics.empty())
    require_new_metrics_target(options);
  require_augmentation_fits(options.augmentation, model);

  // ---- data
  const auto train_set =
      open_training_data(model, options.data, options.format, "--data", 0, options);
  std::unique_ptr<Dataset> eval_set;
  if (!options.eval.empty()) {
    const std::int64_t after_training = parse_synthetic(options.data.front()).value_or(0);
    eval_set =
        open_training_data(model, options.eval, options.format, "--eval", after_training, options);
  }
  if (train_set->size() < model.batch)
    throw TrainingSetupError(fmt::format(
        "{} has {} samples, fewer than one batch of {} (the batch the model was planned for)",
        train_set->source(), train_set->size(), model.batch));

  // ---- starting state
  const auto count = static_cast<std::size_t>(model.parameter_count);
  TrainingPosition position;
  position.seed = options.seed;
  std::optional<TrainingSettings> saved;
  const TrainingDataIdentity data{data_identity(options.data), train_set->size()};
  std::optional<TrainingDataIdentity> saved_data;
  std::string weights;  // where a new run's weights come from, for the start-up report
  // The --init file: its tensors, and the input normalisation its metadata keeps.
  const std::optional<SafetensorsReader> init_file =
      options.init.empty() ? std::nullopt : std::optional(SafetensorsReader::open(options.init));
  if (!options.resume.empty()) {
    ResumedTraining resumed = load_training_checkpoint(options.resume, model, backend);
    position = resumed.position;
    saved = std::move(resumed.settings);
    saved_data = std::move(resumed.data);
    if (saved_data)
      require_same_size(options.resume, position, *saved_data, data);
  } else {
    std::vector<float> parameters(count);
    std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
    if (!options.init.empty()) {
      const LoadedParameters loaded = load_parameters(model, *init_file, parameters, statistics);
      const std::string load = describe(loaded.tensors);
      weights = fmt::format(
          "from {} (--init){}{}", options.init.string(), load.empty() ? "" : ", " + load,
          model.non_trainable_count == 0 ? ""
          : loaded.with_statistics       ? ", with its running statistics"
                                         : "; it has no running statistics: they start afresh");
    } else {
      initialize_parameters(model, options.seed, parameters);
      initialize_non_trainable(model, statistics);
      weights =
          fmt::format("PyTorch's default initialisation (U(±1/√fan_in)), seed {}", options.seed);
    }
    backend.write_state(StateBuffer::parameters, parameters);
    if (model.non_trainable_count > 0)
      backend.write_state(StateBuffer::non_trainable, statistics);
  }

  std::vector<std::string> replaced;
  TrainingSettings settings =
      resolve_settings(options.optimizer, options.no_shuffle, model.optimizer, saved, replaced);
  // Inside an epoch the checkpoint's order goes on: the data's own order would repeat some of the
  // epoch's samples and skip others.
  if (saved && saved->shuffle && !settings.shuffle && position.batch > 0)
    throw UsageError(fmt::format(
        "--no-shuffle: {} stands inside epoch {}, after batch {}, whose shuffled order must go on "
        "to its end. Finish that epoch first (--resume {} --save {} --epochs {}), then resume "
        "with --no-shuffle",
        options.resume.string(), position.epoch + 1, position.batch, options.resume.string(),
        options.resume.string(), position.epoch + 1));
  // The inputs as the checkpoint resumed, or the --init file, says they were in training, unless
  // given; the checkpoints this run writes name this run's data type.
  std::vector<std::string> input_notes;
  const InputNormalization kept =
      saved       ? saved->input
      : init_file ? saved_normalization(init_file->metadata(), options.init.string())
                  : InputNormalization{};
  const InputNormalization given{options.scale, options.mean, options.stddev, {}};
  settings.input = resolve_normalization(given, kept, input_notes);
  require_channel_counts(settings.input, given,
                         saved ? options.resume.string() : options.init.string(),
                         model.sample_shape);
  if (const auto note = default_scale_note(settings.input, train_set->element_type()))
    input_notes.push_back(*note);
  settings.input.element_type = train_set->element_type();

  LoaderConfig config = loader_config(model, *train_set, options, settings, position.seed);
  // Opened at the epoch's start, then moved to the checkpoint's batch once it is known to exist.
  BatchLoader loader(*train_set, config,
                     LoaderState{position.seed, static_cast<std::uint64_t>(position.epoch), 0});
  const auto batches = static_cast<std::int64_t>(loader.batches_per_epoch());
  if (position.batch >= batches)
    throw TrainingSetupError(fmt::format(
        "{}: the checkpoint stands at batch {} of epoch {}, but {} makes epochs of {} batches "
        "of {}: was the checkpoint written for another data set?",
        options.resume.string(), position.batch + 1, position.epoch + 1, train_set->source(),
        batches, model.batch));
  if (position.batch > 0)
    loader.seek(LoaderState{position.seed, static_cast<std::uint64_t>(position.epoch),
                            static_cast<std::uint64_t>(position.batch)});
  report_start(out, model, backend, options, settings, *train_set, eval_set.get(),
               static_cast<std::uint64_t>(batches), loader.host_bytes(), weights, input_notes);
  if (!options.resume.empty())
    report_resume(out, options.resume, position, saved, settings, replaced, saved_data, data);

  // A resumed run may have nothing left to do: it says so, and writes nothing (no checkpoint, no
  // metrics file).
  if (position.epoch >= options.epochs) {
    out << fmt::format(
        "the checkpoint has finished epoch {} already; nothing to do for --epochs {}\n",
        position.epoch, options.epochs);
    return TrainResult{{}, position.step, false};
  }
  if (options.max_steps && position.step >= *options.max_steps) {
    out << fmt::format("the checkpoint is at step {} already; nothing to do for --max-steps {}\n",
                       position.step, *options.max_steps);
    return TrainResult{{}, position.step, false};
  }
  MetricsFile metrics(options.metrics, !options.resume.empty());
  StopSignals signals;
  TrainResult result;
  // The state, read once where an epoch ends or the run stops: checked, then saved.
  auto checked_state = [&] {
    StateSnapshot state = read_training_state(model, backend);
    require_finite_state(model, state, position, options.save);
    return state;
  };
  auto save = [&](const StateSnapshot& state) {
    if (!options.save.empty())
      save_training_checkpoint(options.save, model, state, position, settings, data);
  };

  std::vector<std::int32_t> step_labels;
  step_labels.reserve(static_cast<std::size_t>(model.batch));
  const bool scheduled = !settings.lr_schedule.is_constant();
  while (position.epoch < options.epochs) {
    const std::int64_t epoch = position.epoch;
    kernels::OptimizerSettings epoch_settings = settings.optimizer;
    epoch_settings.learning_rate = settings.lr_schedule.at(settings.optimizer.learning_rate, epoch);
    std::optional<ProgressBar> bar;
    if (options.progress != ProgressMode::none) {
      ProgressOptions p;
      p.label = fmt::format("epoch {}/{}", epoch + 1, options.epochs);
      p.unit = "batches";
      p.total = static_cast<std::uint64_t>(batches);
      p.terminal = show_bar(options.progress);
      bar.emplace(progress_out, p);
    }
    // The epoch's sums go on from the checkpoint's when it keeps them (`position.so_far`); `here`
    // counts this run's batches: its throughput, and the epoch's line when they are all it has.
    EpochTotals here;
    const std::int64_t first_batch = position.batch;
    auto reported = [&]() -> const EpochTotals& {
      return position.so_far ? *position.so_far : here;
    };
    const auto started = Clock::now();
    bool stopped = false;
    // The next batch is prepared while the step runs (a GPU backend returns from train_step at
    // once): the step's labels are kept for its accuracy, and the loader writes the batch after.
    bool staged = false;
    while (position.batch < batches) {
      if (!staged)
        next_batch(loader, backend, model);
      step_labels.assign(backend.batch_labels().begin(), backend.batch_labels().end());
      kernels::OptimizerConstants constants =
          kernels::optimizer_constants(model.optimizer, epoch_settings, position.step + 1);
      constants.seed =
          position.seed;  // Dropout's masks: (seed, step) gives the same bits on resume
      backend.train_step(constants);
      staged = position.batch + 1 < batches && !signals.raised() &&
               !(options.max_steps && position.step + 1 >= *options.max_steps);
      if (staged)
        next_batch(loader, backend, model);
      const BatchTotals t = batch_totals(model, backend, step_labels, model.batch);
      if (!t.finite)
        throw NumericalError(fmt::format(
            "the loss is {} at step {} (epoch {}, batch {} of {}), first at sample {} of the "
            "batch: training stopped, nothing was saved after it{}. {}",
            non_finite_name(backend.losses()[static_cast<std::size_t>(t.first_bad)]),
            position.step + 1, epoch + 1, position.batch + 1, batches, t.first_bad,
            options.save.empty() ? "" : " (" + options.save.string() + " holds the last epoch)",
            scheduled ? fmt::format("A lower rate usually helps (this epoch's is {:.6g}, from "
                                    "--lr and --lr-schedule).",
                                    epoch_settings.learning_rate)
                      : fmt::format("A lower --lr (now {}) usually helps.",
                                    epoch_settings.learning_rate)));
      ++position.step;
      ++position.batch;
      add_batch(here, t, model.batch);
      if (position.so_far)
        add_batch(*position.so_far, t, model.batch);
      if (bar)
        bar->update(static_cast<std::uint64_t>(position.batch),
                    [&] { return running_note(model, reported()); });
      const bool limit = options.max_steps && position.step >= *options.max_steps;
      if (signals.raised() || limit) {
        stopped = true;
        break;
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    // Ends the redrawn line; in line mode the epoch's line below says it all.
    if (bar && show_bar(options.progress))
      bar->finish(running_note(model, reported()));
    const EpochTotals& totals = reported();
    const auto samples = static_cast<double>(totals.samples);
    EpochMetrics m;
    m.epoch = epoch + 1;
    m.step = position.step;
    m.learning_rate = epoch_settings.learning_rate;
    m.train_loss = totals.samples ? totals.loss_sum / samples : 0;
    m.train_accuracy = totals.samples ? static_cast<double>(totals.correct) / samples : 0;
    m.train_samples = totals.samples;
    m.samples_per_second = seconds > 0 ? static_cast<double>(here.samples) / seconds : 0;
    // A resumed epoch whose checkpoint kept no totals (an older staticnet's) reports its own
    // batches, and says so.
    const std::string only_since =
        position.so_far || first_batch == 0
            ? ""
            : fmt::format(" (batches {}-{} only: the checkpoint keeps no totals of the first {})",
                          first_batch + 1, position.batch, first_batch);
    const std::string why_stopped = signals.raised() ? " by a signal" : " (--max-steps)";
    const std::string saved_where =
        options.save.empty() ? "no --save, nothing saved" : "saved " + options.save.string();
    // Stopped on the epoch's last batch, the epoch is whole: it ends as every epoch does, so that
    // its checkpoint stands at the next epoch's start (a position the loader can resume from).
    if (stopped && position.batch < batches) {
      save(checked_state());
      result.signal = signals.which();  // read once: a signal may still arrive
      result.interrupted = result.signal != 0;
      out << fmt::format("stopped at step {} (epoch {}, batch {} of {}){}: {}\n", position.step,
                         epoch + 1, position.batch, batches, why_stopped, saved_where);
      out << epoch_line(model, m, options.epochs, scheduled, false) << only_since << "\n"
          << std::flush;
      break;
    }
    ++position.epoch;
    position.batch = 0;
    position.so_far = EpochTotals{};
    const StateSnapshot state = checked_state();
    if (eval_set) {
      const EvalResult e = evaluate_all(model, backend, *eval_set, config, epoch + 1);
      m.eval_loss = e.loss;
      m.eval_accuracy = e.accuracy;
    }
    out << epoch_line(model, m, options.epochs, scheduled) << only_since << "\n" << std::flush;
    save(state);  // first: a metrics file that cannot be written must not cost the epoch
    metrics.write(model, m);
    result.epochs.push_back(m);
    if (stopped) {
      result.signal = signals.which();
      result.interrupted = result.signal != 0;
      if (position.epoch < options.epochs)  // else the run has done what it was asked anyway
        out << fmt::format("stopped at step {}, the end of epoch {}{}: {}\n", position.step,
                           epoch + 1, why_stopped, saved_where)
            << std::flush;
      break;
    }
  }
  result.steps = position.step;
  return result;
}

}  // namespace staticnet::runtime
