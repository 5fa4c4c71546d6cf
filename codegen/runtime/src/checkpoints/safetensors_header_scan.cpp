#include "safetensors_header_scan.hpp"

namespace staticnet::runtime::detail {

HeaderScan scan_header(std::string_view text, std::size_t max_depth) {
  HeaderScan scan;
  std::size_t depth = 0;
  bool expecting_key = false;  // inside the top-level object, after '{' or ','
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;  // skip the escaped character, even an escaped quote
      }
      const std::size_t end = i < text.size() ? i + 1 : text.size();
      if (depth == 1 && expecting_key) {
        scan.top_level_keys.push_back({start, text.substr(start, end - start)});
        expecting_key = false;
      }
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        scan.too_deep_offset = i;
        return scan;
      }
      if (depth == 1)
        expecting_key = c == '{';
    } else if (c == '}' || c == ']') {
      if (depth > 0)
        --depth;
    } else if (c == ',' && depth == 1) {
      expecting_key = true;
    }
  }
  return scan;
}

}  // namespace staticnet::runtime::detail
