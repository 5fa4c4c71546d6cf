#include "staticnet/runtime/quantize/quantize.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>

#include "../shape_text.hpp"
#include "staticnet/runtime/batches/normalize.hpp"
#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/input_normalization.hpp"
#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/csv.hpp"
#include "staticnet/runtime/formats/synthetic.hpp"
#include "staticnet/runtime/quantize/model_source.hpp"

namespace staticnet::runtime::quantize {
namespace {

std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape)
    n *= d;
  return n;
}

// A vector of outputs is a classifier's scores unless --regression says the model regresses
// (an autoencoder's 640 outputs are targets, not classes): the int8 model graph has no loss.
bool classifier(const QuantizerModel& model, const QuantizeOptions& options) {
  return !options.regression && model.output_shape.size() == 1 && model.output_shape[0] > 1;
}

std::unique_ptr<Dataset> open_data(const QuantizerModel& model, const QuantizeOptions& options,
                                   const std::vector<std::string>& files, bool evaluation) {
  // synthetic:N, as the trainers generate it: a model trained on it is calibrated on its kind.
  std::optional<SyntheticSpec> spec;
  try {
    spec = parse_synthetic_spec(files.front());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (spec) {
    if (files.size() > 1)
      throw UsageError("synthetic:N takes no label file");
    SyntheticOptions s;
    s.sample_shape = model.sample_shape;
    s.size = spec->size;
    s.seed = spec->seed;
    s.random_labels = spec->random_labels;
    s.class_separation = synthetic_class_separation;
    if (classifier(model, options)) {
      s.num_classes = model.output_shape[0];
    } else {
      s.label_kind = LabelKind::regression;
      s.target_shape = model.output_shape;
      s.noise = 0.1;
    }
    return make_synthetic(s);
  }
  OpenOptions open;
  open.format = options.format;
  open.common.expect_sample_shape = model.sample_shape;
  if (classifier(model, options))
    open.common.num_classes = model.output_shape[0];
  open.csv.label_column = parse_label_column(options.label_column);
  if (!classifier(model, options))
    open.csv.label_kind = LabelKind::regression;
  if (options.no_labels)
    open.csv.label_kind = LabelKind::none;
  open.csv.delimiter = options.csv_delimiter;
  open.csv.header = options.csv_header;
  open.cifar100_labels = options.cifar100_labels;
  auto data = open_dataset(files, open);
  if (const auto misplaced = options_for_other_formats(*data, open); !misplaced.empty())
    throw UsageError(misplaced_options_message(misplaced, *data));
  if (data->size() == 0)
    throw UsageError(fmt::format("{} holds no samples", data->source()));
  if (evaluation && data->label_kind() == LabelKind::class_index && !classifier(model, options))
    throw UsageError(fmt::format("{} has class labels, but {}'s output is {}, not class scores{}",
                                 data->source(), model.name, shape_text(model.output_shape),
                                 options.regression ? " (--regression)" : ""));
  if (evaluation && data->label_kind() == LabelKind::regression &&
      elements(data->target_shape()) != elements(model.output_shape))
    throw UsageError(fmt::format("{} has targets of shape {}, but {}'s output is {}",
                                 data->source(), shape_text(data->target_shape()), model.name,
                                 shape_text(model.output_shape)));
  data->validate_all();  // a NaN in the data is the data's fault, named before any pass
  return data;
}

// The float model: its tensors and the forward pass over one sample at a time.
class FloatModel {
 public:
  FloatModel(const QuantizerModel& model, const QuantizerProgram& program,
             std::vector<float> parameters)
      : model_(model), program_(program), parameters_(std::move(parameters)) {
    for (const QuantizedTensor& t : model.tensors)
      tensors_.emplace_back(static_cast<std::size_t>(t.elements));
    for (auto& t : tensors_)
      pointers_.push_back(t.data());
  }

  std::span<float> input() { return tensors_[static_cast<std::size_t>(model_.input)]; }
  std::span<const float> tensor(int i) const { return tensors_[static_cast<std::size_t>(i)]; }
  std::span<const float> output() const { return tensor(model_.output); }
  const std::vector<float>& parameters() const { return parameters_; }

  // One pass; throws naming the first tensor that is not finite.
  void run(const std::string& sample) {
    program_.forward(parameters_.data(), pointers_.data());
    for (std::size_t i = 0; i < tensors_.size(); ++i)
      for (std::size_t e = 0; e < tensors_[i].size(); ++e)
        if (!std::isfinite(tensors_[i][e]))
          throw QuantizationError(fmt::format(
              "the float model's tensor {} ({}) is {} at element {} on {}: the weights or the "
              "input overflow float32",
              i, model_.tensors[i].what, std::isnan(tensors_[i][e]) ? "NaN" : "an infinity", e,
              sample));
  }

 private:
  const QuantizerModel& model_;
  const QuantizerProgram& program_;
  std::vector<float> parameters_;
  std::vector<std::vector<float>> tensors_;
  std::vector<float*> pointers_;
};

// The float parameters from the checkpoint, BatchNorms folded.
std::vector<float> load_folded_parameters(const QuantizerModel& model,
                                          const QuantizerProgram& program,
                                          const SafetensorsReader& file, std::string& note) {
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  std::vector<float> statistics(static_cast<std::size_t>(model.statistic_count));
  const TensorRegion regions[] = {{model.parameters, parameters}, {model.statistics, statistics}};
  note = describe(load_tensors(file, regions, model.model_type));
  if (const auto why = negative_variance(file.source(), model.statistics, statistics))
    throw QuantizationError(*why);
  program.fold(parameters.data(), statistics.data());
  // A fold overflows where a variance is near 0 under a large γ: named here, not quantized.
  for (const ParameterTensor& t : model.parameters)
    for (std::int64_t j = 0; j < t.elements(); ++j)
      if (const float v = parameters[static_cast<std::size_t>(t.offset + j)]; !std::isfinite(v))
        throw QuantizationError(fmt::format(
            "{}: tensor {} is {} at element {} once the BatchNorms are folded into it: a running "
            "variance near 0 under a large weight overflows float32",
            file.source(), t.name, std::isnan(v) ? "NaN" : "an infinity", j));
  return parameters;
}

// Each tensor's scale: a pool's output keeps its input's; the rest from their ranges.
std::vector<TensorScale> tensor_scales(const QuantizerModel& model,
                                       const std::vector<Range>& ranges) {
  std::vector<TensorScale> scales(model.tensors.size());
  for (std::size_t i = 0; i < model.tensors.size(); ++i) {
    const int same_as = model.tensors[i].same_as;
    scales[i] =
        same_as >= 0 ? scales.at(static_cast<std::size_t>(same_as)) : activation_scale(ranges[i]);
  }
  return scales;
}

// The int8 weights and the channel numbers, where the plan puts them.
void quantize_products(const QuantizerModel& model, const std::vector<float>& parameters,
                       const std::vector<TensorScale>& scales, QuantizeResult& result) {
  result.weights.assign(static_cast<std::size_t>(model.weight_count), 0);
  result.channel_numbers.assign(static_cast<std::size_t>(model.channel_number_count), 0);
  for (const QuantizedOp& op : model.ops) {
    if (op.kind != OpKind::product)
      continue;
    const QuantizedProduct& p = model.products.at(static_cast<std::size_t>(op.product));
    const std::span<const float> weights(parameters.data() + p.weights_at,
                                         static_cast<std::size_t>(p.weight_elements));
    const QuantizedWeights w = quantize_weights(weights, p.channels);
    result.weight_scales.push_back(w.scales);
    std::ranges::copy(w.values, result.weights.begin() + p.int8_weights_at);
    const TensorScale& in = scales.at(static_cast<std::size_t>(op.input));
    const TensorScale& out = scales.at(static_cast<std::size_t>(op.output));
    for (std::int64_t c = 0; c < p.channels; ++c) {
      const double weight_scale = w.scales[static_cast<std::size_t>(c)];
      const float bias =
          p.bias_at >= 0 ? parameters[static_cast<std::size_t>(p.bias_at + c)] : 0.0f;
      const auto at = static_cast<std::size_t>(p.numbers_at + c);
      const auto channels = static_cast<std::size_t>(p.channels);
      try {
        result.channel_numbers[at] = quantize_bias(bias, in.scale, weight_scale);
      } catch (const QuantizationError& e) {
        throw QuantizationError(
            fmt::format("layer {}, output channel {}: {}", p.name, c, e.what()));
      }
      const q8::QuantizedMultiplier m =
          q8::channel_multiplier(static_cast<float>(in.scale), static_cast<float>(weight_scale),
                                 static_cast<float>(out.scale));
      result.channel_numbers[at + channels] = m.multiplier;
      result.channel_numbers[at + 2 * channels] = m.shift;
    }
  }
}

// The int8 model on the host: the firmware's invoke() over an arena of the plan's bytes.
class Int8Model {
 public:
  Int8Model(const QuantizerModel& model, const QuantizerProgram& program,
            const QuantizeResult& result, const TensorScale& input, const TensorScale& output)
      : model_(model),
        program_(program),
        result_(result),
        input_(input.stored()),
        output_(output.stored()),
        storage_(static_cast<std::size_t>(model.arena_bytes) + 16) {
    void* at = storage_.data();
    std::size_t space = storage_.size();
    arena_ = static_cast<std::uint8_t*>(
        std::align(16, static_cast<std::size_t>(model.arena_bytes), at, space));
  }

  // The real outputs of one normalised sample.
  void run(std::span<const float> sample, std::span<float> output) {
    run_int8(sample);
    const auto* out = reinterpret_cast<const std::int8_t*>(arena_ + model_.output_offset);
    for (std::size_t i = 0; i < output.size(); ++i)
      output[i] = output_.scale * static_cast<float>(out[i] - output_.zero_point);
  }

  // The last sample as quantized (kept: invoke() reuses the input's bytes).
  std::span<const std::int8_t> int8_input() const { return quantized_input_; }
  std::span<const std::int8_t> int8_output() const {
    return {
        reinterpret_cast<const std::int8_t*>(arena_ + model_.output_offset),
        static_cast<std::size_t>(model_.tensors[static_cast<std::size_t>(model_.output)].elements)};
  }

 private:
  void run_int8(std::span<const float> sample) {
    quantized_input_.resize(sample.size());
    // As TensorFlow Lite's QUANTIZE: round(x / scale) in float32, plus the zero point, clamped
    // (in float, before any conversion: a value far outside the calibrated range stays defined).
    for (std::size_t i = 0; i < sample.size(); ++i)
      quantized_input_[i] = static_cast<std::int8_t>(
          std::clamp(std::round(sample[i] / input_.scale) + static_cast<float>(input_.zero_point),
                     -128.0f, 127.0f));
    std::ranges::copy(quantized_input_,
                      reinterpret_cast<std::int8_t*>(arena_ + model_.input_offset));
    program_.invoke(result_.weights.data(), result_.channel_numbers.data(), arena_);
  }

  const QuantizerModel& model_;
  const QuantizerProgram& program_;
  const QuantizeResult& result_;
  q8::TensorQuantization input_, output_;
  std::vector<std::uint8_t> storage_;
  std::uint8_t* arena_ = nullptr;
  std::vector<std::int8_t> quantized_input_;
};

std::size_t argmax(std::span<const float> v) {
  return static_cast<std::size_t>(std::ranges::max_element(v) - v.begin());
}

Evaluation evaluate(FloatModel& float_model, Int8Model& int8_model, const Dataset& data,
                    const ChannelAffine& normalize, bool classifies, bool keep_int8) {
  Evaluation e;
  e.samples = data.size();
  const LabelKind kind = data.label_kind();
  std::vector<float> int8_output(float_model.output().size()), target(int8_output.size());
  std::int64_t float_correct = 0, int8_correct = 0, agree = 0;
  double float_squared = 0, int8_squared = 0;
  for (std::int64_t s = 0; s < data.size(); ++s) {
    data.read_sample(s, float_model.input());
    normalize.apply(float_model.input());
    int8_model.run(float_model.input(), int8_output);
    if (keep_int8) {
      e.int8_inputs.emplace_back(int8_model.int8_input().begin(), int8_model.int8_input().end());
      e.int8_outputs.emplace_back(int8_model.int8_output().begin(), int8_model.int8_output().end());
    }
    float_model.run(fmt::format("sample {} of {}", s, data.source()));
    const std::span<const float> y = float_model.output();
    for (std::size_t i = 0; i < y.size(); ++i)
      e.largest_difference =
          std::max(e.largest_difference, std::fabs(static_cast<double>(y[i]) - int8_output[i]));
    if (classifies) {
      const std::size_t a = argmax(y), b = argmax(int8_output);
      agree += a == b;
      if (kind == LabelKind::class_index) {
        const auto label = static_cast<std::size_t>(data.label(s));
        float_correct += a == label;
        int8_correct += b == label;
      }
    }
    if (kind == LabelKind::regression) {
      data.read_target(s, target);
      for (std::size_t i = 0; i < y.size(); ++i) {
        float_squared += std::pow(static_cast<double>(y[i]) - target[i], 2);
        int8_squared += std::pow(static_cast<double>(int8_output[i]) - target[i], 2);
      }
    }
  }
  const auto n = static_cast<double>(data.size());
  if (classifies)
    e.agreement = static_cast<double>(agree) / n;
  if (kind == LabelKind::class_index && classifies) {
    e.float_accuracy = static_cast<double>(float_correct) / n;
    e.int8_accuracy = static_cast<double>(int8_correct) / n;
  } else if (kind == LabelKind::regression) {
    const double values = n * static_cast<double>(target.size());
    e.float_error = float_squared / values;
    e.int8_error = int8_squared / values;
  }
  return e;
}

std::string bytes_text(std::int64_t n) {
  return fmt::format("{} B", n);
}

void report_tensors(std::ostream& out, const QuantizerModel& model, const QuantizeResult& r) {
  out << "  tensors  range over the calibration samples -> scale, zero point\n";
  for (std::size_t i = 0; i < model.tensors.size(); ++i) {
    const QuantizedTensor& t = model.tensors[i];
    const TensorScale& s = r.scales[i];
    const std::string range =
        t.same_as >= 0 ? fmt::format("(keeps tensor {}'s)", t.same_as)
                       : fmt::format("[{:.6g}, {:.6g}]", r.ranges[i].min, r.ranges[i].max);
    out << fmt::format("    {:>3}  {:<28} -> {:.6g}, {:>4}   {}\n", i, range, s.scale, s.zero_point,
                       t.what);
  }
}

void report_evaluation(std::ostream& out, const Evaluation& e, const std::string& source) {
  out << fmt::format("  evaluation  {}: {} samples\n", source, e.samples);
  if (e.float_accuracy)
    out << fmt::format("    accuracy  float {:.2f}%, int8 {:.2f}% ({:+.2f} points)\n",
                       100 * *e.float_accuracy, 100 * *e.int8_accuracy,
                       100 * (*e.int8_accuracy - *e.float_accuracy));
  if (e.float_error)
    out << fmt::format("    mean squared error  float {:.6g}, int8 {:.6g}\n", *e.float_error,
                       *e.int8_error);
  if (e.agreement)
    out << fmt::format("    the two pick the same class on {:.2f}% of the samples\n",
                       100 * *e.agreement);
  out << fmt::format("    outputs differ by at most {:.6g} (int8 dequantized against float)\n",
                     e.largest_difference);
}

// The ranges of an earlier --report (its "tensors"' "min" and "max"), one per tensor; a pool's
// output, which keeps its input's quantization, needs none.
std::vector<Range> read_ranges(const QuantizerModel& model, const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw UsageError(fmt::format("--ranges: cannot read {}", path.string()));
  std::vector<Range> ranges(model.tensors.size());
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    const nlohmann::json& tensors = j.at("tensors");
    if (tensors.size() != model.tensors.size())
      throw UsageError(fmt::format("--ranges: {} has {} tensors, {} has {}", path.string(),
                                   tensors.size(), model.name, model.tensors.size()));
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      if (model.tensors[i].same_as >= 0)
        continue;
      ranges[i].min = tensors[i].at("min").get<float>();
      ranges[i].max = tensors[i].at("max").get<float>();
      if (!std::isfinite(ranges[i].min) || !std::isfinite(ranges[i].max) ||
          ranges[i].min > ranges[i].max)
        throw UsageError(fmt::format("--ranges: {}'s tensor {} ({}) has no finite range",
                                     path.string(), i, model.tensors[i].what));
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(
        fmt::format("--ranges: {} is not a quantizer report: {}", path.string(), e.what()));
  }
  return ranges;
}

