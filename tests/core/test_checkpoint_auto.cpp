// Checkpoint<Auto> (issue 39): the prices it searches (checkpoint_costs.hpp) on the sample models,
// against the plans the planner makes; the random models' every cut set is in
// test_planner_graphs.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <staticnet/checkpoint_costs.hpp>
#include <staticnet/staticnet.hpp>

#include "priced_cut_set.hpp"
#include "samples/deep_cnn.hpp"
#include "samples/lenet5.hpp"
#include "samples/mlperf_tiny/ds_cnn.hpp"
#include "samples/mlperf_tiny/fc_autoencoder.hpp"
#include "samples/mlperf_tiny/mobilenet_v1.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"
#include "samples/simple_cnn.hpp"
#include "test_support.hpp"
#include "tests/analyzer/data/mlp50_checkpoint.hpp"

namespace sn = staticnet;
using sn::testing::Rng;

namespace {

template <std::size_t L>
std::int64_t live_peak(const sn::Plan<L>& p) {
  std::int64_t live = 0;
  for (std::int64_t step = 0; step < p.step_count(); ++step)
    live = std::max(live, p.live_activation_bytes(step));
  return live;
}

// For a sample model: every cut set where it has at most 10 cuts, else 60 random ones and the
// ones that cut everywhere and nowhere; each planned, its live peak and recomputation against
// the prices' (checkpoint_search.hpp's model).
template <class M, class S>
void check_prices(const std::string& name, int& compared) {
  CAPTURE(name);
  constexpr auto nodes = sn::flatten<M>();
  constexpr std::size_t L = nodes.size();
  sn::SetupDesc plain_setup = S::desc();  // priced from the plan without checkpointing
  plain_setup.checkpoint = sn::CheckpointKind::none;
  const auto g = sn::lower(nodes, plain_setup);
  REQUIRE(g.error.ok());
  const auto plain = sn::detail::plan_backward(g, sn::detail::plan_forward(g));
  auto pricer = std::make_unique<sn::detail::CheckpointPricer<L>>(g, plain);
  const std::int64_t cuts = pricer->units() - 1;
  REQUIRE(cuts >= 1);
  Rng rng{static_cast<std::uint64_t>(L)};
  const bool all = cuts <= 10;
  const int count = all ? 1 << cuts : 62;
  for (int k = 0; k < count; ++k) {
    std::uint64_t mask = static_cast<std::uint64_t>(k);
    if (!all)
      mask = k == 0 ? 0 : k == 1 ? ~std::uint64_t{0} : rng.next();
    if (cuts < 64)
      mask &= (std::uint64_t{1} << cuts) - 1;
    sn::SetupDesc s = S::desc();
    s.checkpoint = sn::CheckpointKind::cuts;
    s.checkpoint_cuts = mask;
    const auto p = sn::plan(sn::lower(nodes, s));
    const std::pair<std::int64_t, std::int64_t> by_prices = sn::testing::priced(*pricer, mask);
    const std::int64_t peak = by_prices.first, recompute = by_prices.second;
    CAPTURE(mask);
    CHECK(peak == live_peak(p));
    CHECK(recompute == p.recompute_flops());
    ++compared;
  }
}

}  // namespace

TEST_CASE("Checkpoint<Auto>'s prices are the planner's live peak on the sample models") {
  namespace s = sn::samples;
  int compared = 0;
  check_prices<s::SimpleCNN, s::SimpleCNNTraining>("SimpleCNN", compared);
  check_prices<s::LeNet5, s::LeNet5Training>("LeNet-5", compared);
  check_prices<s::DeepCNN, s::DeepCNNTraining>("DeepCNN", compared);
  check_prices<s::ResNet8, s::ResNet8Training>("ResNet-8", compared);
  check_prices<s::DSCNN, s::DSCNNTraining>("DS-CNN", compared);
  check_prices<s::MobileNetV1, s::MobileNetV1Training>("MobileNetV1", compared);
  check_prices<s::FCAutoencoder, s::FCAutoencoderTraining>("FC autoencoder", compared);
  check_prices<mlp50::Net, mlp50::Sqrt>("50-layer MLP", compared);
  using AccumulatedResNet8 = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<32>,
                                          sn::Loss<sn::CrossEntropy>, sn::Accumulate<4>>;
  check_prices<s::ResNet8, AccumulatedResNet8>("ResNet-8 in 4 micro-batches", compared);
  MESSAGE(compared, " cut sets compared");
}

