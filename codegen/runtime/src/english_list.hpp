#pragma once
// Private to the runtime: names listed as a sentence lists them, for messages.
#include <span>
#include <string>

namespace staticnet::runtime {

// "a", "a and b", "a, b and c".
inline std::string english_list(std::span<const std::string> items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

}  // namespace staticnet::runtime
