// MUST NOT COMPILE: Prefetch in an inference setup (the inference programs have no prefetching
// loop; Inference takes Input, Batch, Precision).
//
// Expected: setup_option_not_accepted, setup option Prefetch.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<32>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Inference<sn::Input<sn::f32, 64>, sn::Batch<8>, sn::Prefetch>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