// ---- Checkpoint<Auto<Budget>> on the 50-layer MLP, derived by hand --------------------------
//
// mlp50::Net is 25 units u = 0..24 of Linear(64) and a ReLU that runs in place over it: one
// buffer X_u of 16·64·4 = 4,096 B each. A Linear's backward reads its input X_{u-1}, a ReLU's its
// output X_u. Without checkpointing the busiest step holds X_0..X_24, the loss's gradient and the
// losses (64 B → 256): 26 · 4,096 + 256 = 106,752. The rest of the step is 840,192 B: weights and
// gradients 2 · 25 · (64·64 + 64) · 4 = 832,000, input and targets 2 · 4,096.
//
// Cuts after units c_1 < ... < c_m make segments S_1 = 0..c_1, S_s = c_{s-1}+1..c_s, and the tail
// c_m+1..24; let len_s be S_s's units and T the tail's. Each segment but the first keeps its
// input (its first Linear's backward reads it). At its busiest (the start of its backward) a
// checkpointed segment holds its input, its dropped units recomputed (len - 1), its last X, the
// gradient arriving at it and the losses: S_1 len_1 + 1 buffers, S_s (the s - 2 inputs the
// segments before it keep) + len_s + 2 = s + len_s. The tail holds the m - 1 kept inputs, its own
// input, its T buffers, the gradient and the losses: m + 1 + T. Each buffer is 4,096 B, plus 256.
// A segment recomputes all its units but its last, 133,120 FLOPs each (a Linear's 2·16·64·64 +
// 16·64 for the bias, and its ReLU's 16·64): c_m + 1 - m units in all.
//
// A budget of B buffers needs len_1 <= B - 1, len_s <= B - s and T <= B - m - 1 with the lengths
// summing to 25, and recomputes c_m + 1 - m = 25 - T - m units, at least 25 - (B - 1) = 26 - B.
//   B = 12 (49,408 B; the step 889,600): m = 1 gives 11 + 10 < 25 units; m = 2 fits (11 + 10 + 9)
//     with T = 9: 14 units, 1,863,680 FLOPs, the least: 26 - 12.
//   B = 10 (41,216 B; 881,408, Sqrt's own step): 16 units, 2,129,920, as Sqrt (which is m = 4,
//     T = 5; m = 3 with T = 6 and m = 5 with T = 4 tie with it).
//   B = 8 (33,024 B; 873,216): m = 4 fits exactly (7 + 6 + 5 + 4 + T = 3), and m = 5 and 6 too:
//     each 18 units, 2,396,160 FLOPs. B = 7: at most 6 + 5 + 4 + 3 + 2 + 1 + 0 units, and T >= 1:
//     nothing fits, so 873,216 B is the least any cut set needs (the compile-fail test
//     checkpoint_auto_too_small).
namespace {
template <std::int64_t Bytes>
using Mlp50Auto = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>,
                               sn::Checkpoint<sn::Auto<sn::Bytes{Bytes}>>>;
constexpr std::int64_t unit_flops = 133'120;
}  // namespace

