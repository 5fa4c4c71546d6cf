#include "staticnet/runtime/formats/npy.hpp"

#include <array>
#include <cstring>
#include <optional>
#include <string_view>

#include "array_dataset.hpp"
#include "staticnet/runtime/checked_math.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

constexpr std::array<unsigned char, 6> npy_magic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t max_npy_rank = 32;  // numpy's own limit (NPY_MAXDIMS)

struct DtypeEntry {
  std::string_view descr;
  ElementType type;
};
constexpr std::array<DtypeEntry, 8> supported_dtypes = {{{"<f4", ElementType::f32},
                                                         {"<f2", ElementType::f16},
                                                         {"<f8", ElementType::f64},
                                                         {"|u1", ElementType::u8},
                                                         {"|i1", ElementType::i8},
                                                         {"<i2", ElementType::i16},
                                                         {"<i4", ElementType::i32},
                                                         {"<i8", ElementType::i64}}};

// Quote text from the file for a message, keeping it printable and short.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
  }
  if (text.size() > 40)
    out += "...";
  return out + "'";
}

// The Python dict literal numpy writes. Grammar (whitespace allowed between tokens):
//   dict  := '{' [entry (',' entry)* [',']] '}'      then only spaces / newlines to the end
//   entry := string ':' value
//   value := string | 'True' | 'False' | tuple
//   tuple := '(' [int (',' int)* [',']] ')'          int: decimal digits, optional 'L' suffix
//   string:= '...' or "..." without escapes
class HeaderDictParser {
 public:
  HeaderDictParser(std::string_view text, std::uint64_t base, const std::string& name)
      : text_(text), base_(base), name_(name) {}

  NpyHeader parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    skip_space();
    expect('{', "'{' opening the header dict");
    skip_space();
    while (peek() != '}') {
      const auto key_offset = pos_;
      const auto key = parse_string("a quoted key");
      skip_space();
      expect(':', "':' after the key");
      skip_space();
      if (key == "descr") {
        if (seen_descr)
          fail(key_offset, "each key once", "a second 'descr'");
        seen_descr = true;
        header.type = parse_descr();
      } else if (key == "fortran_order") {
        if (seen_order)
          fail(key_offset, "each key once", "a second 'fortran_order'");
        seen_order = true;
        const auto value_offset = pos_;
        if (parse_bool()) {
          fail(value_offset, "C-order data (fortran_order False)",
               "fortran_order True (save with np.ascontiguousarray)");
        }
      } else if (key == "shape") {
        if (seen_shape)
          fail(key_offset, "each key once", "a second 'shape'");
        seen_shape = true;
        header.shape_offset = base_ + pos_;
        header.shape = parse_shape();
      } else {
        fail(key_offset, "one of the keys 'descr', 'fortran_order', 'shape'", quoted(key));
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != '}') {
        fail(pos_, "',' or '}' after a value", found_here());
      }
    }
    const auto close = pos_;
    ++pos_;
    if (!seen_descr)
      fail(close, "a 'descr' key", "'}'");
    if (!seen_order)
      fail(close, "a 'fortran_order' key", "'}'");
    if (!seen_shape)
      fail(close, "a 'shape' key", "'}'");
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n'))
      ++pos_;
    if (pos_ != text_.size())
      fail(pos_, "only spaces and a newline after the header dict", found_here());
    return header;
  }

 private:
  [[noreturn]] void fail(std::size_t pos, std::string expected, std::string found) const {
    throw FormatError(Location{name_, base_ + pos, {}, {}}, std::move(expected), std::move(found));
  }

  char peek() const {
    if (pos_ >= text_.size())
      fail(pos_, "more of the header dict", "the end of the header");
    return text_[pos_];
  }

  std::string found_here() const {
    if (pos_ >= text_.size())
      return "the end of the header";
    return quoted(text_.substr(pos_, 1));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void expect(char c, const char* what) {
    if (peek() != c)
      fail(pos_, what, found_here());
    ++pos_;
  }

  std::string_view parse_string(const char* what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      fail(pos_, what, found_here());
    const auto start = ++pos_;
    while (peek() != quote) {
      if (text_[pos_] == '\\')
        fail(pos_, "a string without escapes", "'\\'");
      ++pos_;
    }
    return text_.substr(start, pos_++ - start);
  }

  bool parse_bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail(pos_, "True or False", found_here());
  }

  ElementType parse_descr() {
    const auto offset = pos_;
    if (peek() == '[') {
      fail(offset, "a plain numeric dtype", "a structured dtype (a list of fields)");
    }
    const auto descr = parse_string("a quoted dtype string such as '<f4'");
    for (const auto& entry : supported_dtypes) {
      if (descr == entry.descr)
        return entry.type;
    }
    if (!descr.empty() && descr[0] == '>') {
      fail(offset, "little-endian data ('<' or '|')",
           "big-endian dtype " + quoted(descr) +
               " (convert with arr.astype(arr.dtype.newbyteorder('<')))");
    }
    if (descr.find('O') != std::string_view::npos) {
      fail(offset, "a numeric dtype", "an object array " + quoted(descr));
    }
    std::string supported;
    for (const auto& entry : supported_dtypes) {
      supported +=
          (supported.empty() ? "" : ", ") + std::string("'") + std::string(entry.descr) + "'";
    }
    fail(offset, "one of the dtypes " + supported, "unsupported dtype " + quoted(descr));
  }

  std::vector<std::int64_t> parse_shape() {
    expect('(', "a shape tuple such as (60000, 784)");
    std::vector<std::int64_t> shape;
    skip_space();
    while (peek() != ')') {
      const auto start = pos_;
      std::uint64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        auto next = checked_mul(value, 10);
        if (next)
          next = checked_add(*next, static_cast<std::uint64_t>(text_[pos_] - '0'));
        if (!next || *next > INT64_MAX) {
          fail(start, "a dimension that fits in 63 bits", "a longer number");
        }
        value = *next;
        ++pos_;
      }
      if (pos_ == start)
        fail(pos_, "a non-negative integer dimension", found_here());
      if (pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_;  // Python 2 longs
      if (shape.size() == max_npy_rank) {
        fail(start, "at most " + std::to_string(max_npy_rank) + " dimensions", "more");
      }
      shape.push_back(static_cast<std::int64_t>(value));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        fail(pos_, "',' or ')' in the shape tuple", found_here());
      }
    }
    ++pos_;
    return shape;
  }

  std::string_view text_;
  std::uint64_t base_;  // byte offset of text_[0] in the file
  const std::string& name_;
  std::size_t pos_ = 0;
};

