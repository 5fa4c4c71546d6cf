#include "training_settings.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "../number_text.hpp"
#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {
namespace {

// One number setting: its checkpoint entry, its command-line option, where it is kept, and its
// values: positive, or in [0, 1] (the command line's limits).
struct NumberSetting {
  const char* entry;
  const char* option;
  double kernels::OptimizerSettings::*field;
  std::optional<double> OptimizerChoices::*chosen;
  bool positive;

  bool allows(double x) const { return positive ? std::isfinite(x) && x > 0 : x >= 0 && x <= 1; }
  const char* values() const { return positive ? "a positive number" : "a number in [0, 1]"; }
};

constexpr NumberSetting number_settings[] = {
    {"learning_rate", "--lr", &kernels::OptimizerSettings::learning_rate,
     &OptimizerChoices::learning_rate, true},
    {"momentum", "--momentum", &kernels::OptimizerSettings::momentum, &OptimizerChoices::momentum,
     false},
    {"weight_decay", "--weight-decay", &kernels::OptimizerSettings::weight_decay,
     &OptimizerChoices::weight_decay, false},
    {"beta1", "--beta1", &kernels::OptimizerSettings::beta1, &OptimizerChoices::beta1, false},
    {"beta2", "--beta2", &kernels::OptimizerSettings::beta2, &OptimizerChoices::beta2, false},
    {"epsilon", "--eps", &kernels::OptimizerSettings::epsilon, &OptimizerChoices::epsilon, true},
};

constexpr const char* schedule_entry = "lr_schedule";
constexpr const char* shuffle_entry = "shuffle";

const std::string& entry(const std::map<std::string, std::string>& metadata, const char* key,
                         const std::string& source) {
  const auto it = metadata.find(key);
  if (it == metadata.end())
    throw FormatError({source, {}, {}, {}}, fmt::format("the metadata entry '{}'", key),
                      "none (the optimizer's other settings are there)");
  return it->second;
}

}  // namespace

std::map<std::string, std::string> settings_metadata(const TrainingSettings& settings) {
  std::map<std::string, std::string> metadata;
  for (const NumberSetting& s : number_settings)
    metadata[s.entry] = round_trip_text(settings.optimizer.*s.field);
  metadata[schedule_entry] = settings.lr_schedule.text();
  metadata[shuffle_entry] = settings.shuffle ? "true" : "false";
  metadata.merge(normalization_metadata(settings.input));
  return metadata;
}

std::optional<TrainingSettings> saved_settings(const std::map<std::string, std::string>& metadata,
                                               const std::string& source) {
  if (!metadata.contains(schedule_entry))
    return std::nullopt;
  TrainingSettings saved;
  for (const NumberSetting& s : number_settings) {
    const std::string& text = entry(metadata, s.entry, source);
    const std::optional<double> value = whole_number<double>(text);
    if (!value || !s.allows(*value))
      throw FormatError({source, {}, {}, {}},
                        fmt::format("{} in the metadata entry '{}'", s.values(), s.entry),
                        "'" + text + "'");
    saved.optimizer.*s.field = *value;
  }
  const std::string& schedule = entry(metadata, schedule_entry, source);
  try {
    saved.lr_schedule = LrSchedule::parse(schedule);
  } catch (const std::invalid_argument& e) {
    throw FormatError(
        {source, {}, {}, {}},
        fmt::format("a learning-rate schedule in the metadata entry '{}'", schedule_entry),
        "'" + schedule + "' (" + e.what() + ")");
  }
  if (const auto shuffle = metadata.find(shuffle_entry); shuffle != metadata.end()) {
    if (shuffle->second != "true" && shuffle->second != "false")
      throw FormatError({source, {}, {}, {}},
                        fmt::format("true or false in the metadata entry '{}'", shuffle_entry),
                        "'" + shuffle->second + "'");
    saved.shuffle = shuffle->second == "true";
  }
  saved.input = saved_normalization(metadata, source);
  return saved;
}

TrainingSettings resolve_settings(const OptimizerChoices& chosen, bool no_shuffle,
                                  kernels::Optimizer optimizer,
                                  const std::optional<TrainingSettings>& saved,
                                  std::vector<std::string>& replaced) {
  TrainingSettings settings =
      saved.value_or(TrainingSettings{default_optimizer_settings(optimizer), {}, true, {}});
  for (const NumberSetting& s : number_settings) {
    const std::optional<double>& choice = chosen.*s.chosen;
    if (!choice)
      continue;
    if (saved && saved->optimizer.*s.field != *choice)
      replaced.push_back(fmt::format("{} {} replaces the checkpoint's {}", s.option,
                                     round_trip_text(*choice),
                                     round_trip_text(saved->optimizer.*s.field)));
    settings.optimizer.*s.field = *choice;
  }
  if (chosen.lr_schedule) {
    if (saved && saved->lr_schedule != *chosen.lr_schedule)
      replaced.push_back(fmt::format("--lr-schedule {} replaces the checkpoint's {}",
                                     chosen.lr_schedule->text(), saved->lr_schedule.text()));
    settings.lr_schedule = *chosen.lr_schedule;
  }
  if (no_shuffle) {
    if (saved && saved->shuffle)
      replaced.push_back("--no-shuffle replaces the checkpoint's shuffled order");
    settings.shuffle = false;
  }
  return settings;
}

}  // namespace staticnet::runtime
