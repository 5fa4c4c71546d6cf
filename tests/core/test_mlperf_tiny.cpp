// The four MLPerf Tiny models (samples/mlperf_tiny/), and TensorFlow Lite Micro's magic_wand
// (samples/tflite_micro/), against the numbers derived by hand in each
// header and the reference implementation's counts (Keras model.summary() of mlcommons/tiny's
// models: trainable and non-trainable parameters). Literals are written as the arithmetic of
// the derivations.
#include <doctest/doctest.h>

#include <cstdint>

#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/ds_cnn.hpp"
#include "samples/mlperf_tiny/fc_autoencoder.hpp"
#include "samples/mlperf_tiny/mobilenet_v1.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"
#include "samples/tflite_micro/magic_wand.hpp"
#include "tests/core/plan_simulation.hpp"
#include "tests/core/test_support.hpp"

namespace sn = staticnet;
namespace ss = staticnet::samples;

namespace {

using staticnet::testing::round256;

struct Expected {
  std::int64_t weights, non_trainable, gradients, optimizer_state, inputs, workspace;
};

template <std::size_t L>
void check_regions(const sn::Plan<L>& p, const Expected& e) {
  CHECK(p.footprint.weights.count == e.weights);
  CHECK(p.footprint.non_trainable.count == e.non_trainable);
  CHECK(p.footprint.gradients.count == e.gradients);
  CHECK(p.footprint.optimizer_state.count == e.optimizer_state);
  CHECK(p.footprint.inputs.count == e.inputs);
  CHECK(p.footprint.workspace.count == e.workspace);
  // Activations: planned; check_layout() below holds them to the bytes alive at the busiest
  // step. The total adds up.
  // And the plan runs: no value overwritten before its last reader, every gradient whole.
  CHECK(sn::testing::simulate(p) == "");
  CHECK(sn::testing::check_layout(p) == "");
  CHECK(p.footprint.total().count == e.weights + e.non_trainable + e.gradients + e.optimizer_state +
                                         e.inputs + e.workspace + p.footprint.activations.count);
}

}  // namespace

TEST_CASE("MLPerf Tiny ResNet-8: shapes, counts and regions as derived by hand") {
  constexpr auto& p = sn::plan<ss::ResNet8, ss::ResNet8Training>();
  static_assert(p.layer_count() == 28);
  static_assert(p.parameter_count == 78186 && p.non_trainable_count == 480);
  static_assert(p.output_shape == sn::Shape{32, 10});
  CHECK(p.layers[0].parameters == 3 * 9 * 16 + 16);
  CHECK(p.layers[1].parameters == 2 * 16);
  CHECK(p.layers[1].non_trainable == 2 * 16);
  CHECK(p.layers[8].kind == sn::LayerKind::Add);
  CHECK(p.layers[8].inputs[0] == 7);
  CHECK(p.layers[8].inputs[1] == 2);  // the identity shortcut reads the first ReLU
  CHECK(p.layers[10].output_shape == sn::Shape{32, 32, 16, 16});
  // Stride 2, 3x3, 'same' on 32: 0 before, 1 after.
  CHECK(p.layers[10].options.pad_h == 0);
  CHECK(p.layers[10].options.pad_h_end == 1);
  CHECK(p.layers[15].inputs[0] == 9);  // the 1x1 shortcut reads the first stack's ReLU
  CHECK(p.layers[15].parameters == 16 * 32 + 32);
  CHECK(p.layers[16].inputs[0] == 14);
  CHECK(p.layers[16].inputs[1] == 15);
  CHECK(p.layers[23].parameters == 32 * 64 + 64);
  CHECK(p.layers[24].output_shape == sn::Shape{32, 64, 8, 8});
  CHECK(p.layers[26].output_shape == sn::Shape{32, 64});
  const std::int64_t weights = round256(4 * 78186);
  check_regions(p, {.weights = weights,
                    .non_trainable = round256(4 * 480),
                    .gradients = weights,
                    .optimizer_state = 2 * weights,
                    .inputs = 32 * 3 * 32 * 32 * 4 + round256(32 * 4),
                    .workspace = 16 * 9 * 32 * 32 * 4});
  CHECK(weights == 1222 * 256);
  // Fits a Jetson Orin Nano at compile time (its 8 GB and the CUDA runtime's overhead).
  static_assert(sn::fits<ss::ResNet8, ss::ResNet8Training>(sn::device::jetson_orin_nano));
}

