// MUST NOT COMPILE: Batch given twice in one setup.
//
// Expected: setup_option_given_twice, setup option Batch.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup =
    sn::Training<sn::Input<sn::f32, 64>, sn::Batch<32>, sn::Optimizer<sn::SGD>, sn::Batch<64>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
