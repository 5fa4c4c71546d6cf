// The sample models (samples/*.hpp) against the numbers derived by hand in each header's
// comment. Every literal is written as the arithmetic of that derivation; shapes and parameter
// counts also agree with PyTorch (samples/reference/pytorch_counts.py, output at its bottom).
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <initializer_list>

#include <staticnet/staticnet.hpp>

#include "tests/core/test_support.hpp"

#include "samples/deep_cnn.hpp"
#include "samples/digits_cnn.hpp"
#include "samples/larger_conv_network.hpp"
#include "samples/lenet5.hpp"
#include "samples/linear_regression.hpp"
#include "samples/mlp.hpp"
#include "samples/simple_cnn.hpp"
#include "samples/small_network.hpp"

namespace sn = staticnet;
namespace ss = staticnet::samples;

namespace {

using staticnet::testing::round256;

struct Expected {
  std::int64_t weights, gradients, optimizer_state, inputs, workspace, activations;
  constexpr std::int64_t total() const {
    return weights + gradients + optimizer_state + inputs + workspace + activations;
  }
};

template <std::size_t L>
void check_footprint(const sn::Plan<L>& p, const Expected& e) {
  CHECK(p.footprint.weights.count == e.weights);
  CHECK(p.footprint.gradients.count == e.gradients);
  CHECK(p.footprint.optimizer_state.count == e.optimizer_state);
  CHECK(p.footprint.inputs.count == e.inputs);
  CHECK(p.footprint.workspace.count == e.workspace);
  CHECK(p.footprint.activations.count == e.activations);
  CHECK(p.footprint.total().count == e.total());
}

// Each layer's output shape and parameter count, in order.
template <std::size_t L>
void check_layers(const sn::Plan<L>& p, const std::array<sn::Shape, L>& outputs,
                  const std::array<std::int64_t, L>& parameters) {
  for (std::size_t i = 0; i < L; ++i) {
    CAPTURE(i);
    CHECK(p.layers[i].output_shape == outputs[i]);
    CHECK(p.layers[i].parameters == parameters[i]);
  }
}

// The peak of live activation bytes, the step where it falls, and that no step exceeds it.
template <std::size_t L>
void check_peak(const sn::Plan<L>& p, std::int64_t step, std::int64_t bytes) {
  CHECK(p.live_activation_bytes(step) == bytes);
  for (std::int64_t s = 0; s < p.step_count(); ++s) {
    CAPTURE(s);
    CHECK(p.live_activation_bytes(s) <= bytes);
  }
}

}  // namespace

// ---- SimpleCNN (seed 001) ----------------------------------------------------------------------

namespace simple_cnn {
constexpr std::int64_t B = 128;
constexpr std::int64_t params = (16 * 3 * 3 * 3 + 16) + (4096 * 10 + 10);
constexpr std::int64_t param_bytes = round256(4 * params);
// Peak at step 8 (MaxPool backward): A0 + W2 + Lo + Pr + G3 + G2.
constexpr std::int64_t peak = B * 16 * 32 * 32 * 4 + B * 16 * 16 * 16 + round256(B * 4) +
                              round256(B * 4) + B * 4096 * 4 + B * 16 * 32 * 32 * 4;
constexpr Expected expected{
    .weights = param_bytes,
    .gradients = param_bytes,
    .optimizer_state = 2 * param_bytes,  // Adam
    .inputs = round256(B * 3 * 32 * 32 * 4) + round256(B * 4),
    .workspace = round256(3 * 3 * 3 * 32 * 32 * 4),
    .activations = peak,
};
constexpr auto& plan = sn::plan<ss::SimpleCNN, ss::SimpleCNNTraining>();
// Checked by the compiler as well as at run time.
static_assert(plan.parameter_count == 41418);
static_assert(plan.output_shape == sn::Shape{128, 10});
static_assert(plan.footprint.total().count == expected.total());
}  // namespace simple_cnn

