// load_tensors() takes a model's tensors in any floating type (PyTorch's model.half(),
// .bfloat16() and .double() state dicts): the values below are IEEE 754 bit patterns worked out by
// hand, not the converter's own output.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_writer.hpp"
#include "staticnet/runtime/error.hpp"
#include "test_checkpoint_support.hpp"

namespace staticnet::runtime::test {
namespace {

// A model of three tensors, named as PyTorch's state dict names them.
const std::vector<ParameterTensor> model_tensors = {
    {"half", {6}, 0, 1, ParameterTensor::Init::uniform},
    {"brain", {3}, 6, 1, ParameterTensor::Init::uniform},
    {"double", {3}, 9, 1, ParameterTensor::Init::uniform},
};

struct FileTensors {
  std::vector<std::uint16_t> half;
  std::vector<std::uint16_t> brain;
  std::vector<double> wide;
};

// The file: `half` as F16, `brain` as BF16, `double` as F64.
void write_file(const fs::path& path, const FileTensors& t) {
  const auto half = bytes_of(t.half), brain = bytes_of(t.brain), wide = bytes_of(t.wide);
  const SafetensorsTensorRef refs[] = {{"half", Dtype::f16, {6}, half},
                                       {"brain", Dtype::bf16, {3}, brain},
                                       {"double", Dtype::f64, {3}, wide}};
  write_safetensors(path, refs, {});
}

const FileTensors good = {
    // 1, -2, 65504 (the largest F16), 2^-24 (the smallest subnormal), 2^-14 (the smallest
    // normal), -0
    {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x0400, 0x8000},
    // 1, 3.140625 (0x4049: 1.5703125 × 2), -0.5
    {0x3F80, 0x4049, 0xBF00},
    // 0.1 rounds to the float 0x3DCCCCCD; 1e-50 is below every float; -3 is exact
    {0.1, 1e-50, -3.0},
};

}  // namespace

TEST_CASE(
    "load_tensors: F16, BF16 and F64 tensors are converted to F32, exactly where they can be") {
  TempDir dir;
  write_file(dir / "mixed.safetensors", good);
  std::vector<float> values(12, 99.0f);
  const TensorRegion region{model_tensors, values};
  const LoadedTensors loaded = load_tensors(dir / "mixed.safetensors", {&region, 1});
  CHECK(loaded.converted_from == std::vector<Dtype>{Dtype::f64, Dtype::f16, Dtype::bf16});
  CHECK(loaded.unused.empty());
  CHECK(describe(loaded) == "its F64, F16 and BF16 values converted to F32");
  CHECK(values[0] == 1.0f);
  CHECK(values[1] == -2.0f);
  CHECK(values[2] == 65504.0f);
  CHECK(values[3] == 0x1p-24f);
  CHECK(values[4] == 0x1p-14f);
  CHECK(values[5] == 0.0f);
  CHECK(std::signbit(values[5]));
  CHECK(values[6] == 1.0f);
  CHECK(values[7] == 3.140625f);
  CHECK(values[8] == -0.5f);
  CHECK(std::bit_cast<std::uint32_t>(values[9]) == 0x3DCCCCCDu);
  CHECK(values[10] == 0.0f);
  CHECK(values[11] == -3.0f);
  CHECK(describe(LoadedTensors{}) == "");
}

TEST_CASE("load_tensors: an F64 beyond F32's range and an F16 infinity are refused at their byte") {
  TempDir dir;
  std::vector<float> values(12);
  const TensorRegion region{model_tensors, values};

  FileTensors too_wide = good;
  too_wide.wide[1] = -1e300;
  write_file(dir / "wide.safetensors", too_wide);
  // Element 1 of "double" is 8 bytes into the tensor's data.
  const SafetensorsReader reader = SafetensorsReader::open(dir / "wide.safetensors");
  const std::uint64_t byte = reader.data_buffer_offset() + reader.find("double")->data_begin + 8;
  CHECK_THROWS_WITH_AS(load_tensors(reader, {&region, 1}),
                       doctest::Contains(("byte " + std::to_string(byte) +
                                          ": expected a value an F32 can hold in tensor double, "
                                          "found an F64 of magnitude 3.4028236e+38 or more "
                                          "(beyond the largest F32) at element 1")
                                             .c_str()),
                       FormatError);

  // The edge: the largest float is 2^128 − 2^104 (3.40282347e38); doubles below the midpoint
  // 2^128 − 2^103 (3.40282357e38) round down to it, as PyTorch's .float() rounds them.
  FileTensors edge = good;
  edge.wide = {0x1.fffffefffffffp127, -0x1.fffffep127, 0.0};
  write_file(dir / "edge.safetensors", edge);
  load_tensors(dir / "edge.safetensors", {&region, 1});
  CHECK(values[9] == std::numeric_limits<float>::max());
  CHECK(values[10] == -std::numeric_limits<float>::max());
  edge.wide[0] = 0x1.ffffffp127;  // the midpoint itself rounds to even: an infinity
  write_file(dir / "edge.safetensors", edge);
  CHECK_THROWS_AS(load_tensors(dir / "edge.safetensors", {&region, 1}), FormatError);

  // An F16 element is 2 bytes: +Inf at element 4 of "half" is 8 bytes into it.
  FileTensors infinite = good;
  infinite.half[4] = 0x7C00;  // +Inf
  write_file(dir / "inf.safetensors", infinite);
  const SafetensorsReader inf_reader = SafetensorsReader::open(dir / "inf.safetensors");
  const std::uint64_t inf_byte =
      inf_reader.data_buffer_offset() + inf_reader.find("half")->data_begin + 8;
  CHECK_THROWS_WITH_AS(load_tensors(inf_reader, {&region, 1}),
                       doctest::Contains(("byte " + std::to_string(inf_byte) +
                                          ": expected a finite value in tensor half, found +Inf "
                                          "at element 4")
                                             .c_str()),
                       FormatError);
}

TEST_CASE("load_tensors: an integer tensor is no model's weights") {
  TempDir dir;
  const std::vector<std::int32_t> ints(6);
  const auto bytes = bytes_of(ints);
  const SafetensorsTensorRef refs[] = {{"half", Dtype::i32, {6}, bytes}};
  write_safetensors(dir / "ints.safetensors", refs, {});
  std::vector<float> values(6);
  const ParameterTensor only[] = {model_tensors[0]};
  const TensorRegion region{only, values};
  CHECK_THROWS_WITH_AS(load_tensors(dir / "ints.safetensors", {&region, 1}),
                       doctest::Contains("tensor half: expected dtype F32, found I32"),
                       CheckpointMismatch);
}

}  // namespace staticnet::runtime::test

