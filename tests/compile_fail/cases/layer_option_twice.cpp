// MUST NOT COMPILE: Kernel given twice on one Conv2d (which one did the author mean?).
//
// Input (3, 32, 32). Flattened: 0 Conv2d<16, Kernel<3>, Padding<1>>, 1 ReLU,
// 2 Conv2d<32, Kernel<3>, Kernel<5>>.
// Expected: option_given_twice at layer 2 (Conv2d), option Kernel.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                   sn::Conv2d<32, sn::Kernel<3>, sn::Kernel<5>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
