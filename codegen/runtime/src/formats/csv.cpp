#include "staticnet/runtime/formats/csv.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "array_dataset.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

struct Field {
  std::string_view text;  // trimmed, unquoted
  std::size_t start = 0;  // byte index of text in the line (or of the empty field's position)
};

struct Line {
  std::string_view text;
  std::uint64_t number = 0;  // 1-based
};

std::string quoted(std::string_view text) {
  std::string out = "'";
  out.append(text.substr(0, 60));
  if (text.size() > 60)
    out += "...";
  return out + "'";
}

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

// Splits one line into fields; no allocation beyond the reused vector.
void split(std::string_view line, char delimiter, std::vector<Field>& fields) {
  fields.clear();
  std::size_t begin = 0;
  while (true) {
    std::size_t end = line.find(delimiter, begin);
    if (end == std::string_view::npos)
      end = line.size();
    std::size_t a = begin, b = end;
    while (a < b && is_blank(line[a]))
      ++a;
    while (b > a && is_blank(line[b - 1]))
      --b;
    if (b - a >= 2 && line[a] == '"' && line[b - 1] == '"') {
      ++a;
      --b;
    }
    fields.push_back(Field{line.substr(a, b - a), a});
    if (end == line.size())
      break;
    begin = end + 1;
  }
}

std::optional<double> parse_number(std::string_view text) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  if (text.empty() || text[0] == '+')
    return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

class CsvDataset final : public Dataset {
 public:
  CsvDataset(ByteSource source, const DatasetOptions& options, const CsvOptions& csv)
      : name_(source.name()), label_kind_(csv.label_kind) {
    std::string_view text(reinterpret_cast<const char*>(source.bytes().data()), source.size());
    // Excel's "CSV UTF-8" starts with a byte order mark, which would join the first header name.
    if (text.starts_with("\xEF\xBB\xBF"))
      text.remove_prefix(3);
    if (csv.delimiter == '\n' || csv.delimiter == '\r' || csv.delimiter == '"' ||
        is_blank(csv.delimiter)) {
      throw FormatError(Location{name_, {}, {}, {}},
                        "a delimiter other than space, tab, quote or newline",
                        quoted(std::string_view(&csv.delimiter, 1)));
    }
    parse(text, options, csv);
  }

  std::string format_name() const override { return "csv"; }
  std::string source() const override { return name_; }
  std::int64_t size() const override { return size_; }
  const std::vector<std::int64_t>& sample_shape() const override { return sample_shape_; }
  ElementType element_type() const override { return ElementType::f32; }
  LabelKind label_kind() const override { return label_kind_; }
  std::int64_t num_classes() const override { return num_classes_; }
  const std::vector<std::int64_t>& target_shape() const override { return target_shape_; }

  void read_sample(std::int64_t index, std::span<float> features) const override {
    check_sample_index(index, size_);
    check_span_size(features.size(), feature_count_, "features");
    std::memcpy(features.data(), features_.data() + index * feature_count_,
                features.size() * sizeof(float));
  }
  std::int32_t label(std::int64_t index) const override {
    if (label_kind_ != LabelKind::class_index) {
      throw std::logic_error(name_ + ": label() called on a data set without class labels");
    }
    check_sample_index(index, size_);
    return labels_[static_cast<std::size_t>(index)];
  }
  void read_target(std::int64_t index, std::span<float> target) const override {
    if (label_kind_ != LabelKind::regression) {
      throw std::logic_error(name_ + ": read_target() called on a data set without targets");
    }
    check_sample_index(index, size_);
    check_span_size(target.size(), 1, "target");
    target[0] = targets_[static_cast<std::size_t>(index)];
  }
  std::int64_t memory_bytes() const override {
    return static_cast<std::int64_t>(features_.size() * sizeof(float) +
                                     labels_.size() * sizeof(std::int32_t) +
                                     targets_.size() * sizeof(float));
  }

