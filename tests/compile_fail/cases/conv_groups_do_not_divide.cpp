// MUST NOT COMPILE: Groups<4> on a convolution from 6 channels: 4 does not divide 6.
//
// Input (6, 8, 8), Batch 2. 0 Conv2d<8, Kernel<3>, Groups<4>>: 6 input channels, 8 output.
// Expected: groups_do_not_divide at layer 0 (Conv2d), groups 4, in 6, out 8.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<8, sn::Kernel<3>, sn::Groups<4>>, sn::Flatten, sn::Linear<2>>;
using Setup = sn::Training<sn::Input<sn::f32, 6, 8, 8>, sn::Batch<2>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