TEST_CASE("Checkpoint<Auto> on the 50-layer MLP: the least recomputation for each budget") {
  constexpr auto& ample = sn::plan<mlp50::Net, Mlp50Auto<1'000'000>>();
  static_assert(ample.recompute_flops() == 0);
  static_assert(ample.footprint.activations.count == 106'752);

  constexpr auto& twelve = sn::plan<mlp50::Net, Mlp50Auto<889'600>>();
  static_assert(twelve.footprint.activations.count == 49'408);
  static_assert(twelve.footprint.total().count == 889'600);
  static_assert(twelve.recompute_flops() == 14 * unit_flops);

  constexpr auto& as_sqrt = sn::plan<mlp50::Net, Mlp50Auto<881'408>>();
  constexpr auto& sqrt = sn::plan<mlp50::Net, mlp50::Sqrt>();
  static_assert(sqrt.footprint.total().count == 881'408);
  static_assert(as_sqrt.footprint.total().count == 881'408);
  static_assert(as_sqrt.recompute_flops() == sqrt.recompute_flops());
  static_assert(as_sqrt.recompute_flops() == 16 * unit_flops);

  constexpr auto& least = sn::plan<mlp50::Net, Mlp50Auto<873'216>>();
  static_assert(least.footprint.activations.count == 33'024);
  static_assert(least.recompute_flops() == 18 * unit_flops);
  CHECK(least.footprint.total().count == 873'216);
  CHECK(sn::fits<mlp50::Net, Mlp50Auto<873'216>>(sn::Device{sn::Bytes{873'216}, sn::Bytes{}}));
}

// A chain of `Units` units of Linear(64) and ReLU, under Auto at Sqrt's whole step as the budget
// (between its least and its unremedied step), against Sqrt.
template <std::size_t Units>
void check_chain_at_sqrt_budget(sn::ErrorCode expected) {
  CAPTURE(Units);
  auto chain = std::make_unique<std::array<sn::NodeDesc, 2 * Units>>();
  for (std::size_t i = 0; i < chain->size(); ++i) {
    (*chain)[i].layer = i % 2 == 0 ? sn::LayerDesc::of(sn::LayerKind::Linear, 64)
                                   : sn::LayerDesc::of(sn::LayerKind::ReLU);
    (*chain)[i].inputs[0] = static_cast<std::int32_t>(i) - 1;
  }
  sn::SetupDesc setup = mlp50::Sqrt::desc();
  const auto sqrt = std::make_unique<sn::Plan<2 * Units>>(sn::plan(sn::lower(*chain, setup)));
  REQUIRE(sqrt->error.ok());
  setup.checkpoint = sn::CheckpointKind::least;
  setup.checkpoint_budget = sn::Device{sqrt->footprint.total(), sn::Bytes{}};
  const auto p = std::make_unique<sn::Plan<2 * Units>>(sn::plan(sn::lower(*chain, setup)));
  CHECK(p->error.code == expected);
  if (expected == sn::ErrorCode::checkpoint_search_too_large) {
    CHECK(p->error.a == static_cast<std::int64_t>(Units));
  } else {
    CHECK(p->footprint.total() <= sqrt->footprint.total());
    CHECK(p->recompute_flops() < sqrt->recompute_flops());
  }
}

// Auto stops with checkpoint_search_too_large past its allowances (auto_pricing_limit layers laid
// out, auto_comparison_limit states compared), rather than run the compiler past its limits: a
// chain of 250 units asks for far more (bench/RESULTS.md). One of 50 units plans, and recomputes
// less than Sqrt in Sqrt's bytes.
TEST_CASE("Checkpoint<Auto> plans long chains, and stops on one it would search past its limits") {
  check_chain_at_sqrt_budget<50>(sn::ErrorCode::none);
  check_chain_at_sqrt_budget<250>(sn::ErrorCode::checkpoint_search_too_large);
}

// plan() on a lowered graph (what fit, max_batch and the analyzer's probe call) chooses as the
// type-level plan<M, S>() does; and a budget below even the step's other bytes (840,192) is
// refused with the same least need, 873,216 B, as the budget just below it.
TEST_CASE("Checkpoint<Auto>: plan() on a graph agrees with plan<M, S>(), down to tiny budgets") {
  constexpr auto& typed = sn::plan<mlp50::Net, Mlp50Auto<889'600>>();
  const auto lowered = sn::plan(sn::lower(sn::flatten<mlp50::Net>(), Mlp50Auto<889'600>::desc()));
  REQUIRE(lowered.error.ok());
  CHECK(lowered.footprint.total() == typed.footprint.total());
  CHECK(lowered.recompute_flops() == typed.recompute_flops());
  for (std::int64_t budget : {873'215, 100'000, 1}) {
    CAPTURE(budget);
    sn::SetupDesc s = Mlp50Auto<889'600>::desc();
    s.checkpoint_budget = sn::Device{sn::Bytes{budget}, sn::Bytes{}};
    const auto p = sn::plan(sn::lower(sn::flatten<mlp50::Net>(), s));
    CHECK(p.error.code == sn::ErrorCode::checkpoint_budget_too_small);
    CHECK(p.error.a == budget);
    CHECK(p.error.b == 873'216);
  }
}

// A setup that does not lower plans to its error under Auto too (plan() chooses cuts only for a
// graph that plans), and a device profile is a budget like any: the Jetson Nano's 4 GiB less its
// overhead, with the trainer's host bytes, fit the 50-layer MLP as it is, with nothing recomputed.
TEST_CASE("Checkpoint<Auto>: a setup that does not lower, and a device as the budget") {
  sn::SetupDesc s = Mlp50Auto<889'600>::desc();
  s.micro_batches = 3;  // does not divide the batch of 16
  const auto p = sn::plan(sn::lower(sn::flatten<mlp50::Net>(), s));
  CHECK(p.error.code == sn::ErrorCode::micro_batches_do_not_divide);
  using OnNano = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>,
                              sn::Checkpoint<sn::Auto<sn::device::jetson_nano>>>;
  constexpr auto& nano = sn::plan<mlp50::Net, OnNano>();
  static_assert(nano.recompute_flops() == 0);
  static_assert(nano.footprint.activations.count == 106'752);
  static_assert(sn::fits<mlp50::Net, OnNano>(sn::device::jetson_nano));
}

// The floor the search stops at never exceeds what it bounds, also where a segment's input is
// the model's own input under a Flatten's view (which the plan without checkpointing keeps in its
// inputs region, not among the activations).
TEST_CASE("Checkpoint<Auto>: the floor under a Flatten of the model's input") {
  using M = sn::Sequential<sn::Flatten, sn::Linear<16>, sn::ReLU, sn::Linear<16>, sn::ReLU,
                           sn::Linear<4>>;
  using S = sn::Training<sn::Input<sn::f32, 2, 4, 4>, sn::Batch<8>, sn::Loss<sn::MSE>>;
  constexpr auto nodes = sn::flatten<M>();
  const auto g = sn::lower(nodes, S::desc());
  REQUIRE(g.error.ok());
  const auto plain = sn::detail::plan_backward(g, sn::detail::plan_forward(g));
  auto prices = std::make_unique<sn::detail::CheckpointPricer<nodes.size()>>(g, plain);
  REQUIRE(prices->units() >= 2);
  for (std::int64_t i = 0; i + 1 < prices->units(); ++i)
    for (std::int64_t j = i; j + 1 < prices->units(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(prices->local_floor(i, j) <= prices->local(i, j));
    }
}