TEST_CASE("MLPerf Tiny DS-CNN: shapes, counts and regions as derived by hand") {
  constexpr auto& p = sn::plan<ss::DSCNN, ss::DSCNNTraining>();
  static_assert(p.layer_count() == 31);
  static_assert(p.parameter_count == 23756 && p.non_trainable_count == 1152);
  static_assert(p.output_shape == sn::Shape{100, 12});
  // The 10x4 stride-2 'same' convolution over 49x10: 25x5, rows padded 4/5, columns 1/1.
  CHECK(p.layers[0].output_shape == sn::Shape{100, 64, 25, 5});
  CHECK(p.layers[0].options.pad_h == 4);
  CHECK(p.layers[0].options.pad_h_end == 5);
  CHECK(p.layers[0].options.pad_w == 1);
  CHECK(p.layers[0].options.pad_w_end == 1);
  CHECK(p.layers[0].parameters == 10 * 4 * 64 + 64);
  for (int b = 0; b < 4; ++b) {
    CAPTURE(b);
    CHECK(p.layers[4 + 6 * b].kind == sn::LayerKind::DepthwiseConv2d);
    CHECK(p.layers[4 + 6 * b].parameters == 64 * 9 + 64);
    CHECK(p.layers[4 + 6 * b].output_shape == sn::Shape{100, 64, 25, 5});
    CHECK(p.layers[7 + 6 * b].parameters == 64 * 64 + 64);
  }
  // Global pooling over all 25x5 positions (the repository's code pools 24x5).
  CHECK(p.layers[29].input_shape == sn::Shape{100, 64, 25, 5});
  CHECK(p.layers[29].output_shape == sn::Shape{100, 64});
  // Dropout keeps a bit per element: 100*64*25*5 / 8 bytes.
  CHECK(p.buffers[p.layers[3].mask_buffer].size == 100 * 64 * 25 * 5 / 8);
  const std::int64_t weights = round256(4 * 23756);
  check_regions(p, {.weights = weights,
                    .non_trainable = 4 * 1152,
                    .gradients = weights,
                    .optimizer_state = 2 * weights,
                    .inputs = round256(100 * 49 * 10 * 4) + round256(100 * 4),
                    .workspace = 64 * 25 * 5 * 4});
  CHECK(weights == 372 * 256);
}

TEST_CASE("MLPerf Tiny MobileNetV1 x0.25: shapes, counts and regions as derived by hand") {
  constexpr auto& p = sn::plan<ss::MobileNetV1, ss::MobileNetV1Training>();
  static_assert(p.layer_count() == 83);
  static_assert(p.parameter_count == 216322 && p.non_trainable_count == 5472);
  static_assert(p.output_shape == sn::Shape{32, 2});
  CHECK(p.layers[0].output_shape == sn::Shape{32, 8, 48, 48});
  constexpr std::int64_t maps[13] = {48, 24, 24, 12, 12, 6, 6, 6, 6, 6, 6, 3, 3};
  constexpr std::int64_t channels[13] = {16,  32,  32,  64,  64,  128, 128,
                                         128, 128, 128, 128, 256, 256};
  std::int64_t in = 8;
  for (int b = 0; b < 13; ++b) {
    CAPTURE(b);
    CHECK(p.layers[3 + 6 * b].output_shape == sn::Shape{32, in, maps[b], maps[b]});
    CHECK(p.layers[3 + 6 * b].parameters == 10 * in);
    CHECK(p.layers[6 + 6 * b].output_shape == sn::Shape{32, channels[b], maps[b], maps[b]});
    CHECK(p.layers[6 + 6 * b].parameters == in * channels[b] + channels[b]);
    in = channels[b];
  }
  CHECK(p.layers[81].output_shape == sn::Shape{32, 256});
  const std::int64_t weights = round256(4 * 216322);
  check_regions(p, {.weights = weights,
                    .non_trainable = round256(4 * 5472),
                    .gradients = weights,
                    .optimizer_state = 2 * weights,
                    .inputs = 32 * 3 * 96 * 96 * 4 + round256(32 * 4),
                    .workspace = 3 * 9 * 48 * 48 * 4});
  CHECK(weights == 3381 * 256);
}

