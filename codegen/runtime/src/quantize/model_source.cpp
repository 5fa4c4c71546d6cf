#include "staticnet/runtime/quantize/model_source.hpp"

#include <fmt/format.h>

namespace staticnet::runtime::quantize {
namespace {

std::string fields(std::initializer_list<std::int64_t> values) {
  std::string text = "{";
  for (const std::int64_t v : values)
    text += (text.size() > 1 ? ", " : "") + std::to_string(v);
  return text + "}";
}

template <class T>
std::string values_text(const std::string& storage, const std::string& type,
                        const std::string& name, std::span<const T> values) {
  // An array needs one element: a model without products has a weight of none.
  if (values.empty())
    return fmt::format("{}const {} {}[1] = {{}};  // (none)\n", storage, type, name);
  std::string text = fmt::format("{}const {} {}[] = {{", storage, type, name);
  for (std::size_t i = 0; i < values.size(); ++i)
    text +=
        fmt::format("{}{},", i % 16 == 0 ? "\n    " : " ", static_cast<std::int64_t>(values[i]));
  return text + "\n};\n";
}

}  // namespace

std::string member_text(const q8::TensorQuantization& t) {
  // '#' keeps the point: a scale of exactly 1 is "1.00000000f", where "1f" would not compile.
  return fmt::format("{{{:#.9g}f, {}}}", static_cast<double>(t.scale), t.zero_point);
}

std::string member_text(const q8::ProductQuantization& p) {
  return fields({p.input_zero_point, p.output_zero_point, p.lowest, p.highest});
}

std::string member_text(const q8::AddQuantization& a) {
  return fields({a.input1_zero_point, a.input2_zero_point, a.input1_multiplier, a.input2_multiplier,
                 a.output_multiplier, a.input1_shift, a.input2_shift, a.output_shift,
                 a.output_zero_point, a.lowest, a.highest, a.left_shift});
}

std::string member_text(const q8::MeanQuantization& m) {
  return fields({m.input_zero_point, m.multiplier, m.shift, m.output_zero_point});
}

std::string member_text(const q8::Requantization& r) {
  return fields(
      {r.input_zero_point, r.multiplier, r.shift, r.output_zero_point, r.lowest, r.highest});
}

std::string array_text(const std::string& storage, const std::string& type, const std::string& name,
                       std::span<const std::int8_t> values) {
  return values_text(storage, type, name, values);
}

std::string array_text(const std::string& storage, const std::string& type, const std::string& name,
                       std::span<const std::int32_t> values) {
  return values_text(storage, type, name, values);
}

std::string model_source_text(const ModelSource& s) {
  std::string text;
  for (const std::string& line : s.comment)
    text += "// " + line + "\n";
  text += fmt::format("#include \"{}_mcu.hpp\"\n\nnamespace {}::mcu {{\nnamespace {{\n\n", s.model,
                      s.model);
  text += "// In flash: each convolution's and Linear's int8 weights, where the plan puts them.\n";
  text += array_text("alignas(16) ", "std::int8_t", "weights", s.weights);
  text +=
      "\n// Per output channel of each: its int32 bias, multiplier and shift (C values each).\n";
  text += array_text("", "std::int32_t", "channel_numbers", s.channel_numbers);
  text += "\n// Each tensor's scale and zero point, and what the kernels derive from them.\n";
  text += "const Quantization quantization = {";
  for (std::size_t i = 0; i < s.members.size(); ++i)
    text += (i ? ",\n    " : "\n    ") + s.members[i];
  text += "};\n\n}  // namespace\n\n";
  text += "const Model quantized_model = {weights, channel_numbers, &quantization};\n\n";
  text += fmt::format("}}  // namespace {}::mcu\n", s.model);
  return text;
}

}  // namespace staticnet::runtime::quantize
