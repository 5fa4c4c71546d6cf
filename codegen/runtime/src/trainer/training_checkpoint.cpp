#include "training_checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../number_text.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/finite_values.hpp"
#include "staticnet/runtime/trainer/train.hpp"  // TrainingSetupError

namespace staticnet::runtime {
namespace {

StateBuffer moment_buffer(int moment) {
  return moment == 0 ? StateBuffer::moment1 : StateBuffer::moment2;
}

std::string state_tensor_name(const ModelInfo& model, int moment, const ParameterTensor& p) {
  return optimizer_state_name(optimizer_key(model.optimizer), moment_name(model.optimizer, moment),
                              p.name);
}

// PyTorch's BatchNorm keeps the training steps it has seen beside its running statistics, an i64
// scalar per layer: here every layer has seen every step.
std::string batches_tracked_name(const ParameterTensor& running_mean) {
  const std::string suffix = ".running_mean";
  const std::string& n = running_mean.name;
  return n.substr(0, n.size() - suffix.size()) + ".num_batches_tracked";
}
bool is_running_mean(const ParameterTensor& t) {
  return t.name.ends_with(".running_mean");
}

std::span<const std::byte> bytes_of(const std::vector<float>& region, const ParameterTensor& p) {
  return std::as_bytes(
      std::span<const float>(region.data() + p.offset, static_cast<std::size_t>(p.elements())));
}

// "NaN at element 17 of 3.weight", for the first non-finite element of `tensors` in `region`,
// each named by `name_of`.
template <class NameOf>
std::optional<std::string> describe_non_finite(std::span<const ParameterTensor> tensors,
                                               std::span<const float> region, NameOf name_of) {
  const std::optional<NonFiniteValue> bad = first_non_finite(tensors, region);
  if (!bad)
    return std::nullopt;
  return non_finite_name(bad->value) + " at element " + std::to_string(bad->element) + " of " +
         name_of(*bad->tensor);
}

std::string own_name(const ParameterTensor& p) {
  return p.name;
}

constexpr const char* data_entry = "data";
constexpr const char* data_samples_entry = "data_samples";
constexpr const char* backend_entry = "backend";

// The data a checkpoint was written training on; none in checkpoints from before it was kept.
std::optional<TrainingDataIdentity> saved_data(const std::map<std::string, std::string>& metadata,
                                               const std::filesystem::path& file) {
  const auto source = metadata.find(data_entry);
  const auto samples = metadata.find(data_samples_entry);
  if (source == metadata.end() || samples == metadata.end())
    return std::nullopt;
  const std::string& text = samples->second;
  const std::optional<std::int64_t> count = whole_number<std::int64_t>(text);
  if (!count || *count < 1)
    throw FormatError({file.string(), {}, {}, {}},
                      fmt::format("a sample count in the metadata entry '{}'", data_samples_entry),
                      fmt::format("\"{}\"", text.substr(0, 40)));
  return TrainingDataIdentity{source->second, *count};
}

// The loss scaler (Mixed<f16>), as GradScaler's state_dict keeps it ("scale", "_growth_tracker"),
// and the steps it skipped.
constexpr const char* loss_scale_entry = "loss_scale";
constexpr const char* growth_tracker_entry = "loss_scale_growth_tracker";
constexpr const char* skipped_entry = "skipped_steps";

constexpr const char* loss_sum_entry = "epoch_loss_sum";
constexpr const char* correct_entry = "epoch_correct";
constexpr const char* samples_entry = "epoch_samples";

// The totals of the epoch a checkpoint stands in (`batch` batches into it), as `position` gets
// them; none in checkpoints from before they were kept.
std::optional<EpochTotals> saved_totals(const std::map<std::string, std::string>& metadata,
                                        const std::filesystem::path& file, std::int64_t batch,
                                        std::int64_t batch_size) {
  if (batch == 0)
    return EpochTotals{};
  const auto loss_sum = metadata.find(loss_sum_entry);
  const auto correct = metadata.find(correct_entry);
  const auto samples = metadata.find(samples_entry);
  const int present =
      (loss_sum != metadata.end()) + (correct != metadata.end()) + (samples != metadata.end());
  if (present == 0)
    return std::nullopt;
  if (present < 3)  // written together: one or two alone is a damaged file, not an older one
    throw FormatError({file.string(), {}, {}, {}},
                      fmt::format("the metadata entries '{}', '{}' and '{}' together",
                                  loss_sum_entry, correct_entry, samples_entry),
                      fmt::format("{} of them", present));
  const std::int64_t expected = batch * batch_size;
  auto refuse = [&](const char* entry, const std::string& wanted, const std::string& text) {
    throw FormatError({file.string(), {}, {}, {}},
                      fmt::format("{} in the metadata entry '{}'", wanted, entry),
                      fmt::format("\"{}\"", text.substr(0, 40)));
  };
  const std::optional<double> sum = whole_number<double>(loss_sum->second);
  if (!sum || !std::isfinite(*sum))
    refuse(loss_sum_entry, "a finite loss sum", loss_sum->second);
  const std::optional<std::int64_t> count = whole_number<std::int64_t>(samples->second);
  if (!count || *count != expected)
    refuse(samples_entry,
           fmt::format("{} samples ({} batch{} of {} into the epoch)", expected, batch,
                       batch == 1 ? "" : "es", batch_size),
           samples->second);
  const std::optional<std::int64_t> right = whole_number<std::int64_t>(correct->second);
  if (!right || *right < 0 || *right > expected)
    refuse(correct_entry, fmt::format("a count of correct predictions in [0, {}]", expected),
           correct->second);
  return EpochTotals{*sum, *right, *count};
}

// The loss scaler's state a checkpoint of a Mixed<f16> run keeps, and its count of skipped steps
// into `skipped`: a positive finite scale, a growth count and a skipped count in [0, step].
kernels::LossScaleState saved_loss_scale(const std::map<std::string, std::string>& metadata,
                                         const std::filesystem::path& file, std::int64_t step,
                                         std::int64_t& skipped) {
  auto entry = [&](const char* key, const std::string& wanted) -> const std::string& {
    const auto it = metadata.find(key);
    if (it == metadata.end())
      throw FormatError({file.string(), {}, {}, {}},
                        fmt::format("the metadata entry '{}' ({}): the model trains with loss "
                                    "scaling, and its checkpoints keep the scaler",
                                    key, wanted),
                        "none");
    return it->second;
  };
  auto refuse = [&](const char* key, const std::string& wanted, const std::string& text) {
    throw FormatError({file.string(), {}, {}, {}},
                      fmt::format("{} in the metadata entry '{}'", wanted, key),
                      fmt::format("\"{}\"", text.substr(0, 40)));
  };
  const std::string& scale_text = entry(loss_scale_entry, "the loss scale");
  const std::optional<double> scale = whole_number<double>(scale_text);
  if (!scale || !std::isfinite(*scale) || *scale <= 0 ||
      *scale > static_cast<double>(std::numeric_limits<float>::max()))
    refuse(loss_scale_entry, "a positive, finite loss scale", scale_text);
  const std::string& tracker_text = entry(growth_tracker_entry, "the clean steps since it grew");
  const std::optional<std::int64_t> tracker = whole_number<std::int64_t>(tracker_text);
  if (!tracker || *tracker < 0 || *tracker > std::numeric_limits<std::int32_t>::max())
    refuse(growth_tracker_entry, "a count of steps", tracker_text);
  const std::string& skipped_text = entry(skipped_entry, "the steps loss scaling skipped");
  const std::optional<std::int64_t> count = whole_number<std::int64_t>(skipped_text);
  if (!count || *count < 0 || *count > step)
    refuse(skipped_entry, fmt::format("a count of steps in [0, {}]", step), skipped_text);
  skipped = *count;
  return {static_cast<float>(*scale), static_cast<std::int32_t>(*tracker), 0.0f};
}

}  // namespace

StateSnapshot read_training_state(const ModelInfo& model, Backend& backend) {
  const auto count = static_cast<std::size_t>(model.parameter_count);
  StateSnapshot state;
  state.parameters.resize(count);
  backend.read_state(StateBuffer::parameters, state.parameters);
  state.moments.assign(static_cast<std::size_t>(model.moments()), std::vector<float>(count));
  for (int m = 0; m < model.moments(); ++m)
    backend.read_state(moment_buffer(m), state.moments[static_cast<std::size_t>(m)]);
  state.statistics.resize(static_cast<std::size_t>(model.non_trainable_count));
  if (!state.statistics.empty())
    backend.read_state(StateBuffer::non_trainable, state.statistics);
  state.loss_scale = backend.loss_scale();
  return state;
}

std::optional<std::string> first_non_finite_state(const ModelInfo& model,
                                                  const StateSnapshot& state) {
  if (auto bad = describe_non_finite(model.parameters, state.parameters, own_name))
    return bad;
  if (auto bad = describe_non_finite(model.non_trainable, state.statistics, own_name))
    return bad;
  for (int m = 0; m < model.moments(); ++m)
    if (auto bad = describe_non_finite(
            model.parameters, state.moments[static_cast<std::size_t>(m)],
            [&](const ParameterTensor& p) { return state_tensor_name(model, m, p); }))
      return bad;
  return std::nullopt;
}

void save_training_checkpoint(const std::filesystem::path& file, const ModelInfo& model,
                              const StateSnapshot& snapshot, const TrainingPosition& position,
                              const TrainingSettings& settings, const TrainingDataIdentity& data,
                              const std::string& backend) {
  const std::int64_t steps = position.step;

  std::vector<SafetensorsTensorRef> tensors;
  for (const ParameterTensor& p : model.parameters)
    tensors.push_back({p.name, Dtype::f32, p.shape, bytes_of(snapshot.parameters, p)});
  for (const ParameterTensor& p : model.non_trainable) {
    tensors.push_back({p.name, Dtype::f32, p.shape, bytes_of(snapshot.statistics, p)});
    if (is_running_mean(p))
      tensors.push_back({batches_tracked_name(p),
                         Dtype::i64,
                         {},
                         std::as_bytes(std::span<const std::int64_t>(&steps, 1))});
  }
  for (int m = 0; m < model.moments(); ++m)
    for (const ParameterTensor& p : model.parameters)
      tensors.push_back({state_tensor_name(model, m, p), Dtype::f32, p.shape,
                         bytes_of(snapshot.moments[static_cast<std::size_t>(m)], p)});

  TrainingState state;
  state.step = static_cast<std::uint64_t>(position.step);
  state.epoch = static_cast<std::uint64_t>(position.epoch);
  state.data_order.epoch_seed = position.seed;
  state.data_order.index_in_epoch = static_cast<std::uint64_t>(position.batch * model.batch);
  std::map<std::string, std::string> extra = settings_metadata(settings);
  extra.insert({{"model", model.name},
                {"model_type", model.model_type},
                {"setup_type", model.setup_type},
                {"optimizer", optimizer_key(model.optimizer)},
                {"batch", std::to_string(model.batch)},
                {data_entry, data.source},
                {data_samples_entry, std::to_string(data.samples)},
                {backend_entry, backend}});
  if (snapshot.loss_scale)
    extra.insert({{loss_scale_entry, round_trip_text(snapshot.loss_scale->scale)},
                  {growth_tracker_entry, std::to_string(snapshot.loss_scale->growth_tracker)},
                  {skipped_entry, std::to_string(position.skipped)}});
  if (position.batch > 0 && position.so_far)
    extra.insert({{loss_sum_entry, round_trip_text(position.so_far->loss_sum)},
                  {correct_entry, std::to_string(position.so_far->correct)},
                  {samples_entry, std::to_string(position.so_far->samples)}});
  save_checkpoint(file, tensors, state, extra);
}

ResumedTraining load_training_checkpoint(const std::filesystem::path& file, const ModelInfo& model,
                                         Backend& backend) {
  CheckpointExpectations expected;
  expected.model_type = model.model_type;
  for (const ParameterTensor& p : model.parameters)
    expected.tensors.push_back({p.name, Dtype::f32, p.shape});
  for (int m = 0; m < model.moments(); ++m)
    for (const ParameterTensor& p : model.parameters)
      expected.tensors.push_back({state_tensor_name(model, m, p), Dtype::f32, p.shape});
  for (const ParameterTensor& p : model.non_trainable) {
    expected.tensors.push_back({p.name, Dtype::f32, p.shape});
    if (is_running_mean(p))
      expected.tensors.push_back({batches_tracked_name(p), Dtype::i64, {}});
  }
  Checkpoint checkpoint;
  try {
    checkpoint = load_checkpoint(file, expected);
  } catch (const CheckpointMismatch& e) {
    // Only the optimizer's tensors missing: a weights file (PyTorch's save_file(state_dict()), or
    // one written for --init), which has nothing to continue from.
    const bool weights_only =
        model.moments() > 0 && std::ranges::all_of(e.mismatches(), [](const TensorMismatch& m) {
          return m.kind == TensorMismatch::Kind::missing && is_optimizer_state(m.tensor);
        });
    if (!weights_only)
      throw;
    throw TrainingSetupError(file.string() +
                             ": holds the model's weights but no optimizer state (" +
                             std::to_string(e.mismatches().size()) +
                             " tensors missing), so there is no run to resume: start from its "
                             "weights with --init instead of --resume");
  }
  std::optional<TrainingSettings> settings =
      saved_settings(checkpoint.extra_metadata, file.string());

  const auto count = static_cast<std::size_t>(model.parameter_count);
  std::vector<float> region(count);
  // Training would only carry a NaN or an infinity on, behind losses that may stay finite.
  auto refuse_non_finite = [&](std::optional<std::string> bad) {
    if (bad)
      throw FormatError({file.string(), {}, {}, {}}, "finite values in every tensor",
                        *bad + ": training cannot continue from it");
  };
  auto restore = [&](StateBuffer which, auto name_of) {
    std::fill(region.begin(), region.end(), 0.0f);
    for (const ParameterTensor& p : model.parameters) {
      const CheckpointTensor* t = checkpoint.find(name_of(p));
      std::memcpy(region.data() + p.offset, t->data.data(), t->data.size());
    }
    refuse_non_finite(describe_non_finite(model.parameters, region, name_of));
    backend.write_state(which, region);
  };
  restore(StateBuffer::parameters, [](const ParameterTensor& p) { return p.name; });
  for (int m = 0; m < model.moments(); ++m)
    restore(moment_buffer(m),
            [&](const ParameterTensor& p) { return state_tensor_name(model, m, p); });
  if (model.non_trainable_count > 0) {
    std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
    for (const ParameterTensor& p : model.non_trainable) {
      const CheckpointTensor* t = checkpoint.find(p.name);
      std::memcpy(statistics.data() + p.offset, t->data.data(), t->data.size());
    }
    refuse_non_finite(describe_non_finite(model.non_trainable, statistics, own_name));
    backend.write_state(StateBuffer::non_trainable, statistics);
  }

  const TrainingState& s = checkpoint.state;
  if (s.data_order.index_in_epoch % static_cast<std::uint64_t>(model.batch) != 0)
    throw FormatError(
        {file.string(), {}, {}, {}},
        "a data position that is a whole number of batches of " + std::to_string(model.batch),
        "sample " + std::to_string(s.data_order.index_in_epoch) +
            " (written for another batch size?)");
  TrainingPosition position;
  position.step = static_cast<std::int64_t>(s.step);
  position.epoch = static_cast<std::int64_t>(s.epoch);
  position.batch = static_cast<std::int64_t>(s.data_order.index_in_epoch) / model.batch;
  position.seed = s.data_order.epoch_seed;
  position.so_far = saved_totals(checkpoint.extra_metadata, file, position.batch, model.batch);
  if (model.arena.loss_scale_at >= 0) {
    const kernels::LossScaleState scaler =
        saved_loss_scale(checkpoint.extra_metadata, file, position.step, position.skipped);
    backend.write_loss_scale(scaler);
  }
  const auto saved_backend = checkpoint.extra_metadata.find(backend_entry);
  return {position, std::move(settings), saved_data(checkpoint.extra_metadata, file),
          saved_backend == checkpoint.extra_metadata.end() ? std::nullopt
                                                           : std::optional(saved_backend->second)};
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
}  // namespace staticnet::runtime