std::uint8_t byte_at(std::span<const std::byte> bytes, std::size_t i) {
  return static_cast<std::uint8_t>(bytes[i]);
}

}  // namespace

bool looks_like_npy(std::span<const std::byte> head) noexcept {
  return head.size() >= npy_magic.size() &&
         std::memcmp(head.data(), npy_magic.data(), npy_magic.size()) == 0;
}

NpyHeader parse_npy(std::span<const std::byte> bytes, const std::string& name) {
  const auto at = [&name](std::uint64_t offset) { return Location{name, offset, {}, {}}; };
  if (!looks_like_npy(bytes)) {
    std::size_t matching = 0;
    while (matching < npy_magic.size() && matching < bytes.size() &&
           byte_at(bytes, matching) == npy_magic[matching]) {
      ++matching;
    }
    throw FormatError(at(matching), "the .npy magic \\x93NUMPY",
                      matching < bytes.size() ? "a different byte" : "end of file");
  }
  if (bytes.size() < 8)
    throw FormatError(at(bytes.size()), "a 2-byte version", "end of file");
  const int major = byte_at(bytes, 6);
  const int minor = byte_at(bytes, 7);
  if (major < 1 || major > 3 || minor != 0) {
    throw FormatError(at(6), "format version 1.0, 2.0 or 3.0",
                      "version " + std::to_string(major) + "." + std::to_string(minor));
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::uint64_t header_start = 8 + length_bytes;
  if (bytes.size() < header_start) {
    throw FormatError(at(bytes.size()), std::to_string(length_bytes) + "-byte header length",
                      "end of file");
  }
  const std::uint64_t header_length =
      major == 1 ? load_element<std::uint16_t, ByteOrder::little>(bytes.data() + 8)
                 : load_element<std::uint32_t, ByteOrder::little>(bytes.data() + 8);
  if (bytes.size() - header_start < header_length) {
    throw FormatError(at(bytes.size()),
                      "a header of " + std::to_string(header_length) + " bytes (from byte 8)",
                      "end of file (truncated header)");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + header_start),
                              header_length);
  NpyHeader header = HeaderDictParser(text, header_start, name).parse();
  header.major_version = major;
  header.data_offset = header_start + header_length;

  std::uint64_t data_bytes = element_size(header.type);
  for (auto dim : header.shape) {
    auto product = checked_mul(data_bytes, static_cast<std::uint64_t>(dim));
    if (!product || *product > INT64_MAX) {
      throw FormatError(at(header.shape_offset), "a shape whose byte size fits in 63 bits",
                        "shape with dimension " + std::to_string(dim) + ", which overflows it");
    }
    data_bytes = *product;
  }
  check_data_extent(name, bytes.size(), header.data_offset, data_bytes);
  return header;
}

namespace {

StoredArray npy_array(ByteSource source, const char* role) {
  auto header = parse_npy(source.bytes(), source.name());
  if (header.shape.empty()) {
    throw FormatError(Location{source.name(), header.shape_offset, {}, {}},
                      std::string(role) + " of shape (N, ...)", "a scalar, shape ()");
  }
  // A zero sample count is reported by the data set; a zero elsewhere would make empty samples.
  for (std::size_t i = 1; i < header.shape.size(); ++i) {
    if (header.shape[i] == 0) {
      throw FormatError(Location{source.name(), header.shape_offset, {}, {}},
                        std::string(role) + " with non-zero sample dimensions",
                        "shape " + shape_to_string(header.shape));
    }
  }
  return StoredArray{std::move(source), header.data_offset,      header.type,
                     ByteOrder::little, std::move(header.shape), header.shape_offset};
}

}  // namespace

std::unique_ptr<Dataset> open_npy(ByteSource inputs, ByteSource labels,
                                  const DatasetOptions& options) {
  auto input_array = npy_array(std::move(inputs), "inputs");
  auto label_array = npy_array(std::move(labels), "labels");
  return std::make_unique<ArrayDataset>("npy", std::move(input_array), std::move(label_array),
                                        options);
}

std::unique_ptr<Dataset> open_npy(ByteSource inputs, const DatasetOptions& options) {
  return std::make_unique<ArrayDataset>("npy", npy_array(std::move(inputs), "inputs"), std::nullopt,
                                        options);
}

std::unique_ptr<Dataset> open_npy(const std::string& inputs_path, const std::string& labels_path,
                                  const DatasetOptions& options) {
  return open_npy(ByteSource::from_file(inputs_path), ByteSource::from_file(labels_path), options);
}

}  // namespace staticnet::runtime