// Every number the quantizer computed, for tools and tests (tests/int8/quantizer_check.cpp).
std::string report_json(const QuantizerModel& model, const QuantizeResult& r) {
  using nlohmann::json;
  static constexpr const char* kinds[] = {"product", "pool", "sum", "mean", "activation"};
  json tensors = json::array(), products = json::array(), ops = json::array();
  for (const QuantizedOp& op : model.ops)
    ops.push_back({{"kind", kinds[static_cast<int>(op.kind)]},
                   {"layer", op.layer},
                   {"input", op.input},
                   {"input2", op.input2},
                   {"output", op.output}});
  for (std::size_t i = 0; i < model.tensors.size(); ++i)
    tensors.push_back({{"what", model.tensors[i].what},
                       {"min", r.ranges[i].min},
                       {"max", r.ranges[i].max},
                       {"same_as", model.tensors[i].same_as},
                       {"scale", r.scales[i].scale},
                       {"stored_scale", r.scales[i].stored().scale},
                       {"zero_point", r.scales[i].zero_point}});
  for (const QuantizedOp& op : model.ops) {
    if (op.kind != OpKind::product)
      continue;
    const QuantizedProduct& p = model.products[static_cast<std::size_t>(op.product)];
    const auto numbers = r.channel_numbers.begin() + p.numbers_at;
    const auto weights = r.weights.begin() + p.int8_weights_at;
    products.push_back(
        {{"layer", op.layer},
         {"input", op.input},
         {"output", op.output},
         {"weight_scales", r.weight_scales[static_cast<std::size_t>(op.product)]},
         {"weights", std::vector<int>(weights, weights + p.weight_elements)},
         {"bias", std::vector<std::int32_t>(numbers, numbers + p.channels)},
         {"multiplier", std::vector<std::int32_t>(numbers + p.channels, numbers + 2 * p.channels)},
         {"shift", std::vector<std::int32_t>(numbers + 2 * p.channels, numbers + 3 * p.channels)}});
  }
  json report = {{"model", model.name},  {"calibration_samples", r.calibration_samples},
                 {"input", model.input}, {"output", model.output},
                 {"tensors", tensors},   {"ops", ops},
                 {"products", products}, {"members", r.members}};
  if (const auto& e = r.evaluation) {
    json evaluation = {{"samples", e->samples}, {"largest_difference", e->largest_difference}};
    if (e->agreement)
      evaluation["agreement"] = *e->agreement;
    if (e->float_accuracy) {
      evaluation["float_accuracy"] = *e->float_accuracy;
      evaluation["int8_accuracy"] = *e->int8_accuracy;
    }
    if (e->float_error) {
      evaluation["float_error"] = *e->float_error;
      evaluation["int8_error"] = *e->int8_error;
    }
    auto rows = [](const std::vector<std::vector<std::int8_t>>& rows) {
      json out = json::array();
      for (const auto& row : rows)
        out.push_back(std::vector<int>(row.begin(), row.end()));
      return out;
    };
    evaluation["int8_inputs"] = rows(e->int8_inputs);
    evaluation["int8_outputs"] = rows(e->int8_outputs);
    report["evaluation"] = evaluation;
  }
  return report.dump(1) + "\n";
}

}  // namespace

