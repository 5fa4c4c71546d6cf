#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/validation.hpp"  // shape_to_string

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "safetensors_header_scan.hpp"
#include "staticnet/runtime/checked_math.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/mapped_file.hpp"

namespace staticnet::runtime {
namespace {

using nlohmann::json;

constexpr std::uint64_t length_field_bytes = 8;
// A valid header nests three levels (header, tensor, shape); the limit leaves room for unknown
// fields while keeping nlohmann::json's recursive code paths far from the stack's end.
constexpr std::size_t max_header_depth = 32;
constexpr std::size_t max_quoted_chars = 60;

std::uint64_t read_le_u64(std::span<const std::byte> bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  }
  return value;
}

[[noreturn]] void fail_at(const std::string& source, std::uint64_t offset, std::string expected,
                          std::string found) {
  throw FormatError(Location{source, offset, {}, {}}, std::move(expected), std::move(found));
}

// A short, printable description of a JSON value for "found ..." (never dumps deep values).
std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array of " + std::to_string(value.size()) + " elements";
    case json::value_t::string: {
      std::string text = value.dump();
      if (text.size() > max_quoted_chars) {
        std::size_t cut = max_quoted_chars;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
          --cut;
        text = text.substr(0, cut) + "...\"";
      }
      return "the string " + text;
    }
    case json::value_t::discarded:
      return "nothing";
    default:
      return value.dump();
  }
}

std::string json_quoted(std::string_view name) {
  std::string text = json(std::string(name)).dump();
  return text;
}

std::string format_offsets(std::uint64_t begin, std::uint64_t end) {
  return fmt::format("[{}, {}]", begin, end);
}

std::string supported_dtype_list() {
  std::string text;
  for (auto dtype : supported_dtypes()) {
    if (!text.empty())
      text += ", ";
    text += dtype_name(dtype);
  }
  return text;
}

// Strips nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 7: " prefix.
std::string parse_error_detail(const json::parse_error& error) {
  std::string_view text = error.what();
  const auto column = text.find("column ");
  if (column != std::string_view::npos) {
    const auto colon = text.find(": ", column);
    if (colon != std::string_view::npos)
      return std::string(text.substr(colon + 2));
  }
  return std::string(text);
}

// Validates one parsed header; `file_offset` maps a header-text offset to a file offset.
class HeaderValidator {
 public:
  HeaderValidator(std::string source, std::uint64_t data_buffer_size)
      : source_(std::move(source)), data_buffer_size_(data_buffer_size) {}

  [[noreturn]] void fail(std::uint64_t file_offset, std::string expected, std::string found) const {
    fail_at(source_, file_offset, std::move(expected), std::move(found));
  }

  std::map<std::string, std::string> metadata(const json& value, std::uint64_t at) const {
    std::map<std::string, std::string> result;
    if (value.is_null())
      return result;
    const std::string expected = "\"__metadata__\" to map strings to strings";
    if (!value.is_object())
      fail(at, expected, describe(value));
    for (const auto& [key, entry] : value.items()) {
      if (!entry.is_string())
        fail(at, expected, describe(entry) + " for key " + json_quoted(key));
      result.emplace(key, entry.get<std::string>());
    }
    return result;
  }

  SafetensorsTensorInfo tensor(const std::string& name, const json& value, std::uint64_t at) const {
    const std::string what = "tensor " + json_quoted(name);
    if (!value.is_object()) {
      fail(at, what + " to be an object with dtype, shape and data_offsets", describe(value));
    }
    SafetensorsTensorInfo info;
    info.name = name;
    info.dtype = dtype(what, field(what, value, "dtype", at), at);
    info.shape = shape(what, field(what, value, "shape", at), at);
    const auto [begin, end] = offsets(what, field(what, value, "data_offsets", at), at);
    info.data_begin = begin;
    info.data_end = end;

    const auto elements = element_count(what, info.shape, at);
    const auto bytes = checked_mul(elements, dtype_size(info.dtype));
    if (!bytes) {
      fail(at, what + " to have a byte size that fits in 64 bits",
           "shape " + shape_to_string(info.shape) + " of " + std::string(dtype_name(info.dtype)));
    }
    if (end - begin != *bytes) {
      fail(at,
           what + " data_offsets to span " + std::to_string(*bytes) + " bytes (shape " +
               shape_to_string(info.shape) + " of " + std::string(dtype_name(info.dtype)) + ")",
           format_offsets(begin, end) + ", " + std::to_string(end - begin) + " bytes");
    }
    return info;
  }

 private:
  const json& field(const std::string& what, const json& object, const char* key,
                    std::uint64_t at) const {
    const auto it = object.find(key);
    if (it == object.end())
      fail(at, what + " to have a \"" + key + "\" field", "none");
    return *it;
  }

