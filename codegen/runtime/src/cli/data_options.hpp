#pragma once
// Private to the trainer and inference programs: the command-line options that say how to read a
// data file beyond its name (CSV's delimiter and header, CIFAR-100's labels) and how to normalise
// its inputs, the same in both, and the check of their number options.
#include <CLI/CLI.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/formats/open_dataset.hpp"

namespace staticnet::runtime::cli {

struct DataOptionsText {
  std::string delimiter = ",";
  bool header = false, no_header = false;  // neither: told from the first line
  std::string cifar100_labels = "fine";
};

// The numbers an option takes: any finite one (a mean), those ≥ 0, or those > 0.
enum class NumberRange { finite, non_negative, positive };

// CLI11's PositiveNumber and NonNegativeNumber print their range as 0.000000 to 1.79e308 in
// full (300 digits), and its Number lets "inf" and "nan" through; this says what is wrong in
// words.
inline CLI::Validator number_check(NumberRange range) {
  return CLI::Validator(
      [range](const std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool number =
            !text.empty() && end == text.c_str() + text.size() && std::isfinite(value);
        switch (range) {
          case NumberRange::finite:
            return number ? "" : "must be a finite number, got " + text;
          case NumberRange::non_negative:
            return number && value >= 0 ? "" : "must be 0 or more, got " + text;
          case NumberRange::positive:
            break;
        }
        return number && value > 0 ? "" : "must be above 0, got " + text;
      },
      range == NumberRange::finite     ? "NUMBER"
      : range == NumberRange::positive ? "> 0"
                                       : ">= 0");
}

// One character that cannot be part of a number or a blank: CSV's delimiter.
inline std::string delimiter_problem(const std::string& text) {
  if (text.size() != 1)
    return "must be one character, got '" + text + "'";
  const char c = text[0];
  if (std::isdigit(static_cast<unsigned char>(c)) || std::strchr(".+-eE\" \t", c) != nullptr)
    return "'" + text + "' cannot separate numbers (it can be part of one, or a blank)";
  return "";
}

inline void add_data_options(CLI::App& app, DataOptionsText& text) {
  app.add_option("--delimiter", text.delimiter, "CSV: the field delimiter (default ',')")
      ->check(CLI::Validator(delimiter_problem, "CHAR"));
  app.add_flag("--header", text.header, "CSV: the first line names the columns")
      ->excludes(app.add_flag("--no-header", text.no_header,
                              "CSV: the first line is data (default: told from its content)"));
  app.add_option("--cifar100-labels", text.cifar100_labels,
                 "CIFAR-100: the 100 fine or the 20 coarse classes (default: fine)")
      ->check(CLI::IsMember({"fine", "coarse"}));
}

// --scale, --mean and --std: the inputs' normalisation, each left out taking `kept_by`'s value
// ("the checkpoint's with --resume") before the element type's default.
inline void add_normalization_options(CLI::App& app, std::optional<float>& scale,
                                      std::vector<float>& mean, std::vector<float>& stddev,
                                      const std::string& kept_by) {
  app.add_option(
         "--scale", scale,
         "Multiply inputs by this (default: " + kept_by + "; else 1/255 for u8 data, else 1)")
      ->check(number_check(NumberRange::positive));
  app.add_option("--mean", mean,
                 "Per-channel mean subtracted after scaling (default: " + kept_by + ")")
      ->delimiter(',')
      ->check(number_check(NumberRange::finite));
  app.add_option("--std", stddev,
                 "Per-channel standard deviation divided by (default: " + kept_by + ")")
      ->delimiter(',')
      ->check(number_check(NumberRange::positive));
}

inline char csv_delimiter(const DataOptionsText& text) {
  return text.delimiter[0];
}
inline CsvHeader csv_header(const DataOptionsText& text) {
  return text.header ? CsvHeader::present : text.no_header ? CsvHeader::absent : CsvHeader::detect;
}
inline Cifar100Labels cifar100_labels(const DataOptionsText& text) {
  return text.cifar100_labels == "coarse" ? Cifar100Labels::coarse : Cifar100Labels::fine;
}

}  // namespace staticnet::runtime::cli
