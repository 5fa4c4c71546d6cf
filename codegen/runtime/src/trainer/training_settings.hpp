#pragma once
// Private to the trainer: the optimizer's settings, the learning rate's schedule, the data order
// and the input normalisation a run trains with, where they come from (the command line, else the
// checkpoint resumed, else PyTorch's defaults), and how a checkpoint keeps them (metadata entries,
// numbers written so that they read back as the same doubles).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/kernels/optimizers.hpp"
#include "staticnet/runtime/checkpoints/input_normalization.hpp"
#include "staticnet/runtime/trainer/lr_schedule.hpp"
#include "staticnet/runtime/trainer/train.hpp"

namespace staticnet::runtime {

struct TrainingSettings {
  kernels::OptimizerSettings optimizer;  // learning_rate is the first epoch's
  LrSchedule lr_schedule;
  bool shuffle = true;       // false: every epoch in the data's own order (--no-shuffle)
  InputNormalization input;  // --scale, --mean, --std
};

// The checkpoint metadata entries: "learning_rate", "momentum", "weight_decay", "beta1",
// "beta2", "epsilon", "lr_schedule", "shuffle" (absent, as older checkpoints have it: true) and
// the input normalisation's (input_normalization.hpp).
std::map<std::string, std::string> settings_metadata(const TrainingSettings& settings);

// Read back from a checkpoint's metadata; nothing for a checkpoint written before staticnet kept
// them (it has no "lr_schedule"). Throws FormatError, naming `source` and the entry, for a value
// that does not read.
std::optional<TrainingSettings> saved_settings(const std::map<std::string, std::string>& metadata,
                                               const std::string& source);

// What the run trains with: each setting the user chose, else the checkpoint's (`saved`), else
// PyTorch's default for `optimizer` (and a shuffled order). `replaced` gets a line for each chosen
// setting that differs from the saved one, "--lr 0.01 replaces the checkpoint's 0.001". The input
// normalisation is the checkpoint's as saved: the caller resolves it (resolve_normalization).
TrainingSettings resolve_settings(const OptimizerChoices& chosen, bool no_shuffle,
                                  kernels::Optimizer optimizer,
                                  const std::optional<TrainingSettings>& saved,
                                  std::vector<std::string>& replaced);

}  // namespace staticnet::runtime
