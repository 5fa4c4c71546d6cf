// Gradient checkpointing in the plan (Checkpoint<P>, issue 39 item 1): where the model is
// cut, which layers backward computes again, the recompute steps' place in the schedule, and the
// bytes and FLOPs that costs. Every expected number is derived by hand in the comment beside it; a
// buffer's bytes are rounded up to 256.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <staticnet/staticnet.hpp>

#include "plan_simulation.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"
#include "samples/simple_cnn.hpp"
#include "tests/analyzer/data/mlp50_checkpoint.hpp"

namespace sn = staticnet;

namespace {

// x → Linear(64) 0 → ReLU 1 → Linear(64) 2 → ReLU 3 → Linear(64) 4, a batch of 16, MSE, SGD.
// Cuts are allowed after layers 1 and 3 (not before a ReLU, nor after the last layer): three units,
// {0, 1}, {2, 3}, {4}.
using Chain = sn::Sequential<sn::Linear<64>, sn::ReLU, sn::Linear<64>, sn::ReLU, sn::Linear<64>>;
template <class... Options>
using ChainSetup =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>, Options...>;

constexpr auto& kept = sn::plan<Chain, ChainSetup<>>();
// √3 rounds up to 2 units a segment: one checkpointed segment, layers 0-3, and the last, layer 4.
constexpr auto& sqrt_cut = sn::plan<Chain, ChainSetup<sn::Checkpoint<sn::Sqrt>>>();
// One unit a segment: segments {0, 1} and {2, 3} end in a ReLU that runs in place over the Linear
// before it, so each keeps its Linear's output as its own: nothing is dropped.
constexpr auto& every_unit = sn::plan<Chain, ChainSetup<sn::Checkpoint<sn::Every<1>>>>();
constexpr auto& sqrt_in_two =
    sn::plan<Chain, ChainSetup<sn::Checkpoint<sn::Sqrt>, sn::Accumulate<2>>>();

template <std::size_t L>
int count(const sn::Plan<L>& p, sn::StepKind kind) {
  int n = 0;
  for (const sn::Step& s : p.schedule)
    n += s.kind == kind;
  return n;
}

}  // namespace

