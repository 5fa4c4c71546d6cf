#pragma once
// What every generated NAME_quantize program runs: TensorFlow Lite's post-training int8
// quantization (calibration.hpp) of a trained model, written as a C++ source for a firmware.
//
//  1. Loads the model's float tensors from a trainer's checkpoint (or any safetensors file with
//     its tensor names) and folds every BatchNorm into the convolution or Linear before it.
//  2. Runs the float model over the calibration samples, through the same normalisation the
//     trainer applied (the checkpoint's, unless --scale, --mean, --std say otherwise), and keeps
//     each int8 tensor's range: its scale and zero point follow from it.
//  3. Quantizes the weights per output channel and the biases to int32, and derives what the
//     int8 kernels take (multipliers, shifts, clamps) as TensorFlow Lite's kernels derive them.
//  4. With an evaluation set, runs both models over it, the int8 one through the generated
//     NAME::mcu::invoke, the firmware's own code, and reports both accuracies (or mean squared
//     errors) and how often the two agree.
//  5. Writes the source atomically: it defines NAME::mcu::quantized_model.
// A step that fails names the tensor, sample or file, and writes nothing. The source and the
// report are each written atomically, the source first.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/formats/open_dataset.hpp"
#include "staticnet/runtime/quantize/calibration.hpp"
#include "staticnet/runtime/quantize/quantizer_model.hpp"

namespace staticnet::runtime::quantize {

struct QuantizeOptions {
  std::filesystem::path weights;         // required: the float model
  std::vector<std::string> calibration;  // the calibration set's file(s), or
  std::filesystem::path ranges;          // an earlier report whose ranges to take
  std::int64_t calibration_samples = 0;  // the first this many of them; 0: all
  std::vector<std::string> evaluation;   // the evaluation set's file(s), or none
  DatasetFormat format = DatasetFormat::automatic;
  std::string label_column;  // CSV (a 0-based index or a header name)
  bool no_labels = false;    // CSV: no label column, every field an input
  bool regression = false;   // the outputs are targets, not class scores (an autoencoder)
  char csv_delimiter = ',';
  CsvHeader csv_header = CsvHeader::detect;
  Cifar100Labels cifar100_labels = Cifar100Labels::fine;
  std::optional<float> scale;  // input normalisation, as the trainer's options
  std::vector<float> mean, stddev;
  std::filesystem::path output;  // required: the C++ source to write
  std::filesystem::path report;  // a JSON report of every number, or none
};

// The float model and the int8 one over the evaluation set.
struct Evaluation {
  std::int64_t samples = 0;
  std::optional<double> float_accuracy, int8_accuracy;  // class labels
  std::optional<double> float_error, int8_error;        // targets: mean squared error
  std::optional<double> agreement;  // classifiers: the share of samples both give one class
  double largest_difference = 0;    // |int8 output (dequantized) − float output|, at most
  // Every sample's int8 input (as quantized) and output, for the JSON report.
  std::vector<std::vector<std::int8_t>> int8_inputs, int8_outputs;
};

struct QuantizeResult {
  std::int64_t calibration_samples = 0;
  std::vector<Range> ranges;                       // per tensor, over the calibration samples
  std::vector<TensorScale> scales;                 // per tensor
  std::vector<std::vector<double>> weight_scales;  // per product, per output channel
  std::vector<std::int8_t> weights;                // the flash, as the source holds it
  std::vector<std::int32_t> channel_numbers;
  std::vector<std::string> members;  // the Quantization's members, as written
  std::optional<Evaluation> evaluation;
};

// Throws UsageError, QuantizationError and the runtime's FormatError, IoError,
// CheckpointMismatch and LoaderConfigError.
QuantizeResult run_quantizer(const QuantizerModel& model, const QuantizerProgram& program,
                             const QuantizeOptions& options, std::ostream& out);

// NAME_quantize's main(): parses the command line (NAME_quantize --help) and runs.
int quantize_main(int argc, char** argv, const QuantizerModel& model,
                  const QuantizerProgram& program);

}  // namespace staticnet::runtime::quantize
