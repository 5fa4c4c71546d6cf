// MUST NOT COMPILE: a Conv2d with zero output channels.
//
// Input (3, 8, 8). Flattened: 0 Conv2d<8, Kernel<3>> (-> (8, 6, 6)), 1 ReLU,
// 2 Conv2d<0, Kernel<3>>.
// Expected: nonpositive_output at layer 2 (Conv2d), Out written 0.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>>, sn::ReLU, sn::Conv2d<0, sn::Kernel<3>>,
                             sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 8, 8>, sn::Batch<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
