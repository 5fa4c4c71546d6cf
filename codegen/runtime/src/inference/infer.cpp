#include "staticnet/runtime/inference/infer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ostream>

#include "../shape_text.hpp"
#include "staticnet/print.hpp"
#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/input_normalization.hpp"
#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

// Returns what the load converted and ignored (load_tensors).
LoadedTensors load_weights(const InferenceModel& model, InferenceBackend& inference,
                           const SafetensorsReader& file) {
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
  const TensorRegion regions[] = {{model.parameters, parameters},
                                  {model.non_trainable_tensors, statistics}};
  LoadedTensors loaded = load_tensors(file, regions, model.model_type);
  if (const auto why = negative_variance(file.source(), model.non_trainable_tensors, statistics))
    throw InferenceSetupError(*why);
  inference.load(parameters, statistics);
  return loaded;
}

std::unique_ptr<Dataset> open_data(const InferenceModel& model, const InferOptions& options) {
  if (options.data.empty())
    throw InferenceSetupError("--data: no data set given");
  OpenOptions open;
  open.format = options.format;
  open.common.expect_sample_shape = model.sample_shape;
  // A classifier's labels index its outputs. A single output cannot be a classifier's (argmax
  // would always say 0): its model regresses, so a CSV column holds its targets.
  const bool single_output = model.output_elements() == 1;
  if (model.output_shape.size() == 1 && !single_output)
    open.common.num_classes = model.output_shape[0];
  open.csv.label_column = parse_label_column(options.label_column);
  if (single_output)
    open.csv.label_kind = LabelKind::regression;
  if (options.no_labels)
    open.csv.label_kind = LabelKind::none;
  open.csv.delimiter = options.csv_delimiter;
  open.csv.header = options.csv_header;
  open.cifar100_labels = options.cifar100_labels;
  auto data = open_dataset(options.data, open);
  if (const auto misplaced = options_for_other_formats(*data, open); !misplaced.empty())
    throw UsageError(misplaced_options_message(misplaced, *data));
  if (data->label_kind() == LabelKind::none && options.output.empty())
    throw UsageError(fmt::format(
        "{} holds inputs only, so there is nothing to score: pass --output to keep the outputs",
        data->source()));
  if (data->label_kind() == LabelKind::class_index &&
      (model.output_shape.size() != 1 || single_output))
    throw InferenceSetupError(fmt::format(
        "{} has class labels, but {}'s output per sample is {}, not a vector of class scores{}",
        data->source(), model.name, shape_text(model.output_shape),
        single_output ? " (a single value: a regression's, scored against float targets)" : ""));
  // One target value meets one output value whatever the shapes' ones: (1) and (1, 1).
  const bool same_targets = data->target_shape() == model.output_shape ||
                            (single_output && shape_elements(data->target_shape()) == 1);
  if (data->label_kind() == LabelKind::regression && !same_targets)
    throw InferenceSetupError(fmt::format("{} has targets of shape {}, but {}'s output is {}",
                                          data->source(), shape_text(data->target_shape()),
                                          model.name, shape_text(model.output_shape)));
  // Every value once, before the first pass: a NaN in the data is the data's fault.
  data->validate_all();
  return data;
}

// NumPy's .npy, version 1.0: little-endian f32 of `shape`, the header padded to 64 bytes.
std::vector<std::byte> npy_bytes(const std::vector<std::int64_t>& shape,
                                 std::span<const float> values) {
  std::string dims;  // as NumPy writes a tuple: "(n,)", "(n, m)"
  for (std::size_t i = 0; i < shape.size(); ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    dims += ",";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 10 + header.size() + 1;  // magic, version, length; newline
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<std::byte> bytes(10 + header.size() + values.size_bytes());
  const char magic[] = "\x93NUMPY\x01\x00";
  std::memcpy(bytes.data(), magic, 8);
  const auto length = static_cast<std::uint16_t>(header.size());
  bytes[8] = static_cast<std::byte>(length & 0xff);
  bytes[9] = static_cast<std::byte>(length >> 8);
  std::memcpy(bytes.data() + 10, header.data(), header.size());
  std::memcpy(bytes.data() + 10 + header.size(), values.data(), values.size_bytes());
  return bytes;
}

// "21,747,200 B (20.74 MiB)": the core's and the trainer's printer.
std::string bytes_text(std::int64_t n) {
  return to_string(Bytes{n});
}

void report_start(std::ostream& out, const InferenceModel& model, InferenceBackend& inference,
                  const Dataset& data, const std::filesystem::path& weights,
                  const std::string& weights_note) {
  out << model.name << " (" << model.model_type << ", " << model.setup_type << ")\n";
  out << "  forward  batch " << model.batch << ", input " << shape_text(model.sample_shape)
      << ", output " << shape_text(model.output_shape) << ", on " << inference.description()
      << "\n";
  out << "  memory   planned " << bytes_text(model.arena_bytes) << " = weights "
      << bytes_text(model.weights) << " + running statistics " << bytes_text(model.non_trainable)
      << " + input " << bytes_text(model.inputs) << " + workspace " << bytes_text(model.workspace)
      << " + activations " << bytes_text(model.activations) << "\n";
  out << "           arena   " << bytes_text(model.arena_bytes) << ", " << inference.arena_where()
      << "\n";
  if (const std::string other = inference.other_memory(); !other.empty())
    out << "           besides " << other << "\n";
  out << "  weights  " << weights.string() << (weights_note.empty() ? "" : ", " + weights_note)
      << "\n";
  out << "  data     " << data.source() << ": " << data.size() << " samples"
      << (data.label_kind() == LabelKind::none ? ", no labels" : "") << "\n";
}

}  // namespace

