// MUST NOT COMPILE: Checkpoint<P> in an Inference setup: forward keeps nothing for a backward,
// so there is nothing to drop and compute again.
//
// Expected: setup_option_not_accepted, SetupOption::checkpoint.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Inference<sn::Input<sn::f32, 64>, sn::Batch<64>, sn::Checkpoint<sn::Sqrt>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
