// MUST NOT COMPILE: an inference setup with a loss (Inference takes Input, Batch, Precision).
//
// Expected: setup_option_not_accepted, setup option Loss.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Inference<sn::Input<sn::f32, 64>, sn::Batch<1>, sn::Loss<sn::MSE>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
