#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "../cli/data_options.hpp"
#include "../cli/exit_status.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/inference/infer.hpp"

namespace staticnet::runtime {

int infer_main(int argc, char** argv, const InferenceModel& model, CpuInferenceSteps steps) {
  return infer_main(
      argc, argv, model,
      InferenceProgram{"CPU", true, [&](int threads) -> std::unique_ptr<InferenceBackend> {
                         return std::make_unique<CpuInference>(model, steps, threads);
                       }});
}

int infer_main(int argc, char** argv, const InferenceModel& model,
               const InferenceProgram& backend) {
  const std::string program =
      argc > 0 ? std::filesystem::path(argv[0]).filename().string() : model.name + "_infer";
  CLI::App app{"Runs " + model.name + " (" + model.model_type + ", " + model.setup_type +
                   ") forward over a data set: batch " + std::to_string(model.batch) +
                   ", BatchNorms folded, on the " + backend.backend +
                   ". Memory is the compile-time plan.",
               program};
  InferOptions options;
  std::string labels, format = "auto";
  std::optional<float> scale;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("--weights", options.weights,
                 "The model's weights: a trainer's checkpoint, or any safetensors file with the "
                 "model's tensor names (PyTorch's save_file(model.state_dict()))")
      ->required();
  app.add_option("--data", options.data,
                 "Data: IDX, CIFAR-10/100 .bin (repeat for several), .npy or .csv. IDX and .npy "
                 "inputs without --labels are unlabelled: their outputs need --output")
      ->required();
  auto* labels_option = app.add_option(
      "--labels", labels, "The labels (or targets) file of IDX and .npy data: scores the outputs");
  auto* label_column = app.add_option(
      "--label-column", options.label_column,
      "CSV: the label's column, a 0-based index or a header name (default: the last)");
  app.add_flag("--no-labels", options.no_labels, "CSV: no label column, every field an input")
      ->excludes(label_column)
      ->excludes(labels_option);
  cli::DataOptionsText data_options;  // CSV's delimiter and header, CIFAR-100's labels
  cli::add_data_options(app, data_options);
  app.add_option("--format", format, "Data format (default: from the content and name)")
      ->check(CLI::IsMember({"auto", "idx", "cifar10", "cifar100", "npy", "csv"}));
  cli::add_normalization_options(app, scale, options.mean, options.stddev,
                                 "the checkpoint's, as in training");
  app.add_option("--output", options.output,
                 "Write every sample's output here (.npy, f32), atomically, after the last batch; "
                 "required for unlabelled data");
  app.add_option("--workers", options.workers, "Data loader threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  if (backend.compute_threads)
    app.add_option("--threads", threads, "Compute threads")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!labels.empty())
    options.data.push_back(labels);
  options.format = *parse_dataset_format(format);
  options.scale = scale;
  options.csv_delimiter = cli::csv_delimiter(data_options);
  options.csv_header = cli::csv_header(data_options);
  options.cifar100_labels = cli::cifar100_labels(data_options);
  return cli::run_reporting_errors(program, [&] {
    const std::unique_ptr<InferenceBackend> inference = backend.make(threads);
    run_inference(model, *inference, options, std::cout);
    return 0;
  });
}

}  // namespace staticnet::runtime
