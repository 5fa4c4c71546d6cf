#pragma once
// The quantized model as a C++ source a firmware compiles in: the int8 weights and the int32
// channel numbers as const arrays (in flash), and the generated Quantization as an aggregate
// initializer, its members written in declaration order (NAME::mcu::for_each_member visits them
// so). Freestanding: it includes NAME_mcu.hpp and nothing else.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "staticnet/kernels/int8/elementwise.hpp"
#include "staticnet/kernels/int8/pooling.hpp"
#include "staticnet/kernels/int8/shapes.hpp"

namespace staticnet::runtime::quantize {

namespace q8 = staticnet::kernels::int8;

// Each member of a generated Quantization as the initializer of its struct: "{0.0235294f, -128}".
// A scale is written with 9 significant digits, which give a float32 back exactly.
std::string member_text(const q8::TensorQuantization& t);
std::string member_text(const q8::ProductQuantization& p);
std::string member_text(const q8::AddQuantization& a);
std::string member_text(const q8::MeanQuantization& m);
std::string member_text(const q8::Requantization& r);

// "const std::int8_t weights[] = {\n    1, -2, ...\n};\n" (`storage` prefixes it: "alignas(16) ").
std::string array_text(const std::string& storage, const std::string& type, const std::string& name,
                       std::span<const std::int8_t> values);
std::string array_text(const std::string& storage, const std::string& type, const std::string& name,
                       std::span<const std::int32_t> values);

// What the source file holds.
struct ModelSource {
  std::string model;                 // the generated model's name: its API is in MODEL::mcu
  std::vector<std::string> comment;  // lines of the file's opening comment
  std::span<const std::int8_t> weights;
  std::span<const std::int32_t> channel_numbers;
  std::vector<std::string> members;  // the Quantization's members, as member_text writes them
};

// The file: defines MODEL::mcu::quantized_model (declared by NAME_mcu.hpp), the Model that invoke()
// takes.
std::string model_source_text(const ModelSource& source);

}  // namespace staticnet::runtime::quantize
