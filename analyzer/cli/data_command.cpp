// `staticnet data check`: the format, shape, count, element type, label range and class balance
// of a data set, after a full validation scan with a progress report on stderr.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"
#include "staticnet/runtime/tools/data_check.hpp"
#include "staticnet/runtime/tools/progress.hpp"
#include "staticnet/runtime/validation.hpp"  // max_num_classes

namespace staticnet::cli {
namespace {

namespace rt = staticnet::runtime;

struct DataCheckArgs {
  std::vector<std::string> files;
  std::string format = "auto";
  std::string labels;
  std::optional<std::int64_t> num_classes;
  std::string label_column;
  bool header = false;
  bool no_header = false;
  char delimiter = ',';
  bool regression = false;
  bool no_labels = false;
  std::string cifar100_labels = "fine";
  bool allow_non_finite = false;
  std::string progress = "auto";
};

rt::OpenOptions open_options(const DataCheckArgs& args) {
  rt::OpenOptions options;
  options.format = *rt::parse_dataset_format(args.format);  // checked by the option's validator
  options.common.num_classes = args.num_classes;
  options.common.allow_non_finite = args.allow_non_finite;
  options.csv.delimiter = args.delimiter;
  options.csv.header = args.header      ? rt::CsvHeader::present
                       : args.no_header ? rt::CsvHeader::absent
                                        : rt::CsvHeader::detect;
  options.csv.label_column = rt::parse_label_column(args.label_column);
  if (args.regression)
    options.csv.label_kind = rt::LabelKind::regression;
  if (args.no_labels)
    options.csv.label_kind = rt::LabelKind::none;
  options.cifar100_labels =
      args.cifar100_labels == "coarse" ? rt::Cifar100Labels::coarse : rt::Cifar100Labels::fine;
  return options;
}

int run_data_check(const DataCheckArgs& args) {
  std::vector<std::string> files = args.files;
  if (!args.labels.empty())
    files.push_back(args.labels);
  const auto options = open_options(args);
  const auto dataset = rt::open_dataset(files, options);

  rt::ProgressOptions bar_options;
  bar_options.label = "scanning";
  bar_options.unit = "samples";
  bar_options.total = static_cast<std::uint64_t>(dataset->size());
  bar_options.terminal =
      args.progress == "bar" || (args.progress == "auto" && rt::stream_is_terminal(stderr));
  std::optional<rt::ProgressBar> bar;
  if (args.progress != "off" && args.progress != "none")  // the trainers say none
    bar.emplace(std::cerr, bar_options);
  const auto result = rt::check_dataset(*dataset, args.allow_non_finite, [&](std::uint64_t done) {
    if (bar)
      bar->update(done);
  });
  if (bar)
    bar->finish();
  std::cout << rt::format_data_check(result) << std::flush;
  return 0;
}

}  // namespace

void add_data_commands(CLI::App& app, Runner& run) {
  auto* data = app.add_subcommand("data", "Inspect data sets");
  data->require_subcommand(1);
  auto* check = data->add_subcommand(
      "check",
      "Open a data set, scan every sample (labels, NaN/Inf) and print its format, shape, count, "
      "element type, label range and class balance. Exits 1 with the parser's message on a bad "
      "file.");
  auto args = std::make_shared<DataCheckArgs>();
  check
      ->add_option("files", args->files,
                   "Data files: IDX or .npy inputs and labels (or the inputs alone), CIFAR batch "
                   "files, one CSV file")
      ->required();
  check
      ->add_option("--format", args->format,
                   "Data set format; by default told from the content or the file name")
      ->check(CLI::IsMember({"auto", "idx", "cifar10", "cifar100", "npy", "csv"}));
  check->add_option("--labels", args->labels, "The labels file (IDX, .npy)");
  check
      ->add_option("--num-classes", args->num_classes,
                   "Class count: labels outside [0, N) are errors (default: max label + 1)")
      ->check(CLI::Range(std::int64_t{1}, runtime::max_num_classes));
  check->add_option("--label-column", args->label_column,
                    "CSV: the label's 0-based column index or header name (default: last)");
  auto* header = check->add_flag("--header", args->header, "CSV: the first line is a header");
  auto* no_header = check->add_flag("--no-header", args->no_header, "CSV: the first line is data");
  header->excludes(no_header);
  check->add_option("--delimiter", args->delimiter, "CSV: field delimiter (default ',')");
  auto* regression =
      check->add_flag("--regression", args->regression, "CSV: the label column is a float target");
  check
      ->add_flag("--no-labels", args->no_labels,
                 "CSV: no label column, every field an input (IDX and .npy: give the inputs alone)")
      ->excludes(regression);
  check->add_option("--cifar100-labels", args->cifar100_labels, "CIFAR-100: fine or coarse")
      ->check(CLI::IsMember({"fine", "coarse"}));
  check->add_flag("--allow-non-finite", args->allow_non_finite,
                  "Count NaN and Inf instead of failing on them");
  check
      ->add_option("--progress", args->progress,
                   "auto: a bar on a terminal, plain lines otherwise; bar; lines; off")
      ->check(CLI::IsMember({"auto", "bar", "lines", "off", "none"}));
  check->callback([args, &run] { run = [args] { return run_data_check(*args); }; });
}

}  // namespace staticnet::cli