// Without checkpointing (every activation 16·64·4 = 4,096 B; the losses 16·4 = 64 → 256):
//   steps 0-4 forward (1 and 3 in place over 0's and 2's outputs X0 and X2), 5 the loss (writes the
//   losses and dY4), 6 backward 4 (reads X2, writes G3), 7 backward 3 (G3 in place, reads X2),
//   8 backward 2 (reads X0, writes G1), 9 backward 1 (in place, reads X0), 10 backward 0, 11
//   update. Lifetimes: X0 [0, 9], X2 [2, 7], X4 [4, 5], losses [5, 11], dY4 [5, 6], G3 [6, 8], G1
//   [8, 10]. Busiest: steps 5 and 6, X0 + X2 + 4,096 + 256 + 4,096 = 16,640.
// Under Sqrt: forward drops X0 after layer 2 reads it (X0 [0, 2]). Backward 4 runs (step 6), then
// before backward 3, the segment's recompute: layer 2's backward reads X0 and layer 1's its
// output X0, so layers 0 and 1 run again (steps 7 and 8) into X0' [7, 11]; then backward 3..0
// (steps 9-12), the update 13. Busiest: 12,544 at steps 5-7 (X2, X4 or G3 or X0', losses, dY4 or
// G3) and 10 (losses, G3, X0', G1): a Linear's output fewer.
TEST_CASE("checkpoint: a chain's segment recomputed before its backward, derived by hand") {
  static_assert(kept.footprint.activations.count == 16'640);
  static_assert(sqrt_cut.footprint.activations.count == 12'544);
  // The rest of the arena is the same: parameters 3 · (64·64 + 64) · 4 = 49,920 B and as many
  // gradients; the inputs 4,096 + the targets 4,096.
  static_assert(sqrt_cut.footprint.total().count == 2 * 49'920 + 8'192 + 12'544);
  REQUIRE(sqrt_cut.step_count() == 14);
  const sn::StepKind expected[] = {
      sn::StepKind::forward,  sn::StepKind::forward,   sn::StepKind::forward,
      sn::StepKind::forward,  sn::StepKind::forward,   sn::StepKind::loss,
      sn::StepKind::backward, sn::StepKind::recompute, sn::StepKind::recompute,
      sn::StepKind::backward, sn::StepKind::backward,  sn::StepKind::backward,
      sn::StepKind::backward, sn::StepKind::update};
  const std::int64_t layer[] = {0, 1, 2, 3, 4, -1, 4, 0, 1, 3, 2, 1, 0, -1};
  for (int s = 0; s < 14; ++s) {
    CHECK(sqrt_cut.schedule[s].kind == expected[s]);
    CHECK(sqrt_cut.schedule[s].layer == layer[s]);
  }
  // X0' is a buffer of its own, and backward reads it: layer 2's saved input, layer 1's output.
  const int x0 = sqrt_cut.layers[0].output_buffer;
  CHECK(sqrt_cut.layers[1].output_buffer == x0);
  const int again = sqrt_cut.as_backward_reads(x0);
  REQUIRE(again != x0);
  CHECK(sqrt_cut.buffers[x0].last_step == 2);
  CHECK(sqrt_cut.buffers[again].first_step == 7);
  CHECK(sqrt_cut.buffers[again].last_step == 11);
  CHECK(sqrt_cut.buffers[again].size == 4'096);
  // X2, the segment's output, is kept: backward reads it where forward left it.
  CHECK(sqrt_cut.as_backward_reads(sqrt_cut.layers[2].output_buffer) ==
        sqrt_cut.layers[2].output_buffer);
  CHECK(sn::testing::simulate(sqrt_cut).empty());
  CHECK(sn::testing::check_layout(sqrt_cut).empty());
}

// The price: layer 0 again, 16·64·64 multiply-adds at 2 FLOPs each + 16·64 bias adds = 132,096,
// and ReLU 1 again, 16·64 = 1,024: 133,120. Forward is three Linears and two ReLUs:
// 3 · 132,096 + 2 · 1,024 = 398,336.
TEST_CASE("checkpoint: the plan prices what it computes again") {
  static_assert(kept.recompute_flops() == 0);
  static_assert(sqrt_cut.recompute_flops() == 133'120);
  static_assert(sqrt_cut.forward_flops() == 398'336);
  static_assert(sqrt_cut.forward_flops() == kept.forward_flops());
  static_assert(sqrt_cut.backward_flops() == kept.backward_flops());
  // Under Accumulate<2>, every micro-batch of 8 recomputes: half the FLOPs twice.
  static_assert(sqrt_in_two.recompute_flops() == 133'120);
  CHECK(sn::testing::simulate(sqrt_in_two).empty());
}

TEST_CASE("checkpoint: a segment that ends in place over all it holds drops nothing") {
  static_assert(every_unit.recompute_flops() == 0);
  static_assert(every_unit.footprint.activations.count == kept.footprint.activations.count);
  CHECK(count(every_unit, sn::StepKind::recompute) == 0);
}

// ---- a 50-layer MLP (issue 39 item 8): 25 pairs of Linear(64) and ReLU, a batch of 16, MSE, SGD.
// Cuts are allowed after each pair but the last: 25 units. Every activation is 16·64·4 = 4,096 B,
// the losses 256 (16 f32, rounded up). The parameters, gradients and inputs are those of any
// policy; the activation region is derived here.
using Mlp50 = mlp50::Net;  // tests/analyzer/data/mlp50_checkpoint.hpp: the analyzer checks it too
template <class... Options>
using Mlp50Setup =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>, Options...>;
constexpr auto& mlp_kept = sn::plan<Mlp50, Mlp50Setup<>>();
constexpr auto& mlp_every5 = sn::plan<Mlp50, Mlp50Setup<sn::Checkpoint<sn::Every<5>>>>();
constexpr auto& mlp_sqrt = sn::plan<Mlp50, Mlp50Setup<sn::Checkpoint<sn::Sqrt>>>();
constexpr auto& mlp_every2 = sn::plan<Mlp50, Mlp50Setup<sn::Checkpoint<sn::Every<2>>>>();

// Kept (no checkpointing): each pair's buffer X_k (the ReLU in place over the Linear's output) is
// read by backward (the ReLU reads its output, the next Linear its input), so all 25 live until
// backward. At the loss step: 25 of them, d(output) and the losses: 26 · 4,096 + 256 = 106,752.
//
// Sqrt: ⌈√25⌉ = 5 pairs a segment, as Every<5>: segments end at layers 9, 19, 29 and 39 and keep
// their last pair's buffer (X_4, X_9, X_14, X_19); the last segment, layers 40-49, keeps all five.
// At the loss step: 4 + 5 buffers, d(output), the losses: 10 · 4,096 + 256 = 41,216. Each
// checkpointed segment recomputes its first four pairs (backward of its last Linear reads the
// fourth's output, which reads the third's ...) into four buffers, then runs backward with them:
// at most the earlier checkpoints, the four, d(its output) and the next gradient, 9 · 4,096 + 256.
// Recomputed: 4 segments × 4 pairs × (132,096 + 1,024) = 2,129,920 FLOPs, of forward's
// 25 × 133,120 = 3,328,000 (64 %).
//
// Every<2>: segments end at layers 3, 7, ..., 47 (12 of them), each recomputing its first pair.
// At the loss step: 12 checkpoints, the last pair's buffer, d(output), the losses:
// 14 · 4,096 + 256 = 57,600. Recomputed: 12 × 133,120 = 1,597,440.
TEST_CASE("checkpoint: a 50-layer MLP under Every<5>, Sqrt and Every<2>, derived by hand") {
  static_assert(mlp_kept.footprint.activations.count == 106'752);
  static_assert(mlp_sqrt.footprint.activations.count == 41'216);
  static_assert(mlp_every5.footprint.activations.count == 41'216);
  static_assert(mlp_every2.footprint.activations.count == 57'600);
  static_assert(mlp_kept.recompute_flops() == 0);
  static_assert(mlp_sqrt.recompute_flops() == 2'129'920);
  static_assert(mlp_every5.recompute_flops() == 2'129'920);
  static_assert(mlp_every2.recompute_flops() == 1'597'440);
  static_assert(mlp_sqrt.forward_flops() == 3'328'000);
  // Everything else is the same arena.
  static_assert(mlp_sqrt.footprint.total().count - mlp_sqrt.footprint.activations.count ==
                mlp_kept.footprint.total().count - mlp_kept.footprint.activations.count);
  CHECK(count(mlp_sqrt, sn::StepKind::recompute) == 4 * 8);
  CHECK(count(mlp_every2, sn::StepKind::recompute) == 12 * 2);
  CHECK(sn::testing::simulate(mlp_sqrt).empty());
  CHECK(sn::testing::simulate(mlp_every2).empty());
}

// The samples run under every policy: the tag simulation checks that each backward finds what it
// reads, recomputed or kept, and that no buffer is overwritten while a reader waits.
template <class Model, class... Options>
void check_samples_under(const char* what) {
  using S = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<8>, Options...>;
  const auto& p = sn::plan<Model, S>();
  CAPTURE(what);
  CHECK(sn::testing::simulate(p).empty());
  CHECK(sn::testing::check_layout(p).empty());
}

TEST_CASE("checkpoint: SimpleCNN and ResNet-8 plan and run on tags under each policy") {
  using sn::Checkpoint;
  using sn::Every;
  using sn::Sqrt;
  // (Under Every<1> each of SimpleCNN's segments is one unit, {Conv2d, ReLU} whose ReLU runs in
  // place over all it holds, then {MaxPool2d} ...: nothing is dropped, nothing recomputed.)
  check_samples_under<sn::samples::SimpleCNN, Checkpoint<Every<1>>>("SimpleCNN, Every<1>");
  check_samples_under<sn::samples::SimpleCNN, Checkpoint<Sqrt>>("SimpleCNN, Sqrt");
  check_samples_under<sn::samples::ResNet8, Checkpoint<Every<1>>>("ResNet-8, Every<1>");
  check_samples_under<sn::samples::ResNet8, Checkpoint<Sqrt>>("ResNet-8, Sqrt");
  check_samples_under<sn::samples::ResNet8, Checkpoint<Sqrt>, sn::Accumulate<2>>(
      "ResNet-8, Sqrt, Accumulate<2>");
  // ResNet-8's cuts fall between its three blocks (a block's shortcut crosses every tensor inside
  // it): recomputing saves bytes and costs FLOPs.
  using R = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<8>>;
  using RS = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<8>, Checkpoint<Sqrt>>;
  constexpr auto& resnet = sn::plan<sn::samples::ResNet8, R>();
  constexpr auto& resnet_sqrt = sn::plan<sn::samples::ResNet8, RS>();
  CHECK(resnet_sqrt.recompute_flops() > 0);
  CHECK(resnet_sqrt.footprint.activations.count < resnet.footprint.activations.count);
}
