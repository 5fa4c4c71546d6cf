// MUST NOT COMPILE: the 50-layer MLP (25 pairs of Linear(64) and ReLU, batch 16, MSE, SGD) under
// Checkpoint<Auto> with a budget of 873,215 bytes. Its step needs 840,192 B besides the
// activations, and no cut set holds fewer than 8 buffers of 4,096 B and the losses' 256 at once
// (tests/core/test_checkpoint_auto.cpp derives both): 873,216 B, one more than the budget.
// checkpoint_budget_too_small<budget_bytes<873215>, needs_bytes<873216>>.
#include <staticnet/staticnet.hpp>

#include "../../analyzer/data/mlp50_checkpoint.hpp"

namespace sn = staticnet;

using TooSmall = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>,
                              sn::Checkpoint<sn::Auto<sn::Bytes{873215}>>>;

constexpr auto& p = sn::plan<mlp50::Net, TooSmall>();

int main() {
  return 0;
}
