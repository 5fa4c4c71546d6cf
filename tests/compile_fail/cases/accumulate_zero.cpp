// MUST NOT COMPILE: Accumulate<0>: a step runs at least one micro-batch.
//
// Expected: nonpositive_micro_batches, micro_batches 0.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<64>, sn::Accumulate<0>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
