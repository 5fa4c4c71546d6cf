// The mcu backend end to end: the generated int8 inference of whole models gives TensorFlow
// Lite's output byte for byte. Each fixture is a Keras model that TensorFlow Lite's converter
// quantized (BatchNorm folded, ReLU fused), run by its interpreter's reference kernels on an int8
// input, with every operator's weights, biases and quantization: three small models in
// tests/reference/int8_models/ (make_int8_model_fixtures.py) and the four MLPerf Tiny models in
// int8_mlperf/ (make_int8_mlperf_fixtures.py). Here those numbers are laid out as the plan lays
// out flash (fixture_models.hpp), the generated Quantization is filled by its
// quantization_from(), and the generated invoke() runs over an arena of exactly the plan's SRAM
// bytes, whose bytes the plan gives no tensor are poisoned first.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "firmware_models.hpp"

namespace {

using namespace fixture_models;

// Runs generated model G (a namespace, given as its functions) on fixture `name` of `folder`.
template <class M, class S, class Model, class FillQuantization, class Invoke>
void check_generated(const std::string& folder, const std::string& name, std::size_t weight_count,
                     std::size_t number_count, std::size_t arena_bytes, std::size_t input_offset,
                     std::size_t input_elements, std::size_t output_offset,
                     FillQuantization fill_quantization, Invoke invoke) {
  CAPTURE(name);
  constexpr auto& plan = sn::plan<M, S>();
  const json fx = load(folder + "/" + name + ".json");
  const std::map<std::int64_t, json> ops = operators_by_layer(fx, plan);
  const Flash f = flash(plan, ops, weight_count, number_count);
  const auto quantization = fill_quantization(Source{fx, ops});
  const Model model{f.weights.data(), f.numbers.data(), &quantization};

  std::vector<std::uint8_t> arena(arena_bytes, 0xA5);
  const json& input = fx.at("input");
  REQUIRE(input.size() == input_elements);
  for (std::size_t i = 0; i < input_elements; ++i)
    arena[input_offset + i] =
        static_cast<std::uint8_t>(static_cast<std::int8_t>(input[i].get<int>()));
  invoke(model, arena.data());
  const json& want = fx.at("output");
  std::size_t differing = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    differing += static_cast<std::int8_t>(arena[output_offset + i]) != want[i].get<int>();
  CHECK_MESSAGE(differing == 0, differing << " of " << want.size()
                                          << " output bytes differ from TensorFlow Lite's");
}

}  // namespace

// The generated model NAME (its API in NAME::mcu), model type M under setup S, on one fixture.
#define CHECK_GENERATED(NAME, M, S, FOLDER, FIXTURE)                                             \
  check_generated<M, S, NAME::mcu::Model>(                                                       \
      FOLDER, FIXTURE, NAME::mcu::weight_count, NAME::mcu::channel_number_count,                 \
      NAME::mcu::arena_bytes, NAME::mcu::input_offset, NAME::mcu::input_elements,                \
      NAME::mcu::output_offset, [](const Source& s) { return NAME::mcu::quantization_from(s); }, \
      [](const NAME::mcu::Model& model, std::uint8_t* arena) { NAME::mcu::invoke(model, arena); })

TEST_CASE("mcu: the digits CNN's generated int8 inference gives TensorFlow Lite's output") {
  // The arena is the plan's SRAM, 1,280 B (the input's bytes shared); flash 2,704 weights and 78
  // channel numbers (tests/core/test_int8.cpp derives them by hand).
  static_assert(int8_digits::mcu::arena_bytes == 1'280);
  static_assert(int8_digits::mcu::weight_count == 2'704 &&
                int8_digits::mcu::channel_number_count == 78);
  for (const char* name : {"digits_cnn_s0", "digits_cnn_s1"})
    CHECK_GENERATED(int8_digits, int8_models::DigitsCnn, int8_models::DigitsSetup,
                    STATICNET_INT8_MODEL_FIXTURE_DIR, name);
}

TEST_CASE("mcu: a residual block's generated int8 inference gives TensorFlow Lite's output") {
  static_assert(int8_residual::mcu::arena_bytes == 768);  // tests/core/test_int8.cpp
  for (const char* name : {"residual_s0", "residual_s1"})
    CHECK_GENERATED(int8_residual, int8_models::Residual, int8_models::ResidualSetup,
                    STATICNET_INT8_MODEL_FIXTURE_DIR, name);
}

TEST_CASE("mcu: a depthwise-separable block's generated int8 inference gives TensorFlow Lite's") {
  for (const char* name : {"ds_block_s0", "ds_block_s1"})
    CHECK_GENERATED(int8_ds_block, int8_models::DsBlock, int8_models::DsBlockSetup,
                    STATICNET_INT8_MODEL_FIXTURE_DIR, name);
}

// The four MLPerf Tiny models, their Keras twins quantized by TensorFlow Lite with random weights
// and BatchNorm statistics. Their plans' SRAM: ResNet-8 49,152 B, DS-CNN 16,000, MobileNetV1
// ×0.25 55,296, the FC autoencoder 768 (bench/RESULTS.md sets them beside TensorFlow Lite Micro's).
TEST_CASE("mcu: ResNet-8's generated int8 inference gives TensorFlow Lite's output") {
  CHECK_GENERATED(int8_resnet8, staticnet::samples::ResNet8, int8_models::ResNet8Setup,
                  STATICNET_INT8_MLPERF_FIXTURE_DIR, "resnet8");
}

TEST_CASE("mcu: DS-CNN's generated int8 inference gives TensorFlow Lite's output") {
  CHECK_GENERATED(int8_ds_cnn, staticnet::samples::DSCNN, int8_models::DsCnnSetup,
                  STATICNET_INT8_MLPERF_FIXTURE_DIR, "ds_cnn");
}

TEST_CASE("mcu: MobileNetV1's generated int8 inference gives TensorFlow Lite's output") {
  CHECK_GENERATED(int8_mobilenet_v1, staticnet::samples::MobileNetV1, int8_models::MobileNetSetup,
                  STATICNET_INT8_MLPERF_FIXTURE_DIR, "mobilenet_v1");
}

TEST_CASE("mcu: the FC autoencoder's generated int8 inference gives TensorFlow Lite's output") {
  CHECK_GENERATED(int8_fc_autoencoder, staticnet::samples::FCAutoencoder,
                  int8_models::AutoencoderSetup, STATICNET_INT8_MLPERF_FIXTURE_DIR,
                  "fc_autoencoder");
}
