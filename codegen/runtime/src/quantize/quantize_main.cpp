#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <optional>

#include "../cli/data_options.hpp"
#include "../cli/exit_status.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/quantize/quantize.hpp"

namespace staticnet::runtime::quantize {

int quantize_main(int argc, char** argv, const QuantizerModel& model,
                  const QuantizerProgram& program) {
  const std::string name =
      argc > 0 ? std::filesystem::path(argv[0]).filename().string() : model.name + "_quantize";
  CLI::App app{"Quantizes a trained " + model.name + " (" + model.model_type +
                   ") to int8 as TensorFlow Lite's converter does (per-channel weights, "
                   "per-tensor activations calibrated on a data set) and writes it as a C++ "
                   "source defining " +
                   model.name + "::mcu::quantized_model, for a firmware to compile in beside " +
                   model.name + "_mcu.cpp.",
               name};
  QuantizeOptions options;
  std::string labels, format = "auto";
  std::optional<float> scale;
  app.add_option("--weights", options.weights,
                 "The float model: a trainer's checkpoint, or any safetensors file with the "
                 "model's tensor names")
      ->required();
  app.add_option("--calibration", options.calibration,
                 "The calibration set: IDX, CIFAR-10/100 .bin, .npy or .csv, read as the trainer "
                 "reads it (labels, if any, unused); samples like those the model will see");
  app.add_option("--ranges", options.ranges,
                 "Instead of calibrating, take every tensor's range from this JSON file, in the "
                 "form --report writes (an earlier run's, edited, or another tool's ranges)");
  app.add_option("--calibration-samples", options.calibration_samples,
                 "Calibrate on the first N samples only (default: all)")
      ->check(CLI::PositiveNumber);
  app.add_option("--data", options.evaluation,
                 "An evaluation set: the float and the int8 model are both run over it and "
                 "scored");
  app.add_option("--labels", labels, "The labels (or targets) file of IDX and .npy --data");
  auto* label_column = app.add_option(
      "--label-column", options.label_column,
      "CSV: the label's column, a 0-based index or a header name (default: the last)");
  app.add_flag("--no-labels", options.no_labels, "CSV: no label column, every field an input")
      ->excludes(label_column);
  cli::DataOptionsText data_options;
  cli::add_data_options(app, data_options);
  app.add_option("--format", format, "Data format (default: from the content and name)")
      ->check(CLI::IsMember({"auto", "idx", "cifar10", "cifar100", "npy", "csv"}));
  cli::add_normalization_options(app, scale, options.mean, options.stddev,
                                 "the checkpoint's, as in training");
  app.add_option("--output", options.output,
                 "The C++ source to write (atomically), e.g. " + model.name + "_weights.cpp")
      ->required();
  app.add_flag("--regression", options.regression,
               "The model regresses (an autoencoder): its outputs are targets, not class scores; "
               "the evaluation scores mean squared error, and synthetic:N data get targets");
  app.add_option("--report", options.report,
                 "Also write every number computed (ranges, scales, weights, channel numbers, and "
                 "the evaluation's int8 inputs and outputs) to this JSON file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!labels.empty()) {
    if (options.evaluation.empty())
      return cli::run_reporting_errors(name, []() -> int {
        throw UsageError("--labels go with --data (the evaluation set's inputs)");
      });
    options.evaluation.push_back(labels);
  }
  options.format = *parse_dataset_format(format);
  options.scale = scale;
  options.csv_delimiter = cli::csv_delimiter(data_options);
  options.csv_header = cli::csv_header(data_options);
  options.cifar100_labels = cli::cifar100_labels(data_options);
  return cli::run_reporting_errors(name, [&] {
    run_quantizer(model, program, options, std::cout);
    return 0;
  });
}

}  // namespace staticnet::runtime::quantize
