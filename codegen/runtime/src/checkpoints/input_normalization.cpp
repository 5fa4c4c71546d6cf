#include "staticnet/runtime/checkpoints/input_normalization.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime {
namespace {

constexpr const char* scale_entry = "input_scale";
constexpr const char* mean_entry = "input_mean";
constexpr const char* std_entry = "input_std";

// "0.0625", "0.5,0.25": the shortest texts that read back as the same floats.
std::string text_of(float x) {
  return fmt::format("{}", x);
}
std::string text_of(const std::vector<float>& values) {
  return fmt::format("{}", fmt::join(values, ","));
}

std::optional<float> number(std::string_view text) {
  float value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end || !std::isfinite(value))
    return std::nullopt;
  return value;
}

// The entry's comma-separated numbers; empty when the entry is absent.
std::vector<float> numbers(const std::map<std::string, std::string>& metadata, const char* key,
                           const std::string& source) {
  const auto it = metadata.find(key);
  if (it == metadata.end())
    return {};
  std::vector<float> values;
  std::string_view rest = it->second;
  while (true) {
    const std::string_view piece = rest.substr(0, rest.find(','));
    const std::optional<float> value = number(piece);
    if (!value)
      throw FormatError(
          {source, {}, {}, {}},
          fmt::format("finite numbers separated by commas in the metadata entry '{}'", key),
          "'" + it->second + "'");
    values.push_back(*value);
    if (piece.size() == rest.size())
      return values;
    rest.remove_prefix(piece.size() + 1);
  }
}

}  // namespace

std::map<std::string, std::string> normalization_metadata(const InputNormalization& n) {
  std::map<std::string, std::string> metadata;
  if (n.scale)
    metadata[scale_entry] = text_of(*n.scale);
  if (!n.mean.empty())
    metadata[mean_entry] = text_of(n.mean);
  if (!n.stddev.empty())
    metadata[std_entry] = text_of(n.stddev);
  return metadata;
}

InputNormalization saved_normalization(const std::map<std::string, std::string>& metadata,
                                       const std::string& source) {
  InputNormalization n;
  if (const std::vector<float> scale = numbers(metadata, scale_entry, source); !scale.empty()) {
    if (scale.size() != 1)
      throw FormatError({source, {}, {}, {}},
                        fmt::format("one number in the metadata entry '{}'", scale_entry),
                        fmt::format("{}", scale.size()));
    n.scale = scale[0];
  }
  n.mean = numbers(metadata, mean_entry, source);
  n.stddev = numbers(metadata, std_entry, source);
  return n;
}

InputNormalization resolve_normalization(const InputNormalization& given,
                                         const InputNormalization& saved,
                                         std::vector<std::string>& notes) {
  InputNormalization n = given;
  if (given.scale) {
    if (saved.scale && *saved.scale != *given.scale)
      notes.push_back(fmt::format("--scale {} replaces the checkpoint's {}", text_of(*given.scale),
                                  text_of(*saved.scale)));
  } else if (saved.scale) {
    n.scale = saved.scale;
    notes.push_back(fmt::format("input scale {} from the checkpoint", text_of(*saved.scale)));
  }
  auto resolve_list = [&](const char* option, const char* what, std::vector<float>& chosen,
                          const std::vector<float>& kept) {
    if (!chosen.empty()) {
      if (!kept.empty() && kept != chosen)
        notes.push_back(fmt::format("{} {} replaces the checkpoint's {}", option, text_of(chosen),
                                    text_of(kept)));
    } else if (!kept.empty()) {
      chosen = kept;
      notes.push_back(fmt::format("input {} {} from the checkpoint", what, text_of(kept)));
    }
  };
  resolve_list("--mean", "mean", n.mean, saved.mean);
  resolve_list("--std", "std", n.stddev, saved.stddev);
  return n;
}

Normalization normalization_for(const InputNormalization& n, ElementType stored) {
  return {input_scale(n.scale, stored), n.mean, n.stddev};
}

std::string describe(const InputNormalization& n, ElementType stored) {
  std::string text = fmt::format("scale {}", text_of(input_scale(n.scale, stored)));
  if (!n.scale && stored == ElementType::u8)
    text += " (1/255, for u8 data)";
  if (!n.mean.empty())
    text += ", mean " + text_of(n.mean);
  if (!n.stddev.empty())
    text += ", std " + text_of(n.stddev);
  return text;
}

}  // namespace staticnet::runtime