TEST_CASE("samples: SimpleCNN shapes, parameters and footprint") {
  using namespace simple_cnn;
  CHECK(plan.input_shape == sn::Shape{B, 3, 32, 32});
  CHECK(plan.output_shape == sn::Shape{B, 10});
  CHECK(plan.parameter_count == params);
  CHECK(params == 41418);  // PyTorch: parameters 41418
  check_layers<5>(plan,
                  {sn::Shape{B, 16, 32, 32}, sn::Shape{B, 16, 32, 32}, sn::Shape{B, 16, 16, 16},
                   sn::Shape{B, 4096}, sn::Shape{B, 10}},
                  {448, 0, 0, 0, 40970});
  check_footprint(plan, expected);
  CHECK(expected.total() == 21747200);  // 20.74 MiB
  check_peak(plan, 8, peak);
}

// ---- DeepCNN (seed 001, corrected) -------------------------------------------------------------

namespace deep_cnn {
constexpr std::int64_t B = 64;
constexpr std::int64_t params =
    (32 * 3 * 9 + 32) + (64 * 32 * 9 + 64) + (128 * 64 * 9 + 128) + (8192 * 10 + 10);
constexpr std::int64_t param_bytes = round256(4 * params);
// Peak at step 14 (pool3 backward): A0 + W2 + A2 + A3 + W5 + A5 + A6 + W8 + Lo + Pr + G9 + G8.
constexpr std::int64_t peak = B * 32 * 64 * 64 * 4 + B * 32 * 32 * 32 + B * 32 * 32 * 32 * 4 +
                              B * 64 * 32 * 32 * 4 + B * 64 * 16 * 16 + B * 64 * 16 * 16 * 4 +
                              B * 128 * 16 * 16 * 4 + B * 128 * 8 * 8 + round256(B * 4) +
                              round256(B * 4) + B * 8192 * 4 + B * 128 * 16 * 16 * 4;
// KNOWN PLANNER GAP (reported): the best of the planner's two placements leaves a hole at step
// 14 between W8 and W2, of 1,572,864 bytes = 1.5 MiB, in bytes that G6 and G3 take at steps
// 16-20, so its region is the peak plus that hole. The test case below shows a placement of
// exactly `peak` bytes exists. When the planner finds it, replace `+ hole` with nothing.
constexpr std::int64_t hole = 3 * 512 * 1024;
constexpr Expected expected{
    .weights = param_bytes,
    .gradients = param_bytes,
    .optimizer_state = 2 * param_bytes,  // Adam
    .inputs = round256(B * 3 * 64 * 64 * 4) + round256(B * 4),
    .workspace = round256(32 * 3 * 3 * 32 * 32 * 4),  // conv2's im2col is the largest
    .activations = peak + hole,
};
constexpr auto& plan = sn::plan<ss::DeepCNN, ss::DeepCNNTraining>();
static_assert(plan.parameter_count == 175178);
static_assert(plan.layers[8].output_shape == sn::Shape{64, 128, 8, 8});  // 8x8, not the seed's 4x4
static_assert(plan.footprint.activations.count >= peak);  // the live peak bounds any placement
}  // namespace deep_cnn

TEST_CASE("samples: DeepCNN shapes, parameters and footprint") {
  using namespace deep_cnn;
  CHECK(plan.input_shape == sn::Shape{B, 3, 64, 64});
  CHECK(plan.output_shape == sn::Shape{B, 10});
  CHECK(plan.parameter_count == params);
  CHECK(params == 175178);  // PyTorch: parameters 175178
  check_layers<11>(plan,
                   {sn::Shape{B, 32, 64, 64}, sn::Shape{B, 32, 64, 64}, sn::Shape{B, 32, 32, 32},
                    sn::Shape{B, 64, 32, 32}, sn::Shape{B, 64, 32, 32}, sn::Shape{B, 64, 16, 16},
                    sn::Shape{B, 128, 16, 16}, sn::Shape{B, 128, 16, 16}, sn::Shape{B, 128, 8, 8},
                    sn::Shape{B, 8192}, sn::Shape{B, 10}},
                   {896, 0, 0, 18496, 0, 0, 73856, 0, 0, 0, 81930});
  check_footprint(plan, expected);
  CHECK(peak == 85459456);
  check_peak(plan, 14, peak);
}