 private:
  // 1-based character column of byte `byte_index` in `line`: UTF-8 continuation bytes do not
  // start a character.
  static std::uint64_t column_of(std::string_view line, std::size_t byte_index) {
    std::uint64_t column = 1;
    for (std::size_t i = 0; i < byte_index && i < line.size(); ++i) {
      if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80)
        ++column;
    }
    return column;
  }

  [[noreturn]] void fail(const Line& line, std::size_t byte_index, std::string expected,
                         std::string found) const {
    throw FormatError(Location{name_, {}, line.number, column_of(line.text, byte_index)},
                      std::move(expected), std::move(found));
  }

  // The label's column; `first.size()` (past the last) when the data set has none.
  std::size_t resolve_label_column(const CsvOptions& csv, const std::vector<Field>& first,
                                   const Line& first_line, bool has_header) const {
    const auto count = first.size();
    if (label_kind_ == LabelKind::none)
      return count;
    if (std::holds_alternative<std::monostate>(csv.label_column))
      return count - 1;
    if (const auto* index = std::get_if<std::int64_t>(&csv.label_column)) {
      if (*index < 0 || static_cast<std::size_t>(*index) >= count) {
        fail(first_line, 0, "a label column index in [0, " + std::to_string(count) + ")",
             std::to_string(*index));
      }
      return static_cast<std::size_t>(*index);
    }
    const auto& name = std::get<std::string>(csv.label_column);
    if (!has_header) {
      fail(first_line, 0, "a header row naming the label column " + quoted(name), "a data row");
    }
    std::string names;
    for (std::size_t i = 0; i < count; ++i) {
      if (first[i].text == name)
        return i;
      names += (i ? ", " : "") + quoted(first[i].text);
    }
    fail(first_line, 0, "a column named " + quoted(name), "columns " + names);
  }

  void parse(std::string_view text, const DatasetOptions& options, const CsvOptions& csv) {
    std::vector<Field> fields;
    std::optional<std::size_t> field_count;
    std::size_t label_column = 0;
    std::string default_label_note;
    LabelRangeCheck range(label_kind_ == LabelKind::class_index ? options.num_classes
                                                                : std::optional<std::int64_t>(1),
                          Location{name_, {}, {}, {}});
    bool first_line = true;
    Line line;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos)
        end = text.size();
      line.text = text.substr(pos, end - pos);
      ++line.number;
      pos = end + 1;
      if (!line.text.empty() && line.text.back() == '\r')
        line.text.remove_suffix(1);
      if (line.text.find_first_not_of(" \t") == std::string_view::npos)
        continue;

      split(line.text, csv.delimiter, fields);
      if (first_line) {
        first_line = false;
        if (fields.size() < 2 && label_kind_ != LabelKind::none) {
          fail(line, line.text.size(), "at least 2 columns (features and a label)",
               "1 column (is the delimiter " + quoted(std::string_view(&csv.delimiter, 1)) +
                   " right?)");
        }
        bool header = csv.header == CsvHeader::present;
        if (csv.header == CsvHeader::detect) {
          for (const auto& field : fields)
            header = header || !parse_number(field.text);
        }
        field_count = fields.size();
        label_column = resolve_label_column(csv, fields, line, header);
        // A label that does not read, where nobody chose its column: say which column that was.
        // (Data without labels has no label column: label_column is then one past the fields.)
        if (label_kind_ == LabelKind::class_index &&
            std::holds_alternative<std::monostate>(csv.label_column))
          default_label_note = " (the label is read from the last column" +
                               (header ? ", " + quoted(fields[label_column].text) : std::string()) +
                               ", the default: --label-column names another)";
        if (header)
          continue;
      }
      if (fields.size() != *field_count) {
        const bool too_many = fields.size() > *field_count;
        fail(line, too_many ? fields[*field_count].start - 1 : line.text.size(),
             std::to_string(*field_count) + " fields like the first row",
             std::to_string(fields.size()) + " fields (ragged row)");
      }
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto& field = fields[i];
        if (i == label_column && label_kind_ == LabelKind::class_index) {
          const auto value = parse_integer(field.text);
          if (!value) {
            fail(line, field.start, "an integer class label",
                 (field.text.empty() ? std::string("an empty field") : quoted(field.text)) +
                     default_label_note);
          }
          try {
            range.check(*value, size_,
                        Location{name_, {}, line.number, column_of(line.text, field.start)});
          } catch (const FormatError& e) {
            throw FormatError(e.where(), e.expected(), e.found() + default_label_note);
          }
          labels_.push_back(static_cast<std::int32_t>(*value));
          continue;
        }
        const auto number = parse_number(field.text);
        if (!number) {
          fail(line, field.start, "a number",
               field.text.empty() ? std::string("an empty field") : quoted(field.text));
        }
        const float value = narrow_to_f32(*number);
        if (!options.allow_non_finite && !std::isfinite(value)) {
          throw_non_finite(Location{name_, {}, line.number, column_of(line.text, field.start)},
                           size_, static_cast<std::int64_t>(i > label_column ? i - 1 : i), value);
        }
        if (i == label_column) {
          targets_.push_back(value);
        } else {
          features_.push_back(value);
        }
      }
      ++size_;
    }
    if (size_ == 0) {
      throw FormatError(Location{name_, {}, line.number + (line.number == 0), 1},
                        "at least one data row", "end of file");
    }
    feature_count_ = static_cast<std::int64_t>(*field_count) - (label_kind_ != LabelKind::none);
    sample_shape_ = resolve_sample_shape({feature_count_}, options.expect_sample_shape, true,
                                         Location{name_, {}, {}, {}});
    if (label_kind_ == LabelKind::class_index) {
      num_classes_ = range.num_classes();
    } else if (label_kind_ == LabelKind::regression) {
      target_shape_ = {1};
    }
  }

  std::string name_;
  LabelKind label_kind_;
  std::int64_t size_ = 0;
  std::int64_t feature_count_ = 0;
  std::int64_t num_classes_ = 0;
  std::vector<std::int64_t> sample_shape_;
  std::vector<std::int64_t> target_shape_;
  std::vector<float> features_;
  std::vector<std::int32_t> labels_;
  std::vector<float> targets_;
};

}  // namespace

std::variant<std::monostate, std::int64_t, std::string> parse_label_column(
    const std::string& text) {
  if (text.empty())
    return std::monostate{};
  const bool digits = text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && text.size() < 19)
    return static_cast<std::int64_t>(std::stoll(text));
  return text;
}

std::unique_ptr<Dataset> open_csv(ByteSource source, const DatasetOptions& options,
                                  const CsvOptions& csv) {
  return std::make_unique<CsvDataset>(std::move(source), options, csv);
}

std::unique_ptr<Dataset> open_csv(const std::string& path, const DatasetOptions& options,
                                  const CsvOptions& csv) {
  return open_csv(ByteSource::from_file(path), options, csv);
}

}  // namespace staticnet::runtime
