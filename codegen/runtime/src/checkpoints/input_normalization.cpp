#include "staticnet/runtime/checkpoints/input_normalization.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string_view>

#include "../number_text.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

constexpr const char* scale_entry = "input_scale";
constexpr const char* mean_entry = "input_mean";
constexpr const char* std_entry = "input_std";
constexpr const char* element_type_entry = "input_element_type";

constexpr ElementType element_types[] = {ElementType::u8,  ElementType::i8,  ElementType::i16,
                                         ElementType::i32, ElementType::i64, ElementType::f16,
                                         ElementType::f32, ElementType::f64};

// "0.0625", "0.5,0.25": the shortest texts that read back as the same floats.
std::string text_of(float x) {
  return fmt::format("{}", x);
}
std::string text_of(const std::vector<float>& values) {
  return fmt::format("{}", fmt::join(values, ","));
}

std::optional<float> finite_number(std::string_view text) {
  const std::optional<float> value = whole_number<float>(text);
  if (!value || !std::isfinite(*value))
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
    const std::optional<float> value = finite_number(piece);
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

// "1 channel", "3 channels"
std::string channels_text(std::int64_t n) {
  return fmt::format("{} channel{}", n, n == 1 ? "" : "s");
}

}  // namespace

void require_channel_counts(const InputNormalization& applied, const InputNormalization& given,
                            const std::string& source,
                            const std::vector<std::int64_t>& sample_shape) {
  const std::int64_t channels = sample_shape.empty() ? 1 : sample_shape.front();
  const std::string input = fmt::format("the input {} has {} (its first axis)",
                                        shape_to_string(sample_shape), channels_text(channels));
  auto check = [&](const std::vector<float>& values, const std::vector<float>& chosen,
                   const char* option, const char* entry) {
    const std::size_t n = values.size();
    if (fits_channels(n, static_cast<std::size_t>(channels)))
      return;
    if (!chosen.empty())
      throw UsageError(fmt::format("{} has {} values, but {}: give 1 value, or one per channel",
                                   option, n, input));
    throw FormatError(
        {source, {}, {}, {}},
        fmt::format("1 or {} values in the metadata entry '{}' ({})", channels, entry, input),
        fmt::format("{} (give {} to replace them)", n, option));
  };
  check(applied.mean, given.mean, "--mean", mean_entry);
  check(applied.stddev, given.stddev, "--std", std_entry);
}

std::map<std::string, std::string> normalization_metadata(const InputNormalization& n) {
  std::map<std::string, std::string> metadata;
  if (n.scale)
    metadata[scale_entry] = text_of(*n.scale);
  if (!n.mean.empty())
    metadata[mean_entry] = text_of(n.mean);
  if (!n.stddev.empty())
    metadata[std_entry] = text_of(n.stddev);
  if (n.element_type)
    metadata[element_type_entry] = element_type_name(*n.element_type);
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
  if (const auto it = metadata.find(element_type_entry); it != metadata.end()) {
    for (const ElementType type : element_types)
      if (it->second == element_type_name(type))
        n.element_type = type;
    if (!n.element_type)
      throw FormatError({source, {}, {}, {}},
                        fmt::format("an element type (u8, f32, ...) in the metadata entry '{}'",
                                    element_type_entry),
                        "'" + it->second + "'");
  }
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
  n.element_type = saved.element_type;
  return n;
}

std::optional<std::string> default_scale_note(const InputNormalization& n, ElementType stored) {
  if (n.scale || !n.element_type)
    return std::nullopt;
  const float trained = input_scale(std::nullopt, *n.element_type);
  const float now = input_scale(std::nullopt, stored);
  if (trained == now)
    return std::nullopt;
  return fmt::format(
      "the model was trained on {} data, scaled by its default {}; this data is {}, scaled by "
      "{}: give --scale {} if its values are on the training data's scale",
      element_type_name(*n.element_type), text_of(trained), element_type_name(stored), text_of(now),
      text_of(trained));
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
