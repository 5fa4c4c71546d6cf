// MUST NOT COMPILE: a 50-layer MLP (25 pairs of Linear(64) and ReLU, MSE, SGD) at a batch of 16
// already in sixteen micro-batches, on a device of 845,000 bytes. It needs 847,104 B
// (tests/core/test_fit.cpp derives it): does_not_fit<required_bytes<847104>, ...>. No more
// micro-batches are left to try; under Checkpoint<Sqrt> it needs 843,008 and recomputes
// 2,129,920 of the step's 9,801,728 FLOPs, 22 %: fits_with_checkpoint<staticnet::Sqrt,
// micro_batches<16>, needs_bytes<843008>, extra_compute_percent<22>>.
#include <staticnet/staticnet.hpp>

#include "../../analyzer/data/mlp50_checkpoint.hpp"

namespace sn = staticnet;

using InSixteen = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<16>, sn::Loss<sn::MSE>,
                               sn::Accumulate<16>>;

static_assert(sn::assert_fits<mlp50::Net, InSixteen, sn::Device{sn::Bytes{845000}, sn::Bytes{0}}>());

int main() {
  return 0;
}
