#include "staticnet/runtime/trainer/trainer_main.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "../cli/data_options.hpp"
#include "../cli/exit_status.hpp"
#include "staticnet/runtime/batches/loader_config.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/trainer/host_memory.hpp"
#include "staticnet/runtime/trainer/train.hpp"

namespace staticnet::runtime {
namespace {

struct CommandLine {
  std::vector<std::string> data;
  std::string labels;
  std::vector<std::string> eval;
  std::string eval_labels;
  std::string format = "auto";
  std::string progress = "auto";
  std::optional<std::string> lr_schedule;
  std::optional<float> scale;
  cli::DataOptionsText data_options;  // CSV's delimiter and header, CIFAR-100's labels
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
};

std::vector<std::string> with_labels(std::vector<std::string> files, const std::string& labels) {
  if (!labels.empty())
    files.push_back(labels);
  return files;
}

// CLI11's check of --lr-schedule: "" when it reads, else why not.
std::string schedule_problem(const std::string& text) {
  try {
    LrSchedule::parse(text);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

ProgressMode progress_mode(const std::string& name) {
  if (name == "bar")
    return ProgressMode::bar;
  if (name == "lines")
    return ProgressMode::lines;
  if (name == "none" || name == "off")  // `staticnet data check` says off
    return ProgressMode::none;
  return ProgressMode::automatic;
}

}  // namespace

int trainer_main(int argc, char** argv, const ModelInfo& model, const BackendFactory& backend) {
  const std::string program =
      argc > 0 ? std::filesystem::path(argv[0]).filename().string() : model.name + "_trainer";
  CLI::App app{"Trains " + model.name + " (" + model.model_type + ", " + model.setup_type +
                   "): batch " + std::to_string(model.batch) + ", " +
                   optimizer_name(model.optimizer) + ". Memory is the compile-time plan.",
               program};
  CommandLine cl;
  TrainOptions options;
  const kernels::OptimizerSettings defaults = default_optimizer_settings(model.optimizer);

  app.add_option("--data", cl.data,
                 "Training data: IDX, CIFAR-10/100 .bin (repeat for several), .npy or .csv, or "
                 "synthetic:N for N generated samples whose labels the model can learn "
                 "(synthetic:N:seed=S,labels=random: another seed, labels it can only memorise)")
      ->required();
  app.add_option("--labels", cl.labels, "The labels (or targets) file of IDX and .npy data");
  CLI::Option* eval =
      app.add_option("--eval", cl.eval, "Evaluation data after every epoch (same formats)");
  app.add_option("--eval-labels", cl.eval_labels, "The labels file of the evaluation data")
      ->needs(eval);  // alone, it would be read by nothing
  app.add_option("--label-column", options.label_column,
                 "CSV: the label's column, a 0-based index or a header name (default: the last)");
  cli::add_data_options(app, cl.data_options);
  app.add_option("--format", cl.format, "Data format (default: from the content and name)")
      ->check(CLI::IsMember({"auto", "idx", "cifar10", "cifar100", "npy", "csv"}));
  app.add_option("--epochs", options.epochs, "Epochs to train (in total, counting resumed ones)")
      ->capture_default_str()
      ->check(cli::number_check(cli::NumberRange::positive));
  app.add_option("--max-steps", options.max_steps, "Stop (and save) after this many steps")
      ->check(cli::number_check(cli::NumberRange::positive));
  // The optimizer's settings: left out, they are the checkpoint's with --resume.
  OptimizerChoices& chosen = options.optimizer;
  app.add_option("--lr", chosen.learning_rate,
                 fmt::format("Learning rate (the first epoch's under --lr-schedule; default {}; "
                             "with --resume, the checkpoint's)",
                             defaults.learning_rate))
      ->check(cli::number_check(cli::NumberRange::positive));
  app.add_option("--lr-schedule", cl.lr_schedule,
                 "The learning rate from epoch to epoch: constant (the default), "
                 "exponential:GAMMA (times GAMMA after every epoch, e.g. exponential:0.99), "
                 "steps:EPOCHS=LR,... (LR once EPOCHS epochs are done, e.g. "
                 "steps:12=1e-4,24=2e-5) or cosine:EPOCHS[,MIN] (down to MIN, default 0, along "
                 "a half cosine over EPOCHS epochs, as PyTorch's CosineAnnealingLR)")
      ->check(CLI::Validator(schedule_problem, "SCHEDULE"));
  app.add_option("--momentum", chosen.momentum, "SGDMomentum's momentum (default 0.9)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--weight-decay", chosen.weight_decay, "Weight decay (default 0; AdamW 0.01)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--beta1", chosen.beta1, "Adam's beta1 (default 0.9)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--beta2", chosen.beta2, "Adam's beta2 (default 0.999)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--eps", chosen.epsilon, "Adam's epsilon (default 1e-8)")
      ->check(cli::number_check(cli::NumberRange::positive));
  const CLI::Option* seed =
      app.add_option("--seed", options.seed,
                     "Seed of the initial weights, the data order and Dropout's masks (a "
                     "synthetic data set has its own: synthetic:N:seed=S)")
          ->capture_default_str();
  app.add_flag("--no-shuffle", options.no_shuffle,
               "Every epoch in the data's own order, as PyTorch's DataLoader(shuffle=False) "
               "(kept by --save; with --resume, from a checkpoint at an epoch's end)");
  app.add_option("--workers", options.workers, "Data loader threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--threads", cl.threads, "Compute threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cli::add_normalization_options(app, cl.scale, options.mean, options.stddev,
                                 "with --resume or --init, the file's");
  app.add_option("--crop", options.augmentation.crop_padding,
                 "Random crop augmentation: pad by this many pixels, crop back")
      ->check(cli::number_check(cli::NumberRange::non_negative));
  app.add_flag("--flip", options.augmentation.horizontal_flip,
               "Random horizontal flip augmentation");
  app.add_option("--init", options.init,
                 "Start from these weights (a safetensors file with the model's tensor names, "
                 "e.g. PyTorch's save_file(model.state_dict()))");
  app.add_option("--resume", options.resume, "Continue from a checkpoint written by --save");
  app.add_option("--save", options.save,
                 "Write a checkpoint (safetensors) here after every epoch and when stopped");
  app.add_flag("--overwrite", options.overwrite,
               "Let --save and --metrics replace files that are there (without it, only the "
               "checkpoint --resume continues is replaced, and its metrics are appended to)");
  app.add_option("--metrics", options.metrics, "Append one JSON object per epoch to this file");
  app.add_option("--progress", cl.progress,
                 "Progress display: a bar on a terminal, whole lines otherwise (auto)")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none", "off"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!options.init.empty() && !options.resume.empty()) {
    std::fprintf(stderr, "%s: error: --init and --resume exclude each other\n", program.c_str());
    return 2;
  }
  if (seed->count() > 0 && !options.resume.empty())
    std::fprintf(stderr,
                 "%s: note: --seed does not apply with --resume: the run continues the "
                 "checkpoint's weights and data order\n",
                 program.c_str());

  options.data = with_labels(cl.data, cl.labels);
  if (!cl.eval.empty())
    options.eval = with_labels(cl.eval, cl.eval_labels);
  options.format = *parse_dataset_format(cl.format);
  options.progress = progress_mode(cl.progress);
  options.scale = cl.scale;
  options.csv_delimiter = cli::csv_delimiter(cl.data_options);
  options.csv_header = cli::csv_header(cl.data_options);
  options.cifar100_labels = cli::cifar100_labels(cl.data_options);
  if (cl.lr_schedule)
    chosen.lr_schedule = LrSchedule::parse(*cl.lr_schedule);  // checked while parsing

  return cli::run_reporting_errors(program, [&] {
    options.resident_before_setup = anonymous_resident_bytes();
    const std::unique_ptr<Backend> runner = backend(cl.threads);
    const TrainResult result = train(model, *runner, options, std::cout, std::cerr);
    // As a shell reports a program a signal ended: 130 for Ctrl-C, 143 for SIGTERM.
    return result.interrupted ? 128 + result.signal : 0;
  });
}

}  // namespace staticnet::runtime
