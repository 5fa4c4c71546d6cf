#pragma once
// Numeric CSV: one sample per line, every field a number, one of them the label (or none, for
// inference). Parsed whole at
// open (CSV cannot be indexed without a scan), so every check, non-finite values included,
// happens then; errors carry 1-based line and character column and quote the offending text.
// Blank lines are skipped; "\r\n" endings are accepted; fields may be padded with spaces and
// wrapped in double quotes (no quoted delimiters).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/dataset_options.hpp"

namespace staticnet::runtime {

// detect: the first line is a header when any of its fields is not a number.
enum class CsvHeader { detect, present, absent };

struct CsvOptions {
  char delimiter = ',';
  CsvHeader header = CsvHeader::detect;
  // monostate: the last column; an index: 0-based column; a string: the header's column name.
  std::variant<std::monostate, std::int64_t, std::string> label_column;
  // class_index: labels must be integers in [0, num_classes). regression: a float target.
  // none: no label column, every field a feature (label_column is ignored).
  LabelKind label_kind = LabelKind::class_index;
};

// A --label-column value as CsvOptions::label_column: digits are a 0-based column index, anything
// else a header name.
std::variant<std::monostate, std::int64_t, std::string> parse_label_column(const std::string& text);

std::unique_ptr<Dataset> open_csv(ByteSource source, const DatasetOptions& options = {},
                                  const CsvOptions& csv = {});
std::unique_ptr<Dataset> open_csv(const std::string& path, const DatasetOptions& options = {},
                                  const CsvOptions& csv = {});

}  // namespace staticnet::runtime
