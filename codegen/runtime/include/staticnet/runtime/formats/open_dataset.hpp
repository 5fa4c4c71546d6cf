#pragma once
// One entry point for every data-set format. The format comes from the option when given, else
// from the first file's content (IDX magic, .npy magic), else from its name (*.csv; CIFAR-10's
// data_batch_N.bin and test_batch.bin; CIFAR-100's train.bin and test.bin).
//
// Files per format: idx and npy take (inputs, labels), or the inputs alone (unlabelled, for
// inference); cifar10 and cifar100 take one or more batch files; csv takes one file (without a
// label column when CsvOptions::label_kind is none); synthetic takes none.
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/formats/cifar.hpp"
#include "staticnet/runtime/formats/csv.hpp"
#include "staticnet/runtime/formats/dataset_options.hpp"
#include "staticnet/runtime/formats/synthetic.hpp"

namespace staticnet::runtime {

enum class DatasetFormat { automatic, idx, cifar10, cifar100, npy, csv, synthetic };

// "idx", "cifar10", "cifar100", "npy", "csv", "synthetic", "auto"
std::string_view dataset_format_name(DatasetFormat format) noexcept;
std::optional<DatasetFormat> parse_dataset_format(std::string_view name) noexcept;

struct OpenOptions {
  DatasetFormat format = DatasetFormat::automatic;
  DatasetOptions common;
  CsvOptions csv;
  Cifar100Labels cifar100_labels = Cifar100Labels::fine;
  SyntheticOptions synthetic;
};

// The format a file holds, judged from its first bytes and its name; nullopt when neither tells.
std::optional<DatasetFormat> detect_format(std::span<const std::byte> head,
                                           std::string_view path) noexcept;

// Throws UsageError for the wrong number of files (checked before any but the first is opened),
// FormatError for an undetectable format, IoError when a file cannot be read, and whatever the
// format's parser throws.
std::unique_ptr<Dataset> open_dataset(const std::vector<std::string>& paths,
                                      const OpenOptions& options = {});

// The options in `given` that say how to read a format `data` is not, as the programs spell them:
// CSV's "--label-column", "--delimiter", "--header"/"--no-header", "--no-labels" for data of
// another format, and
// "--cifar100-labels coarse" for data that is not CIFAR-100. Empty when every option applies; the
// programs refuse the rest rather than ignore what the user meant.
std::vector<std::string> options_for_other_formats(const Dataset& data, const OpenOptions& given);
// "--label-column and --delimiter are options of CSV data, but train.npy is npy data"
std::string misplaced_options_message(const std::vector<std::string>& misplaced,
                                      const Dataset& data);

}  // namespace staticnet::runtime
