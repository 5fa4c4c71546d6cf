// Writes one whole-model fixture as a C++ source for a Cortex-M: the flash as const arrays, the
// generated Quantization as an aggregate (its members visited in declaration order by the
// generated for_each_member()), the fixture's input and TensorFlow Lite's output.
// cortex_m/firmware_main.cpp runs the model on them under QEMU.
//
//   int8_firmware_source MODEL FIXTURE.json OUT.cpp      MODEL: a generated model's name
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "firmware_models.hpp"

namespace {

using namespace fixture_models;

std::string text(std::int32_t v) {
  return std::to_string(v);
}
std::string text(const q8::TensorQuantization& t) {
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.9gf", static_cast<double>(t.scale));  // 9 digits: exact
  return "{" + std::string(scale) + ", " + text(t.zero_point) + "}";
}
std::string text(const q8::ProductQuantization& p) {
  return "{" + text(p.input_zero_point) + ", " + text(p.output_zero_point) + ", " + text(p.lowest) +
         ", " + text(p.highest) + "}";
}
std::string text(const q8::AddQuantization& a) {
  return "{" + text(a.input1_zero_point) + ", " + text(a.input2_zero_point) + ", " +
         text(a.input1_multiplier) + ", " + text(a.input2_multiplier) + ", " +
         text(a.output_multiplier) + ", " + text(a.input1_shift) + ", " + text(a.input2_shift) +
         ", " + text(a.output_shift) + ", " + text(a.output_zero_point) + ", " + text(a.lowest) +
         ", " + text(a.highest) + ", " + text(a.left_shift) + "}";
}
std::string text(const q8::MeanQuantization& m) {
  return "{" + text(m.input_zero_point) + ", " + text(m.multiplier) + ", " + text(m.shift) + ", " +
         text(m.output_zero_point) + "}";
}

template <class T>
std::string array(const char* type, const char* name, const std::vector<T>& values) {
  std::ostringstream out;
  out << "const " << type << " " << name << "[] = {";
  for (std::size_t i = 0; i < values.size(); ++i)
    out << (i % 20 == 0 ? "\n    " : " ") << static_cast<long>(values[i]) << ",";
  out << "\n};\n";
  return out.str();
}

std::vector<int> ints(const json& values) {
  std::vector<int> out;
  for (const json& v : values)
    out.push_back(v.get<int>());
  return out;
}

// The source of generated model `name` (M under S; its API in name::mcu) on fixture fx.
template <class M, class S, class FillQuantization, class ForEachMember>
std::string firmware_source(const std::string& name, const json& fx, std::size_t weight_count,
                            std::size_t number_count, FillQuantization fill_quantization,
                            ForEachMember for_each_member) {
  constexpr auto& plan = sn::plan<M, S>();
  const std::map<std::int64_t, json> ops = operators_by_layer(fx, plan);
  const Flash f = flash(plan, ops, weight_count, number_count);
  std::string members;
  for_each_member(fill_quantization(Source{fx, ops}), [&](const auto& member) {
    members += (members.empty() ? "" : ",\n    ") + text(member);
  });
  return "#include \"" + name + "_mcu.hpp\"\n\nnamespace firmware {\n" +
         array("std::int8_t", "weights", f.weights) +
         array("std::int32_t", "channel_numbers", f.numbers) + "const " + name +
         "::mcu::Quantization quantization = {\n    " + members + "};\n" + "const " + name +
         "::mcu::Model model{weights, channel_numbers, &quantization};\n" +
         array("std::int8_t", "input", ints(fx.at("input"))) +
         array("std::int8_t", "expected", ints(fx.at("output"))) + "}  // namespace firmware\n";
}

}  // namespace

#define FIRMWARE_MODEL(NAME, M, S)                                           \
  if (model == #NAME)                                                        \
    source = firmware_source<M, S>(                                          \
        #NAME, fx, NAME::mcu::weight_count, NAME::mcu::channel_number_count, \
        [](const Source& s) { return NAME::mcu::quantization_from(s); },     \
        [](const NAME::mcu::Quantization& q, auto&& visit) {                 \
          NAME::mcu::for_each_member(q, visit);                              \
        });

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL FIXTURE.json OUT.cpp\n", argv[0]);
    return 2;
  }
  try {
    const std::string model = argv[1];
    const json fx = load(argv[2]);
    std::string source;
    STATICNET_FIRMWARE_MODELS(FIRMWARE_MODEL)
    if (source.empty()) {
      std::fprintf(stderr, "int8_firmware_source: unknown model %s\n", model.c_str());
      return 2;
    }
    std::ofstream out(argv[3]);
    out << "// Written by int8_firmware_source from " << argv[2] << "; do not edit.\n" << source;
    if (!out)
      throw std::runtime_error(std::string("cannot write ") + argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "int8_firmware_source: %s\n", e.what());
    return 1;
  }
  return 0;
}