namespace staticnet::runtime::test {

TEST_CASE(
    "load_tensors: tensors that are not the model's are named, a checkpoint's extras are not") {
  TempDir dir;
  const std::vector<float> six(6, 0.5f);
  const auto six_bytes = bytes_of(six), three_bytes = bytes_of(std::vector<float>(3, 0.25f)),
             steps = bytes_of(std::vector<std::int64_t>{12});
  const SafetensorsTensorRef refs[] = {
      {"half", Dtype::f32, {6}, six_bytes},
      {"optimizer.sgd.momentum.half", Dtype::f32, {6}, six_bytes},  // a checkpoint's
      {"bn.num_batches_tracked", Dtype::i64, {}, steps},            // a state dict's
      {"fc2.weight", Dtype::f32, {3}, three_bytes},                 // another model's
      {"fc2.bias", Dtype::f32, {3}, three_bytes}};
  write_safetensors(dir / "larger.safetensors", refs, {});
  std::vector<float> values(6);
  const ParameterTensor only[] = {model_tensors[0]};
  const TensorRegion region{only, values};
  const LoadedTensors loaded = load_tensors(dir / "larger.safetensors", {&region, 1});
  CHECK(values == six);
  CHECK(loaded.unused == std::vector<std::string>{"fc2.bias", "fc2.weight"});  // sorted
  CHECK(describe(loaded) == "2 tensors that are not the model's ignored (fc2.bias, fc2.weight)");
  CHECK(describe({{Dtype::f16}, {"a", "b", "c", "d"}}) ==
        "its F16 values converted to F32; 4 tensors that are not the model's ignored (a, b, c, "
        "...)");
}

}  // namespace staticnet::runtime::test