InferResult run_inference(const InferenceModel& model, InferenceBackend& inference,
                          const InferOptions& options, std::ostream& out) {
  if (options.weights.empty())
    throw InferenceSetupError("--weights: no weights file given");
  // An --output that cannot be written is found now, not after every sample has run.
  if (!options.output.empty())
    check_writable_target(options.output);
  const std::unique_ptr<Dataset> data = open_data(model, options);
  const SafetensorsReader weights = SafetensorsReader::open(options.weights);
  const std::string weights_note = describe(load_weights(model, inference, weights));
  // The normalisation the model was trained with, unless told otherwise.
  std::vector<std::string> notes;
  const InputNormalization given{options.scale, options.mean, options.stddev, {}};
  const InputNormalization saved = saved_normalization(weights.metadata(), weights.source());
  const InputNormalization input = resolve_normalization(given, saved, notes);
  // A weights file PyTorch wrote keeps no normalisation: the inputs then go in as read, which is
  // right only if training read them so, and a wrong guess costs accuracy without an error.
  if (saved == InputNormalization{} && given == InputNormalization{})
    notes.push_back(weights.source() +
                    " keeps no input normalisation (a weights file from PyTorch?): the inputs go "
                    "in as above; give --scale, --mean and --std as the model was trained with");
  require_channel_counts(input, given, weights.source(), model.sample_shape);
  report_start(out, model, inference, *data, options.weights, weights_note);
  out << "  inputs   " << describe(input, data->element_type()) << "\n";
  if (const auto note = default_scale_note(input, data->element_type()))
    notes.push_back(*note);
  for (const std::string& note : notes)
    out << "           " << note << "\n";

  const LabelKind kind = data->label_kind();
  const bool classes = kind == LabelKind::class_index;
  LoaderConfig config;
  config.batch_size = model.batch;
  config.sample_shape = model.sample_shape;
  config.label_kind = kind;
  config.target_shape = data->target_shape();
  config.shuffle = false;
  config.last_batch = LastBatch::wrap;
  config.normalization = normalization_for(input, data->element_type());
  config.workers = options.workers;
  config.slots = 2;
  BatchLoader loader(*data, config);

  const std::int64_t per_sample = model.output_elements();
  const std::int64_t n = data->size();
  std::vector<float> outputs;
  if (!options.output.empty())
    outputs.resize(static_cast<std::size_t>(n * per_sample));
  std::vector<std::int32_t> labels(static_cast<std::size_t>(classes ? model.batch : 0));
  std::vector<float> targets(
      static_cast<std::size_t>(kind == LabelKind::regression ? model.batch * per_sample : 0));
  std::int64_t correct = 0;
  double squared_error = 0;

  const auto start = std::chrono::steady_clock::now();
  const auto batches = static_cast<std::int64_t>(loader.batches_per_epoch());
  for (std::int64_t b = 0; b < batches; ++b) {
    if (classes)
      loader.next(inference.input(), labels);
    else if (kind == LabelKind::regression)
      loader.next(inference.input(), targets);
    else
      loader.next(inference.input());
    inference.run();
    const std::span<const float> y = inference.output();
    const std::int64_t rows = std::min(model.batch, n - b * model.batch);
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto row =
          y.subspan(static_cast<std::size_t>(r * per_sample), static_cast<std::size_t>(per_sample));
      const std::int64_t sample = b * model.batch + r;
      if (const auto bad = std::ranges::find_if(row, [](float v) { return !std::isfinite(v); });
          bad != row.end())
        throw InferenceSetupError(fmt::format(
            "the output of sample {} of {} is {} (element {}): the weights or the input "
            "overflow float32",
            sample, data->source(), std::isnan(*bad) ? "NaN" : "an infinity", bad - row.begin()));
      if (classes) {
        const auto best = std::ranges::max_element(row) - row.begin();
        correct += best == labels[static_cast<std::size_t>(r)];
      } else if (kind == LabelKind::regression) {
        for (std::int64_t e = 0; e < per_sample; ++e) {
          const double d = static_cast<double>(row[static_cast<std::size_t>(e)]) -
                           targets[static_cast<std::size_t>(r * per_sample + e)];
          squared_error += d * d;
        }
      }
      if (!outputs.empty())
        std::ranges::copy(row, outputs.begin() + sample * per_sample);
    }
  }
  InferResult result;
  result.samples = n;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (classes)
    result.accuracy = static_cast<double>(correct) / static_cast<double>(n);
  else if (kind == LabelKind::regression)
    result.mean_squared_error = squared_error / static_cast<double>(n * per_sample);

  out << fmt::format("  result   {} samples in {:.3f} s ({:.0f} samples/s)", n, result.seconds,
                     static_cast<double>(n) / result.seconds);
  if (result.accuracy)
    out << fmt::format(", accuracy {:.2f}% ({} of {})", 100 * *result.accuracy, correct, n);
  else if (result.mean_squared_error)
    out << fmt::format(", mean squared error {:.6g}", *result.mean_squared_error);
  out << "\n";
  if (!options.output.empty()) {
    std::vector<std::int64_t> shape{n};
    shape.insert(shape.end(), model.output_shape.begin(), model.output_shape.end());
    write_file_atomically(options.output, npy_bytes(shape, outputs));
    out << "  output   " << options.output.string() << ": f32 " << shape_text(shape) << "\n";
  }
  return result;
}

}  // namespace staticnet::runtime