TEST_CASE("samples: DeepCNN's activations fit in exactly the live peak (hand placement)") {
  using namespace deep_cnn;
  // The placement derived in samples/deep_cnn.hpp's investigation, in units of 512 KiB (the
  // smallest window index, W8), for the planner's own buffers and lifetimes. Bottom to top:
  //   A0 | W2 | A3 | W5 | A2 | A6 | W8 | G9 | A5 | G8 | Lo | Pr, with A8, A10 and G10 in G8's bytes
  //   (gone before G8 comes), G6 in A6's, G5 over A6's tail and everything above it, G3 in A3's,
  //   and G2 from the end of G3 upwards.
  constexpr std::int64_t u = 512 * 1024;
  struct Placed {
    sn::BufferRole role;
    std::int64_t layer, size, offset;
  };
  using R = sn::BufferRole;
  const std::array<Placed, 19> placed = {{
      {R::activation, 0, B * 32 * 64 * 64 * 4, 0},                     // A0
      {R::window_index, 2, B * 32 * 32 * 32, 64 * u},                  // W2
      {R::activation, 3, B * 64 * 32 * 32 * 4, 68 * u},                // A3
      {R::window_index, 5, B * 64 * 16 * 16, 100 * u},                 // W5
      {R::activation, 2, B * 32 * 32 * 32 * 4, 102 * u},               // A2
      {R::activation, 6, B * 128 * 16 * 16 * 4, 118 * u},              // A6
      {R::window_index, 8, B * 128 * 8 * 8, 134 * u},                  // W8
      {R::activation_gradient, 10, B * 8192 * 4, 135 * u},             // G9
      {R::activation, 5, B * 64 * 16 * 16 * 4, 139 * u},               // A5
      {R::activation_gradient, 8, B * 128 * 16 * 16 * 4, 147 * u},     // G8
      {R::activation, 8, B * 128 * 8 * 8 * 4, 147 * u},                // A8
      {R::activation, 10, B * 10 * 4, 151 * u},                        // A10
      {R::activation_gradient, 10, B * 10 * 4, 151 * u + B * 10 * 4},  // G10
      {R::loss, -1, B * 4, 163 * u},                                   // Lo
      {R::predictions, -1, B * 4, 163 * u + 256},                      // Pr
      {R::activation_gradient, 6, B * 64 * 16 * 16 * 4, 118 * u},      // G6
      {R::activation_gradient, 5, B * 64 * 32 * 32 * 4, 131 * u},      // G5
      {R::activation_gradient, 3, B * 32 * 32 * 32 * 4, 68 * u},       // G3
      {R::activation_gradient, 2, B * 32 * 64 * 64 * 4, 84 * u},       // G2
  }};
  // Match each hand buffer to the planner's, for its lifetime.
  std::array<const sn::Buffer*, placed.size()> buffer{};
  std::size_t activation_buffers = 0;
  for (const sn::Buffer& b : plan.buffers) {
    if (b.region() != sn::Region::activations)
      continue;
    ++activation_buffers;
    for (std::size_t i = 0; i < placed.size(); ++i)
      if (placed[i].role == b.role && placed[i].layer == b.layer && placed[i].size == b.size)
        buffer[i] = &b;
  }
  CHECK(activation_buffers == placed.size());
  std::int64_t top = 0;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    CAPTURE(i);
    REQUIRE(buffer[i] != nullptr);
    const std::int64_t end = placed[i].offset + round256(placed[i].size);
    top = end > top ? end : top;
    for (std::size_t j = 0; j < i; ++j) {
      CAPTURE(j);
      const bool together = buffer[i]->first_step <= buffer[j]->last_step &&
                            buffer[j]->first_step <= buffer[i]->last_step;
      const bool apart = end <= placed[j].offset ||
                         placed[j].offset + round256(placed[j].size) <= placed[i].offset;
      CHECK((!together || apart));
    }
  }
  CHECK(top == peak);
  CHECK(plan.footprint.activations.count - top == hole);  // what the planner leaves on the table
}

