// MUST NOT COMPILE: a Conv2d after Flatten, where nothing is spatial any more.
//
// Input (3, 8, 8), Batch 16. 0 Conv2d<4, Kernel<3>>: (16, 4, 6, 6). 1 Flatten: 4*6*6 = 144
// features, (16, 144). 2 Conv2d<8, Kernel<3>> gets (16, 144).
// Expected: needs_spatial_input at layer 2 (Conv2d), input shape (16, 144).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<4, sn::Kernel<3>>, sn::Flatten, sn::Conv2d<8, sn::Kernel<3>>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 8, 8>, sn::Batch<16>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