  Dtype dtype(const std::string& what, const json& value, std::uint64_t at) const {
    const std::string expected = what + " dtype to be one of " + supported_dtype_list();
    if (!value.is_string())
      fail(at, expected, describe(value));
    const auto parsed = dtype_from_name(value.get_ref<const std::string&>());
    if (!parsed)
      fail(at, expected, describe(value));
    return *parsed;
  }

  std::optional<std::uint64_t> non_negative_integer(const json& value) const {
    if (value.is_number_unsigned())
      return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
      return static_cast<std::uint64_t>(value.get<std::int64_t>());
    }
    return std::nullopt;
  }

  std::vector<std::int64_t> shape(const std::string& what, const json& value,
                                  std::uint64_t at) const {
    const std::string expected = what + " shape to be an array of non-negative integers";
    if (!value.is_array())
      fail(at, expected, describe(value));
    std::vector<std::int64_t> dims;
    for (const auto& dim : value) {
      const auto parsed = non_negative_integer(dim);
      if (!parsed)
        fail(at, expected, describe(dim));
      if (*parsed > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(at, what + " shape dimensions to be at most 2^63 - 1", describe(dim));
      }
      dims.push_back(static_cast<std::int64_t>(*parsed));
    }
    return dims;
  }

  // Left to right like the reference implementation, so that the same shapes overflow.
  std::uint64_t element_count(const std::string& what, const std::vector<std::int64_t>& shape,
                              std::uint64_t at) const {
    std::uint64_t count = 1;
    for (auto dim : shape) {
      const auto next = checked_mul(count, static_cast<std::uint64_t>(dim));
      if (!next) {
        fail(at, what + " shape to have an element count that fits in 64 bits",
             shape_to_string(shape));
      }
      count = *next;
    }
    return count;
  }

  std::pair<std::uint64_t, std::uint64_t> offsets(const std::string& what, const json& value,
                                                  std::uint64_t at) const {
    const std::string expected =
        what + " data_offsets to be [begin, end], two non-negative integers";
    if (!value.is_array() || value.size() != 2)
      fail(at, expected, describe(value));
    const auto begin = non_negative_integer(value[0]);
    const auto end = non_negative_integer(value[1]);
    if (!begin)
      fail(at, expected, describe(value[0]));
    if (!end)
      fail(at, expected, describe(value[1]));
    if (*begin > *end) {
      fail(at, what + " data_offsets [begin, end] with begin <= end", format_offsets(*begin, *end));
    }
    if (*end > data_buffer_size_) {
      fail(at,
           what + " data_offsets within the data buffer of " + std::to_string(data_buffer_size_) +
               " bytes",
           format_offsets(*begin, *end));
    }
    return {*begin, *end};
  }

  std::string source_;
  std::uint64_t data_buffer_size_;
};

}  // namespace

std::uint64_t SafetensorsTensorInfo::element_count() const noexcept {
  std::uint64_t count = 1;
  for (auto dim : shape)
    count *= static_cast<std::uint64_t>(dim);  // validated on read
  return count;
}

SafetensorsReader SafetensorsReader::open(const std::filesystem::path& path) {
  auto mapped = std::make_shared<const MappedFile>(MappedFile::open(path.string()));
  SafetensorsReader reader = parse(mapped->bytes(), path.string());
  reader.keep_alive_ = std::move(mapped);
  return reader;
}

