#include "training_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "staticnet/print.hpp"
#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/formats/synthetic.hpp"

namespace staticnet::runtime {
namespace {

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

}  // namespace

void report_start(std::ostream& out, const ModelInfo& model, const Backend& backend,
                  const TrainOptions& options, const TrainingSettings& settings,
                  const Dataset& data, const Dataset* eval, std::uint64_t batches_per_epoch,
                  const HostMemory& host, const std::string& weights,
                  const std::vector<std::string>& input_notes) {
  out << model.name << ": " << model.model_type << " trained as " << model.setup_type << "\n";
  const std::string batch =
      model.micro_batches > 1
          ? fmt::format("{} as {} micro-batches of {} (Accumulate<{}>)", model.batch,
                        model.micro_batches, model.batch / model.micro_batches, model.micro_batches)
          : std::to_string(model.batch);
  out << fmt::format(
      "  step     batch {}, {}, {} ({}), {}{}; {}\n", batch,
      model.classifies() ? "CrossEntropy" : "MSE", optimizer_name(model.optimizer),
      learning_rate_text(settings), model.precision,
      model.arena.loss_scale_at >= 0 ? " with loss scaling (GradScaler's defaults)" : "",
      backend.description());
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
  if (eval) {
    out << fmt::format("  eval     {}, {} samples\n", described(*eval), eval->size());
    const auto train_spec = parse_synthetic_spec(options.data.front());
    const auto eval_spec = parse_synthetic_spec(options.eval.front());
    if (train_spec && eval_spec && train_spec->seed != eval_spec->seed)
      out << "           (of another seed than the training data's: its classes have other "
             "means, so what the model learns does not carry over to it)\n";
  }
  if (!weights.empty())
    out << "  weights  " << weights << "\n";
  if (!options.save.empty())
    out << "  save     " << options.save.string() << ", after every epoch and when stopped\n";
  else  // said at the start: a long run's weights would be lost without a word until its end
    out << "  save     nothing (no --save): the trained weights are lost when the run ends"
        << (options.resume.empty() ? "" : "; --resume reads its checkpoint, it does not write it")
        << "\n";
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
  out << "           host    " << describe_host_plan(host, model.host.batch_slot_count) << "\n";
  // The plan's host parts against what the loader and the backend allocated.
  auto differs = [&](const char* what, std::int64_t planned, std::int64_t held) {
    if (held != planned)
      out << fmt::format(
          "           host    {}: {} held, the plan says {}: DIFFERS from the plan\n", what,
          mib_text(held), mib_text(planned));
  };
  differs("batch slots", model.host.batch_slots, host.batch_slots);
  if (host.pinned_staging > 0)
    differs("pinned staging", model.host.pinned_staging, host.pinned_staging);
  out << std::flush;
}

void report_resume(std::ostream& out, const std::filesystem::path& checkpoint,
                   const TrainingPosition& position, const std::optional<TrainingSettings>& saved,
                   const TrainingSettings& settings, const std::vector<std::string>& replaced,
                   const std::optional<TrainingDataIdentity>& saved_data,
                   const TrainingDataIdentity& data,
                   const std::optional<std::string>& saved_backend, const std::string& backend) {
  out << fmt::format("resumed from {} at step {} (epoch {}, batch {})\n", checkpoint.string(),
                     position.step, position.epoch + 1, position.batch);
  if (saved_data && saved_data->samples != data.samples)
    out << fmt::format(
        "  the run was training on {} samples ({}); from epoch {} on it trains on the {} of {}\n",
        saved_data->samples, saved_data->source, position.epoch + 1, data.samples, data.source);
  else if (saved_data && saved_data->source != data.source)
    out << fmt::format("  the run was training on {}; this one reads {}, of as many samples\n",
                       saved_data->source, data.source);
  if (saved_backend && *saved_backend != backend)
    out << fmt::format(
        "  the run was computing on {}; this one on {}: it goes on from the same state, but its "
        "sums round in another order, so from here on it parts from an unbroken run by as much "
        "as rounding differences grow\n",
        *saved_backend, backend);
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

std::string loss_text(const ModelInfo& model, double loss, double accuracy) {
  std::string text = fmt::format("loss {:.4f}", loss);
  if (model.classifies())
    text += fmt::format(", accuracy {:.1f}%", 100.0 * accuracy);
  return text;
}

std::string epoch_line(const ModelInfo& model, const EpochMetrics& m, std::int64_t epochs,
                       bool scheduled, bool whole) {
  std::string line = fmt::format("epoch {}/{}{}: ", m.epoch, epochs, whole ? "" : " so far");
  if (scheduled)
    line += fmt::format("lr {:.6g}, ", m.learning_rate);
  line += loss_text(model, m.train_loss, m.train_accuracy);
  if (m.eval_loss)
    line += " | eval " + loss_text(model, *m.eval_loss, m.eval_accuracy.value_or(0));
  if (m.loss_scale)
    line += fmt::format(" | loss scale {:g}, {} step{} skipped", *m.loss_scale, m.skipped_steps,
                        m.skipped_steps == 1 ? "" : "s");
  line += fmt::format(" | {:.0f} samples/s", m.samples_per_second);
  return line;
}

std::string running_note(const ModelInfo& model, const EpochTotals& totals) {
  if (totals.samples == 0)
    return {};
  const auto n = static_cast<double>(totals.samples);
  return loss_text(model, totals.loss_sum / n, static_cast<double>(totals.correct) / n);
}

}  // namespace staticnet::runtime
