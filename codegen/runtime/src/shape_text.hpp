#pragma once
// Private to the runtime: a sample's shape as the programs print it, "1x8x8".
#include <cstdint>
#include <string>
#include <vector>

namespace staticnet::runtime {

inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

}  // namespace staticnet::runtime
