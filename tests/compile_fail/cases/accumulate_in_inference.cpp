// MUST NOT COMPILE: Accumulate<K> in an Inference setup: there are no gradients to accumulate.
//
// Expected: setup_option_not_accepted, SetupOption::accumulate.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Inference<sn::Input<sn::f32, 64>, sn::Batch<64>, sn::Accumulate<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