TEST_CASE("MLPerf Tiny FC autoencoder: shapes, counts and regions as derived by hand") {
  constexpr auto& p = sn::plan<ss::FCAutoencoder, ss::FCAutoencoderTraining>();
  static_assert(p.layer_count() == 28);
  static_assert(p.parameter_count == 267928 && p.non_trainable_count == 2064);
  static_assert(p.output_shape == sn::Shape{512, 640});
  CHECK(p.layers[0].parameters == 640 * 128 + 128);
  CHECK(p.layers[12].output_shape == sn::Shape{512, 8});
  CHECK(p.layers[13].non_trainable == 2 * 8);
  CHECK(p.layers[27].parameters == 128 * 640 + 640);
  const std::int64_t weights = round256(4 * 267928);
  check_regions(p, {.weights = weights,
                    .non_trainable = round256(4 * 2064),
                    .gradients = weights,
                    .optimizer_state = 2 * weights,
                    .inputs = 2 * 512 * 640 * 4,
                    .workspace = 0});
  CHECK(weights == 4187 * 256);
}

TEST_CASE("MLPerf Tiny models under Inference: running statistics, no gradients, no masks") {
  using Setup = sn::Inference<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<1>>;
  constexpr auto& p = sn::plan<ss::DSCNN, Setup>();
  CHECK(p.footprint.gradients.count == 0);
  CHECK(p.footprint.non_trainable.count == 4 * 1152);  // inference normalizes with them
  CHECK(p.layers[3].mask_buffer == sn::no_buffer);
  CHECK(p.layers[3].in_place);  // Dropout is the identity: a view
  CHECK(p.layers[1].statistics_buffer == sn::no_buffer);
  CHECK(sn::testing::simulate(p) == "");
}

TEST_CASE("TFLM magic_wand, as Keras writes it: shapes, counts and regions as derived by hand") {
  constexpr auto& p = sn::plan<ss::MagicWand, ss::MagicWandTraining>();
  static_assert(p.layer_count() == 13);
  static_assert(p.parameter_count == 4300);  // Keras' model.summary()
  static_assert(p.output_shape == sn::Shape{64, 4});
  CHECK(p.layers[0].parameters == 1 * 4 * 3 * 8 + 8);
  CHECK(p.layers[0].options.pad_h == 1);
  CHECK(p.layers[0].options.pad_h_end == 2);
  CHECK(p.layers[0].options.pad_w == 1);
  CHECK(p.layers[0].options.pad_w_end == 1);
  CHECK(p.layers[2].output_shape == sn::Shape{64, 8, 42, 1});
  CHECK(p.layers[4].parameters == 8 * 4 * 1 * 16 + 16);
  CHECK(p.layers[6].options.kernel_h == 3);
  CHECK(p.layers[6].options.kernel_w == 1);
  CHECK(p.layers[6].options.stride_h == 3);
  CHECK(p.layers[6].options.stride_w == 1);
  CHECK(p.layers[6].output_shape == sn::Shape{64, 16, 14, 1});
  CHECK(p.layers[8].output_shape == sn::Shape{64, 224});
  CHECK(p.layers[9].parameters == 224 * 16 + 16);
  CHECK(p.layers[12].parameters == 16 * 4 + 4);
  const std::int64_t weights = round256(4 * 4300);
  CHECK(weights == 68 * 256);
  check_regions(p, {.weights = weights,
                    .non_trainable = 0,
                    .gradients = weights,
                    .optimizer_state = 2 * weights,
                    .inputs = 64 * 1 * 128 * 3 * 4 + round256(64 * 4),
                    .workspace = 1 * 4 * 3 * 128 * 3 * 4});
}