// ---- LinearRegression (seed 002) ---------------------------------------------------------------

namespace linear_regression {
constexpr std::int64_t B = 5;
constexpr std::int64_t params = 10 * 2 + 2;
constexpr Expected expected{
    .weights = round256(4 * params),
    .gradients = round256(4 * params),
    .optimizer_state = 0,                                  // SGD
    .inputs = round256(B * 10 * 4) + round256(B * 2 * 4),  // inputs + MSE targets
    .workspace = 0,
    // Peak at step 1 (the loss): output + loss + d(output), each rounded up on its own.
    .activations = round256(B * 2 * 4) + round256(B * 4) + round256(B * 2 * 4),
};
constexpr auto& plan = sn::plan<ss::LinearRegression, ss::LinearRegressionTraining>();
static_assert(plan.footprint.total().count == 1792);
static_assert(plan.footprint.activations.count == 3 * 256);
}  // namespace linear_regression

TEST_CASE("samples: LinearRegression shapes, parameters and footprint") {
  using namespace linear_regression;
  CHECK(plan.input_shape == sn::Shape{B, 10});
  CHECK(plan.output_shape == sn::Shape{B, 2});
  CHECK(plan.parameter_count == params);
  CHECK(params == 22);  // PyTorch: parameters 22
  check_layers<1>(plan, {sn::Shape{B, 2}}, {22});
  check_footprint(plan, expected);
  CHECK(expected.total() == 1792);
  check_peak(plan, 1, expected.activations);
}

// ---- MLP (seed 003's data) ---------------------------------------------------------------------

namespace mlp {
constexpr std::int64_t B = 64;
constexpr std::int64_t params = (100 * 128 + 128) + (128 * 64 + 64) + (64 * 10 + 10);
constexpr std::int64_t param_bytes = round256(4 * params);
// Peak at step 8 (fc2 backward): A0 + Lo + Pr + G3 + G1.
constexpr std::int64_t peak =
    B * 128 * 4 + round256(B * 4) + round256(B * 4) + B * 64 * 4 + B * 128 * 4;
constexpr Expected expected{
    .weights = param_bytes,
    .gradients = param_bytes,
    .optimizer_state = 2 * param_bytes,  // Adam
    .inputs = round256(B * 100 * 4) + round256(B * 4),
    .workspace = 0,
    .activations = peak,
};
constexpr auto& plan = sn::plan<ss::MLP, ss::MLPTraining>();
static_assert(plan.parameter_count == 21834);
}  // namespace mlp

TEST_CASE("samples: MLP shapes, parameters and footprint") {
  using namespace mlp;
  CHECK(plan.input_shape == sn::Shape{B, 100});
  CHECK(plan.output_shape == sn::Shape{B, 10});
  CHECK(plan.parameter_count == params);
  CHECK(params == 21834);  // PyTorch: parameters 21834
  check_layers<5>(
      plan,
      {sn::Shape{B, 128}, sn::Shape{B, 128}, sn::Shape{B, 64}, sn::Shape{B, 64}, sn::Shape{B, 10}},
      {12928, 0, 8256, 0, 650});
  check_footprint(plan, expected);
  CHECK(expected.total() == 458496);
  check_peak(plan, 8, peak);
}

// ---- SmallNetwork and LargerConvNetwork (seed 004) ---------------------------------------------

