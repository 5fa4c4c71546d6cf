// MUST NOT COMPILE: a stride of 0 (the window would never move).
//
// Input (3, 32, 32). Flattened: 0 Conv2d<16, Kernel<3>>, 1 ReLU,
// 2 Conv2d<32, Kernel<3>, Stride<2, 0>>: stride 2 down, 0 across.
// Expected: nonpositive_window_option at layer 2 (Conv2d), option Stride, height 2, width 0.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<16, sn::Kernel<3>>, sn::ReLU,
                   sn::Conv2d<32, sn::Kernel<3>, sn::Stride<2, 0>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
