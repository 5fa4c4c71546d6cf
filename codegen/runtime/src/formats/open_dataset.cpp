#include "staticnet/runtime/formats/open_dataset.hpp"

#include <array>
#include <utility>

#include "../english_list.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/idx.hpp"
#include "staticnet/runtime/formats/npy.hpp"

namespace staticnet::runtime {
namespace {

constexpr std::array<std::pair<DatasetFormat, std::string_view>, 7> format_names = {{
    {DatasetFormat::automatic, "auto"},
    {DatasetFormat::idx, "idx"},
    {DatasetFormat::cifar10, "cifar10"},
    {DatasetFormat::cifar100, "cifar100"},
    {DatasetFormat::npy, "npy"},
    {DatasetFormat::csv, "csv"},
    {DatasetFormat::synthetic, "synthetic"},
}};

std::string_view base_name(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_cifar10_name(std::string_view name) {
  if (name == "test_batch.bin")
    return true;
  constexpr std::string_view prefix = "data_batch_";
  if (name.substr(0, prefix.size()) != prefix || !ends_with(name, ".bin"))
    return false;
  const auto digits = name.substr(prefix.size(), name.size() - prefix.size() - 4);
  if (digits.empty())
    return false;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return false;
  }
  return true;
}

// Too many or too few files for the format is the command line's mistake, not the data's.
void require_files(const std::vector<std::string>& paths, DatasetFormat format,
                   std::size_t min_count, std::size_t max_count, const char* roles) {
  if (paths.size() >= min_count && paths.size() <= max_count)
    return;
  throw UsageError((paths.empty() ? std::string("(no files)") : paths[0]) + ": " +
                   std::string(dataset_format_name(format)) + " data is " + roles + ", but " +
                   std::to_string(paths.size()) +
                   (paths.size() == 1 ? " file was" : " files were") + " given");
}

void require_file_count(const std::vector<std::string>& paths, DatasetFormat format) {
  switch (format) {
    case DatasetFormat::idx:
      return require_files(paths, format, 1, 2, "2 files (images, labels), or the images alone");
    case DatasetFormat::npy:
      return require_files(paths, format, 1, 2, "2 files (inputs, labels), or the inputs alone");
    case DatasetFormat::cifar10:
    case DatasetFormat::cifar100:
      return require_files(paths, format, 1, SIZE_MAX, "at least 1 batch file");
    case DatasetFormat::csv:
      return require_files(paths, format, 1, 1,
                           "1 file (a CSV file holds its labels in a column, --label-column, not "
                           "in a labels file)");
    case DatasetFormat::synthetic:
      return require_files(paths, format, 0, 0, "generated, from no files");
    case DatasetFormat::automatic:
      return;
  }
}
}  // namespace

std::vector<std::string> options_for_other_formats(const Dataset& data, const OpenOptions& given) {
  std::vector<std::string> misplaced;
  if (data.format_name() != "csv") {
    if (!std::holds_alternative<std::monostate>(given.csv.label_column))
      misplaced.push_back("--label-column");
    if (given.csv.delimiter != CsvOptions{}.delimiter)
      misplaced.push_back("--delimiter");
    if (given.csv.header != CsvHeader::detect)
      misplaced.push_back(given.csv.header == CsvHeader::present ? "--header" : "--no-header");
    if (given.csv.label_kind == LabelKind::none)
      misplaced.push_back("--no-labels");
  }
  if (data.format_name() != "cifar100" && given.cifar100_labels != Cifar100Labels::fine)
    misplaced.push_back("--cifar100-labels coarse");
  return misplaced;
}

std::string misplaced_options_message(const std::vector<std::string>& misplaced,
                                      const Dataset& data) {
  std::vector<std::string> csv, cifar;
  for (const std::string& option : misplaced)
    (option.starts_with("--cifar100") ? cifar : csv).push_back(option);
  auto clause = [](const std::vector<std::string>& options, const char* format) {
    return english_list(options) +
           (options.size() == 1 ? " is an option of " : " are options of ") + format;
  };
  std::string text;
  if (!csv.empty())
    text = clause(csv, "CSV data");
  if (!cifar.empty())
    text += (text.empty() ? "" : "; ") + clause(cifar, "CIFAR-100 data");
  return text + ", but " + data.source() + " is " + data.format_name() + " data";
}

std::string_view dataset_format_name(DatasetFormat format) noexcept {
  for (const auto& [value, name] : format_names) {
    if (value == format)
      return name;
  }
  return "?";
}

std::optional<DatasetFormat> parse_dataset_format(std::string_view name) noexcept {
  for (const auto& [value, text] : format_names) {
    if (text == name)
      return value;
  }
  return std::nullopt;
}

std::optional<DatasetFormat> detect_format(std::span<const std::byte> head,
                                           std::string_view path) noexcept {
  if (looks_like_npy(head))
    return DatasetFormat::npy;
  if (looks_like_idx(head))
    return DatasetFormat::idx;
  const auto name = base_name(path);
  if (ends_with(name, ".csv"))
    return DatasetFormat::csv;
  if (is_cifar10_name(name))
    return DatasetFormat::cifar10;
  if (name == "train.bin" || name == "test.bin")
    return DatasetFormat::cifar100;
  return std::nullopt;
}

std::unique_ptr<Dataset> open_dataset(const std::vector<std::string>& paths,
                                      const OpenOptions& options) {
  DatasetFormat format = options.format;
  // The first file tells the format; the count is checked before the others are opened, so that
  // a wrong count is said as such, not as a missing third file.
  std::vector<ByteSource> sources;
  if (format == DatasetFormat::automatic) {
    if (paths.empty())
      throw UsageError("no data file given");
    sources.push_back(ByteSource::from_file(paths[0]));
    const auto detected = detect_format(sources[0].bytes(), sources[0].name());
    if (!detected && sources[0].bytes().empty())
      throw FormatError(Location{sources[0].name(), {}, {}, {}}, "a data set", "an empty file");
    if (!detected) {
      throw FormatError(Location{sources[0].name(), 0, {}, {}},
                        "a recognisable data set (IDX or .npy content, a .csv name, CIFAR "
                        "data_batch_N.bin / test_batch.bin / train.bin / test.bin), or an "
                        "explicit format",
                        "neither");
    }
    format = *detected;
  }
  require_file_count(paths, format);
  if (format != DatasetFormat::synthetic)
    for (std::size_t i = sources.size(); i < paths.size(); ++i)
      sources.push_back(ByteSource::from_file(paths[i]));

  switch (format) {
    case DatasetFormat::idx:
      if (sources.size() == 1)
        return open_idx(std::move(sources[0]), options.common);
      return open_idx(std::move(sources[0]), std::move(sources[1]), options.common);
    case DatasetFormat::npy:
      if (sources.size() == 1)
        return open_npy(std::move(sources[0]), options.common);
      return open_npy(std::move(sources[0]), std::move(sources[1]), options.common);
    case DatasetFormat::cifar10:
    case DatasetFormat::cifar100:
      return open_cifar(
          std::move(sources),
          format == DatasetFormat::cifar10 ? CifarVariant::cifar10 : CifarVariant::cifar100,
          options.common, options.cifar100_labels);
    case DatasetFormat::csv:
      return open_csv(std::move(sources[0]), options.common, options.csv);
    case DatasetFormat::synthetic:
      return make_synthetic(options.synthetic);
    case DatasetFormat::automatic:
      break;
  }
  throw FormatError(Location{}, "a data set format", "none");
}

}  // namespace staticnet::runtime