namespace seed004 {
constexpr std::int64_t B = 4;
// The two differ only in the conv's output channels C.
constexpr std::int64_t params(std::int64_t c) {
  return (c * 3 * 3 * 3 + c) + (c * 30 * 30 * 128 + 128);
}
constexpr Expected expected(std::int64_t c) {
  const std::int64_t param_bytes = round256(4 * params(c));
  return {
      .weights = param_bytes,
      .gradients = param_bytes,
      .optimizer_state = 2 * param_bytes,  // Adam
      .inputs = round256(B * 3 * 32 * 32 * 4) + round256(B * 4),
      .workspace = round256(3 * 3 * 3 * 30 * 30 * 4),  // does not depend on C
      // Peak at step 5 (fc backward): A0 + Lo + Pr + G3 + G2 (Lo, Pr and G3 one slot each).
      .activations = B * c * 30 * 30 * 4 + round256(B * 4) + round256(B * 4) +
                     round256(B * 128 * 4) + B * c * 30 * 30 * 4,
  };
}
constexpr auto& small = sn::plan<ss::SmallNetwork, ss::SmallNetworkTraining>();
constexpr auto& larger = sn::plan<ss::LargerConvNetwork, ss::LargerConvNetworkTraining>();
static_assert(small.parameter_count == 1843776);  // the seed's print shows this number
static_assert(larger.parameter_count == 7374720);
static_assert(larger.footprint.total().count == expected(64).total());
}  // namespace seed004

TEST_CASE("samples: SmallNetwork shapes, parameters and footprint") {
  using namespace seed004;
  CHECK(small.input_shape == sn::Shape{B, 3, 32, 32});
  CHECK(small.output_shape == sn::Shape{B, 128});
  CHECK(small.parameter_count == params(16));
  CHECK(params(16) == 1843776);  // PyTorch: parameters 1843776
  check_layers<4>(
      small,
      {sn::Shape{B, 16, 30, 30}, sn::Shape{B, 16, 30, 30}, sn::Shape{B, 14400}, sn::Shape{B, 128}},
      {448, 0, 0, 1843328});
  check_footprint(small, expected(16));
  CHECK(expected(16).total() == 30110464);
  check_peak(small, 5, expected(16).activations);
}

TEST_CASE("samples: LargerConvNetwork shapes, parameters and footprint") {
  using namespace seed004;
  CHECK(larger.input_shape == sn::Shape{B, 3, 32, 32});
  CHECK(larger.output_shape == sn::Shape{B, 128});
  CHECK(larger.parameter_count == params(64));
  CHECK(params(64) == 7374720);  // PyTorch: parameters 7374720
  check_layers<4>(
      larger,
      {sn::Shape{B, 64, 30, 30}, sn::Shape{B, 64, 30, 30}, sn::Shape{B, 57600}, sn::Shape{B, 128}},
      {1792, 0, 0, 7372928});
  check_footprint(larger, expected(64));
  CHECK(expected(64).total() == 119987968);
  check_peak(larger, 5, expected(64).activations);
}

// ---- LeNet-5 -----------------------------------------------------------------------------------

namespace lenet5 {
constexpr std::int64_t B = 64;
constexpr std::int64_t params =
    (6 * 1 * 25 + 6) + (16 * 6 * 25 + 16) + (400 * 120 + 120) + (120 * 84 + 84) + (84 * 10 + 10);
constexpr std::int64_t param_bytes = round256(4 * params);
// Peak at step 22 (pool1 backward): A0 + Lo + Pr + G3 + G2.
constexpr std::int64_t peak = B * 6 * 28 * 28 * 4 + round256(B * 4) + round256(B * 4) +
                              B * 6 * 14 * 14 * 4 + B * 6 * 28 * 28 * 4;
constexpr Expected expected{
    .weights = param_bytes,
    .gradients = param_bytes,
    .optimizer_state = param_bytes,  // SGDMomentum: one velocity
    .inputs = round256(B * 1 * 28 * 28 * 4) + round256(B * 4),
    .workspace = round256(1 * 5 * 5 * 28 * 28 * 4),  // conv1 (78,400) beats conv2 (60,000)
    .activations = peak,
};
constexpr auto& plan = sn::plan<ss::LeNet5, ss::LeNet5Training>();
static_assert(plan.parameter_count == 61706);
static_assert(plan.footprint.total().count == expected.total());
}  // namespace lenet5

