#include "output_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {

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

MetricsFile::MetricsFile(const std::filesystem::path& path, bool append) : path_(path) {
  if (path.empty())
    return;
  errno = 0;
  file_.open(path, append ? std::ios::app : std::ios::trunc);
  if (!file_)  // the stream keeps no reason, but the open(2) under it left one in errno
    throw IoError(path.string() + ": cannot open for writing the metrics" +
                  (errno != 0 ? ": " + std::generic_category().message(errno) : std::string()));
}

void MetricsFile::write(const ModelInfo& model, const EpochMetrics& m) {
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
  if (m.loss_scale) {
    line["loss_scale"] = *m.loss_scale;
    line["skipped_steps"] = m.skipped_steps;
  }
  if (m.eval_loss) {
    line["eval_loss"] = *m.eval_loss;
    if (model.classifies())
      line["eval_accuracy"] = *m.eval_accuracy;
  }
  file_ << line.dump() << '\n' << std::flush;
  if (!file_)
    throw IoError(path_.string() + ": writing the metrics failed (disk full?)");
}

}  // namespace staticnet::runtime
