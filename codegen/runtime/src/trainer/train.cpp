#include "staticnet/runtime/trainer/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>
#include <ostream>

#include "output_files.hpp"
#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/finite_values.hpp"
#include "staticnet/runtime/tools/progress.hpp"
#include "staticnet/runtime/trainer/host_memory.hpp"
#include "staticnet/runtime/trainer/initialize.hpp"
#include "staticnet/runtime/validation.hpp"
#include "training_checkpoint.hpp"
#include "training_data.hpp"
#include "training_report.hpp"
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
  c.slots = model.host.batch_slot_count;  // the plan's (BatchSlots<N>)
  return c;
}

// The trainer's host memory, part by part: the plan's (ModelInfo::host, the arena where the
// backend keeps it in host memory), and the run's own once the data are open.
HostMemory host_memory_of(const ModelInfo& model, const Backend& backend, const BatchLoader& loader,
                          const Dataset& train_set, const Dataset* eval_set) {
  const MemoryReport memory = backend.memory();
  const std::int64_t slots =
      static_cast<std::int64_t>(loader.config().slots * loader.layout().slot_bytes());
  HostMemory h;
  h.arena = memory.host_arena;
  h.batch_slots = slots;
  h.pinned_staging = memory.pinned_staging;
  h.checkpoint_state = model.host.checkpoint_state;
  h.data_set = train_set.memory_bytes() + (eval_set ? eval_set->memory_bytes() : 0);
  h.loader_extra = static_cast<std::int64_t>(loader.host_bytes()) - slots;
  return h;
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

// A new run's weights, written into the backend: the --init file's (`init_file`), else PyTorch's
// default initialisation. Returns where they come from, for the start-up report.
std::string write_starting_weights(const ModelInfo& model, Backend& backend,
                                   const TrainOptions& options,
                                   const std::optional<SafetensorsReader>& init_file) {
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
  std::string weights;
  if (init_file) {
    const LoadedParameters loaded = load_parameters(model, *init_file, parameters, statistics);
    const std::string load = describe(loaded.tensors);
    weights =
        fmt::format("from {} (--init){}{}", options.init.string(), load.empty() ? "" : ", " + load,
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
  return weights;
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
    // A synthetic evaluation set of the training set's seed holds the samples after the training
    // set's, so it is held out (one of another seed has other class means: report_start says so).
    const auto train_spec = parse_synthetic(options.data.front());
    const auto eval_spec = parse_synthetic(options.eval.front());
    const bool same_seed = train_spec && eval_spec && train_spec->seed == eval_spec->seed;
    eval_set = open_training_data(model, options.eval, options.format, "--eval",
                                  same_seed ? train_spec->size : 0, options);
  }
  if (train_set->size() < model.batch)
    throw TrainingSetupError(fmt::format(
        "{} has {} samples, fewer than one batch of {} (the batch the model was planned for)",
        train_set->source(), train_set->size(), model.batch));

  // ---- starting state
  TrainingPosition position;
  position.seed = options.seed;
  std::optional<TrainingSettings> saved;
  const TrainingDataIdentity data{data_identity(options.data), train_set->size()};
  std::optional<TrainingDataIdentity> saved_data;
  std::optional<std::string> saved_backend;
  std::string weights;  // where a new run's weights come from, for the start-up report
  // The --init file: its tensors, and the input normalisation its metadata keeps.
  const std::optional<SafetensorsReader> init_file =
      options.init.empty() ? std::nullopt : std::optional(SafetensorsReader::open(options.init));
  if (!options.resume.empty()) {
    ResumedTraining resumed = load_training_checkpoint(options.resume, model, backend);
    position = resumed.position;
    saved = std::move(resumed.settings);
    saved_data = std::move(resumed.data);
    saved_backend = std::move(resumed.backend);
    if (saved_data)
      require_same_size(options.resume, position, *saved_data, data);
  } else {
    weights = write_starting_weights(model, backend, options, init_file);
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
  const HostMemory host = host_memory_of(model, backend, loader, *train_set, eval_set.get());
  report_start(out, model, backend, options, settings, *train_set, eval_set.get(),
               static_cast<std::uint64_t>(batches), host, weights, input_notes);
  if (!options.resume.empty())
    report_resume(out, options.resume, position, saved, settings, replaced, saved_data, data,
                  saved_backend, backend.arithmetic());

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
      save_training_checkpoint(options.save, model, state, position, settings, data,
                               backend.arithmetic());
  };

  // The host memory grown since before the backend set up, the most seen where an epoch ends
  // (everything planned is held there: the arena or staging, the loader, the state's copy).
  std::optional<std::int64_t> host_grown;
  std::int64_t host_grown_epoch = 0;
  auto measure_host = [&](std::int64_t epoch) {
    const std::optional<std::int64_t> now = anonymous_resident_bytes();
    if (!options.resident_before_setup || !now)
      return;
    const std::int64_t grown = *now - *options.resident_before_setup;
    if (!host_grown || grown > *host_grown) {
      host_grown = grown;
      host_grown_epoch = epoch;
    }
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
    std::int64_t skipped_in_epoch = 0;  // by loss scaling, in this run's part of the epoch
    // The next batch is prepared while the step runs (a GPU backend returns from train_step at
    // once): the step's labels are kept for its accuracy, and the loader writes the batch after.
    bool staged = false;
    while (position.batch < batches) {
      if (!staged)
        next_batch(loader, backend, model);
      step_labels.assign(backend.batch_labels().begin(), backend.batch_labels().end());
      // The optimizer's own count (Adam's bias correction) leaves out the steps loss scaling
      // skipped, as PyTorch's optimizer, which GradScaler does not call then, does.
      kernels::OptimizerConstants constants = kernels::optimizer_constants(
          model.optimizer, epoch_settings, position.step - position.skipped + 1);
      constants.seed =
          position.seed;  // Dropout's masks: (seed, step) gives the same bits on resume
      backend.train_step(constants);
      if (const std::optional<kernels::LossScaleState> scaler = backend.loss_scale();
          scaler && scaler->found_inf != 0.0f) {
        ++position.skipped;
        ++skipped_in_epoch;
      }
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
    if (const std::optional<kernels::LossScaleState> scaler = backend.loss_scale()) {
      m.loss_scale = scaler->scale;
      m.skipped_steps = skipped_in_epoch;
    }
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
    measure_host(epoch + 1);
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
  if (host_grown)
    out << describe_host_measurement(host, *host_grown, host_grown_epoch) << std::flush;
  result.steps = position.step;
  return result;
}

}  // namespace staticnet::runtime
