#pragma once
// Private to the trainer: the files a run writes besides its report, the checkpoint (--save) and
// the metrics (--metrics), and what a run must not overwrite there.
#include <filesystem>
#include <fstream>

#include "staticnet/runtime/trainer/model_info.hpp"
#include "staticnet/runtime/trainer/train.hpp"

namespace staticnet::runtime {

// A run's first save would replace the file --save names: another run's checkpoint, or a file
// named there by mistake. Throws UsageError, saying what the file holds and how to go on, unless
// --overwrite is given or the file is the checkpoint the run resumes.
void require_new_save_target(const TrainOptions& options);

// A new run writes its metrics file from its first epoch on, and would lose an earlier run's lines
// there: throws UsageError unless the run resumes (it appends) or --overwrite is given.
void require_new_metrics_target(const TrainOptions& options);

// One JSON object per epoch, a line each, flushed as it is written. Nothing for an empty path.
// Throws IoError where the file cannot be opened or written (a full disk).
class MetricsFile {
 public:
  MetricsFile(const std::filesystem::path& path, bool append);
  void write(const ModelInfo& model, const EpochMetrics& m);

 private:
  std::filesystem::path path_;
  std::ofstream file_;
};

}  // namespace staticnet::runtime
