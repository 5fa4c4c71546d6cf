// MUST NOT COMPILE: BatchNorm1d after a convolution, where BatchNorm2d belongs.
//
// Input (3, 8, 8), Batch 4. 0 Conv2d<4, Kernel<3>>: (4, 4, 6, 6). 1 BatchNorm1d gets it.
// Expected: needs_flat_input at layer 1 (BatchNorm1d), shape (4, 4, 6, 6).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<4, sn::Kernel<3>>, sn::BatchNorm1d<>, sn::Flatten, sn::Linear<2>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 8, 8>, sn::Batch<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
