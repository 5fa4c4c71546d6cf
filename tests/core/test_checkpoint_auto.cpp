// Checkpoint<Auto> (issue 39): the prices it searches (checkpoint_costs.hpp) on the sample models,
// against the plans the planner makes; the random models' every cut set is in
// test_planner_graphs.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include <staticnet/checkpoint_costs.hpp>
#include <staticnet/staticnet.hpp>

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
    std::int64_t kept = 0, peak = 0, recompute = 0, start = 0;
    for (std::int64_t u = 0; u < cuts; ++u) {
      if (((mask >> u) & 1) == 0)
        continue;
      peak = std::max(peak, kept + pricer->local(start, u));
      recompute += pricer->recompute(start, u);
      kept += pricer->kept(start, u);
      start = u + 1;
    }
    peak = std::max(peak, kept + pricer->tail(start));
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