TEST_CASE("samples: LeNet5 shapes, parameters and footprint") {
  using namespace lenet5;
  CHECK(plan.input_shape == sn::Shape{B, 1, 28, 28});
  CHECK(plan.output_shape == sn::Shape{B, 10});
  CHECK(plan.parameter_count == params);
  CHECK(params == 61706);  // PyTorch: parameters 61706
  check_layers<12>(plan,
                   {sn::Shape{B, 6, 28, 28}, sn::Shape{B, 6, 28, 28}, sn::Shape{B, 6, 14, 14},
                    sn::Shape{B, 16, 10, 10}, sn::Shape{B, 16, 10, 10}, sn::Shape{B, 16, 5, 5},
                    sn::Shape{B, 400}, sn::Shape{B, 120}, sn::Shape{B, 120}, sn::Shape{B, 84},
                    sn::Shape{B, 84}, sn::Shape{B, 10}},
                   {156, 0, 0, 2416, 0, 0, 0, 48120, 0, 10164, 0, 850});
  check_footprint(plan, expected);
  CHECK(expected.total() == 3730688);
  check_peak(plan, 22, peak);
}

// ---- DigitsCNN (scikit-learn's 8x8 digits) ---------------------------------------------------

namespace digits {
constexpr std::int64_t B = 32;
constexpr std::int64_t params = (16 * 1 * 3 * 3 + 16) + (256 * 10 + 10);
constexpr std::int64_t param_bytes = round256(4 * params);
// Peak at step 8 (MaxPool backward): A0 + W2 + Lo + Pr + G3 + G2.
constexpr std::int64_t peak = B * 16 * 8 * 8 * 4 + B * 16 * 4 * 4 + round256(B * 4) +
                              round256(B * 4) + B * 256 * 4 + B * 16 * 8 * 8 * 4;
constexpr Expected expected{
    .weights = param_bytes,
    .gradients = param_bytes,
    .optimizer_state = 2 * param_bytes,  // Adam
    .inputs = round256(B * 1 * 8 * 8 * 4) + round256(B * 4),
    .workspace = round256(1 * 3 * 3 * 8 * 8 * 4),
    .activations = peak,
};
constexpr auto& plan = sn::plan<ss::DigitsCNN, ss::DigitsTraining>();
}  // namespace digits

TEST_CASE("samples: DigitsCNN shapes, parameters and footprint") {
  using namespace digits;
  CHECK(plan.parameter_count == params);
  CHECK(params == 2730);
  check_layers<5>(plan,
                  {sn::Shape{B, 16, 8, 8}, sn::Shape{B, 16, 8, 8}, sn::Shape{B, 16, 4, 4},
                   sn::Shape{B, 256}, sn::Shape{B, 10}},
                  {160, 0, 0, 0, 2570});
  check_footprint(plan, expected);
  CHECK(expected.total() == 358400);
  check_peak(plan, 8, peak);
}

// ---- budgets -----------------------------------------------------------------------------------

TEST_CASE("samples: budgets follow the footprints") {
  // Every sample fits the smallest profile: footprint + 1.5 GiB overhead <= 4 GiB.
  static_assert(
      sn::fits<ss::LargerConvNetwork, ss::LargerConvNetworkTraining>(sn::device::jetson_nano));
  CHECK(sn::fits<ss::DeepCNN, ss::DeepCNNTraining>(sn::device::jetson_nano));
  // A budget one byte short of the whole step does not fit; the exact budget does.
  constexpr sn::Device exact{sn::Bytes{lenet5::expected.total()}, sn::Bytes{0}, "exact"};
  constexpr sn::Device short_by_one{sn::Bytes{lenet5::expected.total() - 1}, sn::Bytes{0}, "-1"};
  CHECK(sn::fits<ss::LeNet5, ss::LeNet5Training>(exact));
  CHECK_FALSE(sn::fits<ss::LeNet5, ss::LeNet5Training>(short_by_one));
  // The largest batch for exactly the batch-64 footprint is 64.
  CHECK(sn::max_batch<ss::LeNet5, ss::LeNet5Training>(sn::Bytes{lenet5::expected.total()}) == 64);
  CHECK(sn::max_batch<ss::SimpleCNN, ss::SimpleCNNTraining>(
            sn::Bytes{simple_cnn::expected.total()}) == 128);
}
