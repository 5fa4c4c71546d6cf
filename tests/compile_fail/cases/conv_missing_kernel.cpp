// MUST NOT COMPILE: a Conv2d without Kernel<...> (there is no sensible default).
//
// Input (3, 32, 32). Flattened: 0 Conv2d<16, Kernel<3>>, 1 ReLU, 2 Conv2d<32, Padding<1>>.
// Expected: missing_kernel at layer 2 (Conv2d).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>>, sn::ReLU,
                             sn::Conv2d<32, sn::Padding<1>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
