#pragma once
// Private to the trainer: what a run says on its report stream. Where it starts (the model, the
// step, the data, the memory against the plan), where a resumed run stands, and a line per epoch.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/trainer/backend.hpp"
#include "staticnet/runtime/trainer/host_memory.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"
#include "staticnet/runtime/trainer/train.hpp"
#include "training_checkpoint.hpp"
#include "training_settings.hpp"

namespace staticnet::runtime {

// The start-up report: the model and its setup, the step's settings and kernels, the data and
// its batches, the input normalisation (`input_notes`, a line each), where the weights come from,
// and the memory, planned and allocated (on the device and in host memory: `host`).
void report_start(std::ostream& out, const ModelInfo& model, const Backend& backend,
                  const TrainOptions& options, const TrainingSettings& settings,
                  const Dataset& data, const Dataset* eval, std::uint64_t batches_per_epoch,
                  const HostMemory& host, const std::string& weights,
                  const std::vector<std::string>& input_notes);

// Where a resumed run stands, and with which settings: the checkpoint's, but for those the
// options replaced (`replaced`, one line each); whether it trains on other data; and whether it
// computes on another backend (`saved_backend`, the run's; `backend`, this one's), whose sums
// round in another order.
void report_resume(std::ostream& out, const std::filesystem::path& checkpoint,
                   const TrainingPosition& position, const std::optional<TrainingSettings>& saved,
                   const TrainingSettings& settings, const std::vector<std::string>& replaced,
                   const std::optional<TrainingDataIdentity>& saved_data,
                   const TrainingDataIdentity& data,
                   const std::optional<std::string>& saved_backend, const std::string& backend);

// "loss 0.6931, accuracy 54.2%" (a regression's: the loss alone).
std::string loss_text(const ModelInfo& model, double loss, double accuracy);

// "epoch 3/10: loss 0.1234, accuracy 97.5% | eval ...", with the epoch's learning rate first
// when it changes from epoch to epoch (`scheduled`). An epoch a stop cut short (not `whole`) is
// "epoch 3/10 so far: ...", so that a log read for "epoch 3/10:" finds each epoch once, whole, in
// the run that finished it.
std::string epoch_line(const ModelInfo& model, const EpochMetrics& m, std::int64_t epochs,
                       bool scheduled, bool whole = true);

// The epoch so far, after the progress bar, as the epoch's line will say it; empty before the
// first batch.
std::string running_note(const ModelInfo& model, const EpochTotals& totals);

}  // namespace staticnet::runtime
