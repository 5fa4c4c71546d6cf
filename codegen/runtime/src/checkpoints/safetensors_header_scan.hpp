#pragma once
// A structural pre-pass over a safetensors JSON header: where each top-level key starts (so that
// errors about a tensor can name its byte offset, and duplicate names can be found before
// nlohmann::json silently keeps only the last one) and whether nesting is deeper than any valid
// header needs. It only tracks strings and brackets, so it is safe on any input.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace staticnet::runtime::detail {

struct RawHeaderKey {
  std::size_t offset = 0;   // of the opening quote, within the header text
  std::string_view quoted;  // the key as written, quotes and escapes included
};

struct HeaderScan {
  std::vector<RawHeaderKey> top_level_keys;    // in file order
  std::optional<std::size_t> too_deep_offset;  // first bracket nested deeper than the limit
};

// Expects text[0] == '{'. Keys are only meaningful once the text is known to be valid JSON.
HeaderScan scan_header(std::string_view text, std::size_t max_depth);

}  // namespace staticnet::runtime::detail