SafetensorsReader SafetensorsReader::parse(std::span<const std::byte> file_bytes,
                                           std::string source) {
  const auto fail = [&source](std::uint64_t offset, std::string expected, std::string found) {
    fail_at(source, offset, std::move(expected), std::move(found));
  };

  if (file_bytes.size() < length_field_bytes) {
    fail(0, "at least 8 bytes (the little-endian u64 header length)",
         std::to_string(file_bytes.size()) + " bytes");
  }
  const std::uint64_t header_length = read_le_u64(file_bytes);
  const std::uint64_t rest = file_bytes.size() - length_field_bytes;
  // Text, a .npy or a .pt file reads as a huge length: say what it probably is not.
  if (header_length > safetensors_max_header_bytes) {
    fail(0, "a header length of at most " + std::to_string(safetensors_max_header_bytes) + " bytes",
         std::to_string(header_length) + " (is this a safetensors file?)");
  }
  if (header_length > rest) {
    fail(0, "a header length of at most " + std::to_string(rest) + " bytes (the rest of the file)",
         std::to_string(header_length));
  }
  const std::string_view header(
      reinterpret_cast<const char*>(file_bytes.data()) + length_field_bytes,
      static_cast<std::size_t>(header_length));
  if (header.empty() || header.front() != '{') {
    fail(length_field_bytes, "the JSON header to start with '{'",
         header.empty() ? std::string("an empty header")
                        : "byte " + std::to_string(static_cast<unsigned char>(header.front())));
  }

  const auto scan = detail::scan_header(header, max_header_depth);
  if (scan.too_deep_offset) {
    fail(length_field_bytes + *scan.too_deep_offset,
         "JSON nested at most " + std::to_string(max_header_depth) + " levels deep",
         "deeper nesting");
  }

  json parsed;
  try {
    parsed = json::parse(header.begin(), header.end());
  } catch (const json::parse_error& error) {
    const std::uint64_t at =
        std::min<std::uint64_t>(error.byte > 0 ? error.byte - 1 : 0, header_length);
    fail(length_field_bytes + at, "a JSON header", parse_error_detail(error));
  } catch (const json::exception& error) {
    // Any other refusal by the JSON library, e.g. a number beyond double's range (1e4000);
    // nlohmann does not say where.
    fail(length_field_bytes, "a JSON header with numbers in range",
         std::string("a header the JSON parser refuses (") + error.what() + ")");
  }
  if (!parsed.is_object())
    fail(length_field_bytes, "a JSON object header", describe(parsed));

  SafetensorsReader reader;
  reader.source_ = source;
  reader.data_buffer_offset_ = length_field_bytes + header_length;
  reader.data_buffer_ = file_bytes.subspan(static_cast<std::size_t>(reader.data_buffer_offset_));
  const HeaderValidator validate(source, reader.data_buffer_.size());

  try {
    // nlohmann::json keeps the last of duplicate keys; the raw keys show every one of them.
    std::map<std::string, std::uint64_t, std::less<>> key_offsets;
    for (const auto& raw : scan.top_level_keys) {
      const std::uint64_t at = length_field_bytes + raw.offset;
      auto name = json::parse(raw.quoted).get<std::string>();
      const auto [it, inserted] = key_offsets.emplace(name, at);
      if (!inserted) {
        fail(at, "each tensor name at most once",
             "a second " + json_quoted(name) + " (the first is at byte " +
                 std::to_string(it->second) + ")");
      }
      const json& value = parsed.at(name);
      if (name == "__metadata__") {
        reader.metadata_ = validate.metadata(value, at);
      } else {
        reader.tensors_.push_back(validate.tensor(name, value, at));
      }
    }

    // The reference implementation's rule: in offset order, each tensor starts where the previous
    // one ended and the last one ends where the file ends.
    std::sort(reader.tensors_.begin(), reader.tensors_.end(), [](const auto& a, const auto& b) {
      return std::pair(a.data_begin, a.data_end) < std::pair(b.data_begin, b.data_end);
    });
    std::uint64_t covered = 0;
    const SafetensorsTensorInfo* previous = nullptr;
    for (const auto& tensor : reader.tensors_) {
      if (tensor.data_begin != covered) {
        const std::string after =
            previous ? ", right after tensor " + json_quoted(previous->name) : std::string();
        const std::string problem = tensor.data_begin < covered
                                        ? "overlapping tensor " + json_quoted(previous->name)
                                        : "leaving bytes [" + std::to_string(covered) + ", " +
                                              std::to_string(tensor.data_begin) +
                                              ") of the data buffer unused";
        fail(key_offsets.find(tensor.name)->second,
             "tensor " + json_quoted(tensor.name) + " to start at byte " + std::to_string(covered) +
                 " of the data buffer" + after,
             "data_offsets " + format_offsets(tensor.data_begin, tensor.data_end) + ", " + problem);
      }
      covered = tensor.data_end;
      previous = &tensor;
    }
    if (covered != reader.data_buffer_.size()) {
      fail(reader.data_buffer_offset_ + covered,
           "tensors covering the whole data buffer of " +
               std::to_string(reader.data_buffer_.size()) + " bytes",
           std::to_string(reader.data_buffer_.size() - covered) +
               " trailing bytes that belong to no tensor");
    }
  } catch (const json::exception& error) {
    // Unreachable once the checks above hold; a FormatError is still better than a crash.
    fail(length_field_bytes, "a well-formed safetensors header", error.what());
  }

  for (std::size_t i = 0; i < reader.tensors_.size(); ++i) {
    reader.index_by_name_.emplace(reader.tensors_[i].name, i);
  }
  return reader;
}

const SafetensorsTensorInfo* SafetensorsReader::find(std::string_view name) const noexcept {
  const auto it = index_by_name_.find(name);
  return it == index_by_name_.end() ? nullptr : &tensors_[it->second];
}

std::span<const std::byte> SafetensorsReader::data(
    const SafetensorsTensorInfo& tensor) const noexcept {
  return data_buffer_.subspan(static_cast<std::size_t>(tensor.data_begin),
                              static_cast<std::size_t>(tensor.byte_size()));
}

}  // namespace staticnet::runtime