QuantizeResult run_quantizer(const QuantizerModel& model, const QuantizerProgram& program,
                             const QuantizeOptions& options, std::ostream& out) {
  if (options.weights.empty())
    throw UsageError("--weights: no weights file given");
  if (options.calibration.empty() == options.ranges.empty())
    throw UsageError(options.calibration.empty()
                         ? "--calibration: no calibration set given (nor --ranges)"
                         : "--calibration and --ranges: give one, the ranges come from either");
  if (options.output.empty())
    throw UsageError("--output: no source file to write");
  check_writable_target(options.output);  // found now, not after every pass
  if (!options.report.empty())
    check_writable_target(options.report);
  const std::unique_ptr<Dataset> calibration =
      options.calibration.empty() ? nullptr : open_data(model, options, options.calibration, false);
  const std::unique_ptr<Dataset> evaluation =
      options.evaluation.empty() ? nullptr : open_data(model, options, options.evaluation, true);
  // The element type whose default scale applies (u8 pixels: 1/255).
  const ElementType stored = calibration  ? calibration->element_type()
                             : evaluation ? evaluation->element_type()
                                          : ElementType::f32;

  const SafetensorsReader file = SafetensorsReader::open(options.weights);
  std::string load_note;
  FloatModel float_model(model, program, load_folded_parameters(model, program, file, load_note));
  std::vector<std::string> notes;
  const InputNormalization given{options.scale, options.mean, options.stddev, {}};
  const InputNormalization input =
      resolve_normalization(given, saved_normalization(file.metadata(), file.source()), notes);
  require_channel_counts(input, given, file.source(), model.sample_shape);

  out << model.name << " (" << model.model_type << ", " << model.setup_type << ")\n";
  out << "  int8     input " << shape_text(model.sample_shape) << ", output "
      << shape_text(model.output_shape) << "; SRAM " << bytes_text(model.arena_bytes) << ", flash "
      << bytes_text(model.flash_bytes) << " (weights and channel numbers)\n";
  out << "  weights  " << options.weights.string() << (load_note.empty() ? "" : ", " + load_note)
      << "\n";
  out << "  inputs   " << describe(input, stored) << "\n";
  for (const std::string& note : notes)
    out << "           " << note << "\n";

  QuantizeResult result;
  std::string ranges_from;
  if (calibration) {
    const ChannelAffine normalize(normalization_for(input, calibration->element_type()),
                                  model.sample_shape);
    result.calibration_samples = options.calibration_samples > 0
                                     ? std::min(options.calibration_samples, calibration->size())
                                     : calibration->size();
    result.ranges.resize(model.tensors.size());
    for (std::int64_t s = 0; s < result.calibration_samples; ++s) {
      calibration->read_sample(s, float_model.input());
      normalize.apply(float_model.input());
      float_model.run(fmt::format("sample {} of {}", s, calibration->source()));
      for (std::size_t i = 0; i < model.tensors.size(); ++i)
        result.ranges[i].add(float_model.tensor(static_cast<int>(i)));
    }
    ranges_from = fmt::format("calibrated on {} samples of {}", result.calibration_samples,
                              calibration->source());
  } else {
    result.ranges = read_ranges(model, options.ranges);
    ranges_from = "ranges from " + options.ranges.filename().string();
  }
  out << "  ranges   " << ranges_from << "\n";
  result.scales = tensor_scales(model, result.ranges);
  report_tensors(out, model, result);
  quantize_products(model, float_model.parameters(), result.scales, result);
  result.members = program.set_quantization(Source(model, result.scales));

  if (evaluation) {
    Int8Model int8_model(model, program, result,
                         result.scales[static_cast<std::size_t>(model.input)],
                         result.scales[static_cast<std::size_t>(model.output)]);
    const ChannelAffine evaluation_normalize(normalization_for(input, evaluation->element_type()),
                                             model.sample_shape);
    result.evaluation = evaluate(float_model, int8_model, *evaluation, evaluation_normalize,
                                 classifier(model, options), !options.report.empty());
    report_evaluation(out, *result.evaluation, evaluation->source());
  }

  const TensorScale& in = result.scales[static_cast<std::size_t>(model.input)];
  ModelSource source;
  source.model = model.name;
  source.comment = {
      fmt::format("{}'s int8 model: written by {}_quantize; do not edit, quantize again.",
                  model.name, model.name),
      fmt::format("  model    {} ({})", model.model_type, model.setup_type),
      fmt::format("  weights  {}", options.weights.filename().string()),
      "  " + ranges_from,
      fmt::format("  input    normalised as in training ({}), then", describe(input, stored)),
      fmt::format("           q = round(x / {:.9g}) {} {}, clamped to [-128, 127]",
                  static_cast<float>(in.scale), in.zero_point < 0 ? '-' : '+',
                  std::abs(in.zero_point)),
      fmt::format("  flash    {} int8 weights and {} int32 channel numbers", model.weight_count,
                  model.channel_number_count),
  };
  source.weights = result.weights;
  source.channel_numbers = result.channel_numbers;
  source.members = result.members;
  const std::string text = model_source_text(source);
  write_file_atomically(options.output, std::as_bytes(std::span(text)));
  out << "  output   " << options.output.string() << ": " << model.name
      << "::mcu::quantized_model\n";
  if (!options.report.empty()) {
    const std::string json = report_json(model, result);
    write_file_atomically(options.report, std::as_bytes(std::span(json)));
    out << "  report   " << options.report.string() << "\n";
  }
  return result;
}

}  // namespace staticnet::runtime::quantize
