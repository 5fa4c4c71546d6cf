// MUST NOT COMPILE: Accumulate<3> on Batch<64>: three micro-batches of equal size cannot make 64.
//
// Expected: micro_batches_do_not_divide, batch 64, micro_batches 3 (64 = 3 · 21 + 1).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 64>, sn::Batch<64>, sn::Accumulate<3>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
